// Scheduling a read-only buffer (Apple's macOS 27 / iOS 27 SDK), declared as Apple's current
// documentation declares it
// (developer.apple.com/documentation/avfaudio/avaudioplayernode/schedulebuffer(_:attime:options:completioncallbacktype:completionhandler:)):
//
//     func scheduleBuffer(_ buffer: AVReadOnlyAudioPCMBuffer, atTime when: AVAudioTime? = nil,
//                         options: AVAudioPlayerNodeBufferOptions = [],
//                         completionCallbackType callbackType: AVAudioPlayerNodeCompletionCallbackType = .dataConsumed,
//                         completionHandler: (@Sendable () -> Void)? = nil)
//
// Note the label `atTime` (the AVAudioPCMBuffer forms say `at`) and the argument-less handler
// even with a callback type, both as Apple declares them. The player only reads the buffer's
// samples, so the read-only buffer's storage is scheduled as is, without a copy.

extension AVAudioPlayerNode {
    /// Schedules playing samples from a read-only audio buffer: at `when` (nil: after what is
    /// already scheduled), with `options`; `completionHandler` runs at the moment `callbackType`
    /// names, or when the player stops.
    public func scheduleBuffer(_ buffer: AVReadOnlyAudioPCMBuffer, atTime when: AVAudioTime? = nil,
                               options: AVAudioPlayerNodeBufferOptions = [],
                               completionCallbackType callbackType: AVAudioPlayerNodeCompletionCallbackType = .dataConsumed,
                               completionHandler: (@Sendable () -> Void)? = nil) {
        let handler: AVAudioPlayerNodeCompletionHandler? = completionHandler.map { h in { _ in h() } }
        scheduleBuffer(buffer.storage, at: when, options: options, completionCallbackType: callbackType, completionHandler: handler)
    }
}
