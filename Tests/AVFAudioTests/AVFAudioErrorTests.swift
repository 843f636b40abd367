// The error domains, codes and user info AVFAudio reports, as Apple's AVFAudio reports them. What
// each expectation rests on (public issue threads, a probe program run on the iOS simulator,
// Apple's published Core Audio SDK source) is cited in Sources/AVFAudio/Types/AVAudioErrors.swift.
import Foundation
import Testing
import AVFoundation

@Suite struct AVFAudioErrorTests {
    static let avfaudio = "com.apple.coreaudio.avfaudio"

    let dir: URL = {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("avfaudio-errors-\(getpid())-\(UInt32.random(in: 0 ... .max))")
        try? FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        return d
    }()

    /// Runs `body`, which must throw an NSError, and returns it.
    func nsError(_ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) -> NSError? {
        do {
            try body()
            Issue.record("expected an error", sourceLocation: sourceLocation)
            return nil
        } catch {
            return error as NSError
        }
    }

    func failedCall(_ error: NSError?) -> String? { error?.userInfo["failed call"] as? String }

    // MARK: AVAudioFile

    /// A directory is not an audio file: 'wht?' from ExtAudioFileOpenURL, as on Apple platforms
    /// (a public test verified this on macOS).
    @Test func readingADirectoryReportsUnspecifiedError() {
        let error = nsError { _ = try AVAudioFile(forReading: dir) }
        #expect(error?.domain == Self.avfaudio)
        #expect(error?.code == 2_003_334_207)
        #expect(failedCall(error)?.hasPrefix("ExtAudioFileOpenURL(") == true)
        #expect(error?.userInfo[NSFilePathErrorKey] as? String == dir.path)
    }

    /// Text that is not audio: Apple's AudioFile codes ('typ?' or 'dta?'), from ExtAudioFileOpenURL.
    @Test func readingANonAudioFileReportsAudioFileCode() throws {
        let url = dir.appendingPathComponent("notes.wav")
        try Data("These are not samples.\n".utf8).write(to: url)
        let error = nsError { _ = try AVAudioFile(forReading: url) }
        #expect(error?.domain == Self.avfaudio)
        #expect([Int(kAudioFileUnsupportedFileTypeError), Int(kAudioFileInvalidFileError)].contains(error?.code ?? 0), "\(String(describing: error))")
        #expect(failedCall(error)?.hasPrefix("ExtAudioFileOpenURL(") == true)
        #expect(error?.localizedDescription.contains("notes.wav") == true)
    }

    /// Creating a file fails inside ExtAudioFileCreateWithURL: 'typ?' for a file type that cannot
    /// be written, 'fmt?' for a data format the container cannot hold, 'wht?' for a missing
    /// directory (ENOENT, as AudioFileTranslateErrno maps it).
    @Test func writingFailuresNameExtAudioFileCreateWithURL() {
        let settings: [String: Any] = [AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: 48_000, AVNumberOfChannelsKey: 1]
        let badType = nsError {
            _ = try AVAudioFile(forWriting: dir.appendingPathComponent("x.wav"),
                                settings: settings.merging([AVAudioFileTypeKey: 0x7878_7878]) { $1 })
        }
        #expect(badType?.domain == Self.avfaudio)
        #expect(badType?.code == Int(kAudioFileUnsupportedFileTypeError))
        #expect(failedCall(badType)?.hasPrefix("ExtAudioFileCreateWithURL(") == true)

        let aac = nsError {
            _ = try AVAudioFile(forWriting: dir.appendingPathComponent("x.wav"),
                                settings: [AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: 48_000, AVNumberOfChannelsKey: 2])
        }
        #expect(aac?.domain == Self.avfaudio)
        #expect(aac?.code == Int(kAudioFileUnsupportedDataFormatError))
        #expect(failedCall(aac)?.hasPrefix("ExtAudioFileCreateWithURL(") == true)

        let noDirectory = nsError {
            _ = try AVAudioFile(forWriting: dir.appendingPathComponent("no/such/dir/x.wav"), settings: settings)
        }
        #expect(noDirectory?.domain == Self.avfaudio)
        #expect(noDirectory?.code == Int(kAudioFileUnspecifiedError))
        #expect(failedCall(noDirectory)?.hasPrefix("ExtAudioFileCreateWithURL(") == true)
        #expect(noDirectory?.localizedDescription.contains("directory does not exist") == true)
    }

    /// Reading and writing after close keep our codes, now in Apple's domain, with no failed call
    /// (nothing public shows what Apple names there).
    @Test func closedFileErrorsAreInTheAVFAudioDomain() throws {
        let url = dir.appendingPathComponent("closed.wav")
        let file = try AVAudioFile(forWriting: url, settings: [AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: 8_000,
                                                              AVNumberOfChannelsKey: 1])
        file.close()
        let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 8)!
        buffer.frameLength = 8
        let error = nsError { try file.write(from: buffer) }
        #expect(error?.domain == Self.avfaudio)
        #expect(error?.code == Int(kAudioFileNotOpenError))
    }

    // MARK: AVAudioEngine manual rendering

    /// Declared as Apple declares it: `NS_ENUM(OSStatus, AVAudioEngineManualRenderingError)`.
    @Test func manualRenderingErrorIsAnOSStatusEnum() {
        let all: [AVAudioEngineManualRenderingError] = [.invalidMode, .initialized, .notRunning]
        for e in all {
            switch e { case .invalidMode, .initialized, .notRunning: break }  // exhaustive: an enum
        }
        let raw: OSStatus = AVAudioEngineManualRenderingError.initialized.rawValue
        #expect(raw == -80801)
        #expect(AVAudioEngineManualRenderingError.invalidMode.rawValue == -80800)
        #expect(AVAudioEngineManualRenderingError(rawValue: -80802) == .notRunning)
        #expect(AVAudioEngineManualRenderingError(rawValue: 0) == nil)
    }

    /// The codes measured on Apple's engine: -80802 before start(), -80800 outside manual
    /// rendering mode, -50 for more frames than the maximum or than the buffer holds; -80801 when
    /// enabling manual rendering on a running engine.
    @Test func manualRenderingErrorsMatchApple() throws {
        let engine = AVAudioEngine()
        let player = AVAudioPlayerNode()
        engine.attach(player)
        engine.connect(player, to: engine.mainMixerNode, format: Offline.standard(48_000, 1))
        let format = Offline.standard()
        try engine.enableManualRenderingMode(.offline, format: format, maximumFrameCount: 512)
        let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 1024)!

        let notRunning = nsError { _ = try engine.renderOffline(256, to: buffer) }
        #expect(notRunning?.domain == Self.avfaudio)
        #expect(notRunning?.code == Int(AVAudioEngineManualRenderingError.notRunning.rawValue))

        try engine.start()
        let tooMany = nsError { _ = try engine.renderOffline(1024, to: buffer) }
        #expect(tooMany?.domain == Self.avfaudio)
        #expect(tooMany?.code == -50)
        let small = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 128)!
        let overCapacity = nsError { _ = try engine.renderOffline(256, to: small) }
        #expect(overCapacity?.domain == Self.avfaudio)
        #expect(overCapacity?.code == -50)

        let whileRunning = nsError { try engine.enableManualRenderingMode(.offline, format: format, maximumFrameCount: 256) }
        #expect(whileRunning?.domain == Self.avfaudio)
        #expect(whileRunning?.code == Int(AVAudioEngineManualRenderingError.initialized.rawValue))

        engine.disableManualRenderingMode()
        let invalidMode = nsError { _ = try engine.renderOffline(256, to: buffer) }
        #expect(invalidMode?.domain == Self.avfaudio)
        #expect(invalidMode?.code == Int(AVAudioEngineManualRenderingError.invalidMode.rawValue))
    }

    // MARK: AVAudioConverter keeps NSOSStatusErrorDomain

    /// Apple's AVAudioConverter reports NSOSStatusErrorDomain (measured: -50 when the one-shot
    /// convert(to:from:) is asked to change the sample rate).
    @Test func converterErrorsStayInOSStatusDomain() {
        let from = Offline.standard(44_100, 1), to = Offline.standard(48_000, 1)
        let converter = AVAudioConverter(from: from, to: to)!
        let input = AVAudioPCMBuffer(pcmFormat: from, frameCapacity: 512)!
        input.frameLength = 512
        let output = AVAudioPCMBuffer(pcmFormat: to, frameCapacity: 4800)!
        let error = nsError { try converter.convert(to: output, from: input) }
        #expect(error?.domain == NSOSStatusErrorDomain)
        #expect(error?.code == -50)
    }
}
