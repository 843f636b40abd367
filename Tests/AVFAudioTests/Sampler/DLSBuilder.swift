// Builds small DLS banks byte by byte for the sampler's tests (DLS Level 1 / 2 chunk layouts):
// waves (8- or 16-bit PCM, an optional wave-level wsmp), instruments with regions (rgnh, wsmp,
// wlnk, lart/art1 or lar2/art2), the pool table and INFO names. No third-party data.
import Foundation
import SoundBanks

struct DLSBuilder {
    struct Wsmp {
        var unityNote: UInt16 = 60, fineTune: Int16 = 0, gain: Int32 = 0, options: UInt32 = 0
        var loops: [(type: UInt32, start: UInt32, length: UInt32)] = []
    }
    struct Wave {
        var pcm: [UInt8]               // little-endian frames as written to 'data'
        var bits: UInt16 = 16
        var rate: UInt32 = 44_000
        var wsmp: Wsmp?
        var name = "Wave"
    }
    struct Region {
        var keys: (UInt16, UInt16) = (0, 127), velocities: (UInt16, UInt16) = (0, 127)
        var options: UInt16 = 0, keyGroup: UInt16 = 0
        var layer: UInt16? = nil       // a 14-byte rgnh
        var level2 = false             // 'rgn2' and 'lar2'/'art2'
        var wsmp: Wsmp?
        var tableIndex: UInt32 = 0
        var connections: [DLSConnectionBlock] = []
    }
    struct Instrument {
        var name = "Instrument"
        var bank: UInt32 = 0, program: UInt32 = 0
        var regions: [Region] = []
        var connections: [DLSConnectionBlock] = []
        var level2 = false
        /// The region count written in 'insh' (nil: the real count).
        var declaredRegions: UInt32?
    }

    var waves: [Wave] = []
    var instruments: [Instrument] = []
    var name = "Test DLS"
    var version: (UInt32, UInt32) = (0x0001_0002, 0x0003_0004)
    /// Pool-table offsets (nil: each wave's real offset).
    var poolTable: [UInt32]?

    static func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    static func le32(_ v: UInt32) -> [UInt8] { le16(UInt16(v & 0xFFFF)) + le16(UInt16(v >> 16)) }
    static func chunk(_ id: String, _ data: [UInt8]) -> [UInt8] { Array(id.utf8) + le32(UInt32(data.count)) + data + (data.count % 2 == 1 ? [0] : []) }
    static func list(_ type: String, _ chunks: [[UInt8]]) -> [UInt8] { chunk("LIST", Array(type.utf8) + chunks.flatMap { $0 }) }
    static func info(_ name: String) -> [UInt8] { list("INFO", [chunk("INAM", Array(name.utf8) + [0])]) }

    static func wsmpChunk(_ w: Wsmp) -> [UInt8] {
        var d = le32(20) + le16(w.unityNote) + le16(UInt16(bitPattern: w.fineTune)) + le32(UInt32(bitPattern: w.gain)) + le32(w.options) + le32(UInt32(w.loops.count))
        for l in w.loops { d += le32(16) + le32(l.type) + le32(l.start) + le32(l.length) }
        return chunk("wsmp", d)
    }
    static func articulation(_ blocks: [DLSConnectionBlock], level2: Bool) -> [UInt8] {
        var d = le32(8) + le32(UInt32(blocks.count))
        for b in blocks { d += le16(b.source) + le16(b.control) + le16(b.destination) + le16(b.transform) + le32(UInt32(bitPattern: b.scale)) }
        return list(level2 ? "lar2" : "lart", [chunk(level2 ? "art2" : "art1", d)])
    }

    /// 16-bit samples as 'data' bytes.
    static func pcm16(_ s: [Int16]) -> [UInt8] { s.flatMap { le16(UInt16(bitPattern: $0)) } }

    /// A sine of `period` points per cycle, `cycles` cycles, as 16-bit (or 8-bit unsigned) PCM.
    static func sineWave(period: Int, cycles: Int, bits: UInt16 = 16, amplitude: Double = 0.5) -> Wave {
        let n = period * cycles
        if bits == 8 {
            return Wave(pcm: (0..<n).map { UInt8(128 + (127 * amplitude * sin(2 * Double.pi * Double($0) / Double(period))).rounded()) }, bits: 8)
        }
        return Wave(pcm: pcm16((0..<n).map { Int16((32_767 * amplitude * sin(2 * Double.pi * Double($0) / Double(period))).rounded()) }))
    }

    func bytes() -> [UInt8] {
        typealias B = DLSBuilder
        // the wave pool, and each wave's offset from the first byte after 'wvpl'
        var pool: [UInt8] = []
        var offsets: [UInt32] = []
        for w in waves {
            offsets.append(UInt32(pool.count))
            let align = w.bits / 8
            let fmt = B.le16(1) + B.le16(1) + B.le32(w.rate) + B.le32(w.rate * UInt32(align)) + B.le16(align) + B.le16(w.bits)
            var parts = [B.chunk("fmt ", fmt)]
            if let s = w.wsmp { parts.append(B.wsmpChunk(s)) }
            parts.append(B.chunk("data", w.pcm))
            parts.append(B.info(w.name))
            pool += B.list("wave", parts)
        }
        let table = poolTable ?? offsets
        let ptbl = B.chunk("ptbl", B.le32(8) + B.le32(UInt32(table.count)) + table.flatMap { B.le32($0) })
        var lins: [[UInt8]] = []
        for ins in instruments {
            var regions: [[UInt8]] = []
            for r in ins.regions {
                var rgnh = B.le16(r.keys.0) + B.le16(r.keys.1) + B.le16(r.velocities.0) + B.le16(r.velocities.1) + B.le16(r.options) + B.le16(r.keyGroup)
                if let layer = r.layer { rgnh += B.le16(layer) }
                var parts = [B.chunk("rgnh", rgnh)]
                if let s = r.wsmp { parts.append(B.wsmpChunk(s)) }
                parts.append(B.chunk("wlnk", B.le16(0) + B.le16(0) + B.le32(1) + B.le32(r.tableIndex)))
                if !r.connections.isEmpty { parts.append(B.articulation(r.connections, level2: r.level2)) }
                regions.append(B.list(r.level2 ? "rgn2" : "rgn ", parts))
            }
            var parts = [B.chunk("insh", B.le32(ins.declaredRegions ?? UInt32(ins.regions.count)) + B.le32(ins.bank) + B.le32(ins.program)),
                         B.list("lrgn", regions)]
            if !ins.connections.isEmpty { parts.append(B.articulation(ins.connections, level2: ins.level2)) }
            parts.append(B.info(ins.name))
            lins.append(B.list("ins ", parts))
        }
        let body = Array("DLS ".utf8) + B.chunk("colh", B.le32(UInt32(instruments.count))) + B.chunk("vers", B.le32(version.0) + B.le32(version.1))
            + B.list("lins", lins) + ptbl + B.list("wvpl", [pool]) + B.info(name)
        return Array("RIFF".utf8) + B.le32(UInt32(body.count)) + body
    }

    /// Writes the bank to a temporary file (extension `ext`).
    func write(ext: String = "dls") throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("sampler-dls-\(UUID().uuidString).\(ext)")
        try Data(bytes()).write(to: url)
        return url
    }
}

/// Connection blocks as the tests write them (`value` in the destination's unit; × 65536 here).
func dlsConn(_ source: UInt16, _ destination: UInt16, _ value: Double, control: UInt16 = 0, transform: UInt16 = 0) -> DLSConnectionBlock {
    DLSConnectionBlock(source: source, control: control, destination: destination, transform: transform, scale: Int32((value * 65_536).rounded()))
}
func dlsTimecents(_ seconds: Double) -> Double { 1_200 * log2(seconds) }
