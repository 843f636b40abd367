// FLAC against the reference implementation's own command-line tool, `flac` (libFLAC; Debian
// package `flac`), as issue 12 asks:
//   * what our encoder writes at every level 0–8 (and at 8, 16, 20 and 24 bits, 1 to 6 channels)
//     passes `flac -t` (frame CRCs and the STREAMINFO MD5 of the decoded samples), and `flac -d`
//     gives back exactly the integers written;
//   * our files are no more than 1 % larger than `flac` makes at the same level on the same
//     music-like material;
//   * what `flac` writes at every level, and with its widest options (LPC order 32, block sizes
//     from 192 to 16,384, 15-bit coefficients, exhaustive model search), our reader decodes to
//     exactly the source integers;
//   * the FLAC files real Debian packages ship (`hydrogen-data`'s drum kits, `lmms-common`'s
//     waveforms, 24-bit 96 kHz among them) decode exactly as `flac -d` decodes them.
// Each check skips visibly when `flac` (or the Debian files) are missing; `.ci/run` installs them.
import Foundation
import Testing
import AVFoundation

@Suite struct FLACReferenceToolTests {
    typealias W = AVAudioFileFLACWritingTests

    static let hasFlac: Bool = W.run(["flac", "--version"])?.status == 0

    /// The integers of a PCM WAV `flac -d` wrote (or any file our reader opens), as `bits`-bit values.
    static func readInts(_ url: URL, bits: Int) throws -> [Int32] { try W.readOurs(url, bits: bits) }

    /// `flac -d` of `url` into a WAV next to it; nil (with an issue recorded) when it fails.
    static func referenceDecode(_ url: URL, _ label: String) -> URL? {
        let wav = url.deletingPathExtension().appendingPathExtension("ref.wav")
        guard let r = W.run(["flac", "-d", "-s", "-f", "-o", wav.path, url.path]), r.status == 0 else {
            Issue.record("\(label): flac -d failed: \(String(decoding: W.run(["flac", "-d", "-f", "-o", wav.path, url.path])?.err ?? Data(), as: UTF8.self))")
            return nil
        }
        return wav
    }

    @Test("What our encoder writes passes flac -t and flac -d gives back the integers written: levels 0–8 (stereo 16-bit music), and 8/20/24-bit, 1/3/6 channels")
    func ourFilesPassTheReferenceTool() throws {
        guard Self.hasFlac else { print("SKIP flac -t / flac -d checks: the flac tool is not installed (Debian: flac)"); return }
        let dir = try W.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        var cases: [(label: String, kind: W.Signal, channels: Int, bits: Int, level: Int)] = (0...8).map { ("level \($0)", .music, 2, 16, $0) }
        cases += [("8-bit mono", .mixed, 1, 8, 5), ("20-bit 3 ch", .music, 3, 20, 8), ("24-bit 6 ch", .mixed, 6, 24, 5),
                  ("24-bit stereo noise", .noise, 2, 24, 2)]
        for c in cases {
            let samples = W.signal(c.kind, frames: 3 * 44_100 + 77, channels: c.channels, bits: c.bits)
            let url = dir.appendingPathComponent("ours-\(c.label.replacingOccurrences(of: " ", with: "-")).flac")
            var settings = W.settings(rate: 44_100, channels: c.channels, bits: c.bits)
            settings[_FLACCompressionLevelKey] = c.level
            let file = try AVAudioFile(forWriting: url, settings: settings, commonFormat: .pcmFormatFloat32, interleaved: false)
            let frames = samples.count / c.channels
            let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: AVAudioFrameCount(frames))!
            buffer.frameLength = AVAudioFrameCount(frames)
            for i in 0..<frames {
                for ch in 0..<c.channels { buffer.floatChannelData![ch][i] = Float(samples[i * c.channels + ch]) / Float(1 << (c.bits - 1)) }
            }
            try file.write(from: buffer)
            file.close()
            let test = W.run(["flac", "-t", "-s", url.path])
            #expect(test?.status == 0, "\(c.label): flac -t says \(String(decoding: test?.err ?? Data(), as: UTF8.self))")
            guard let wav = Self.referenceDecode(url, c.label) else { continue }
            let decoded = try Self.readInts(wav, bits: c.bits)
            #expect(decoded == samples, "\(c.label): flac -d gives \(decoded.count) samples of \(samples.count), \(zip(decoded, samples).filter { $0 != $1 }.count) differ")
        }
    }

    @Test("At every level 0–8 our files are no more than 1 % larger than flac's at the same level (stereo 16-bit music-like material)")
    func sizesWithinOnePercentOfLibFLAC() throws {
        guard Self.hasFlac else { print("SKIP size comparison with flac: the flac tool is not installed (Debian: flac)"); return }
        let dir = try W.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let samples = W.signal(.music, frames: 10 * 44_100, channels: 2, bits: 16)
        let wav = dir.appendingPathComponent("music.wav")
        try W.writeStereo16WAV(samples, to: wav)
        var report: [String] = []
        for level in 0...8 {
            let reference = dir.appendingPathComponent("ref\(level).flac"), ours = dir.appendingPathComponent("ours\(level).flac")
            guard W.run(["flac", "-\(level)", "-s", "-f", "-o", reference.path, wav.path])?.status == 0 else {
                Issue.record("flac -\(level) failed"); continue
            }
            var settings = W.settings(rate: 44_100, channels: 2, bits: 16)
            settings[_FLACCompressionLevelKey] = level
            let file = try AVAudioFile(forWriting: ours, settings: settings, commonFormat: .pcmFormatFloat32, interleaved: false)
            let source = try AVAudioFile(forReading: wav)
            let buffer = AVAudioPCMBuffer(pcmFormat: source.processingFormat, frameCapacity: AVAudioFrameCount(source.length))!
            try source.read(into: buffer)
            try file.write(from: buffer)
            file.close()
            let theirs = try FileManager.default.attributesOfItem(atPath: reference.path)[.size] as! Int
            let mine = try FileManager.default.attributesOfItem(atPath: ours.path)[.size] as! Int
            report.append("\(level): \(mine)/\(theirs)")
            #expect(Double(mine) <= 1.01 * Double(theirs), "level \(level): ours \(mine) B, flac \(theirs) B (\(String(format: "%+.2f", 100 * (Double(mine) / Double(theirs) - 1))) %)")
        }
        print("FLAC sizes, ours/flac by level: \(report.joined(separator: ", "))")
    }

    @Test("What flac writes — levels 0–8, LPC order 32, block sizes 192…16,384, 15-bit coefficients, exhaustive search, 24-bit 96 kHz — decodes to exactly the source integers")
    func referenceFilesDecodeExactly() throws {
        guard Self.hasFlac else { print("SKIP decoding flac's files: the flac tool is not installed (Debian: flac)"); return }
        let dir = try W.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let samples16 = W.signal(.music, frames: 2 * 44_100 + 13, channels: 2, bits: 16)
        let wav16 = dir.appendingPathComponent("music16.wav")
        try W.writeStereo16WAV(samples16, to: wav16)
        var options: [[String]] = (0...8).map { ["-\($0)"] }
        options += [["--lax", "-l", "32", "-b", "4608"], ["-b", "192"], ["--lax", "-b", "16384", "-l", "12"],
                    ["-8", "-q", "15"], ["-8", "-e", "-p"], ["-8", "-A", "tukey(0.5);partial_tukey(2);punchout_tukey(3)"],
                    ["-0", "-M"], ["-5", "-m", "-r", "8"]]
        for option in options {
            let out = dir.appendingPathComponent("ref\(option.joined().filter { $0.isLetter || $0.isNumber }).flac")
            let r = W.run(["flac", "-s", "-f"] + option + ["-o", out.path, wav16.path])
            guard r?.status == 0 else { Issue.record("flac \(option) failed: \(String(decoding: r?.err ?? Data(), as: UTF8.self))"); continue }
            let decoded = try Self.readInts(out, bits: 16)
            #expect(decoded == samples16, "flac \(option.joined(separator: " ")): \(zip(decoded, samples16).filter { $0 != $1 }.count) samples differ, \(decoded.count) of \(samples16.count)")
        }
        // 24-bit, 96 kHz, 6 channels through flac's raw input.
        let samples24 = W.signal(.mixed, frames: 96_000 / 2, channels: 6, bits: 24)
        let raw = dir.appendingPathComponent("six.raw")
        var bytes = Data(capacity: samples24.count * 3)
        for v in samples24 { bytes.append(contentsOf: [UInt8(truncatingIfNeeded: v), UInt8(truncatingIfNeeded: v >> 8), UInt8(truncatingIfNeeded: v >> 16)]) }
        try bytes.write(to: raw)
        for level in ["-0", "-8"] {
            let out = dir.appendingPathComponent("six\(level).flac")
            let r = W.run(["flac", "-s", "-f", level, "--force-raw-format", "--endian=little", "--sign=signed", "--channels=6",
                           "--bps=24", "--sample-rate=96000", "-o", out.path, raw.path])
            guard r?.status == 0 else { Issue.record("flac 24-bit \(level) failed: \(String(decoding: r?.err ?? Data(), as: UTF8.self))"); continue }
            let decoded = try Self.readInts(out, bits: 24)
            #expect(decoded == samples24, "24-bit 6 ch \(level): \(zip(decoded, samples24).filter { $0 != $1 }.count) samples differ")
        }
    }

    /// The FLAC files of the Debian packages the client requirements name, when installed.
    static func debianFLACs() -> [URL] {
        var found: [URL] = []
        for root in ["/usr/share/hydrogen/data/drumkits", "/usr/share/lmms/samples"] {
            guard let walk = FileManager.default.enumerator(at: URL(fileURLWithPath: root), includingPropertiesForKeys: nil) else { continue }
            for case let url as URL in walk where url.pathExtension.lowercased() == "flac" { found.append(url) }
        }
        return found.sorted { $0.path < $1.path }
    }

    @Test("The FLAC files Debian's hydrogen-data and lmms-common ship decode exactly as flac -d decodes them (24-bit 96 kHz included)")
    func debianFilesDecodeAsTheReferenceDoes() throws {
        guard Self.hasFlac else { print("SKIP Debian FLAC files: the flac tool is not installed (Debian: flac)"); return }
        let files = Self.debianFLACs()
        guard !files.isEmpty else { print("SKIP Debian FLAC files: hydrogen-data and lmms-common are not installed"); return }
        let dir = try W.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        var depths: [Int: Int] = [:], rates: Set<Double> = [], frames = 0
        for (n, url) in files.enumerated() {
            let file = try AVAudioFile(forReading: url)
            rates.insert(file.fileFormat.sampleRate)
            let copy = dir.appendingPathComponent("\(n).flac")
            try FileManager.default.copyItem(at: url, to: copy)
            guard let wav = Self.referenceDecode(copy, url.path) else { continue }
            // The depth as flac writes it into its WAV (the stream's bits per sample).
            let bits = Int(try AVAudioFile(forReading: wav).fileFormat.settings[AVLinearPCMBitDepthKey] as? Int ?? 0)
            guard bits > 0 else { Issue.record("\(url.path): no bit depth in flac's WAV"); continue }
            depths[bits, default: 0] += 1
            let reference = try Self.readInts(wav, bits: bits)
            let ours = try Self.readInts(url, bits: bits)
            frames += ours.count / Int(file.processingFormat.channelCount)
            #expect(ours == reference, "\(url.path) (\(bits)-bit): \(ours.count) samples against flac's \(reference.count), \(zip(ours, reference).filter { $0 != $1 }.count) differ")
            try? FileManager.default.removeItem(at: wav)
            try? FileManager.default.removeItem(at: copy)
        }
        print("Debian FLAC files decoded as flac -d does: \(files.count) files, \(frames) frames, depths \(depths.sorted { $0.key < $1.key }), rates \(rates.sorted())")
        #expect(depths.keys.contains(16))
    }
}
