// `avaudio demo`: a self-test of the file layer and the engine through the public API.
//
// Files: synthesises half a second of test signal (stereo: a 997 Hz sine at -6 dBFS left and a
// 1499 Hz sine at -12 dBFS right; 5.1: six tones), writes it in every container × sample format
// the framework supports, reads every file back with AVAudioFile and checks the length, the file
// format, the channel layout (5.1) and every sample:
//
//  * integer formats: within one LSB of the file's bit depth;
//  * float formats: exactly (Float32 → float32/float64 → Float32 is lossless);
//  * µ-law / A-law: within half the G.711 quantisation step at the sample's level, plus one LSB
//    of the 14-bit (µ-law) or 13-bit (A-law) linear range the laws are defined on.
//
// Engine: renders a graph of players, a source-node synth and a tap offline into a file and checks
// it against the mix the graph's volumes and pans imply (EngineDemo.swift).
//
// Exits 0 only when every file and every engine check passes.
import AVFoundation
import ArgumentParser
import Dispatch

struct Demo: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Self-test: write and verify every file format, then render and verify an engine graph offline.",
        discussion: """
            Writes a test signal in every supported container and format and reads it back; then renders \
            players, a synth and a tap through AVAudioEngine's main mixer offline to a WAV file, and checks \
            the tone levels against volume and pan. Prints one line per file and per check, and exits with \
            status 0 only when everything passes.
            """
    )

    @Option(name: .customLong("output-dir"), help: "Write the files here instead of a new temporary directory.")
    var outputDir: String?

    @Flag(help: "Keep the files (by default they are removed at the end).")
    var keep = false

    /// The two halves of the demo.
    enum Part: String, CaseIterable, ExpressibleByArgument {
        case files, engine
    }

    @Option(help: "Run only one part: files (every container and format) or engine (the offline render).")
    var only: Part?

    static let sampleRate = 48_000.0
    static let frames = 24_000  // 0.5 s
    static let writeChunk: AVAudioFrameCount = 10_000  // several writes per file, so headers are rewritten

    mutating func run() throws {
        let start = DispatchTime.now().uptimeNanoseconds
        let fm = FileManager.default
        let directory: URL
        let createdDirectory: Bool
        if let outputDir {
            directory = fileURL(outputDir)
            createdDirectory = !fm.fileExists(atPath: directory.path)
        } else {
            directory = fm.temporaryDirectory.appendingPathComponent("avaudio-demo-\(UUID().uuidString)")
            createdDirectory = true
        }
        do {
            try fm.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            reportError(error, path: directory.path)
            throw ExitCode.failure
        }

        var written: [URL] = []
        var summary: [String] = []
        var passedAll = true
        if only != .engine {
            let (passed, files) = runFiles(in: directory, start: start)
            written += files
            passedAll = passedAll && passed
            summary.append("files \(passed ? "PASS" : "FAIL")")
        }
        if only != .files {
            // The engine: players, a synth and a tap through the main mixer, rendered offline to a file.
            if only == nil { print("") }
            let engine = EngineDemo().run(directory: directory, removedAtEnd: !keep)
            written.append(engine.file)
            passedAll = passedAll && engine.passed
            summary.append("engine \(engine.passed ? "PASS" : "FAIL")")
        }
        let totalSeconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        print("")
        print("avaudio demo: \(passedAll ? "PASS" : "FAIL") (\(summary.joined(separator: ", "))) in \(fixed(totalSeconds, 2)) s.")

        if keep {
            print("Files kept in \(directory.path)")
        } else {
            for url in written { try? fm.removeItem(at: url) }
            if createdDirectory { try? fm.removeItem(at: directory) }
        }
        if !passedAll { throw ExitCode.failure }
    }

    /// Writes and verifies every file case; prints the table. Returns whether all passed and the
    /// files written.
    private func runFiles(in directory: URL, start: UInt64) -> (Bool, [URL]) {
        let stereo = Signal.stereo(frames: Demo.frames, sampleRate: Demo.sampleRate)
        let surround = Signal.surround(frames: Demo.frames, sampleRate: Demo.sampleRate)

        print("avaudio demo: \(fixed(Double(Demo.frames) / Demo.sampleRate, 1)) s at \(formatRate(Demo.sampleRate)) Hz, written and read back with AVAudioFile")
        print("  stereo: \(stereo.summary)")
        print("  5.1:    \(surround.summary)")
        print("  files:  \(directory.path)\(keep ? "" : " (removed at the end; --keep keeps them)")")
        print("")

        var results: [CaseResult] = []
        var written: [URL] = []
        for (index, demoCase) in DemoCase.all.enumerated() {
            let url = directory.appendingPathComponent((index < 9 ? "0" : "") + "\(index + 1)-" + demoCase.fileName)
            written.append(url)
            results.append(demoCase.run(url: url, signal: demoCase.surround ? surround : stereo))
        }

        printTable(results)
        let passed = results.filter(\.passed).count
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        print("")
        print("\(passed) of \(results.count) files passed in \(fixed(seconds, 2)) s.")
        print("LSB: one step of the file's bit depth (pass: ≤ 1); step: the G.711 quantisation step at the sample's level")
        print("(pass: ≤ 0.5 step + 1 LSB of 14-bit µ-law / 13-bit A-law); float formats must read back exactly.")

        let failures = results.filter { !$0.passed }
        if !failures.isEmpty {
            print("")
            for f in failures {
                print("FAIL \(f.demoCase.container.displayName) \(f.demoCase.label): \(f.problems.joined(separator: "; "))")
            }
        }
        return (failures.isEmpty, written)
    }

    private func printTable(_ results: [CaseResult]) {
        let header = ["container", "format", "ch", "bytes", "frames", "max error", "verdict"]
        let rows = results.map { r -> [String] in
            [r.demoCase.container.displayName, r.formatLabel, String(r.demoCase.surround ? 6 : 2),
             r.bytes.map(String.init) ?? "-", r.frames.map(String.init) ?? "-", r.errorText, r.passed ? "PASS" : "FAIL"]
        }
        let rightAligned: Set<Int> = [2, 3, 4]
        var widths = header.map(\.count)
        for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { i, cell in
                let pad = String(repeating: " ", count: widths[i] - cell.count)
                return rightAligned.contains(i) ? pad + cell : cell + pad
            }.joined(separator: "  ").trimmingTrailingSpaces()
        }
        print(line(header))
        for row in rows { print(line(row)) }
    }
}

private extension String {
    func trimmingTrailingSpaces() -> String {
        var s = self
        while s.hasSuffix(" ") { s.removeLast() }
        return s
    }
}

// MARK: - Test signal

/// Deinterleaved Float32 samples and a description of them.
struct Signal {
    var channels: [[Float]]
    var summary: String

    /// One sine per channel, `(frequency in Hz, level in dBFS)`.
    static func tones(_ tones: [(Double, Double)], frames: Int, sampleRate: Double) -> [[Float]] {
        tones.map { frequency, level in
            let amplitude = pow(10, level / 20)
            let w = 2 * Double.pi * frequency / sampleRate
            return (0..<frames).map { Float(amplitude * sin(w * Double($0))) }
        }
    }

    static func stereo(frames: Int, sampleRate: Double) -> Signal {
        Signal(channels: tones([(997, -6), (1499, -12)], frames: frames, sampleRate: sampleRate),
               summary: "997 Hz at -6 dBFS (left), 1499 Hz at -12 dBFS (right)")
    }

    static let surroundTones: [(Double, Double)] = [(997, -6), (1499, -9), (440, -12), (60, -10), (2003, -15), (3001, -18)]

    static func surround(frames: Int, sampleRate: Double) -> Signal {
        let names = ["L", "R", "C", "LFE", "Ls", "Rs"]
        let text = zip(names, surroundTones).map { "\($0) \(formatRate($1.0)) Hz \(formatRate($1.1)) dB" }.joined(separator: ", ")
        return Signal(channels: tones(surroundTones, frames: frames, sampleRate: sampleRate),
                      summary: "MPEG 5.1 A (\(text))")
    }
}

// MARK: - Cases

/// One file to write and verify.
struct DemoCase {
    enum Samples {
        case integer(bits: Int)
        case float(bits: Int)
        case ulaw
        case alaw
    }

    var container: Container
    var samples: Samples
    var bigEndian: Bool
    var surround = false

    var formatID: AudioFormatID {
        switch samples {
        case .integer, .float: return kAudioFormatLinearPCM
        case .ulaw: return kAudioFormatULaw
        case .alaw: return kAudioFormatALaw
        }
    }

    var bits: Int {
        switch samples {
        case .integer(let bits), .float(let bits): return bits
        case .ulaw, .alaw: return 8
        }
    }

    var isFloat: Bool { if case .float = samples { return true } else { return false } }

    /// Whether byte order is meaningful (multi-byte linear PCM).
    var hasByteOrder: Bool {
        switch samples {
        case .integer(let bits), .float(let bits): return bits > 8
        case .ulaw, .alaw: return false
        }
    }

    /// WAV stores 8-bit samples unsigned (offset binary); every other integer format is signed.
    var isSigned: Bool { container != .wav || bits > 8 }

    var label: String {
        var text: String
        switch samples {
        case .integer(let bits): text = "\(bits)-bit \(isSigned ? "int" : "uint")"
        case .float(let bits): text = "\(bits)-bit float"
        case .ulaw: text = "µ-law"
        case .alaw: text = "A-law"
        }
        if hasByteOrder { text += bigEndian ? " BE" : " LE" }
        return text
    }

    var fileName: String {
        var name = container.rawValue + "-"
        switch samples {
        case .integer(let bits): name += "int\(bits)"
        case .float(let bits): name += "float\(bits)"
        case .ulaw: name += "ulaw"
        case .alaw: name += "alaw"
        }
        if hasByteOrder { name += bigEndian ? "-be" : "-le" }
        if surround { name += "-5.1" }
        return name + "." + container.fileExtension
    }

    /// The container name `sniffContainer` reports for files of this case.
    var expectedContainerName: String {
        switch container {
        case .wav: return "WAVE"
        case .aiff: return "AIFF"
        case .aifc: return "AIFF-C"
        case .caf: return "CAF"
        case .au: return "NeXT/Sun AU"
        case .flac: return "FLAC"
        case .m4a: return "MPEG-4 audio (M4A)"
        case .mp4: return "MPEG-4"
        case .ogg: return "Ogg"
        }
    }

    static let surroundLayoutTag = kAudioChannelLayoutTag_MPEG_5_1_A

    /// Whether a layout read back is L R C LFE Ls Rs: the MPEG_5_1_A tag, or the same channels
    /// given one by one or as a bitmap.
    static func isSurroundLayout(_ layout: AVAudioChannelLayout) -> Bool {
        if layout.layoutTag == surroundLayoutTag { return true }
        if let labels = channelDescriptionLabels(layout) {
            return labels == [kAudioChannelLabel_Left, kAudioChannelLabel_Right, kAudioChannelLabel_Center,
                              kAudioChannelLabel_LFEScreen, kAudioChannelLabel_LeftSurround, kAudioChannelLabel_RightSurround]
        }
        if layout.layoutTag == kAudioChannelLayoutTag_UseChannelBitmap {
            return layout.layout.pointee.mChannelBitmap.rawValue == 0x3F  // L R C LFE Ls Rs, in that order
        }
        return false
    }

    func settings() -> [String: Any] {
        var s: [String: Any] = [
            AVAudioFileTypeKey: container.fileTypeID ?? 0,   // (the demo's containers all have one)
            AVFormatIDKey: formatID,
            AVSampleRateKey: Demo.sampleRate,
            AVNumberOfChannelsKey: surround ? 6 : 2,
        ]
        if formatID == kAudioFormatLinearPCM {
            s[AVLinearPCMBitDepthKey] = bits
            s[AVLinearPCMIsFloatKey] = isFloat
            s[AVLinearPCMIsBigEndianKey] = bigEndian
            s[AVLinearPCMIsNonInterleaved] = false
        }
        if surround, let layout = AVAudioChannelLayout(layoutTag: DemoCase.surroundLayoutTag) {
            s[AVChannelLayoutKey] = Data(bytes: layout.layout, count: MemoryLayout<AudioChannelLayout>.size)
        }
        return s
    }

    static var all: [DemoCase] {
        var cases: [DemoCase] = []
        func add(_ c: Container, _ samples: Samples, big: Bool, surround: Bool = false) {
            cases.append(DemoCase(container: c, samples: samples, bigEndian: big, surround: surround))
        }
        // WAV: little-endian; 8-bit is unsigned.
        for bits in [8, 16, 24, 32] { add(.wav, .integer(bits: bits), big: false) }
        for bits in [32, 64] { add(.wav, .float(bits: bits), big: false) }
        // AIFF: big-endian signed integers.
        for bits in [8, 16, 24, 32] { add(.aiff, .integer(bits: bits), big: true) }
        // AIFF-C: big-endian ('NONE'/'twos'), little-endian ('sowt'), fl32, fl64, ulaw, alaw.
        for bits in [16, 24, 32] { add(.aifc, .integer(bits: bits), big: true) }
        for bits in [16, 24, 32] { add(.aifc, .integer(bits: bits), big: false) }
        for bits in [32, 64] { add(.aifc, .float(bits: bits), big: true) }
        add(.aifc, .ulaw, big: true)
        add(.aifc, .alaw, big: true)
        // CAF: both byte orders.
        for big in [false, true] {
            for bits in [16, 24, 32] { add(.caf, .integer(bits: bits), big: big) }
            for bits in [32, 64] { add(.caf, .float(bits: bits), big: big) }
        }
        add(.caf, .ulaw, big: false)
        add(.caf, .alaw, big: false)
        // NeXT/Sun AU: big-endian.
        for bits in [16, 24] { add(.au, .integer(bits: bits), big: true) }
        add(.au, .float(bits: 32), big: true)
        add(.au, .ulaw, big: true)
        add(.au, .alaw, big: true)
        // 5.1 with a channel layout that must read back.
        add(.wav, .integer(bits: 24), big: false, surround: true)
        add(.caf, .float(bits: 32), big: false, surround: true)
        add(.caf, .integer(bits: 16), big: true, surround: true)
        return cases
    }

    // MARK: Running

    func run(url: URL, signal: Signal) -> CaseResult {
        var result = CaseResult(demoCase: self)
        do {
            try write(signal, to: url)
        } catch {
            result.problems.append("writing failed: \(errorMessage(error))")
            result.bytes = sizeOfFile(url)
            return result
        }
        result.bytes = sizeOfFile(url)
        do {
            try verify(url: url, signal: signal, into: &result)
        } catch {
            result.problems.append("reading failed: \(errorMessage(error))")
        }
        return result
    }

    private func write(_ signal: Signal, to url: URL) throws {
        let file = try AVAudioFile(forWriting: url, settings: settings())
        defer { file.close() }
        guard let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: Demo.writeChunk),
              let data = buffer.floatChannelData else {
            throw ToolError("cannot allocate a buffer in \(file.processingFormat)")
        }
        var offset = 0
        while offset < Demo.frames {
            let n = min(Int(Demo.writeChunk), Demo.frames - offset)
            for (c, samples) in signal.channels.enumerated() {
                samples.withUnsafeBufferPointer { src in
                    data[c].update(from: src.baseAddress! + offset, count: n)
                }
            }
            buffer.frameLength = AVAudioFrameCount(n)
            try file.write(from: buffer)
            offset += n
        }
    }

    private func verify(url: URL, signal: Signal, into result: inout CaseResult) throws {
        let file = try AVAudioFile(forReading: url)
        defer { file.close() }
        result.frames = file.length

        // Container and format.
        let container = sniffContainer(url)
        result.aifcCompression = container.aifcCompression
        if container.name != expectedContainerName {
            result.problems.append("container reads back as \(container.name), expected \(expectedContainerName)")
        }
        let f = FormatFacts(file.fileFormat)
        var formatProblems: [String] = []
        if f.sampleRate != Demo.sampleRate { formatProblems.append("sample rate \(formatRate(f.sampleRate))") }
        if f.channels != signal.channels.count { formatProblems.append("\(f.channels) channels") }
        if f.formatID != formatID { formatProblems.append("format '\(fourCC(f.formatID))'") }
        if f.bitsPerChannel != bits { formatProblems.append("\(f.bitsPerChannel) bits") }
        if formatID == kAudioFormatLinearPCM {
            if f.isFloat != isFloat { formatProblems.append(f.isFloat ? "float" : "integer") }
            if !isFloat && f.isSignedInteger != isSigned { formatProblems.append(f.isSignedInteger ? "signed" : "unsigned") }
            if hasByteOrder && f.isBigEndian != bigEndian { formatProblems.append(f.isBigEndian ? "big-endian" : "little-endian") }
        }
        if !formatProblems.isEmpty {
            result.problems.append("file format reads back as \(f.summary) (\(formatProblems.joined(separator: ", ")))")
        }
        if surround {
            let layout = file.fileFormat.channelLayout
            if !(layout.map(DemoCase.isSurroundLayout) ?? false) {
                result.problems.append("channel layout reads back as \(layout.map(describeLayout) ?? "none"), expected tag \(hex32(DemoCase.surroundLayoutTag)) (MPEG_5_1_A: L R C LFE Ls Rs)")
            }
        }
        if !file.processingFormat.isStandard || Int(file.processingFormat.channelCount) != signal.channels.count {
            result.problems.append("processing format is \(file.processingFormat), expected the standard format")
            return
        }

        // Length.
        if file.length != Int64(Demo.frames) {
            result.problems.append("length \(file.length) frames, expected \(Demo.frames)")
        }

        // Samples: read everything in one call (with room to spare), then check the end of file.
        let capacity = AVAudioFrameCount(max(Int64(Demo.frames), file.length) + 64)
        guard let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: capacity),
              let data = buffer.floatChannelData else {
            throw ToolError("cannot allocate a buffer in \(file.processingFormat)")
        }
        try file.read(into: buffer)
        let got = Int(buffer.frameLength)
        if got != Demo.frames {
            result.problems.append("read \(got) frames, expected \(Demo.frames)")
        }
        try file.read(into: buffer)
        if buffer.frameLength != 0 {
            result.problems.append("read \(buffer.frameLength) frames past the end of the file")
        }

        var worst = 0.0  // in the unit of `errorText`
        var failures = 0
        var firstFailure: String?
        for (c, expected) in signal.channels.enumerated() {
            let samples = data[c]
            for i in 0..<min(got, expected.count) {
                let (measure, pass) = judge(expected: Double(expected[i]), read: Double(samples[i]))
                worst = max(worst, measure)
                if !pass {
                    failures += 1
                    if firstFailure == nil {
                        firstFailure = "channel \(c + 1) frame \(i): wrote \(expected[i]), read \(samples[i])"
                    }
                }
            }
        }
        result.maxError = worst
        if failures > 0 {
            result.problems.append("\(failures) sample\(failures == 1 ? "" : "s") out of tolerance (first: \(firstFailure!))")
        }
    }

    /// The error of reading `y` for a written `x`, in this case's unit, and whether it is within tolerance.
    private func judge(expected x: Double, read y: Double) -> (Double, Bool) {
        let error = abs(y - x)
        switch samples {
        case .integer(let bits):
            let lsb = 1 / Double(Int64(1) << (bits - 1))
            return (error / lsb, error <= lsb)
        case .float:
            return (error, error == 0)
        case .ulaw, .alaw:
            // Near a segment boundary a value may be coded in the next segment up, whose steps are
            // twice as wide: the bound is half the wider of the two steps.
            let step = max(g711Step(x), g711Step(y))
            let lsb = samples.isULaw ? 1.0 / 8192 : 1.0 / 4096
            return (error / step, error <= step / 2 + lsb)
        }
    }

    /// The width of the G.711 quantisation step at the level of `x` (full scale 1).
    private func g711Step(_ x: Double) -> Double {
        if samples.isULaw {
            // µ-law codes 14-bit magnitudes plus a bias of 33; segment s has steps of 2^(s+1).
            let biased = Int(min(abs(x) * 8192, 8191)) + 33
            let segment = min(7, max(0, Int(log2(Double(biased))) - 5))
            return Double(1 << (segment + 1)) / 8192
        }
        // A-law codes 13-bit magnitudes; segments 0 and 1 have steps of 2, segment s ≥ 1 of 2^s.
        let magnitude = Int(min(abs(x) * 4096, 4095))
        return Double(magnitude < 32 ? 2 : 1 << (Int(log2(Double(magnitude))) - 4)) / 4096
    }
}

extension DemoCase.Samples {
    var isULaw: Bool { if case .ulaw = self { return true } else { return false } }
}

/// The outcome of one case.
struct CaseResult {
    var demoCase: DemoCase
    var bytes: Int64?
    var frames: Int64?
    var maxError: Double?
    var aifcCompression: String?
    var problems: [String] = []

    var passed: Bool { problems.isEmpty }

    var formatLabel: String {
        var text = demoCase.label
        if let aifcCompression { text += " '\(aifcCompression)'" }
        if demoCase.surround { text += " 5.1" }
        return text
    }

    var errorText: String {
        guard let maxError else { return "-" }
        switch demoCase.samples {
        case .integer: return fixed(maxError, 2) + " LSB"
        case .float: return maxError == 0 ? "exact" : fixed(20 * log10(maxError), 1) + " dB"
        case .ulaw, .alaw: return fixed(maxError, 2) + " step"
        }
    }
}
