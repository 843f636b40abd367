import Testing
import AVFoundation

/// Bad input to AVAudioFile: every case throws an NSError in Apple's domain
/// ("com.apple.coreaudio.avfaudio") with the OSStatus Apple reports (evidence in
/// Sources/AVFAudio/Types/AVAudioErrors.swift), a readable sentence naming the file, and leaves
/// nothing corrupted behind.
@Suite struct BadInputAudioFileTests {
    static let wht = 2003334207            // 'wht?' kAudioFileUnspecifiedError
    static let typ = 1954115647            // 'typ?' kAudioFileUnsupportedFileTypeError
    static let dta = 1685348671            // 'dta?' kAudioFileInvalidFileError
    static let fmt = 1718449215            // 'fmt?' kAudioFileUnsupportedDataFormatError
    static let prm = 1886547263            // 'prm?' kAudioFilePermissionsError
    static let mono = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 1)!
    static let wav: [String: Any] = [AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: 48_000,
                                     AVNumberOfChannelsKey: 1, AVLinearPCMBitDepthKey: 16]

    /// A fresh directory for one test.
    static func scratch(_ name: String = #function) throws -> URL { try BadInput.scratch("file", name) }

    /// Runs `body`, which must throw an AVFAudio NSError with `code` whose sentence contains `text`.
    static func expectError(code: Int, _ text: String, domain: String = "com.apple.coreaudio.avfaudio",
                            sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) {
        BadInput.expectError(domain: domain, code: code, text, readable: true, sourceLocation: sourceLocation, body)
    }

    static func tone(_ frames: Int, format: AVAudioFormat = mono) -> AVAudioPCMBuffer {
        let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(frames))!
        for c in 0..<Int(format.channelCount) {
            for i in 0..<frames { buffer.floatChannelData![c][i] = Float(i % 100) / 200 }
        }
        buffer.frameLength = AVAudioFrameCount(frames)
        return buffer
    }

    // MARK: Reading

    @Test func readingADirectoryThrows() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        Self.expectError(code: Self.wht, "is a directory") { _ = try AVAudioFile(forReading: dir) }
    }

    @Test func readingAMissingFileThrows() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        Self.expectError(code: Self.wht, "does not exist") { _ = try AVAudioFile(forReading: dir.appendingPathComponent("missing.wav")) }
        Self.expectError(code: Self.wht, "does not exist") {
            _ = try AVAudioFile(forReading: dir.appendingPathComponent("no/such/dir/missing.wav"))
        }
    }

    @Test func readingAnEmptyFileThrows() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("empty.wav")
        FileManager.default.createFile(atPath: url.path, contents: Data())
        // 'dta?' (kAudioFileInvalidFileError), one of the codes Apple is seen to report from
        // ExtAudioFileOpenURL for a file that is not audio.
        Self.expectError(code: Self.dta, "empty.wav") { _ = try AVAudioFile(forReading: url) }
    }

    @Test func readingATextFileThrows() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("notes.wav")
        try Data("These are not the samples you are looking for.\n".utf8).write(to: url)
        Self.expectError(code: Self.typ, "notes.wav") { _ = try AVAudioFile(forReading: url) }
    }

    /// frameCount above the buffer's capacity: at most the capacity is read (Apple: "up to
    /// frameCount frames … the buffer's frameCapacity" bounds it), never past the buffer.
    @Test func readingMoreFramesThanTheCapacityReadsTheCapacity() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("tone.wav")
        do {
            let file = try AVAudioFile(forWriting: url, settings: Self.wav)
            try file.write(from: Self.tone(1000))
        }
        let file = try AVAudioFile(forReading: url)
        let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 100)!
        try file.read(into: buffer, frameCount: .max)
        #expect(buffer.frameLength == 100)
        #expect(file.framePosition == 100)
        try file.read(into: buffer, frameCount: 1_000_000)
        #expect(buffer.frameLength == 100)
        #expect(file.framePosition == 200)
    }

    /// A buffer of another format than the processing format: -50 (kAudio_ParamError, what
    /// Apple's ExtAudioFileWrite reports for a buffer it cannot take), nothing written.
    @Test func writingOrReadingABufferOfAnotherFormatThrows() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("mono.wav")
        let file = try AVAudioFile(forWriting: url, settings: Self.wav)
        let stereo = Self.tone(64, format: AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!)
        Self.expectError(code: -50, "processing format") { try file.write(from: stereo) }
        let int16 = AVAudioPCMBuffer(pcmFormat: AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 48_000, channels: 1, interleaved: false)!,
                                     frameCapacity: 64)!
        int16.frameLength = 64
        Self.expectError(code: -50, "processing format") { try file.write(from: int16) }
        #expect(file.length == 0)
        try file.write(from: Self.tone(10))
        file.close()
        let reader = try AVAudioFile(forReading: url)
        #expect(reader.length == 10)
        Self.expectError(code: -50, "processing format") {
            try reader.read(into: AVAudioPCMBuffer(pcmFormat: AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!, frameCapacity: 64)!)
        }
        #expect(reader.framePosition == 0)
    }

    // MARK: Writing

    @Test func writingIntoAMissingDirectoryThrows() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("no/such/dir/out.wav")
        Self.expectError(code: Self.wht, "its directory does not exist") { _ = try AVAudioFile(forWriting: url, settings: Self.wav) }
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("no").path))
    }

    @Test func writingOntoADirectoryThrowsAndLeavesItAlone() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let target = dir.appendingPathComponent("taken.wav")
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: false)
        try Data([1, 2, 3]).write(to: target.appendingPathComponent("inside"))
        // 'wht?', what Apple reports for a directory path (Types/AVAudioErrors.swift).
        Self.expectError(code: Self.wht, "it is a directory") { _ = try AVAudioFile(forWriting: target, settings: Self.wav) }
        var isDir: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: target.path, isDirectory: &isDir) && isDir.boolValue)
        #expect(FileManager.default.contents(atPath: target.appendingPathComponent("inside").path) == Data([1, 2, 3]))
        // No temporary file left beside it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["taken.wav"])
    }

    /// Settings that describe no format: 'fmt?' and no file created.
    @Test func writingWithAbsurdSettingsThrows() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("absurd.wav")
        let bad: [[String: Any]] = [
            [AVSampleRateKey: 0, AVNumberOfChannelsKey: 1],
            [AVSampleRateKey: Double.nan, AVNumberOfChannelsKey: 1],
            [AVSampleRateKey: "48000", AVNumberOfChannelsKey: 1],
            [AVSampleRateKey: 48_000, AVNumberOfChannelsKey: 0],
            [AVSampleRateKey: 48_000, AVNumberOfChannelsKey: 100_000],
            [AVSampleRateKey: 48_000, AVNumberOfChannelsKey: 1, AVLinearPCMBitDepthKey: -16],
        ]
        for settings in bad {
            Self.expectError(code: Self.fmt, "do not describe a valid format") { _ = try AVAudioFile(forWriting: url, settings: settings) }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }

    /// Well-formed but beyond what a container holds (1 GHz, 65,535 channels): 'fmt?' with a
    /// sentence saying so, and no file.
    @Test func writingAFormatNoContainerHoldsThrows() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("huge.wav")
        for settings: [String: Any] in [[AVSampleRateKey: 1e9, AVNumberOfChannelsKey: 1],
                                        [AVSampleRateKey: 48_000, AVNumberOfChannelsKey: 65_535]] {
            do {
                _ = try AVAudioFile(forWriting: url, settings: settings)
                Issue.record("created \(settings)")
            } catch let error as NSError {
                #expect(error.domain == "com.apple.coreaudio.avfaudio")
                #expect(error.code == Self.fmt, "\(error.code): \(error.localizedDescription)")
                #expect(error.localizedDescription.contains("huge.wav"), "\(error.localizedDescription)")
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }

    /// Our choice where Apple is silent (its ExtAudioFile takes no lock, so a second writer erases
    /// the first one's file): one writer per file. The second `AVAudioFile(forWriting:)` on a
    /// path whose file is being written throws -54 (kAudio_FilePermissionError) and touches
    /// nothing; the first writer's file stays whole and readable; once the first writer closes,
    /// the path can be written again. Readers are not affected.
    @Test func aSecondWriterOnTheSameFileIsRefused() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("twice.wav")
        let first = try AVAudioFile(forWriting: url, settings: Self.wav)
        try first.write(from: Self.tone(500))
        Self.expectError(code: -54, "another writer has it open") { _ = try AVAudioFile(forWriting: url, settings: Self.wav) }
        // The same file under another spelling of its path.
        let other = URL(fileURLWithPath: dir.path + "/./twice.wav")
        Self.expectError(code: -54, "another writer has it open") { _ = try AVAudioFile(forWriting: other, settings: Self.wav) }
        // A reader may open it meanwhile and sees every frame written so far.
        #expect(try AVAudioFile(forReading: url).length == 500)
        try first.write(from: Self.tone(500))
        #expect(first.length == 1000)
        first.close()
        let back = try AVAudioFile(forReading: url)
        #expect(back.length == 1000)
        let buffer = AVAudioPCMBuffer(pcmFormat: back.processingFormat, frameCapacity: 1000)!
        try back.read(into: buffer)
        #expect(abs(buffer.floatChannelData![0][99] - 99.0 / 200) < 1e-3)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["twice.wav"], "no temporary file left")
        // Closed: the path is free again.
        let again = try AVAudioFile(forWriting: url, settings: Self.wav)
        try again.write(from: Self.tone(3))
        again.close()
        #expect(try AVAudioFile(forReading: url).length == 3)
    }

    /// The same through a symbolic link (the writer opens the file through the link rather than
    /// renaming over it): refused before the first writer's file is truncated.
    @Test func aSecondWriterThroughASymbolicLinkIsRefused() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("real.wav")
        let link = dir.appendingPathComponent("link.wav")
        FileManager.default.createFile(atPath: url.path, contents: Data())
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: url)
        let first = try AVAudioFile(forWriting: link, settings: Self.wav)
        try first.write(from: Self.tone(200))
        Self.expectError(code: -54, "another writer has it open") { _ = try AVAudioFile(forWriting: link, settings: Self.wav) }
        Self.expectError(code: -54, "another writer has it open") { _ = try AVAudioFile(forWriting: url, settings: Self.wav) }
        first.close()
        #expect(try AVAudioFile(forReading: url).length == 200)
    }

    /// Reading a file opened for writing, writing one opened for reading, and either after
    /// close(): NSErrors, not traps.
    @Test func wrongDirectionAndClosedFilesThrow() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("dir.wav")
        let writer = try AVAudioFile(forWriting: url, settings: Self.wav)
        Self.expectError(code: Self.prm, "cannot be read") {
            try writer.read(into: AVAudioPCMBuffer(pcmFormat: writer.processingFormat, frameCapacity: 16)!)
        }
        try writer.write(from: Self.tone(16))
        writer.close()
        Self.expectError(code: -38, "has been closed") { try writer.write(from: Self.tone(16)) }
        let reader = try AVAudioFile(forReading: url)
        Self.expectError(code: Self.prm, "cannot be written") { try reader.write(from: Self.tone(16)) }
        reader.close()
        Self.expectError(code: -38, "has been closed") {
            try reader.read(into: AVAudioPCMBuffer(pcmFormat: reader.processingFormat, frameCapacity: 16)!)
        }
    }
}
