// AVAudioUnitSampler.loadAudioFiles(at:) placing each file from its instrument metadata (Apple:
// "uses any information in the audio file for its placement in the instrument. For example, the
// root key and key range"): files written here byte by byte from the chunk layouts (WAV `smpl`,
// AIFF `INST` + `MARK`, CAF `inst`), then played through the public API and measured — the pitch
// a key sounds at, which keys and velocities sound, how long a held note lasts with a loop.
import Foundation
import Testing
import AVFoundation
import AudioAnalysis

@Suite struct SamplerAudioFileMetadataTests {
    static let rate = 44_100

    /// 16-bit samples of a sine.
    static func sine(_ hz: Double, frames: Int, amplitude: Double = 0.5) -> [Int16] {
        (0..<frames).map { Int16((amplitude * 32_767 * sin(2 * Double.pi * hz * Double($0) / Double(rate))).rounded()) }
    }

    static func le32(_ v: UInt32) -> [UInt8] { withUnsafeBytes(of: v.littleEndian) { Array($0) } }
    static func le16(_ v: UInt16) -> [UInt8] { withUnsafeBytes(of: v.littleEndian) { Array($0) } }
    static func be32(_ v: UInt32) -> [UInt8] { withUnsafeBytes(of: v.bigEndian) { Array($0) } }
    static func be16(_ v: UInt16) -> [UInt8] { withUnsafeBytes(of: v.bigEndian) { Array($0) } }
    static func be64(_ v: UInt64) -> [UInt8] { withUnsafeBytes(of: v.bigEndian) { Array($0) } }
    static func id(_ s: String) -> [UInt8] { Array(s.utf8) }

    static func write(_ bytes: [UInt8], _ ext: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("sampler-meta-\(UUID().uuidString).\(ext)")
        try Data(bytes).write(to: url)
        return url
    }

    /// A mono 16-bit WAV with a `smpl` chunk (unity note, pitch fraction, optional loop: first and
    /// last frame, inclusive, as the chunk stores them).
    static func wav(_ samples: [Int16], unity: UInt32?, fraction: UInt32 = 0, loop: (UInt32, UInt32)? = nil) throws -> URL {
        var fmt = id("fmt ") + le32(16) + le16(1) + le16(1) + le32(UInt32(rate)) + le32(UInt32(rate * 2)) + le16(2) + le16(16)
        let data = samples.flatMap { le16(UInt16(bitPattern: $0)) }
        fmt += id("data") + le32(UInt32(data.count)) + data
        if let unity {
            var smpl = le32(0) + le32(0) + le32(UInt32(1_000_000_000 / rate)) + le32(unity) + le32(fraction) + le32(0) + le32(0)
            smpl += le32(loop == nil ? 0 : 1) + le32(0)
            if let loop { smpl += le32(0) + le32(0) + le32(loop.0) + le32(loop.1) + le32(0) + le32(0) }
            fmt += id("smpl") + le32(UInt32(smpl.count)) + smpl
        }
        return try write(id("RIFF") + le32(UInt32(4 + fmt.count)) + id("WAVE") + fmt, "wav")
    }

    /// A mono 16-bit AIFF with an `INST` chunk and, for a sustain loop, two markers.
    static func aiff(_ samples: [Int16], base: UInt8, detune: Int8 = 0, keys: (UInt8, UInt8), velocities: (UInt8, UInt8),
                     loop: (UInt32, UInt32)? = nil, gain: Int16 = 0) throws -> URL {
        // 44,100 as an 80-bit extended float: exponent 16383 + 15, mantissa 44100 << 48.
        let rate80: [UInt8] = be16(16_383 + 15) + be64(UInt64(rate) << 48)
        var chunks = id("COMM") + be32(18) + be16(1) + be32(UInt32(samples.count)) + be16(16) + rate80
        let data = samples.flatMap { be16(UInt16(bitPattern: $0)) }
        chunks += id("SSND") + be32(UInt32(8 + data.count)) + be32(0) + be32(0) + data
        if let loop {
            // two markers, ids 1 and 2, each with a one-letter name (1 + 1 bytes: even, no pad)
            let mark = be16(2) + be16(1) + be32(loop.0) + [1] + id("a") + be16(2) + be32(loop.1) + [1] + id("b")
            chunks += id("MARK") + be32(UInt32(mark.count)) + mark
        }
        let inst: [UInt8] = [base, UInt8(bitPattern: detune), keys.0, keys.1, velocities.0, velocities.1] + be16(UInt16(bitPattern: gain))
            + be16(loop == nil ? 0 : 1) + be16(1) + be16(2) + be16(0) + be16(0) + be16(0)
        chunks += id("INST") + be32(UInt32(inst.count)) + inst
        return try write(id("FORM") + be32(UInt32(4 + chunks.count)) + id("AIFF") + chunks, "aif")
    }

    /// A mono 16-bit big-endian CAF with an `inst` chunk.
    static func caf(_ samples: [Int16], base: Float, keys: (UInt8, UInt8), gain: Float = 0) throws -> URL {
        var bytes = id("caff") + be16(1) + be16(0)
        let desc = be64(Double(rate).bitPattern) + id("lpcm") + be32(0) + be32(2) + be32(1) + be32(1) + be32(16)
        bytes += id("desc") + be64(UInt64(desc.count)) + desc
        let inst = be32(base.bitPattern) + [keys.0, keys.1, 1, 127] + be32(gain.bitPattern) + be32(0) + be32(0) + be32(0) + be32(0)
        bytes += id("inst") + be64(UInt64(inst.count)) + inst
        let data = be32(0) + samples.flatMap { be16(UInt16(bitPattern: $0)) }
        bytes += id("data") + be64(UInt64(data.count)) + data
        return try write(bytes, "caf")
    }

    /// Plays one note on a fresh sampler loaded with `files` (a sampler keeps its voices from one
    /// engine to the next, so each measurement starts from a new one).
    static func play(_ files: [URL], key: UInt8, velocity: UInt8 = 127, frames: Int = 24_000) throws -> [Float] {
        let sampler = AVAudioUnitSampler()
        try sampler.loadAudioFiles(at: files)
        return try renderSampler(sampler, events: [(0, [0x90, key, velocity])], frames: frames).left
    }

    static func cents(_ x: [Float], _ expected: Double) -> Double {
        ToneAnalysis.stats(x[2_000..<20_000], sampleRate: 48_000, expected: expected).centsError
    }

    @Test("A WAV's smpl unity note and pitch fraction set the root key")
    func wavRootKeyAndFraction() throws {
        let a = try Self.wav(Self.sine(440, frames: Self.rate), unity: 69)
        let half = try Self.wav(Self.sine(440, frames: Self.rate), unity: 69, fraction: 0x8000_0000)   // root 69.5
        defer { try? FileManager.default.removeItem(at: a); try? FileManager.default.removeItem(at: half) }
        var out = try Self.play([a], key: 81)
        #expect(abs(Self.cents(out, 880)) < 0.1, "key 81 over root 69: \(Self.cents(out, 880)) cents from 880 Hz")
        out = try Self.play([a], key: 69)
        #expect(abs(Self.cents(out, 440)) < 0.1)
        out = try Self.play([half], key: 69)
        let expected = 440 * pow(2, -0.5 / 12)
        #expect(abs(Self.cents(out, expected)) < 0.1, "root 69.5 played on 69: \(Self.cents(out, expected)) cents off")
    }

    @Test("AIFF's INST chunk: base note with detune, key and velocity ranges")
    func aiffKeyAndVelocityRanges() throws {
        // 220 Hz recorded as base note 57 (A3) with a detune of +20 cents, which AIFF 1.3 defines as
        // raising the playback pitch: key 69 sounds 440 · 2^(20/1200).
        let url = try Self.aiff(Self.sine(220, frames: Self.rate), base: 57, detune: 20, keys: (50, 70), velocities: (40, 100))
        defer { try? FileManager.default.removeItem(at: url) }
        let tone = try Self.play([url], key: 69, velocity: 80)
        let expected = 440 * pow(2, 20.0 / 1200)
        #expect(abs(Self.cents(tone, expected)) < 0.1, "\(Self.cents(tone, expected)) cents off")
        #expect(try Self.play([url], key: 71, velocity: 80, frames: 4_800).allSatisfy { $0 == 0 })    // above the key range
        #expect(try Self.play([url], key: 60, velocity: 120, frames: 4_800).allSatisfy { $0 == 0 })   // above the velocity range
        #expect(try Self.play([url], key: 60, velocity: 40, frames: 4_800).contains { $0 != 0 })
    }

    @Test("A sustain loop (WAV smpl, AIFF markers) keeps a held note sounding past the sample's end; without one it ends")
    func sustainLoops() throws {
        // 0.25 s of 441 Hz: 100 frames a period, the loop over whole periods (frames 5,000 … 9,999).
        let tone = Self.sine(441, frames: Self.rate / 4)
        let looped = try Self.wav(tone, unity: 69, loop: (5_000, 9_999))
        let plain = try Self.wav(tone, unity: 69)
        let marked = try Self.aiff(tone, base: 69, keys: (0, 127), velocities: (1, 127), loop: (5_000, 10_000))
        defer { for u in [looped, plain, marked] { try? FileManager.default.removeItem(at: u) } }
        for (url, loops) in [(looped, true), (plain, false), (marked, true)] {
            let sampler = AVAudioUnitSampler()
            try sampler.loadAudioFiles(at: [url])
            let out = try renderSampler(sampler, events: [(0, [0x90, 69, 127])], frames: 48_000)
            let late = rmsDB(out.left[36_000..<48_000])   // 0.75 s … 1 s, the key still held
            if loops {
                #expect(late > -20, "\(url.pathExtension): a looped held note at 0.75–1 s is at \(late) dB")
                #expect(abs(Self.cents(Array(out.left[24_000..<48_000]), 441)) < 1, "the loop keeps the pitch")
            } else {
                #expect(late < -100, "\(url.pathExtension): an unlooped note after its sample ended is at \(late) dB")
            }
        }
    }

    @Test("Several files naming root keys without key ranges share the keyboard between their roots")
    func rootKeysShareTheKeyboard() throws {
        let low = try Self.wav(Self.sine(300, frames: Self.rate), unity: 60)
        let high = try Self.wav(Self.sine(1_000, frames: Self.rate), unity: 72)
        defer { try? FileManager.default.removeItem(at: low); try? FileManager.default.removeItem(at: high) }
        // key 66 is the midpoint: the lower file plays up to it, the higher from 67
        var out = try Self.play([high, low], key: 66)
        #expect(abs(Self.cents(out, 300 * pow(2, 6.0 / 12))) < 0.1)
        out = try Self.play([high, low], key: 67)
        #expect(abs(Self.cents(out, 1_000 * pow(2, -5.0 / 12))) < 0.1)
        out = try Self.play([high, low], key: 20)   // the lowest file reaches down to key 0
        #expect(abs(Self.cents(out, 300 * pow(2, -40.0 / 12))) < 0.5)
    }

    @Test("CAF's inst chunk: the Float32 base note and the key range")
    func cafBaseNoteAndKeys() throws {
        let url = try Self.caf(Self.sine(440, frames: Self.rate), base: 69, keys: (60, 90))
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(abs(Self.cents(try Self.play([url], key: 81), 880)) < 0.1)
        #expect(try Self.play([url], key: 91, frames: 4_800).allSatisfy { $0 == 0 })   // above the key range
    }

    @Test("AIFF's and CAF's gain (dB) scale the file's sample, cuts and boosts alike")
    func instrumentGain() throws {
        let tone = Self.sine(440, frames: Self.rate / 2, amplitude: 0.1)
        var urls: [URL] = []
        defer { urls.forEach { try? FileManager.default.removeItem(at: $0) } }
        func level(_ url: URL) throws -> Double {
            urls.append(url)
            return rmsDB(try Self.play([url], key: 69)[2_000..<20_000])
        }
        let aiff0 = try level(Self.aiff(tone, base: 69, keys: (0, 127), velocities: (1, 127)))
        for gain in [-12, -6, 6] {
            let d = try level(Self.aiff(tone, base: 69, keys: (0, 127), velocities: (1, 127), gain: Int16(gain))) - aiff0
            #expect(abs(d - Double(gain)) < 0.01, "AIFF gain \(gain) dB: level changed by \(d) dB")
        }
        let caf0 = try level(Self.caf(tone, base: 69, keys: (0, 127)))
        for gain: Float in [-9.5, 3] {
            let d = try level(Self.caf(tone, base: 69, keys: (0, 127), gain: gain)) - caf0
            #expect(abs(d - Double(gain)) < 0.01, "CAF gain \(gain) dB: level changed by \(d) dB")
        }
    }

    @Test("Hostile instrument chunks are ignored: the file still loads and plays at the layout without metadata")
    func hostileChunksAreIgnored() throws {
        // a unity note of 200, a loop past the end, a smpl chunk claiming 4 billion loops
        let badNote = try Self.wav(Self.sine(440, frames: Self.rate), unity: 200)
        let badLoop = try Self.wav(Self.sine(440, frames: Self.rate), unity: 69, loop: (10, 4_000_000))
        var bytes = try Data(contentsOf: badLoop)
        if let at = bytes.range(of: Data("smpl".utf8))?.lowerBound { bytes.replaceSubrange((at + 8 + 28)..<(at + 8 + 32), with: [0xFF, 0xFF, 0xFF, 0xFF]) }
        let manyLoops = try Self.write(Array(bytes), "wav")
        defer { for u in [badNote, badLoop, manyLoops] { try? FileManager.default.removeItem(at: u) } }
        #expect(abs(Self.cents(try Self.play([badNote], key: 72), 880)) < 0.1, "no usable root key: the file's pitch on middle C")
        for url in [badLoop, manyLoops] {
            #expect(abs(Self.cents(try Self.play([url], key: 81), 880)) < 0.1, "the root key kept, the bad loop dropped")
        }
    }
}
