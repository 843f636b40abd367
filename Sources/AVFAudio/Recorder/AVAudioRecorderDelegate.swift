// AVAudioRecorderDelegate: all methods optional on Apple platforms; here each has an empty
// default implementation. The recorder calls its delegate on the main queue, with no internal
// lock held (a command-line program must let the main queue run to hear from it).
import Foundation

/// The methods an audio recorder's delegate may implement (all optional).
public protocol AVAudioRecorderDelegate: NSObjectProtocol {
    /// Recording stopped (`stop()`) or reached the duration given to `record(forDuration:)`;
    /// `flag` is false when it ended because of an encoding (writing) error.
    func audioRecorderDidFinishRecording(_ recorder: AVAudioRecorder, successfully flag: Bool)
    /// Writing the recording failed.
    func audioRecorderEncodeErrorDidOccur(_ recorder: AVAudioRecorder, error: Error?)
    /// Deprecated by Apple (use AVAudioSession's interruption notification).
    func audioRecorderBeginInterruption(_ recorder: AVAudioRecorder)
    func audioRecorderEndInterruption(_ recorder: AVAudioRecorder, withOptions flags: Int)
    func audioRecorderEndInterruption(_ recorder: AVAudioRecorder, withFlags flags: Int)
    func audioRecorderEndInterruption(_ recorder: AVAudioRecorder)
}

extension AVAudioRecorderDelegate {
    public func audioRecorderDidFinishRecording(_ recorder: AVAudioRecorder, successfully flag: Bool) {}
    public func audioRecorderEncodeErrorDidOccur(_ recorder: AVAudioRecorder, error: Error?) {}
    public func audioRecorderBeginInterruption(_ recorder: AVAudioRecorder) {}
    public func audioRecorderEndInterruption(_ recorder: AVAudioRecorder, withOptions flags: Int) {}
    public func audioRecorderEndInterruption(_ recorder: AVAudioRecorder, withFlags flags: Int) {}
    public func audioRecorderEndInterruption(_ recorder: AVAudioRecorder) {}
}
