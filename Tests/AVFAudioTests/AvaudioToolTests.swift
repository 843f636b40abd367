// Tests of the `avaudio` command-line tool, run as a real executable: `swift test` builds every
// product into the same directory as the test bundle, so the binary is found next to it (or, as a
// fallback, in the package's .build/debug). The suite is skipped, visibly, when it is not there.
import Testing
import AVFoundation

/// Where the built `avaudio` executable is, if anywhere.
enum AvaudioTool {
    static let url: URL? = executable(named: "avaudio", override: "AVAUDIO_TOOL")
    /// The examples program (Examples/), run by AvaudioExamplesTests.
    static let examplesURL: URL? = executable(named: "avaudio-examples", override: "AVAUDIO_EXAMPLES")

    static func executable(named name: String, override: String) -> URL? {
        let fm = FileManager.default
        var candidates: [URL] = []
        if let path = ProcessInfo.processInfo.environment[override] {
            candidates.append(URL(fileURLWithPath: path))
        }
        // The products directory holds the test bundle (or the test runner executable) and every
        // executable product built with it.
        if let executable = Bundle.main.executableURL {
            candidates.append(executable.deletingLastPathComponent().appendingPathComponent(name))
        }
        for bundle in Bundle.allBundles {
            candidates.append(bundle.bundleURL.deletingLastPathComponent().appendingPathComponent(name))
        }
        // Fallback: the package's default build directory.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(root.appendingPathComponent(".build/debug/\(name)"))
        return candidates.first { fm.isExecutableFile(atPath: $0.path) }
    }

    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs the tool with `arguments`, capturing its output through files (no pipe can fill up).
    static func run(_ arguments: [String], tool: URL? = url, environment: [String: String]? = nil) throws -> Run {
        let tool = try #require(tool)
        let fm = FileManager.default
        let scratch = fm.temporaryDirectory.appendingPathComponent("avaudio-run-\(UUID().uuidString)")
        try fm.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? fm.removeItem(at: scratch) }
        let outURL = scratch.appendingPathComponent("stdout"), errURL = scratch.appendingPathComponent("stderr")
        _ = fm.createFile(atPath: outURL.path, contents: nil)
        _ = fm.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL), err = try FileHandle(forWritingTo: errURL)
        let process = Process()
        process.executableURL = tool
        process.arguments = arguments
        if let environment { process.environment = environment }
        process.standardOutput = out
        process.standardError = err
        try process.run()
        process.waitUntilExit()
        try out.close()
        try err.close()
        return Run(status: process.terminationStatus,
                   stdout: String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
                   stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
    }
}

/// Every runnable example (Examples/) passes its own checks.
@Suite(.enabled(if: AvaudioTool.examplesURL != nil, "the avaudio-examples executable was not found (build it with `swift build --product avaudio-examples`)"))
struct AvaudioExamplesTests {
    @Test func everyExamplePassesItsChecks() throws {
        let run = try AvaudioTool.run(["all"], tool: AvaudioTool.examplesURL)
        #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)")
        #expect(run.stdout.contains("all checks passed"))
        #expect(!run.stdout.contains("FAIL"), "\(run.stdout)")
        #expect(run.stdout.components(separatedBy: "== ").count - 1 == 13, "13 examples ran")
    }
}

@Suite(.enabled(if: AvaudioTool.url != nil, "the avaudio executable was not found next to the test bundle or in .build/debug (build it with `swift build --product avaudio`)"))
final class AvaudioToolTests {
    /// A fresh directory per test (Swift Testing creates one suite instance per test).
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("avaudio-tool-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// Writes a 16-bit WAV file with AVAudioFile; `fill(channel, frame)` gives each sample.
    private func writeWAV(_ name: String, sampleRate: Double, channels: AVAudioChannelCount, frames: Int,
                          bits: Int = 16, _ fill: (Int, Int) -> Float) throws -> URL {
        let url = directory.appendingPathComponent(name)
        let file = try AVAudioFile(forWriting: url, settings: [
            AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: sampleRate,
            AVNumberOfChannelsKey: channels, AVLinearPCMBitDepthKey: bits,
        ])
        let buffer = try #require(AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: AVAudioFrameCount(frames)))
        let data = try #require(buffer.floatChannelData)
        for c in 0..<Int(channels) {
            for i in 0..<frames { data[c][i] = fill(c, i) }
        }
        buffer.frameLength = AVAudioFrameCount(frames)
        try file.write(from: buffer)
        file.close()
        return url
    }

    /// Every sample of a file, per channel, in the standard Float32 processing format.
    private func readSamples(_ url: URL) throws -> [[Float]] {
        let file = try AVAudioFile(forReading: url)
        let buffer = try #require(AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: AVAudioFrameCount(file.length)))
        try file.read(into: buffer)
        let data = try #require(buffer.floatChannelData)
        return (0..<Int(file.processingFormat.channelCount)).map { c in
            Array(UnsafeBufferPointer(start: data[c], count: Int(buffer.frameLength)))
        }
    }

    @Test func versionPrintsTheToolName() throws {
        let run = try AvaudioTool.run(["--version"])
        #expect(run.status == 0)
        #expect(run.stdout.hasPrefix("avaudio "))
    }

    @Test func demoPassesEveryFile() throws {
        let outputDir = directory.appendingPathComponent("demo")
        let run = try AvaudioTool.run(["demo", "--output-dir", outputDir.path])
        #expect(run.status == 0, "demo failed:\n\(run.stdout)\n\(run.stderr)")
        let lines = run.stdout.split(separator: "\n")
        let passLines = lines.filter { $0.hasSuffix("PASS") }
        #expect(passLines.count >= 30, "\(run.stdout)")
        #expect(!lines.contains { $0.hasSuffix("FAIL") || $0.hasPrefix("FAIL") }, "\(run.stdout)")
        #expect(passLines.contains { $0.hasPrefix("WAV") && $0.contains("5.1") })
        #expect(passLines.contains { $0.hasPrefix("CAF") && $0.contains("5.1") })
        // The engine part runs too.
        #expect(lines.contains { $0.hasPrefix("avaudio demo: PASS (files PASS, engine PASS)") }, "\(run.stdout)")
        // Without --keep the files are removed.
        let left = (try? FileManager.default.contentsOfDirectory(atPath: outputDir.path)) ?? []
        #expect(left.isEmpty, "files left behind: \(left)")
    }

    @Test func infoJSONDescribesAFileWrittenWithAVAudioFile() throws {
        // 441 Hz at 44.1 kHz: exactly 100 samples a period, so a sample lands on each crest.
        let url = try writeWAV("info.wav", sampleRate: 44_100, channels: 2, frames: 11_025) { c, i in
            Float((c == 0 ? 0.5 : 0.25) * sin(2 * Double.pi * 441 * Double(i) / 44_100))
        }
        let run = try AvaudioTool.run(["info", "--json", url.path])
        #expect(run.status == 0, "\(run.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8))
        let json = try #require(object as? [String: Any], "not a JSON object: \(run.stdout)")
        #expect((json["sampleRate"] as? NSNumber)?.doubleValue == 44_100)
        #expect((json["channels"] as? NSNumber)?.intValue == 2)
        #expect((json["frames"] as? NSNumber)?.int64Value == 11_025)
        #expect((json["bitsPerChannel"] as? NSNumber)?.intValue == 16)
        #expect(json["container"] as? String == "WAVE")
        #expect((json["isFloat"] as? NSNumber)?.boolValue == false)
        #expect(abs(((json["duration"] as? NSNumber)?.doubleValue ?? 0) - 0.25) < 1e-9)
        let peak = try #require((json["peak"] as? [NSNumber])?.map(\.doubleValue))
        let peakDB = try #require((json["peakDBFS"] as? [NSNumber])?.map(\.doubleValue))
        #expect(peak.count == 2 && peakDB.count == 2)
        #expect(abs(peak[0] - 0.5) < 1e-4 && abs(peak[1] - 0.25) < 1e-4)
        #expect(abs(peakDB[0] - 20 * log10(0.5)) < 0.01 && abs(peakDB[1] - 20 * log10(0.25)) < 0.01)
        let rmsDB = try #require((json["rmsDBFS"] as? [NSNumber])?.map(\.doubleValue))
        #expect(abs(rmsDB[0] - 20 * log10(0.5 / 2.0.squareRoot())) < 0.05)
    }

    @Test func infoTextNamesTheFormat() throws {
        let url = try writeWAV("text.wav", sampleRate: 48_000, channels: 1, frames: 480) { _, i in Float(i % 7) / 10 }
        let run = try AvaudioTool.run(["info", url.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("48000 Hz"))
        #expect(run.stdout.contains("16-bit little-endian signed integer"))
        #expect(run.stdout.contains("480 frames"))
    }

    @Test func infoReportsTheCodecOfAFLACFile() throws {
        guard AVAudioFileFLACWritingTests.hasFFmpeg else { print("SKIP avaudio info on ffmpeg's FLAC: ffmpeg is not installed"); return }
        let wav = try writeWAV("tone.wav", sampleRate: 44_100, channels: 2, frames: 44_100) { c, i in
            Float((0.5 * sin(2 * Double.pi * 441 * Double(i) / 44_100) * 32_767).rounded() / 32_768) * (c == 0 ? 1 : 0.5)
        }
        let flac = directory.appendingPathComponent("ffmpeg.flac")
        #expect(AVAudioFileFLACWritingTests.run(["ffmpeg", "-v", "error", "-y", "-i", wav.path, "-c:a", "flac", flac.path])?.status == 0)
        let md5Run = try #require(AVAudioFileFLACWritingTests.run(["ffmpeg", "-v", "error", "-i", flac.path, "-c:a", "pcm_s16le", "-f", "md5", "-"]))
        let md5 = String(decoding: md5Run.out, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "MD5=", with: "")
        let run = try AvaudioTool.run(["info", "--json", flac.path])
        #expect(run.status == 0, "\(run.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let codec = try #require(json["codec"] as? [String: Any], "no codec object: \(run.stdout)")
        #expect(codec["name"] as? String == "FLAC")
        #expect((codec["sourceBitDepth"] as? NSNumber)?.intValue == 16)
        let size = Double(try FileManager.default.attributesOfItem(atPath: flac.path)[.size] as! Int)
        #expect(abs(((codec["bitRate"] as? NSNumber)?.doubleValue ?? 0) - size * 8) < 1, "1 s of audio: the bit rate is the file's bits")
        #expect(abs(((codec["sizeRatio"] as? NSNumber)?.doubleValue ?? 0) - size / (44_100 * 4)) < 1e-9)
        let details = try #require(codec["flac"] as? [String: Any])
        #expect(details["md5"] as? String == md5, "STREAMINFO's MD5 is ffmpeg's MD5 of the decoded samples")
        #expect((details["metadata"] as? [String])?.first == "STREAMINFO")
        #expect((details["metadata"] as? [String])?.contains("VORBIS_COMMENT") == true)
        // PCM files have no codec object; the text names the codec.
        let pcm = try #require(try JSONSerialization.jsonObject(with: Data(try AvaudioTool.run(["info", "--json", wav.path]).stdout.utf8)) as? [String: Any])
        #expect(pcm["codec"] is NSNull)
        let text = try AvaudioTool.run(["info", flac.path])
        #expect(text.stdout.contains("Codec:") && text.stdout.contains("FLAC, from 16-bit source") && text.stdout.contains("kbit/s"))
    }

    @Test func infoNamesAnM4AOfAppleLossless() throws {
        guard AVAudioFileFLACWritingTests.hasFFmpeg else { print("SKIP avaudio info on an ALAC .m4a: ffmpeg is not installed"); return }
        let wav = try writeWAV("tone.wav", sampleRate: 44_100, channels: 2, frames: 22_050) { c, i in
            Float((0.5 * sin(2 * Double.pi * 441 * Double(i) / 44_100) * 32_767).rounded() / 32_768) * (c == 0 ? 1 : 0.5)
        }
        let m4a = directory.appendingPathComponent("tone.m4a")
        #expect(AVAudioFileFLACWritingTests.run(["ffmpeg", "-v", "error", "-y", "-i", wav.path, "-c:a", "alac", m4a.path])?.status == 0)
        let run = try AvaudioTool.run(["info", m4a.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("MPEG-4 audio (M4A) ('m4af')"), "\(run.stdout)")
        #expect(run.stdout.contains("Apple Lossless, from 16-bit source, 4096 frames/packet"), "\(run.stdout)")
        #expect(run.stdout.contains("22050 frames"))
    }

    @Test func convertToTwentyFourBitCAFAndBackIsLossless() throws {
        // More than one 65536-frame chunk, pseudo-random 16-bit values on both channels.
        var seed: UInt32 = 12_345
        let original = try writeWAV("source.wav", sampleRate: 48_000, channels: 2, frames: 70_000) { _, _ in
            seed = seed &* 1_664_525 &+ 1_013_904_223
            return Float(Int16(truncatingIfNeeded: seed >> 16)) / 32_768
        }
        let caf = directory.appendingPathComponent("wide.caf")
        let back = directory.appendingPathComponent("back.wav")
        let first = try AvaudioTool.run(["convert", original.path, caf.path, "--bits", "24"])
        #expect(first.status == 0, "\(first.stderr)")
        let cafFile = try AVAudioFile(forReading: caf)
        #expect(cafFile.length == 70_000)
        #expect(cafFile.fileFormat.streamDescription.pointee.mBitsPerChannel == 24)
        #expect(cafFile.fileFormat.sampleRate == 48_000 && cafFile.fileFormat.channelCount == 2)
        cafFile.close()
        let second = try AvaudioTool.run(["convert", caf.path, back.path, "--bits", "16"])
        #expect(second.status == 0, "\(second.stderr)")
        let a = try readSamples(original), b = try readSamples(back)
        #expect(a.count == 2 && b.count == 2)
        #expect(a[0].count == 70_000 && b[0].count == 70_000)
        #expect(a == b)
    }

    @Test func convertToFLACAtALevelAndBackIsLossless() throws {
        var seed: UInt32 = 777
        let original = try writeWAV("source.wav", sampleRate: 44_100, channels: 2, frames: 30_000) { i, c in
            seed = seed &* 1_664_525 &+ 1_013_904_223
            let tone = 0.4 * sin(2 * Float.pi * 440 * Float(i) / 44_100 + Float(c))
            return (tone * 32_767).rounded() / 32_768 + Float(Int16(truncatingIfNeeded: seed >> 16) >> 8) / 32_768
        }
        let flac = directory.appendingPathComponent("small.flac")
        let back = directory.appendingPathComponent("back.wav")
        let first = try AvaudioTool.run(["convert", original.path, flac.path, "--level", "8"])
        #expect(first.status == 0, "\(first.stderr)")
        let flacFile = try AVAudioFile(forReading: flac)
        #expect(flacFile.fileFormat.streamDescription.pointee.mFormatID == kAudioFormatFLAC)
        #expect(flacFile.length == 30_000)
        flacFile.close()
        let second = try AvaudioTool.run(["convert", flac.path, back.path])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(try readSamples(original) == readSamples(back))
        // Options FLAC cannot take are refused with a sentence.
        let float = try AvaudioTool.run(["convert", original.path, flac.path, "--float"])
        #expect(float.status != 0 && float.stderr.contains("FLAC stores integer samples"))
        let level = try AvaudioTool.run(["convert", original.path, back.path, "--level", "3"])
        #expect(level.status != 0 && level.stderr.contains("--level applies to FLAC output"))
    }

    /// `avaudio convert` to `.oga`/`.ogg` writes FLAC in Ogg at the `--level` asked; ffmpeg, the
    /// external decoder, decodes it to exactly the source's samples, and ffprobe sees FLAC in Ogg.
    @Test func convertToOggFLACAtALevelDecodesBitExactlyInFFmpeg() throws {
        var seed: UInt32 = 2024
        let original = try writeWAV("source.wav", sampleRate: 48_000, channels: 2, frames: 40_000) { i, c in
            seed = seed &* 1_664_525 &+ 1_013_904_223
            let tone = 0.4 * sin(2 * Float.pi * 550 * Float(i) / 48_000 + Float(c))
            return (tone * 32_767).rounded() / 32_768 + Float(Int16(truncatingIfNeeded: seed >> 16) >> 9) / 32_768
        }
        guard let source = AVAudioFileFLACWritingTests.readFFmpeg(original, bits: 16) else {
            Issue.record("ffmpeg could not read the source WAV")
            return
        }
        var sizes: [String: Int] = [:]
        for (name, level) in [("fast.oga", "0"), ("small.ogg", "8")] {
            let out = directory.appendingPathComponent(name)
            let run = try AvaudioTool.run(["convert", original.path, out.path, "--level", level])
            #expect(run.status == 0, "\(name): \(run.stderr)")
            let file = try AVAudioFile(forReading: out)
            #expect(file.fileFormat.streamDescription.pointee.mFormatID == kAudioFormatFLAC, "\(name)")
            #expect(file.length == 40_000, "\(name): \(file.length) frames")
            file.close()
            let bytes = try Data(contentsOf: out)
            #expect(bytes.prefix(4) == Data("OggS".utf8), "\(name) is not an Ogg stream")
            sizes[name] = bytes.count
            let probe = AVAudioFileFLACWritingTests.run(["ffprobe", "-v", "error", "-show_entries", "stream=codec_name:format=format_name", "-of", "default=nw=1:nk=1", out.path])
            let probed = probe.map { String(decoding: $0.out, as: UTF8.self) } ?? ""
            #expect(probed.contains("flac") && probed.contains("ogg"), "\(name): ffprobe says \(probed)")
            let theirs = AVAudioFileFLACWritingTests.readFFmpeg(out, bits: 16)
            #expect(theirs?.errors.isEmpty == true, "\(name): ffmpeg says \(theirs?.errors ?? "nothing (no decode)")")
            #expect(theirs?.samples == source.samples, "\(name): ffmpeg's decode differs from the source")
        }
        #expect((sizes["small.ogg"] ?? 0) < (sizes["fast.oga"] ?? 0), "level 8 should code smaller than level 0: \(sizes)")
        // --format ogg names the container, but AVAudioFile writes Ogg from the extension only.
        let wrong = try AvaudioTool.run(["convert", original.path, directory.appendingPathComponent("x.bin").path, "--format", "ogg"])
        #expect(wrong.status != 0 && wrong.stderr.contains(".oga or .ogg extension"), "\(wrong.stderr)")
        let float = try AvaudioTool.run(["convert", original.path, directory.appendingPathComponent("f.oga").path, "--float"])
        #expect(float.status != 0 && float.stderr.contains("FLAC stores integer samples"), "\(float.stderr)")
    }

    @Test func convertToAppleLosslessCAFAndBackIsLossless() throws {
        var seed: UInt32 = 4242
        let original = try writeWAV("source.wav", sampleRate: 48_000, channels: 2, frames: 20_000) { i, c in
            seed = seed &* 1_664_525 &+ 1_013_904_223
            let tone = 0.4 * sin(2 * Float.pi * 330 * Float(i) / 48_000 + Float(c))
            return (tone * 32_767).rounded() / 32_768 + Float(Int16(truncatingIfNeeded: seed >> 16) >> 9) / 32_768
        }
        let caf = directory.appendingPathComponent("lossless.caf")
        let back = directory.appendingPathComponent("back.wav")
        let first = try AvaudioTool.run(["convert", original.path, caf.path, "--alac"])
        #expect(first.status == 0, "\(first.stderr)")
        let file = try AVAudioFile(forReading: caf)
        #expect(file.fileFormat.streamDescription.pointee.mFormatID == kAudioFormatAppleLossless)
        #expect(file.fileFormat.streamDescription.pointee.mFormatFlags == kAppleLosslessFormatFlag_16BitSourceData)
        #expect(file.length == 20_000)
        file.close()
        let second = try AvaudioTool.run(["convert", caf.path, back.path])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(try readSamples(original) == readSamples(back))
        let wrongContainer = try AvaudioTool.run(["convert", original.path, back.path, "--alac"])
        #expect(wrongContainer.status != 0 && wrongContainer.stderr.contains("--alac writes Apple Lossless into CAF"))
    }

    @Test func convertToM4AWritesAppleLosslessOrFLACLosslessly() throws {
        var seed: UInt32 = 99
        let original = try writeWAV("source.wav", sampleRate: 44_100, channels: 2, frames: 25_000) { i, c in
            seed = seed &* 1_664_525 &+ 1_013_904_223
            let tone = 0.4 * sin(2 * Float.pi * 220 * Float(i) / 44_100 + Float(c))
            return (tone * 32_767).rounded() / 32_768 + Float(Int16(truncatingIfNeeded: seed >> 16) >> 9) / 32_768
        }
        for (name, extra, codec) in [("out.m4a", [String](), kAudioFormatAppleLossless), ("out.mp4", ["--flac"], kAudioFormatFLAC)] {
            let out = directory.appendingPathComponent(name)
            let back = directory.appendingPathComponent("back-\(name).wav")
            let first = try AvaudioTool.run(["convert", original.path, out.path] + extra)
            #expect(first.status == 0, "\(first.stderr)")
            let file = try AVAudioFile(forReading: out)
            #expect(file.fileFormat.streamDescription.pointee.mFormatID == codec, "\(name)")
            #expect(file.length == 25_000, "\(name)")
            file.close()
            let second = try AvaudioTool.run(["convert", out.path, back.path])
            #expect(second.status == 0, "\(second.stderr)")
            #expect(try readSamples(original) == readSamples(back), "\(name)")
        }
        // MPEG-4 holds no floats or G.711 here, and --flac needs an MPEG-4 output.
        let float = try AvaudioTool.run(["convert", original.path, directory.appendingPathComponent("f.m4a").path, "--float"])
        #expect(float.status != 0 && float.stderr.contains("Apple Lossless stores integer samples"), "\(float.stderr)")
        let flacCAF = try AvaudioTool.run(["convert", original.path, directory.appendingPathComponent("f.caf").path, "--flac"])
        #expect(flacCAF.status != 0 && flacCAF.stderr.contains("--flac writes FLAC into MPEG-4"), "\(flacCAF.stderr)")
    }

    @Test func convertHonoursFormatOption() throws {
        let source = try writeWAV("plain.wav", sampleRate: 22_050, channels: 1, frames: 1_000) { _, i in Float(i % 100) / 200 }
        let out = directory.appendingPathComponent("out.bin")
        let run = try AvaudioTool.run(["convert", source.path, out.path, "--format", "aifc", "--float"])
        #expect(run.status == 0, "\(run.stderr)")
        let file = try AVAudioFile(forReading: out)
        let d = file.fileFormat.streamDescription.pointee
        #expect(d.mFormatFlags & kAudioFormatFlagIsFloat != 0 && d.mBitsPerChannel == 32)
        #expect(file.length == 1_000)
    }

    /// The amplitude of the sine at `frequency` in `samples` (Goertzel: one DFT bin).
    private func toneAmplitude(_ samples: ArraySlice<Float>, frequency: Double, sampleRate: Double) -> Double {
        let w = 2 * Double.pi * frequency / sampleRate
        let coefficient = 2 * cos(w)
        var s1 = 0.0, s2 = 0.0
        for x in samples {
            let s = Double(x) + coefficient * s1 - s2
            s2 = s1
            s1 = s
        }
        let real = s1 - s2 * cos(w), imaginary = s2 * sin(w)
        return 2 * (real * real + imaginary * imaginary).squareRoot() / Double(samples.count)
    }

    @Test func convertRateGivesTheExactLengthAndKeepsTheTone() throws {
        // 1 kHz at 44.1 kHz, longer than one 65536-frame chunk and not a whole number of them.
        let frames = 100_003
        let source = try writeWAV("tone-44k.wav", sampleRate: 44_100, channels: 2, frames: frames) { c, i in
            Float((c == 0 ? 0.5 : 0.25) * sin(2 * Double.pi * 1_000 * Double(i) / 44_100))
        }
        let out = directory.appendingPathComponent("tone-48k.wav")
        let run = try AvaudioTool.run(["convert", source.path, out.path, "--rate", "48000", "--verbose"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.isEmpty, "\(run.stderr)")
        #expect(run.stdout.contains("44100 → 48000 Hz"), "\(run.stdout)")

        let file = try AVAudioFile(forReading: out)
        // round(100003 × 48000 / 44100) = round(108846.803) = 108847
        let expected = (Int64(frames) * 2 * 48_000 + 44_100) / (2 * 44_100)
        #expect(expected == 108_847)
        #expect(file.length == expected)
        #expect(file.fileFormat.sampleRate == 48_000 && file.fileFormat.channelCount == 2)
        #expect(file.fileFormat.streamDescription.pointee.mBitsPerChannel == 16)
        file.close()

        // The tone is at 1 kHz with its level: a one-second window (1000 whole cycles at 48 kHz)
        // puts it exactly on a Goertzel bin; a wrong rate (918.75 Hz or 1088 Hz) would not be.
        let samples = try readSamples(out)
        for (c, amplitude) in [(0, 0.5), (1, 0.25)] {
            let window = samples[c][24_000..<72_000]
            let level = toneAmplitude(window, frequency: 1_000, sampleRate: 48_000)
            #expect(abs(20 * log10(level / amplitude)) < 0.05, "channel \(c): amplitude \(level), expected \(amplitude)")
            // 1000 cycles cross zero 2000 times.
            var crossings = 0
            for i in window.indices.dropFirst() where (window[i - 1] < 0) != (window[i] < 0) { crossings += 1 }
            #expect(abs(crossings - 2_000) <= 1, "channel \(c): \(crossings) zero crossings in one second")
        }
    }

    @Test func convertRateLengthIsExactForShortAndDownsampledFiles() throws {
        for (frames, inRate, outRate) in [(7, 44_100, 48_000), (1, 48_000, 44_100), (70_001, 48_000, 22_050), (10_000, 8_000, 96_000)] {
            let source = try writeWAV("in-\(frames)-\(inRate).wav", sampleRate: Double(inRate), channels: 1, frames: frames) { _, i in
                Float(0.25 * sin(Double(i) / 5))
            }
            let out = directory.appendingPathComponent("out-\(frames)-\(outRate).caf")
            let run = try AvaudioTool.run(["convert", source.path, out.path, "--rate", String(outRate), "--quality", "max"])
            #expect(run.status == 0, "\(run.stderr)")
            let file = try AVAudioFile(forReading: out)
            let expected = (Int64(frames) * 2 * Int64(outRate) + Int64(inRate)) / (2 * Int64(inRate))
            #expect(file.length == expected, "\(frames) frames \(inRate) → \(outRate) Hz")
            #expect(file.fileFormat.sampleRate == Double(outRate))
            file.close()
        }
    }

    /// Stereo values that are even multiples of the 16-bit step, so their average is exact.
    private func evenStereo(_ c: Int, _ i: Int) -> Float {
        let k = c == 0 ? (i * 37) % 1_000 - 500 : (i * 91) % 1_600 - 800
        return Float(2 * k) / 32_768
    }

    @Test func convertDownmixToMonoGivesTheAverage() throws {
        let frames = 70_000
        let source = try writeWAV("stereo.wav", sampleRate: 48_000, channels: 2, frames: frames, evenStereo)
        let mono = directory.appendingPathComponent("mono.wav")
        let run = try AvaudioTool.run(["convert", source.path, mono.path, "--channels", "1", "--downmix"])
        #expect(run.status == 0, "\(run.stderr)")
        let file = try AVAudioFile(forReading: mono)
        #expect(file.fileFormat.channelCount == 1 && file.length == Int64(frames))
        file.close()
        let samples = try readSamples(mono)
        #expect(samples.count == 1 && samples[0].count == frames)
        let average = (0..<frames).map { (evenStereo(0, $0) + evenStereo(1, $0)) / 2 }
        #expect(samples[0] == average)

        // Without --downmix channels are remapped: stereo → mono keeps the left channel.
        let left = directory.appendingPathComponent("left.wav")
        let remap = try AvaudioTool.run(["convert", source.path, left.path, "--channels", "1"])
        #expect(remap.status == 0, "\(remap.stderr)")
        #expect(try readSamples(left)[0] == (0..<frames).map { evenStereo(0, $0) })
    }

    @Test func convertToSixChannelsGivesA51LayoutWithLeftAndRightInPlace() throws {
        let source = try writeWAV("st.wav", sampleRate: 48_000, channels: 2, frames: 1_000, evenStereo)
        let out = directory.appendingPathComponent("six.caf")
        let run = try AvaudioTool.run(["convert", source.path, out.path, "--channels", "6"])
        #expect(run.status == 0, "\(run.stderr)")
        let file = try AVAudioFile(forReading: out)
        #expect(file.fileFormat.channelCount == 6)
        #expect(file.fileFormat.channelLayout?.layoutTag == kAudioChannelLayoutTag_MPEG_5_1_A)
        file.close()
        let samples = try readSamples(out)
        #expect(samples[0] == (0..<1_000).map { evenStereo(0, $0) })
        #expect(samples[1] == (0..<1_000).map { evenStereo(1, $0) })
        for c in 2..<6 { #expect(samples[c].allSatisfy { $0 == 0 }, "channel \(c) should be silent") }
    }

    @Test func convertDitherStaysWithinOneAndAHalfStepsOfTheSignal() throws {
        // A quiet 24-bit sine reduced to 16 bits: with dither each sample lands within 1.5 16-bit
        // steps of the original (TPDF noise within ±1 step, then rounding within ±½), and often
        // differs from plain rounding.
        let frames = 20_000
        let signal = (0..<frames).map { Float(0.001 * sin(2 * Double.pi * 440 * Double($0) / 48_000)) }
        let source = try writeWAV("quiet24.wav", sampleRate: 48_000, channels: 1, frames: frames, bits: 24) { _, i in signal[i] }
        let original = try readSamples(source)[0]
        let plain = directory.appendingPathComponent("plain16.wav")
        let dithered = directory.appendingPathComponent("dither16.wav")
        #expect(try AvaudioTool.run(["convert", source.path, plain.path, "--bits", "16"]).status == 0)
        let run = try AvaudioTool.run(["convert", source.path, dithered.path, "--bits", "16", "--dither"])
        #expect(run.status == 0, "\(run.stderr)")
        let a = try readSamples(plain)[0], b = try readSamples(dithered)[0]
        #expect(a.count == frames && b.count == frames)
        let step: Float = 1 / 32_768
        #expect(zip(original, b).allSatisfy { abs($0 - $1) <= step * 1.5 })
        #expect(zip(a, b).filter { $0 != $1 }.count > frames / 10)

        // 24-bit output cannot be dithered by the converter (no 24-bit processing format): refused.
        let refused = try AvaudioTool.run(["convert", source.path, directory.appendingPathComponent("d24.wav").path, "--dither"])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("--dither needs 16- or 32-bit integer output"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("d24.wav").path))
    }

    @Test func demoEngineRendersTheMixAndVerifiesIt() throws {
        let run = try AvaudioTool.run(["demo", "--only", "engine"])
        #expect(run.status == 0, "demo failed:\n\(run.stdout)\n\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(!lines.contains { $0.hasSuffix("FAIL") || $0.hasPrefix("FAIL") }, "\(run.stdout)")
        // Every tone of every voice, on both sides, is checked and passes.
        for tone in ["220 Hz L (player 1)", "220 Hz R (player 1)", "1000 Hz R (player 2)", "1500 Hz R (player 2)",
                     "2500 Hz L (player 3)", "300 Hz L (synth)", "450 Hz R (synth)"] {
            #expect(lines.contains { $0.hasPrefix(tone) && $0.hasSuffix("PASS") }, "no passing line for \(tone):\n\(run.stdout)")
        }
        #expect(lines.contains { $0.hasPrefix("tap = file: left") && $0.hasSuffix("PASS") })
        #expect(lines.contains { $0.hasPrefix("tap: frames") && $0.hasSuffix("PASS") })
        #expect(lines.contains { $0.hasPrefix("Rendered 240000 frames") && $0.contains("× realtime") }, "\(run.stdout)")
        #expect(lines.contains { $0.hasPrefix("Engine: ") && $0.hasSuffix("checks passed.") })
        #expect(lines.last?.hasPrefix("avaudio demo: PASS (engine PASS)") == true, "\(run.stdout)")
    }

    @Test func convertEQPeakRaisesTheToneBySixDecibels() throws {
        let source = try writeWAV("eq-in.wav", sampleRate: 48_000, channels: 1, frames: 96_000, bits: 24) { _, i in
            Float(0.25 * sin(2 * Double.pi * 1_000 * Double(i) / 48_000))
        }
        let out = directory.appendingPathComponent("eq-out.wav")
        let run = try AvaudioTool.run(["convert", source.path, out.path, "--eq", "peak:1000:6:0.5", "--verbose"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("EQ peak 1000 Hz +6.0 dB"), "\(run.stdout)")
        let samples = try readSamples(out)
        #expect(samples[0].count == 96_000)
        let level = toneAmplitude(samples[0][48_000..<96_000], frequency: 1_000, sampleRate: 48_000)
        let gain = 20 * log10(level / 0.25)
        #expect(abs(gain - 6) <= 0.2, "gain \(gain) dB")
    }

    @Test func convertReverbAddsATailAfterTheInput() throws {
        let frames = 24_000
        let source = try writeWAV("rv-in.wav", sampleRate: 48_000, channels: 2, frames: frames) { _, i in
            Float(0.5 * sin(2 * Double.pi * 440 * Double(i) / 48_000))
        }
        let out = directory.appendingPathComponent("rv-out.wav")
        let run = try AvaudioTool.run(["convert", source.path, out.path, "--reverb", "largeHall", "--verbose"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("reverb largeHall"), "\(run.stdout)")
        let samples = try readSamples(out)
        #expect(samples[0].count > frames)
        // Not silent in the half second after the input ends.
        let after = samples[0].dropFirst(frames).prefix(24_000)
        let peak = after.map { abs($0) }.max() ?? 0
        #expect(peak > 0.01, "peak after the input: \(peak)")
    }

    @Test func convertTempoHalfDoublesTheLength() throws {
        let frames = 48_000
        let source = try writeWAV("tp-in.wav", sampleRate: 48_000, channels: 1, frames: frames) { _, i in
            Float(0.25 * sin(2 * Double.pi * 500 * Double(i) / 48_000))
        }
        let out = directory.appendingPathComponent("tp-out.wav")
        let run = try AvaudioTool.run(["convert", source.path, out.path, "--tempo", "0.5"])
        #expect(run.status == 0, "\(run.stderr)")
        let file = try AVAudioFile(forReading: out)
        #expect(abs(Double(file.length) / Double(2 * frames) - 1) <= 0.01, "\(file.length) frames")
        file.close()
        // The stretcher's latency is compensated: the tone starts at the file's start (within the
        // half-window fade-in of the first analysis frame), not 2048 / 0.5 = 4096 frames late.
        let y = try readSamples(out)[0]
        let onset = y.firstIndex { abs($0) > 0.05 } ?? -1
        #expect(onset >= 0 && onset < 600, "tone starts at frame \(onset)")
        // Unknown presets are refused.
        let refused = try AvaudioTool.run(["convert", source.path, out.path, "--reverb", "bathroom"])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("unknown preset"), "\(refused.stderr)")
    }

    @Test func missingInputFailsWithAMessageNamingTheFile() throws {
        let missing = directory.appendingPathComponent("no-such-take.wav")
        let info = try AvaudioTool.run(["info", missing.path])
        #expect(info.status != 0)
        #expect(info.stderr.contains("no-such-take.wav"))
        #expect(info.stdout.isEmpty)

        let out = directory.appendingPathComponent("never.wav")
        let convert = try AvaudioTool.run(["convert", missing.path, out.path])
        #expect(convert.status != 0)
        #expect(convert.stderr.contains("no-such-take.wav"))
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }
}
