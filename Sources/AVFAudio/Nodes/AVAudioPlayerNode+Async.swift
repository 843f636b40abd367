// The async forms of AVAudioPlayerNode's scheduling methods.
//
// On Apple platforms the Swift importer turns every Objective-C method whose last argument is a
// completion handler into an `async` twin that returns when the handler is called; for the player
// that gives eight: scheduleBuffer (with and without a time and options, with and without a
// completion callback type), scheduleFile and scheduleSegment (each with and without a callback
// type). The forms with a callback type return the type the handler received. (Apple's reference
// lists them under the completion-handler methods; the .NET bindings of the same SDK show the
// same eight as ScheduleBufferAsync/ScheduleFileAsync/ScheduleSegmentAsync overloads.)
//
// Each awaits the completion handler of its synchronous twin, so it returns when the data has
// been consumed (or rendered, or played back, as the callback type asks) or when the player is
// stopped — which, as on Apple platforms, means a looping buffer returns only after stop(). In
// offline manual rendering the handlers run before `renderOffline` returns, so a task awaiting
// one of these resumes once the rendering has reached the end of the data; `.dataPlayedBack`
// never arrives offline (there is no device), exactly as measured on Apple's engine.
//
// In an async context Swift prefers these overloads: `await player.scheduleBuffer(buffer)` waits,
// `player.scheduleBuffer(buffer)` outside `await` schedules and returns at once.

extension AVAudioPlayerNode {
    /// Schedules `buffer` after what is already scheduled and returns once it has been consumed
    /// (or the player was stopped).
    public func scheduleBuffer(_ buffer: AVAudioPCMBuffer) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            scheduleBuffer(buffer, completionHandler: { done.resume() })
        }
    }

    /// Schedules `buffer` at `when` with `options` and returns once it has been consumed (or the
    /// player was stopped).
    public func scheduleBuffer(_ buffer: AVAudioPCMBuffer, at when: AVAudioTime?, options: AVAudioPlayerNodeBufferOptions = []) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            scheduleBuffer(buffer, at: when, options: options, completionHandler: { done.resume() })
        }
    }

    /// Schedules `buffer` after what is already scheduled and returns when the moment
    /// `callbackType` names has come (or the player was stopped), with the type reported.
    public func scheduleBuffer(_ buffer: AVAudioPCMBuffer,
                               completionCallbackType callbackType: AVAudioPlayerNodeCompletionCallbackType) async -> AVAudioPlayerNodeCompletionCallbackType {
        await withCheckedContinuation { (done: CheckedContinuation<AVAudioPlayerNodeCompletionCallbackType, Never>) in
            scheduleBuffer(buffer, completionCallbackType: callbackType, completionHandler: { done.resume(returning: $0) })
        }
    }

    /// Schedules `buffer` at `when` with `options` and returns when the moment `callbackType`
    /// names has come (or the player was stopped), with the type reported.
    public func scheduleBuffer(_ buffer: AVAudioPCMBuffer, at when: AVAudioTime?, options: AVAudioPlayerNodeBufferOptions = [],
                               completionCallbackType callbackType: AVAudioPlayerNodeCompletionCallbackType) async -> AVAudioPlayerNodeCompletionCallbackType {
        await withCheckedContinuation { (done: CheckedContinuation<AVAudioPlayerNodeCompletionCallbackType, Never>) in
            scheduleBuffer(buffer, at: when, options: options, completionCallbackType: callbackType,
                           completionHandler: { done.resume(returning: $0) })
        }
    }

    /// Schedules the whole of `file` and returns once it has been consumed (or the player was
    /// stopped).
    public func scheduleFile(_ file: AVAudioFile, at when: AVAudioTime?) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            scheduleFile(file, at: when, completionHandler: { done.resume() })
        }
    }

    /// Schedules the whole of `file` and returns when the moment `callbackType` names has come
    /// (or the player was stopped), with the type reported.
    public func scheduleFile(_ file: AVAudioFile, at when: AVAudioTime?,
                             completionCallbackType callbackType: AVAudioPlayerNodeCompletionCallbackType) async -> AVAudioPlayerNodeCompletionCallbackType {
        await withCheckedContinuation { (done: CheckedContinuation<AVAudioPlayerNodeCompletionCallbackType, Never>) in
            scheduleFile(file, at: when, completionCallbackType: callbackType, completionHandler: { done.resume(returning: $0) })
        }
    }

    /// Schedules `frameCount` frames of `file` from `startingFrame` and returns once they have
    /// been consumed (or the player was stopped).
    public func scheduleSegment(_ file: AVAudioFile, startingFrame: AVAudioFramePosition, frameCount: AVAudioFrameCount,
                                at when: AVAudioTime?) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            scheduleSegment(file, startingFrame: startingFrame, frameCount: frameCount, at: when, completionHandler: { done.resume() })
        }
    }

    /// Schedules a segment of `file` and returns when the moment `callbackType` names has come
    /// (or the player was stopped), with the type reported.
    public func scheduleSegment(_ file: AVAudioFile, startingFrame: AVAudioFramePosition, frameCount: AVAudioFrameCount,
                                at when: AVAudioTime?,
                                completionCallbackType callbackType: AVAudioPlayerNodeCompletionCallbackType) async -> AVAudioPlayerNodeCompletionCallbackType {
        await withCheckedContinuation { (done: CheckedContinuation<AVAudioPlayerNodeCompletionCallbackType, Never>) in
            scheduleSegment(file, startingFrame: startingFrame, frameCount: frameCount, at: when,
                            completionCallbackType: callbackType, completionHandler: { done.resume(returning: $0) })
        }
    }
}
