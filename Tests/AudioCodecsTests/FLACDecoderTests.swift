// The FLAC decoder against reference encoders: streams written by ffmpeg's FLAC encoder (every
// compression level's tools: fixed and LPC predictors up to order 32, Rice escape codes, all
// stereo decorrelation modes, wasted bits) and by libsndfile (libFLAC), decoded bit-exactly back
// to the integer samples they were made from. Signals: tones with noise, white noise (verbatim
// and escape partitions), silence and constants, shifted samples (wasted bits), 8/16/24-bit,
// 1, 2 and 6 channels. Skips visibly when python3 with numpy/soundfile or ffmpeg is missing.
import Foundation
import Testing
import AudioCodecs

@Suite struct FLACDecoderTests {
    static let tools: (python: Bool, ffmpeg: Bool) = {
        func runs(_ args: [String]) -> Bool {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            p.arguments = args
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            do { try p.run() } catch { return false }
            p.waitUntilExit()
            return p.terminationStatus == 0
        }
        return (runs(["python3", "-c", "import numpy, soundfile"]), runs(["ffmpeg", "-version"]))
    }()

    /// Makes the test signals: for each case a WAV (the encoders' input), a FLAC from libsndfile,
    /// and the samples as little-endian Int32, interleaved.
    static let generator = #"""
import numpy as np, soundfile as sf, sys, os
d = sys.argv[1]
rng = np.random.default_rng(7)
def save(name, x, rate, bits):
    x = np.asarray(x, dtype=np.int64)
    lim = 2 ** (bits - 1)
    x = np.clip(x, -lim, lim - 1).astype(np.int32)
    sub = {8: 'PCM_U8', 16: 'PCM_16', 24: 'PCM_24'}[bits]
    scale = 2 ** (32 - bits)
    # soundfile writes int32 data scaled to the subtype's bits (high bits)
    sf.write(os.path.join(d, name + '.wav'), x * scale if bits < 32 else x, rate, subtype=sub)
    sf.write(os.path.join(d, name + '.sndfile.flac'), x * scale, rate, subtype={8: 'PCM_S8', 16: 'PCM_16', 24: 'PCM_24'}[bits], format='FLAC')
    x.astype('<i4').tofile(os.path.join(d, name + '.raw'))
t = np.arange(3 * 44100)
tone = np.sin(2 * np.pi * 440 * t / 44100) * 0.6 + rng.normal(0, 0.01, t.size)
save('stereo16', np.stack([tone * 32767, (np.roll(tone, 37) * 0.5) * 32767], axis=1), 44100, 16)
save('mono24', (np.sin(2 * np.pi * 1234.5 * t / 44100) * 0.9 * 8388607 + rng.normal(0, 200, t.size))[:, None], 44100, 24)
noise = rng.integers(-32768, 32767, size=(44100, 2))
save('noise16', noise, 48000, 16)
quiet = np.zeros((30000, 2)); quiet[10000:20000, 0] = 1234; quiet[15000:, 1] = -7
save('constant16', quiet, 22050, 16)
shifted = (np.round(tone[:50000] * 2000).astype(np.int64) * 16)
save('wasted16', np.stack([shifted, shifted * 2], axis=1), 44100, 16)
six = np.stack([np.sin(2 * np.pi * (200 + 110 * k) * t[:60000] / 48000) * 20000 + rng.normal(0, 50, 60000) for k in range(6)], axis=1)
save('six16', six, 48000, 16)
save('byte8', (np.sin(2 * np.pi * 300 * t[:20000] / 8000) * 120)[:, None], 8000, 8)
"""#

    func work() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flac-tests-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let script = dir.appendingPathComponent("gen.py")
        try Self.generator.write(to: script, atomically: true, encoding: .utf8)
        try run(["python3", script.path, dir.path])
        return dir
    }

    func run(_ args: [String]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = args
        p.standardOutput = FileHandle.nullDevice
        let err = Pipe()
        p.standardError = err
        try p.run()
        let message = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        if p.terminationStatus != 0 {
            throw CodecError(.corrupt, "\(args.joined(separator: " ")) failed: \(String(decoding: message, as: UTF8.self).suffix(400))")
        }
    }

    static let cases: [(name: String, channels: Int, bits: Int)] = [
        ("stereo16", 2, 16), ("mono24", 1, 24), ("noise16", 2, 16), ("constant16", 2, 16), ("wasted16", 2, 16), ("six16", 6, 16), ("byte8", 1, 8),
    ]

    /// Decodes `flac` and compares it with the case's samples; returns the mismatch count.
    @discardableResult
    func check(_ flac: URL, _ raw: URL, channels: Int, bits: Int) throws -> FLACFrameDecoder.Statistics {
        let data = try Data(contentsOf: flac)
        let expected = try Data(contentsOf: raw).withUnsafeBytes { Array($0.bindMemory(to: Int32.self)) }
        let (info, decoded, statistics) = try data.withUnsafeBytes { try FLACDecoder.decode($0) }
        #expect(info.channelCount == channels, "\(flac.lastPathComponent)")
        #expect(info.bitsPerSample == bits, "\(flac.lastPathComponent)")
        let frames = expected.count / channels
        #expect(decoded.count == channels && decoded.allSatisfy { $0.count == frames }, "\(flac.lastPathComponent): \(decoded.first?.count ?? 0) frames, expected \(frames)")
        guard decoded.count == channels, decoded.allSatisfy({ $0.count == frames }) else { return statistics }
        var mismatches = 0
        for i in 0..<frames {
            for c in 0..<channels where decoded[c][i] != expected[i * channels + c] { mismatches += 1 }
        }
        #expect(mismatches == 0, "\(flac.lastPathComponent): \(mismatches) samples differ")
        return statistics
    }

    @Test func libsndfileStreamsDecodeBitExactly() throws {
        guard Self.tools.python else { print("SKIP libsndfile FLAC cases: python3 with numpy and soundfile is not installed"); return }
        let dir = try work()
        defer { try? FileManager.default.removeItem(at: dir) }
        var all = FLACFrameDecoder.Statistics()
        for c in Self.cases {
            all.add(try check(dir.appendingPathComponent(c.name + ".sndfile.flac"), dir.appendingPathComponent(c.name + ".raw"), channels: c.channels, bits: c.bits))
        }
        // libFLAC's choices on these signals cover every subframe kind (the stereo modes: ffmpeg cases).
        #expect(all.constant > 0 && all.verbatim > 0 && all.fixed > 0 && all.lpc > 0, "\(all)")
        #expect(all.wastedBits > 0, "\(all)")
    }

    @Test(arguments: [0, 2, 5, 8, 12])
    func ffmpegStreamsDecodeBitExactly(level: Int) throws {
        guard Self.tools.python && Self.tools.ffmpeg else { print("SKIP ffmpeg FLAC cases: ffmpeg or python3 with numpy/soundfile is not installed"); return }
        let dir = try work()
        defer { try? FileManager.default.removeItem(at: dir) }
        var all = FLACFrameDecoder.Statistics()
        for c in Self.cases where c.bits >= 16 {   // (ffmpeg's FLAC encoder takes 16- and 24-bit input)
            let out = dir.appendingPathComponent("\(c.name).ffmpeg\(level).flac")
            var args = ["ffmpeg", "-loglevel", "error", "-y", "-i", dir.appendingPathComponent(c.name + ".wav").path, "-c:a", "flac",
                        "-compression_level", "\(level)"]
            if level == 12 { args += ["-lpc_type", "cholesky", "-lpc_passes", "2", "-exact_rice_parameters", "1", "-ch_mode", "mid_side"] }
            if level == 8 { args += ["-ch_mode", "left_side"] }
            if level == 5 { args += ["-ch_mode", "right_side"] }
            try run(args + [out.path])
            all.add(try check(out, dir.appendingPathComponent(c.name + ".raw"), channels: c.channels, bits: c.bits))
        }
        // What each setting makes ffmpeg's encoder use (so the cases exercise what they claim).
        if level >= 5 { #expect(all.lpc > 0, "\(all)") }
        if level == 0 { #expect(all.fixed > 0, "\(all)") }
        if level == 12 { #expect(all.largestLPCOrder > 12 && all.assignments[10] > 0, "\(all)") }
        if level == 8 { #expect(all.assignments[8] > 0, "\(all)") }
        if level == 5 { #expect(all.assignments[9] > 0, "\(all)") }
        #expect(all.escapedPartitions > 0 || all.verbatim > 0, "\(all)")
    }

    /// Damage anywhere in a frame is found by the checksums, never decoded as audio or a crash.
    @Test func damagedFramesAreReported() throws {
        guard Self.tools.python else { print("SKIP damaged FLAC cases: python3 with numpy and soundfile is not installed"); return }
        let dir = try work()
        defer { try? FileManager.default.removeItem(at: dir) }
        let original = try [UInt8](Data(contentsOf: dir.appendingPathComponent("stereo16.sndfile.flac")))
        let audioOffset = try original.withUnsafeBytes { try FLACStreamHeader.parse($0).audioOffset }
        var rng = SystemRandomNumberGenerator()
        var reported = 0
        for _ in 0..<200 {
            var bytes = original
            let i = Int.random(in: audioOffset..<bytes.count, using: &rng)
            bytes[i] ^= UInt8(1 << Int.random(in: 0..<8, using: &rng))
            do {
                _ = try bytes.withUnsafeBytes { try FLACDecoder.decode($0) }
                Issue.record("a flipped bit at byte \(i) went unnoticed")
            } catch let error as CodecError {
                #expect(error.kind == .corrupt || error.kind == .truncated)
                reported += 1
            }
        }
        #expect(reported == 200)
        // Truncated streams: an error, not a crash.
        for cut in stride(from: 0, to: original.count, by: max(1, original.count / 50)) {
            let bytes = Array(original[..<cut])
            #expect(throws: CodecError.self) { _ = try bytes.withUnsafeBytes { try FLACDecoder.decode($0) } }
        }
    }
}

extension FLACFrameDecoder.Statistics {
    mutating func add(_ o: Self) {
        constant += o.constant; verbatim += o.verbatim; fixed += o.fixed; lpc += o.lpc
        escapedPartitions += o.escapedPartitions; wastedBits += o.wastedBits
        largestLPCOrder = Swift.max(largestLPCOrder, o.largestLPCOrder)
        for i in 0..<assignments.count { assignments[i] += o.assignments[i] }
    }
}
