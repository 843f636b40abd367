// AVAudioPlayerDelegate: every method is optional on Apple platforms (`@objc optional`); here
// each has an empty default implementation in a protocol extension, so a conforming class
// implements only what it needs — the same source compiles on both.
//
// Threading (Apple: the delegate is told on the main thread): the player calls its delegate on
// the main queue (`DispatchQueue.main`), never while holding an internal lock. A command-line
// program must let the main queue run (`dispatchMain()`, `RunLoop.main.run(until:)` or an async
// `main`) to hear from its delegate. (On Linux, `dispatchMain()` lets the main thread exit and
// services the main queue from a worker thread, so `Thread.isMainThread` can be false in a
// delegate method although it runs on the main queue, serialised with all other main-queue work.)
import Foundation

/// The methods an audio player's delegate may implement (all optional).
public protocol AVAudioPlayerDelegate: NSObjectProtocol {
    /// The player finished playing: `flag` is false when playback stopped because of a decoding error.
    func audioPlayerDidFinishPlaying(_ player: AVAudioPlayer, successfully flag: Bool)
    /// A decoding error occurred during playback.
    func audioPlayerDecodeErrorDidOccur(_ player: AVAudioPlayer, error: Error?)
    /// The system interrupted playback (here: the sound server went away; see AVAudioSession).
    func audioPlayerBeginInterruption(_ player: AVAudioPlayer)
    /// The interruption ended, with AVAudioSession.InterruptionOptions raw values.
    func audioPlayerEndInterruption(_ player: AVAudioPlayer, withOptions flags: Int)
    /// The interruption ended (deprecated form with flags).
    func audioPlayerEndInterruption(_ player: AVAudioPlayer, withFlags flags: Int)
    /// The interruption ended (deprecated form).
    func audioPlayerEndInterruption(_ player: AVAudioPlayer)
}

extension AVAudioPlayerDelegate {
    public func audioPlayerDidFinishPlaying(_ player: AVAudioPlayer, successfully flag: Bool) {}
    public func audioPlayerDecodeErrorDidOccur(_ player: AVAudioPlayer, error: Error?) {}
    public func audioPlayerBeginInterruption(_ player: AVAudioPlayer) {}
    public func audioPlayerEndInterruption(_ player: AVAudioPlayer, withOptions flags: Int) {}
    public func audioPlayerEndInterruption(_ player: AVAudioPlayer, withFlags flags: Int) {}
    public func audioPlayerEndInterruption(_ player: AVAudioPlayer) {}
}
