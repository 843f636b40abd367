// Reading a DLS file (RIFF 'DLS '): the chunk walk over 'colh', 'vers', 'lins' (instruments with
// their regions and articulation lists), 'ptbl' (the pool table) and 'wvpl' (the wave pool).
//
// DESIGN NOTE
// -----------
// Every count comes from a chunk's size, checked against the bytes present before anything is
// read or allocated, so the largest allocation is proportional to the file: the sample pool is
// sized from the 'data' chunks' byte counts (plus a fixed guard per wave), the connection
// blocks and loops from their chunks' sizes. The structure is fixed (a list is read only where
// the specification places it), so nesting cannot recurse without bound. Errors are
// `SoundBankError`s (format "DLS") naming the chunk and the byte offset of its header.
//
// The pool table's offsets count from the first byte after the 'wvpl' list's type, where the
// first 'wave' list's header starts (DLS Level 1 §2.9, "the offset … from the beginning of the
// wave pool data"); a region whose link's index is past the pool table, or a table entry that
// names no 'wave' list, is an error (the region could not sound). A wave in a format other than
// 8- or 16-bit PCM is an error too: both levels allow only these.

extension DLSBank {
    /// Parses a whole file's bytes.
    public static func parse(_ bytes: UnsafeRawBufferPointer) throws -> DLSBank {
        try DLSReader(bytes: bytes).read()
    }

    /// Parses a whole file's bytes.
    public static func parse(_ bytes: [UInt8]) throws -> DLSBank {
        try bytes.withUnsafeBytes { try parse($0) }
    }
}

private struct DLSChunk {
    var id: String
    var offset: Int   // of the chunk header
    var data: Range<Int>
    /// A LIST's type ("" for other chunks, or a LIST too short to have one).
    var listType: String
    /// A LIST's contents after its type.
    var body: Range<Int> { (data.lowerBound + 4)..<data.upperBound }
}

private struct DLSReader: LittleEndianFields {
    let bytes: UnsafeRawBufferPointer

    func text(_ r: Range<Int>) -> String {
        var chars: [UInt8] = []
        for o in r.prefix(256) {
            let b = bytes[o]
            if b == 0 { break }
            chars.append((32...126).contains(b) ? b : 63)
        }
        while chars.last == 32 { chars.removeLast() }
        return String(decoding: chars, as: UTF8.self)
    }

    func fail(_ chunk: String, _ offset: Int, _ reason: String) -> SoundBankError {
        SoundBankError(chunk: chunk, offset: offset, reason: reason, format: "DLS")
    }

    /// The chunks inside `range` (an odd-sized chunk is followed by a pad byte).
    func chunks(in range: Range<Int>, parent: String) throws -> [DLSChunk] {
        var result: [DLSChunk] = []
        var o = range.lowerBound
        while o + 8 <= range.upperBound {
            let id = fourCC(o)
            let size = Int(u32(o + 4))
            guard size <= range.upperBound - (o + 8) else {
                throw fail(id, o, "its size (\(size) bytes) runs past the end of its '\(parent)' list (\(range.upperBound - o - 8) bytes left)")
            }
            let type = id == "LIST" && size >= 4 ? fourCC(o + 8) : ""
            result.append(DLSChunk(id: id, offset: o, data: (o + 8)..<(o + 8 + size), listType: type))
            o += 8 + size + (size & 1)
        }
        return result
    }

    func require(_ c: DLSChunk, size: Int, _ what: String) throws {
        guard c.data.count >= size else {
            throw fail(c.id, c.offset, "it holds \(c.data.count) bytes; \(what) needs \(size)")
        }
    }

    /// INFO's INAM inside a list's chunks, if any.
    func infoName(_ children: [DLSChunk]) throws -> String {
        guard let info = children.first(where: { $0.listType == "INFO" }) else { return "" }
        let inam = try chunks(in: info.body, parent: "INFO").first { $0.id == "INAM" }
        return inam.map { text($0.data) } ?? ""
    }

    /// A `wsmp` chunk: a header of `cbSize` bytes (at least 20), then `cSampleLoops` 16-byte loops.
    func sampleInfo(_ c: DLSChunk) throws -> DLSSampleInfo {
        try require(c, size: 20, "a wave-sample header")
        let o = c.data.lowerBound
        let headerSize = Int(u32(o))
        guard headerSize >= 20, headerSize <= c.data.count else {
            throw fail(c.id, c.offset, "its header size (\(headerSize)) is outside 20 … \(c.data.count) (the chunk's size)")
        }
        let loopCount = Int(u32(o + 16))
        guard loopCount <= (c.data.count - headerSize) / 16 else {
            throw fail(c.id, c.offset, "it declares \(loopCount) loops; its \(c.data.count - headerSize) bytes after the header hold \((c.data.count - headerSize) / 16)")
        }
        var loops: [DLSLoop] = []
        loops.reserveCapacity(loopCount)
        for i in 0..<loopCount {
            let l = o + headerSize + 16 * i
            loops.append(DLSLoop(type: u32(l + 4), start: u32(l + 8), length: u32(l + 12)))
        }
        return DLSSampleInfo(unityNote: u16(o + 4), fineTune: i16(o + 6), gain: i32(o + 8), options: u32(o + 12), loops: loops)
    }

    /// The connection blocks of an articulation list ('lart' of 'art1', 'lar2' of 'art2').
    func connections(_ list: DLSChunk) throws -> [DLSConnectionBlock] {
        var result: [DLSConnectionBlock] = []
        for c in try chunks(in: list.body, parent: list.listType) where c.id == "art1" || c.id == "art2" {
            try require(c, size: 8, "an articulator header")
            let o = c.data.lowerBound
            let headerSize = Int(u32(o))
            guard headerSize >= 8, headerSize <= c.data.count else {
                throw fail(c.id, c.offset, "its header size (\(headerSize)) is outside 8 … \(c.data.count) (the chunk's size)")
            }
            let count = Int(u32(o + 4))
            guard count <= (c.data.count - headerSize) / 12 else {
                throw fail(c.id, c.offset, "it declares \(count) connection blocks; its \(c.data.count - headerSize) bytes after the header hold \((c.data.count - headerSize) / 12)")
            }
            result.reserveCapacity(result.count + count)
            for i in 0..<count {
                let b = o + headerSize + 12 * i
                result.append(DLSConnectionBlock(source: u16(b), control: u16(b + 2), destination: u16(b + 4), transform: u16(b + 6), scale: i32(b + 8)))
            }
        }
        return result
    }

    /// Every articulation list among a list's chunks, in file order.
    func articulation(_ children: [DLSChunk]) throws -> [DLSConnectionBlock] {
        var result: [DLSConnectionBlock] = []
        for c in children where c.listType == "lart" || c.listType == "lar2" { result += try connections(c) }
        return result
    }

    func read() throws -> DLSBank {
        guard bytes.count >= 12, fourCC(0) == "RIFF" else { throw fail("RIFF", 0, "not a RIFF file") }
        guard fourCC(8) == "DLS " else { throw fail("RIFF", 0, "the RIFF form is '\(fourCC(8))', not 'DLS ' (not a DLS bank)") }
        let riffSize = Int(u32(4))
        guard riffSize >= 4 else { throw fail("RIFF", 0, "its size (\(riffSize)) is too small") }
        let end = min(bytes.count, 8 + riffSize)
        let top = try chunks(in: 12..<end, parent: "DLS ")
        let bank = DLSBank()
        if let colh = top.first(where: { $0.id == "colh" }) {
            try require(colh, size: 4, "the instrument count")
            bank.declaredInstrumentCount = u32(colh.data.lowerBound)
        }
        if let vers = top.first(where: { $0.id == "vers" }) {
            try require(vers, size: 8, "the version")
            bank.version = (u32(vers.data.lowerBound), u32(vers.data.lowerBound + 4))
        }
        bank.name = try infoName(top)

        // The wave pool: a first pass checks every wave and sizes the Float pool.
        guard let wvpl = top.first(where: { $0.listType == "wvpl" }) else { throw fail("wvpl", 12, "the wave pool ('wvpl' list) is missing") }
        struct PendingWave { var wave: DLSWave; var data: DLSChunk; var blockAlign: Int }
        var pending: [PendingWave] = []
        var total = 0
        for w in try chunks(in: wvpl.body, parent: "wvpl") where w.listType == "wave" {
            let children = try chunks(in: w.body, parent: "wave")
            guard let fmt = children.first(where: { $0.id == "fmt " }) else { throw fail("wave", w.offset, "the wave has no 'fmt ' chunk") }
            guard let data = children.first(where: { $0.id == "data" }) else { throw fail("wave", w.offset, "the wave has no 'data' chunk") }
            try require(fmt, size: 16, "a PCM format")
            let f = fmt.data.lowerBound
            let tag = u16(f), channels = u16(f + 2), rate = u32(f + 4), align = Int(u16(f + 12)), bits = u16(f + 14)
            guard tag == 1 else { throw fail("fmt ", fmt.offset, "the wave's format tag is \(tag); DLS waves are PCM (1)") }
            guard bits == 8 || bits == 16 else { throw fail("fmt ", fmt.offset, "\(bits)-bit samples; DLS waves are 8- or 16-bit") }
            guard channels >= 1 else { throw fail("fmt ", fmt.offset, "the wave has no channels") }
            guard rate >= 1 else { throw fail("fmt ", fmt.offset, "the sample rate is 0") }
            let frameBytes = Int(channels) * Int(bits / 8)
            guard align >= frameBytes else { throw fail("fmt ", fmt.offset, "its block alignment (\(align)) is smaller than a frame (\(frameBytes) bytes)") }
            let frames = data.data.count / align
            let info = try children.first(where: { $0.id == "wsmp" }).map { try sampleInfo($0) }
            let wave = DLSWave(name: try infoName(children), formatTag: tag, channels: channels, sampleRate: rate, bitsPerSample: bits,
                               start: total, frameCount: frames, sampleInfo: info, poolOffset: w.offset - wvpl.body.lowerBound)
            pending.append(PendingWave(wave: wave, data: data, blockAlign: align))
            total += frames + DLSBank.guardFrames
        }
        let pool = UnsafeMutableBufferPointer<Float>.allocate(capacity: max(total, 1))
        pool.initialize(repeating: 0)
        bank.samples = pool
        for p in pending {
            let out = pool.baseAddress! + p.wave.start
            let base = p.data.data.lowerBound
            if p.wave.bitsPerSample == 8 {
                for i in 0..<p.wave.frameCount { out[i] = (Float(u8(base + i * p.blockAlign)) - 128) * (1 / 128) }
            } else {
                for i in 0..<p.wave.frameCount { out[i] = Float(i16(base + i * p.blockAlign)) * (1 / 32_768) }
            }
        }
        bank.waves = pending.map(\.wave)

        // The pool table: cue i → the wave whose 'wave' list starts at its offset.
        var cueWaves: [Int] = []
        if let ptbl = top.first(where: { $0.id == "ptbl" }) {
            try require(ptbl, size: 8, "the pool-table header")
            let o = ptbl.data.lowerBound
            let headerSize = Int(u32(o))
            guard headerSize >= 8, headerSize <= ptbl.data.count else {
                throw fail("ptbl", ptbl.offset, "its header size (\(headerSize)) is outside 8 … \(ptbl.data.count) (the chunk's size)")
            }
            let count = Int(u32(o + 4))
            guard count <= (ptbl.data.count - headerSize) / 4 else {
                throw fail("ptbl", ptbl.offset, "it declares \(count) cues; its \(ptbl.data.count - headerSize) bytes after the header hold \((ptbl.data.count - headerSize) / 4)")
            }
            var byOffset: [Int: Int] = [:]
            for (i, w) in bank.waves.enumerated() { byOffset[w.poolOffset] = i }
            var table: [UInt32] = []
            table.reserveCapacity(count)
            cueWaves.reserveCapacity(count)
            for i in 0..<count {
                let offset = u32(o + headerSize + 4 * i)
                table.append(offset)
                guard let w = byOffset[Int(offset)] else {
                    throw fail("ptbl", ptbl.offset, "cue \(i) points at byte \(offset) of the wave pool, where no 'wave' list starts")
                }
                cueWaves.append(w)
            }
            bank.poolTable = table
        }

        // Instruments.
        if let lins = top.first(where: { $0.listType == "lins" }) {
            for ins in try chunks(in: lins.body, parent: "lins") where ins.listType == "ins " {
                let children = try chunks(in: ins.body, parent: "ins ")
                guard let insh = children.first(where: { $0.id == "insh" }) else { throw fail("ins ", ins.offset, "the instrument has no 'insh' header") }
                try require(insh, size: 12, "an instrument header")
                var instrument = DLSInstrument(name: try infoName(children), bank: u32(insh.data.lowerBound + 4), program: u32(insh.data.lowerBound + 8))
                instrument.connections = try articulation(children)
                let declared = Int(u32(insh.data.lowerBound))
                if let lrgn = children.first(where: { $0.listType == "lrgn" }) {
                    for rgn in try chunks(in: lrgn.body, parent: "lrgn") where rgn.listType == "rgn " || rgn.listType == "rgn2" {
                        instrument.regions.append(try region(rgn, cueWaves: cueWaves))
                    }
                }
                guard instrument.regions.count == declared else {
                    throw fail("insh", insh.offset, "it declares \(declared) regions; the instrument's 'lrgn' list holds \(instrument.regions.count)")
                }
                bank.instruments.append(instrument)
            }
        }
        return bank
    }

    func region(_ rgn: DLSChunk, cueWaves: [Int]) throws -> DLSRegion {
        let children = try chunks(in: rgn.body, parent: rgn.listType)
        guard let rgnh = children.first(where: { $0.id == "rgnh" }) else { throw fail(rgn.listType, rgn.offset, "the region has no 'rgnh' header") }
        try require(rgnh, size: 12, "a region header")
        let h = rgnh.data.lowerBound
        var r = DLSRegion(keyLow: u16(h), keyHigh: u16(h + 2), velocityLow: u16(h + 4), velocityHigh: u16(h + 6),
                          options: u16(h + 8), keyGroup: u16(h + 10), layer: rgnh.data.count >= 14 ? u16(h + 12) : 0,
                          isLevel2: rgn.listType == "rgn2")
        if let wsmp = children.first(where: { $0.id == "wsmp" }) { r.sampleInfo = try sampleInfo(wsmp) }
        guard let wlnk = children.first(where: { $0.id == "wlnk" }) else { throw fail(rgn.listType, rgn.offset, "the region has no 'wlnk' wave link") }
        try require(wlnk, size: 12, "a wave link")
        let w = wlnk.data.lowerBound
        r.waveLink = DLSWaveLink(options: u16(w), phaseGroup: u16(w + 2), channel: u32(w + 4), tableIndex: u32(w + 8))
        guard Int(r.waveLink.tableIndex) < cueWaves.count else {
            throw fail("wlnk", wlnk.offset, "the region links to pool-table cue \(r.waveLink.tableIndex); the pool table ('ptbl') has \(cueWaves.count)")
        }
        r.wave = cueWaves[Int(r.waveLink.tableIndex)]
        r.connections = try articulation(children)
        return r
    }
}
