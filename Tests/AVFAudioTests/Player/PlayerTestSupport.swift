// Shared by the AVAudioPlayer / AVAudioRecorder / AVAudioSession tests: test files with known
// content, a delegate that records its calls (and whether they came on the main thread), and a
// bounded wait (every wait has a deadline: nothing here can hang the suite).
import Foundation
import AVFoundation

enum PlayerTestFiles {
    /// A temporary directory for one test.
    static func directory() throws -> URL {
        let url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("avaudioplayer-tests-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Writes a sine (`amplitude`, `frequency`) of `seconds` at `rate` with `channels` channels
    /// (every channel the same) as 32-bit float WAV (or the container the extension names).
    @discardableResult
    static func sine(_ url: URL, seconds: Double, rate: Double = 48_000, channels: AVAudioChannelCount = 1,
                     frequency: Double = 1_000, amplitude: Float = 0.5, settings extra: [String: Any] = [:]) throws -> URL {
        var settings: [String: Any] = [AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: rate, AVNumberOfChannelsKey: channels,
                                       AVLinearPCMBitDepthKey: 32, AVLinearPCMIsFloatKey: true]
        for (k, v) in extra { settings[k] = v }
        let file = try AVAudioFile(forWriting: url, settings: settings)
        let frames = Int(seconds * rate)
        let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: AVAudioFrameCount(frames))!
        buffer.frameLength = AVAudioFrameCount(frames)
        for c in 0..<Int(channels) {
            let p = buffer.floatChannelData![c]
            for i in 0..<frames { p[i] = amplitude * Float(sin(2 * Double.pi * frequency * Double(i) / rate)) }
        }
        try file.write(from: buffer)
        file.close()
        return url
    }
}

/// Waits until `condition` holds or `timeout` seconds pass; returns whether it held.
func waitUntil(_ timeout: Double, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if condition() { return true }
        usleep(5_000)
    }
    return condition()
}

/// Whether the caller runs on the main queue. (Thread.isMainThread is not the test: on Linux a
/// process in `dispatchMain()` — as the test runner's async main is — services the main queue from
/// a worker thread, the main thread having exited.)
enum MainQueue {
    private static let key: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()
    static var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == true }
}

/// Records delegate calls: which, with what flag, on the main queue or not, and when.
final class RecordingDelegate: NSObject, AVAudioPlayerDelegate, AVAudioRecorderDelegate, @unchecked Sendable {
    struct Call { var name: String; var flag: Bool; var onMainThread: Bool; var time: Date }
    override init() { _ = MainQueue.isCurrent; super.init() }
    private let lock = NSLock()
    private var _calls: [Call] = []
    var calls: [Call] { lock.lock(); defer { lock.unlock() }; return _calls }

    private func record(_ name: String, _ flag: Bool) {
        lock.lock(); _calls.append(Call(name: name, flag: flag, onMainThread: MainQueue.isCurrent, time: Date())); lock.unlock()
    }
    func audioPlayerDidFinishPlaying(_ player: AVAudioPlayer, successfully flag: Bool) { record("didFinishPlaying", flag) }
    private var _errors: [Error?] = []
    /// The errors `audioPlayerDecodeErrorDidOccur` / `audioRecorderEncodeErrorDidOccur` received.
    var errors: [Error?] { lock.lock(); defer { lock.unlock() }; return _errors }
    func audioPlayerDecodeErrorDidOccur(_ player: AVAudioPlayer, error: Error?) {
        lock.lock(); _errors.append(error); lock.unlock()
        record("decodeError", false)
    }
    func audioPlayerBeginInterruption(_ player: AVAudioPlayer) { record("beginInterruption", true) }
    func audioRecorderDidFinishRecording(_ recorder: AVAudioRecorder, successfully flag: Bool) { record("didFinishRecording", flag) }
    func audioRecorderBeginInterruption(_ recorder: AVAudioRecorder) { record("recorderBeginInterruption", true) }
    func audioRecorderEncodeErrorDidOccur(_ recorder: AVAudioRecorder, error: Error?) { record("encodeError", false) }
}

/// `AVAudioApplication.setInputMuted(true)` zeroes every capture device of the process, and the
/// test suites run in one process, in parallel: a test that mutes holds this lock for as long as
/// the input is muted, and a test that checks captured audio (AVAudioRecorder or the engine's
/// input node on a real device) holds it while capturing.
/// The shared AVAudioSession's device selection is one per process: a test outside the
/// serialized AVAudioSessionTests suite that changes it holds this lock, and so does a session
/// test that needs the selection to stay put while other suites run (output muting).
enum SharedSessionTestLock {
    static let lock = NSLock()
}

enum InputMuteTestLock {
    static let lock = NSLock()
    static func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock(); defer { lock.unlock() }
        return try body()
    }
}
