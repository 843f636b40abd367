// A CAF file written by a script that never closes it — Apple's own offline-processing sample
// writes its output file at top level and lets the process end — must hold every frame written,
// for every reader, at every moment: the data chunk's size is kept current after every
// `write(from:)`, as WAV's is (CAF allows -1, "to the end of the file", but libsndfile and sox
// reject it). And a writer killed at any moment leaves a file every reader opens, holding a prefix
// of what was being written.
import Testing
import AVFoundation

enum ExternalReaders {
    static func run(_ arguments: [String]) -> (status: Int32, output: Data) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return (-1, Data()) }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, data)
    }

    static let soundfile: Bool = run(["python3", "-c", "import soundfile"]).status == 0
    static let sox: Bool = run(["sox", "--version"]).status == 0

    /// libsndfile's reading of a 16-bit file: interleaved samples, or nil when it refuses the file.
    static func soundfileInt16(_ path: String) -> [Int16]? {
        let script = "import sys, soundfile as sf; d, r = sf.read(sys.argv[1], dtype='int16', always_2d=True); sys.stdout.buffer.write(d.astype('<i2').tobytes())"
        let r = run(["python3", "-c", script, path])
        guard r.status == 0 else { return nil }
        return r.output.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    }

    /// sox's reading of a file as interleaved signed 16-bit samples, or nil when it refuses it.
    static func soxInt16(_ path: String) -> [Int16]? {
        let r = run(["sox", "-V1", path, "-t", "raw", "-e", "signed-integer", "-b", "16", "-L", "-"])
        guard r.status == 0 else { return nil }
        return r.output.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    }
}

@Suite struct AVAudioFileCAFStreamingTests {
    static let format = AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2)!
    static let settings: [String: Any] = [AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: 44_100,
                                          AVNumberOfChannelsKey: 2, AVLinearPCMBitDepthKey: 16]

    /// Sample `n` of channel `c` as a 16-bit value (exact in Float32 and in the file).
    static func value(_ n: Int, _ c: Int) -> Int16 { Int16(truncatingIfNeeded: (n * 37 + c * 1000) % 20_000 - 10_000) }

    static func chunk(from start: Int, frames: Int) -> AVAudioPCMBuffer {
        let b = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(frames))!
        for c in 0..<2 { for i in 0..<frames { b.floatChannelData![c][i] = Float(value(start + i, c)) / 32_768 } }
        b.frameLength = AVAudioFrameCount(frames)
        return b
    }

    static func expected(frames: Int) -> [Int16] { (0..<frames).flatMap { n in [value(n, 0), value(n, 1)] } }

    /// Writes chunks to a CAF it never closes; after each write, `check` sees the path and the
    /// frames written so far.
    static func writeWithoutClosing(_ check: (String, Int) throws -> Void) throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("never-closed-\(UUID().uuidString).caf")
        defer { try? FileManager.default.removeItem(at: url) }
        let file = try AVAudioFile(forWriting: url, settings: settings)
        var written = 0
        for frames in [100, 1, 999, 4_410] {
            try file.write(from: chunk(from: written, frames: frames))
            written += frames
            try check(url.path, written)
        }
        withExtendedLifetime(file) {}
    }

    @Test func aSecondAVAudioFileReadsEveryFrameOfAnUnclosedCAF() throws {
        try Self.writeWithoutClosing { path, written in
            let reader = try AVAudioFile(forReading: URL(fileURLWithPath: path))
            #expect(reader.length == AVAudioFramePosition(written))
            let buffer = AVAudioPCMBuffer(pcmFormat: reader.processingFormat, frameCapacity: AVAudioFrameCount(written))!
            try reader.read(into: buffer)
            let samples = (0..<written).flatMap { n in (0..<2).map { Int16(buffer.floatChannelData![$0][n] * 32_768) } }
            #expect(samples == Self.expected(frames: written))
        }
    }

    @Test(.enabled(if: ExternalReaders.soundfile, "python3 with soundfile (libsndfile) is not installed"))
    func libsndfileReadsEveryFrameOfAnUnclosedCAF() throws {
        try Self.writeWithoutClosing { path, written in
            let samples = ExternalReaders.soundfileInt16(path)
            #expect(samples != nil, "libsndfile refuses the file after \(written) frames")
            #expect(samples == Self.expected(frames: written))
        }
    }

    @Test(.enabled(if: ExternalReaders.sox, "sox is not installed"))
    func soxReadsEveryFrameOfAnUnclosedCAF() throws {
        try Self.writeWithoutClosing { path, written in
            let samples = ExternalReaders.soxInt16(path)
            #expect(samples != nil, "sox refuses the file after \(written) frames")
            #expect(samples == Self.expected(frames: written))
        }
    }

    /// A kill between a write's samples reaching the file and its header update leaves bytes past
    /// the data chunk the header describes: every reader still reads exactly the frames described.
    @Test func bytesPastTheDescribedDataAreIgnoredByEveryReader() throws {
        try Self.writeWithoutClosing { path, written in
            let handle = try #require(FileHandle(forWritingAtPath: path))
            handle.seekToEndOfFile()
            handle.write(Data((0..<1_001).map { UInt8(truncatingIfNeeded: $0 &* 37) }))   // not a whole frame
            try handle.close()
            let reader = try AVAudioFile(forReading: URL(fileURLWithPath: path))
            #expect(reader.length == AVAudioFramePosition(written))
            if ExternalReaders.soundfile { #expect(ExternalReaders.soundfileInt16(path) == Self.expected(frames: written)) }
            if ExternalReaders.sox { #expect(ExternalReaders.soxInt16(path) == Self.expected(frames: written)) }
            // Cut the junk again so the next write appends at the described end, as the writer does.
            let truncate = try #require(FileHandle(forWritingAtPath: path))
            try truncate.truncate(atOffset: truncate.seekToEndOfFile() - 1_001)
            try truncate.close()
        }
    }

    /// The `avaudio` tool converting a long file to CAF (65,536-frame writes), killed with SIGKILL
    /// at several moments: each file left behind opens in every reader, which agree on its frames,
    /// and those frames are the start of what a complete conversion writes.
    @Test(.enabled(if: AvaudioTool.url != nil, "the avaudio executable is not built"))
    func aKilledWriterLeavesAConsistentCAF() throws {
        let fm = FileManager.default
        let dir = fm.temporaryDirectory.appendingPathComponent("caf-kill-\(UUID().uuidString)")
        try fm.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? fm.removeItem(at: dir) }
        let source = dir.appendingPathComponent("in.wav")
        do {
            let file = try AVAudioFile(forWriting: source, settings: [AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: 44_100,
                                                                       AVNumberOfChannelsKey: 2, AVLinearPCMBitDepthKey: 16])
            for k in 0..<4 { try file.write(from: Self.chunk(from: k * 44_100, frames: 44_100)) }
        }
        let reference = dir.appendingPathComponent("reference.caf")
        let started = Date()
        let full = try AvaudioTool.run(["convert", source.path, reference.path, "--rate", "48000"])
        let duration = Date().timeIntervalSince(started)
        #expect(full.status == 0, "\(full.stderr)")
        let referenceFile = try AVAudioFile(forReading: reference)
        let whole = AVAudioPCMBuffer(pcmFormat: referenceFile.processingFormat, frameCapacity: AVAudioFrameCount(referenceFile.length))!
        try referenceFile.read(into: whole)

        print("aKilledWriterLeavesAConsistentCAF: complete conversion: \(whole.frameLength) frames")
        var partial = 0
        // Kills spread over the conversion's own duration (it writes a 65,536-frame chunk at a time).
        for (i, delay) in [0.35, 0.6, 0.85].map({ $0 * duration }).enumerated() {
            let output = dir.appendingPathComponent("killed\(i).caf")
            let process = Process()
            process.executableURL = try #require(AvaudioTool.url)
            process.arguments = ["convert", source.path, output.path, "--rate", "48000"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            Thread.sleep(forTimeInterval: delay)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            guard fm.fileExists(atPath: output.path) else { continue }   // killed before creating it
            let file = try AVAudioFile(forReading: output)
            let frames = Int(file.length)
            if frames < whole.frameLength { partial += 1 }
            print("aKilledWriterLeavesAConsistentCAF: killed after \(delay) s: \(frames) frames")
            let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: AVAudioFrameCount(max(1, frames)))!
            try file.read(into: buffer)
            #expect(Int(buffer.frameLength) == frames)
            for c in 0..<2 {
                let ours = UnsafeBufferPointer(start: buffer.floatChannelData![c], count: frames)
                let reference = UnsafeBufferPointer(start: whole.floatChannelData![c], count: frames)
                #expect(ours.elementsEqual(reference), "killed after \(delay) s: \(frames) frames are not the conversion's start")
            }
            if ExternalReaders.soundfile {
                #expect(ExternalReaders.soundfileInt16(output.path)?.count == frames * 2, "libsndfile, killed after \(delay) s")
            }
            if ExternalReaders.sox {
                #expect(ExternalReaders.soxInt16(output.path)?.count == frames * 2, "sox, killed after \(delay) s")
            }
        }
        if partial == 0 { print("aKilledWriterLeavesAConsistentCAF: every kill landed before or after the conversion; nothing partial was checked") }
    }
}
