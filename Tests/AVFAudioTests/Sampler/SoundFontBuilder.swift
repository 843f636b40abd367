// Builds small SoundFont 2 banks byte by byte for the sampler's tests: one sample (16-bit,
// optionally with sm24), one instrument with one zone, one preset, chosen generators.
import Foundation

struct SoundFontBuilder {
    var samples: [Int16]
    var sampleRate: UInt32 = 44_000
    var originalPitch: UInt8 = 69
    var pitchCorrection: Int8 = 0
    var loop: (start: Int, end: Int) = (0, 0)
    /// Instrument-zone generators (before sampleID), preset-zone generators (before instrument).
    var instrumentGenerators: [(UInt16, Int16)] = []
    var presetGenerators: [(UInt16, Int16)] = []
    /// Instrument-zone and preset-zone modulator records (`imod`/`pmod`, SoundFont 2.04 §7.8/§7.4).
    var instrumentModulators: [Mod] = []
    var presetModulators: [Mod] = []
    var bank: UInt16 = 0, program: UInt16 = 0
    var version: (UInt16, UInt16) = (2, 1)
    /// The low bytes of 24-bit samples (an `sm24` chunk; the bank's version must be 2.04).
    var sm24: [UInt8]?

    /// SF3: the sample as an Ogg Vorbis stream (the `smpl` chunk holds these bytes, the header
    /// gives byte offsets and type 0x11, loops stay relative), the bank's version 3.1.
    var compressed: [UInt8]?

    init(samples: [Int16]) { self.samples = samples }

    /// A sine of `period` points per cycle, `cycles` cycles, amplitude `amplitude`, looped over whole cycles after the first.
    static func sine(period: Int, cycles: Int, amplitude: Double = 16_000) -> SoundFontBuilder {
        var s: [Int16] = []
        for i in 0..<(period * cycles) { s.append(Int16((amplitude * sin(2 * Double.pi * Double(i) / Double(period))).rounded())) }
        var b = SoundFontBuilder(samples: s)
        b.loop = (period, period * (cycles - 1))
        return b
    }

    func bytes() -> [UInt8] {
        func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func le32(_ v: UInt32) -> [UInt8] { le16(UInt16(v & 0xFFFF)) + le16(UInt16(v >> 16)) }
        func name(_ s: String, _ n: Int) -> [UInt8] { Array((Array(s.utf8) + [UInt8](repeating: 0, count: n)).prefix(n)) }
        func chunk(_ id: String, _ data: [UInt8]) -> [UInt8] { Array(id.utf8) + le32(UInt32(data.count)) + data + (data.count % 2 == 1 ? [0] : []) }
        func list(_ type: String, _ chunks: [[UInt8]]) -> [UInt8] { chunk("LIST", Array(type.utf8) + chunks.flatMap { $0 }) }

        let version = compressed == nil ? self.version : (3, 1)
        let info = list("INFO", [chunk("ifil", le16(version.0) + le16(version.1)), chunk("isng", Array("EMU8000\0".utf8)), chunk("INAM", Array("Test\0\0".utf8))])
        var pcm: [UInt8] = []
        for s in samples { pcm += le16(UInt16(bitPattern: s)) }
        pcm += [UInt8](repeating: 0, count: 46 * 2)
        if let compressed { pcm = compressed }
        var sdtaChunks = [chunk("smpl", pcm)]
        if let sm24 { sdtaChunks.append(chunk("sm24", sm24 + [UInt8](repeating: 0, count: 46))) }
        let sdta = list("sdta", sdtaChunks)
        let phdr = name("Preset", 20) + le16(program) + le16(bank) + le16(0) + le32(0) + le32(0) + le32(0)
            + name("EOP", 20) + le16(0) + le16(0) + le16(1) + le32(0) + le32(0) + le32(0)
        let pbag = le16(0) + le16(0) + le16(UInt16(presetGenerators.count + 1)) + le16(UInt16(presetModulators.count))
        let pmod = presetModulators.flatMap { $0.bytes } + [UInt8](repeating: 0, count: 10)
        var pgen: [UInt8] = []
        for (op, v) in presetGenerators { pgen += le16(op) + le16(UInt16(bitPattern: v)) }
        pgen += le16(41) + le16(0) + le32(0)
        let inst = name("Instrument", 20) + le16(0) + name("EOI", 20) + le16(1)
        let ibag = le16(0) + le16(0) + le16(UInt16(instrumentGenerators.count + 1)) + le16(UInt16(instrumentModulators.count))
        let imod = instrumentModulators.flatMap { $0.bytes } + [UInt8](repeating: 0, count: 10)
        var igen: [UInt8] = []
        for (op, v) in instrumentGenerators { igen += le16(op) + le16(UInt16(bitPattern: v)) }
        igen += le16(53) + le16(0) + le32(0)
        let shdr = name("Sample", 20) + le32(0) + le32(UInt32(compressed?.count ?? samples.count)) + le32(UInt32(loop.start)) + le32(UInt32(loop.end))
            + le32(sampleRate) + [originalPitch, UInt8(bitPattern: pitchCorrection)] + le16(0) + le16(compressed == nil ? 1 : 0x11)
            + name("EOS", 20) + [UInt8](repeating: 0, count: 26)
        let pdta = list("pdta", [chunk("phdr", phdr), chunk("pbag", pbag), chunk("pmod", pmod), chunk("pgen", pgen),
                                 chunk("inst", inst), chunk("ibag", ibag), chunk("imod", imod), chunk("igen", igen), chunk("shdr", shdr)])
        let body = Array("sfbk".utf8) + info + sdta + pdta
        return Array("RIFF".utf8) + le32(UInt32(body.count)) + body
    }

    /// Writes the bank to a temporary file.
    func write() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("sampler-test-\(UUID().uuidString).sf2")
        try Data(bytes()).write(to: url)
        return url
    }
}

/// One modulator record: source and amount-source operators, destination, amount, transform.
struct Mod {
    var source: UInt16, destination: UInt16, amount: Int16, amountSource: UInt16 = 0, transform: UInt16 = 0
    var bytes: [UInt8] {
        [source, destination, UInt16(bitPattern: amount), amountSource, transform].flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
    }
    /// A source operator (§8.2): index, CC flag, direction (negative), polarity (bipolar), curve (0 linear, 1 concave, 2 convex, 3 switch).
    static func src(_ index: UInt16, cc: Bool = false, negative: Bool = false, bipolar: Bool = false, curve: UInt16 = 0) -> UInt16 {
        index | (cc ? 0x80 : 0) | (negative ? 0x100 : 0) | (bipolar ? 0x200 : 0) | curve << 10
    }
}

// Generator numbers used by the tests (SoundFont 2.04 §8.1.2).
enum Gen {
    static let initialFilterFc: UInt16 = 8, initialFilterQ: UInt16 = 9, pan: UInt16 = 17, vibLfoToPitch: UInt16 = 6, freqVibLFO: UInt16 = 24
    static let attackVolEnv: UInt16 = 34, holdVolEnv: UInt16 = 35, decayVolEnv: UInt16 = 36, sustainVolEnv: UInt16 = 37, releaseVolEnv: UInt16 = 38
    static let initialAttenuation: UInt16 = 48, coarseTune: UInt16 = 51, fineTune: UInt16 = 52
    static let sampleModes: UInt16 = 54, scaleTuning: UInt16 = 56, exclusiveClass: UInt16 = 57, overridingRootKey: UInt16 = 58
    static func timecents(_ seconds: Double) -> Int16 { Int16((1200 * log2(seconds)).rounded()) }
}
