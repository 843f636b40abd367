// AVAudioPlayerNode: plays scheduled buffers and file segments on a sample-accurate timeline.
//
// Timelines. The *node* timeline is the engine's (sample time at the node's output rate). The
// *player* timeline starts at 0 where playback starts (`play()` or `play(at:)`) and advances only
// while playing. A scheduled item with `at: nil` starts right after the previous one (or at once
// when nothing is queued); with a sample time, it starts at that player time; with only a host
// time, at the player time that host time corresponds to.
//
// Threads. Control methods (schedule, play, pause, stop) post commands to the render object
// through a lock-free queue; the render object plays items and posts completions back through the
// engine's event queue, so handlers run off the render thread, exactly once each:
// `.dataConsumed` when the player has read the item's last frame, `.dataRendered` when the cycle
// containing it has been rendered, `.dataPlayedBack` when it has reached the listener (after the
// device's presentation latency; the same as rendered in manual rendering). Stopping the player
// (or the engine) completes every unplayed item.
import Synchronization

/// Options for scheduling buffers.
public struct AVAudioPlayerNodeBufferOptions: OptionSet, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    /// Loop the buffer until another buffer interrupts it or the player stops.
    public static let loops = AVAudioPlayerNodeBufferOptions(rawValue: 1 << 0)
    /// Interrupt whatever is playing (and drop what is queued): the buffer plays at once.
    public static let interrupts = AVAudioPlayerNodeBufferOptions(rawValue: 1 << 1)
    /// Interrupt a looping buffer at the end of its current loop.
    public static let interruptsAtLoop = AVAudioPlayerNodeBufferOptions(rawValue: 1 << 2)
}

/// When a completion handler is called.
public enum AVAudioPlayerNodeCompletionCallbackType: Int, Sendable {
    /// The player has consumed the data (it may not have been rendered yet).
    case dataConsumed = 0
    /// The data has been rendered by the player.
    case dataRendered = 1
    /// The data has been played back by the output device.
    case dataPlayedBack = 2
}

/// A completion handler that learns which moment it was called for.
public typealias AVAudioPlayerNodeCompletionHandler = (AVAudioPlayerNodeCompletionCallbackType) -> Void

/// A node that plays buffers and segments of audio files.
open class AVAudioPlayerNode: AVAudioNode, AVAudioMixing {
    private var playerRenderer: PlayerRenderer { renderer as! PlayerRenderer }
    private var _isPlaying = false

    /// Creates a player.
    public init() {
        super.init(renderer: PlayerRenderer(), inputs: 0, outputs: 1)
        playerRenderer.node = self
    }

    // MARK: Scheduling buffers

    /// Schedules `buffer` after anything already scheduled; `completionHandler` runs once the
    /// buffer has been consumed (or the player stops).
    open func scheduleBuffer(_ buffer: AVAudioPCMBuffer, completionHandler: AVAudioNodeCompletionHandler? = nil) {
        scheduleBuffer(buffer, at: nil, options: [], completionHandler: completionHandler)
    }

    /// Schedules `buffer` at `when` (nil: after what is already scheduled) with `options`.
    open func scheduleBuffer(_ buffer: AVAudioPCMBuffer, at when: AVAudioTime?, options: AVAudioPlayerNodeBufferOptions = [],
                             completionHandler: AVAudioNodeCompletionHandler? = nil) {
        let handler: AVAudioPlayerNodeCompletionHandler? = completionHandler.map { h in { _ in h() } }
        schedule(.buffer(checked(buffer)), at: when, options: options, callbackType: .dataConsumed, handler: handler)
    }

    /// Schedules `buffer` after what is already scheduled, with a typed completion handler.
    open func scheduleBuffer(_ buffer: AVAudioPCMBuffer, completionCallbackType callbackType: AVAudioPlayerNodeCompletionCallbackType,
                             completionHandler: AVAudioPlayerNodeCompletionHandler? = nil) {
        scheduleBuffer(buffer, at: nil, options: [], completionCallbackType: callbackType, completionHandler: completionHandler)
    }

    /// Schedules `buffer` at `when` with `options` and a typed completion handler.
    open func scheduleBuffer(_ buffer: AVAudioPCMBuffer, at when: AVAudioTime?, options: AVAudioPlayerNodeBufferOptions = [],
                             completionCallbackType callbackType: AVAudioPlayerNodeCompletionCallbackType,
                             completionHandler: AVAudioPlayerNodeCompletionHandler? = nil) {
        schedule(.buffer(checked(buffer)), at: when, options: options, callbackType: callbackType, handler: completionHandler)
    }

    // MARK: Scheduling files

    /// Schedules the whole of `file` (converted to the player's output format).
    open func scheduleFile(_ file: AVAudioFile, at when: AVAudioTime?, completionHandler: AVAudioNodeCompletionHandler? = nil) {
        scheduleSegment(file, startingFrame: 0, frameCount: AVAudioFrameCount(clamping: max(0, file.length)), at: when, completionHandler: completionHandler)
    }

    /// Schedules the whole of `file` with a typed completion handler.
    open func scheduleFile(_ file: AVAudioFile, at when: AVAudioTime?, completionCallbackType callbackType: AVAudioPlayerNodeCompletionCallbackType,
                           completionHandler: AVAudioPlayerNodeCompletionHandler? = nil) {
        scheduleSegment(file, startingFrame: 0, frameCount: AVAudioFrameCount(clamping: max(0, file.length)), at: when,
                        completionCallbackType: callbackType, completionHandler: completionHandler)
    }

    /// Schedules `frameCount` frames of `file` from `startingFrame`.
    open func scheduleSegment(_ file: AVAudioFile, startingFrame: AVAudioFramePosition, frameCount: AVAudioFrameCount, at when: AVAudioTime?,
                              completionHandler: AVAudioNodeCompletionHandler? = nil) {
        let handler: AVAudioPlayerNodeCompletionHandler? = completionHandler.map { h in { _ in h() } }
        scheduleSegment(file, startingFrame: startingFrame, frameCount: frameCount, at: when, callbackType: .dataConsumed, handler: handler,
                        decodeErrorHandler: nil)
    }

    /// Schedules a segment of `file` with a typed completion handler.
    open func scheduleSegment(_ file: AVAudioFile, startingFrame: AVAudioFramePosition, frameCount: AVAudioFrameCount, at when: AVAudioTime?,
                              completionCallbackType callbackType: AVAudioPlayerNodeCompletionCallbackType,
                              completionHandler: AVAudioPlayerNodeCompletionHandler? = nil) {
        scheduleSegment(file, startingFrame: startingFrame, frameCount: frameCount, at: when, callbackType: callbackType, handler: completionHandler,
                        decodeErrorHandler: nil)
    }

    /// `scheduleSegment` with a handler told (once, off the render thread) when the file cannot
    /// deliver frames it had when scheduled (FileSegmentSource); for AVAudioPlayer's
    /// `audioPlayerDecodeErrorDidOccur`. Apple's player node has no such report.
    func scheduleSegment(_ file: AVAudioFile, startingFrame: AVAudioFramePosition, frameCount: AVAudioFrameCount, at when: AVAudioTime?,
                         callbackType: AVAudioPlayerNodeCompletionCallbackType, handler: AVAudioPlayerNodeCompletionHandler?,
                         decodeErrorHandler: ((NSError) -> Void)?, channelMap: [Int]? = nil) {
        let start = max(0, min(startingFrame, file.length))
        let count = Int(min(AVAudioFramePosition(frameCount), file.length - start))
        guard count > 0 else {
            // Nothing to play: complete at once (Apple calls the handler for an empty segment).
            handler?(callbackType)
            return
        }
        let output = outputFormats[0]
        do {
            let source = try FileSegmentSource(file: file, start: start, frames: count, outputFormat: output,
                                               channelMap: channelMap, decodeErrorHandler: decodeErrorHandler)
            schedule(.file(source), at: when, options: [], callbackType: callbackType, handler: handler)
        } catch {
            // The file could not be reopened for streaming: report through the handler as completed,
            // and say why (never trap on an environment failure).
            FileHandle.standardError.write(Data("AVAudioPlayerNode: cannot play '\(file.url.path)': \((error as NSError).localizedDescription)\n".utf8))
            if let handler { handler(callbackType) }
        }
    }

    private func checked(_ buffer: AVAudioPCMBuffer) -> AVAudioPCMBuffer {
        let output = outputFormats[0]
        precondition(buffer.format.channelCount == output.channelCount && buffer.format.sampleRate == output.sampleRate,
                     "\(nodeName).scheduleBuffer: the buffer's format \(buffer.format) must match the player's output format \(output) (channel count and sample rate); connect the player with the buffer's format")
        return buffer
    }

    private func schedule(_ content: ScheduledItem.Content, at when: AVAudioTime?, options: AVAudioPlayerNodeBufferOptions,
                          callbackType: AVAudioPlayerNodeCompletionCallbackType, handler: AVAudioPlayerNodeCompletionHandler?) {
        var start: Int64?
        if let when {
            if when.isSampleTimeValid {
                let rate = when.sampleRate > 0 ? when.sampleRate : outputFormats[0].sampleRate
                start = Int64((Double(when.sampleTime) * outputFormats[0].sampleRate / rate).rounded())
            } else if when.isHostTimeValid, let t = playerTime(forHostTime: when.hostTime) {
                start = t
            }
        }
        let item = ScheduledItem(content: content, start: start, options: options, callbackType: callbackType, handler: handler)
        playerRenderer.send(.schedule(Unmanaged.passRetained(item)), engine: _engine)
    }

    // MARK: Transport

    /// Starts (or resumes) playback now.
    open func play() {
        _isPlaying = true
        playerRenderer.send(.play(nil), engine: _engine)
    }

    /// Starts playback at `when` (node time; nil: now).
    open func play(at when: AVAudioTime?) {
        _isPlaying = true
        var start: Int64?
        if let when {
            if when.isSampleTimeValid {
                start = when.sampleTime
            } else if when.isHostTimeValid, let now = lastRenderTime, now.isHostTimeValid {
                let delta = AVAudioTime.seconds(forHostTime: when.hostTime &- now.hostTime) * outputFormats[0].sampleRate
                start = now.sampleTime + Int64(when.hostTime >= now.hostTime ? delta.rounded() : 0)
            }
        }
        playerRenderer.send(.play(start), engine: _engine)
    }

    /// Pauses: the player timeline stops; `play()` resumes it.
    open func pause() {
        _isPlaying = false
        playerRenderer.send(.pause, engine: _engine)
    }

    /// Stops: every scheduled item is dropped (its completion handler runs) and the player
    /// timeline returns to 0.
    open func stop() {
        _isPlaying = false
        playerRenderer.send(.stop, engine: _engine)
    }

    /// Whether the player is playing.
    open var isPlaying: Bool { _isPlaying }

    /// Prepares file data for `frameCount` frames (file segments are read ahead on demand; this
    /// is accepted for compatibility and has no further effect).
    open func prepare(withFrameCount frameCount: AVAudioFrameCount) {}

    /// Converts a player time to node time (nil when the player is not playing).
    open func nodeTime(forPlayerTime playerTime: AVAudioTime) -> AVAudioTime? {
        guard let origin = playerRenderer.timelineOrigin, playerTime.isSampleTimeValid else { return nil }
        let rate = outputFormats[0].sampleRate
        let sample = playerTime.sampleTime + origin
        if let now = lastRenderTime, now.isHostTimeValid {
            let host = Double(now.hostTime) + Double(sample - now.sampleTime) / rate * 1e9
            return AVAudioTime(hostTime: UInt64(max(0, host)), sampleTime: sample, atRate: rate)
        }
        return AVAudioTime(sampleTime: sample, atRate: rate)
    }

    /// Converts a node time to player time (nil when the player is not playing).
    open func playerTime(forNodeTime nodeTime: AVAudioTime) -> AVAudioTime? {
        guard let origin = playerRenderer.timelineOrigin else { return nil }
        let rate = outputFormats[0].sampleRate
        if nodeTime.isSampleTimeValid {
            return AVAudioTime(sampleTime: nodeTime.sampleTime - origin, atRate: rate)
        }
        guard nodeTime.isHostTimeValid, let t = playerTime(forHostTime: nodeTime.hostTime) else { return nil }
        return AVAudioTime(sampleTime: t, atRate: rate)
    }

    private func playerTime(forHostTime host: UInt64) -> Int64? {
        guard let origin = playerRenderer.timelineOrigin, let now = lastRenderTime, now.isHostTimeValid else { return nil }
        let seconds = (Double(host) - Double(now.hostTime)) * 1e-9
        return now.sampleTime + Int64((seconds * outputFormats[0].sampleRate).rounded()) - origin
    }

    open override func reset() {
        stop()
    }

    /// The engine stopped: items are completed, the timeline returns to 0.
    func engineDidStop() {
        _isPlaying = false
        playerRenderer.stopWhileNotRendering(engine: _engine)
    }
}
