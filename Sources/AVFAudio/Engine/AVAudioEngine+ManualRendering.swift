// Manual rendering: the engine renders when asked, disconnected from any device — offline (as
// fast as possible, e.g. to a file) or real time (from the client's own audio callback).
//
// Output is deterministic: the same samples whatever `maximumFrameCount` and whatever chunk
// sizes the caller asks for, because every node keeps its timing in samples on the engine's
// timeline and the plan renders exactly the frames requested.
import AudioKernels

extension AVAudioEngine {
    /// Switches the engine to manual rendering in `mode`, producing `pcmFormat` in chunks of at
    /// most `maximumFrameCount` frames. The engine must be stopped.
    public func enableManualRenderingMode(_ mode: AVAudioEngineManualRenderingMode, format pcmFormat: AVAudioFormat,
                                          maximumFrameCount: AVAudioFrameCount) throws {
        // (the render side reads the scratch memory replaced below: no cycle may be in flight)
        lockWhenRenderIdle(); defer { lock.unlock() }
        guard !isRunningUnlocked else {
            throw manualError(.initialized, "enableManualRenderingMode: stop the engine first")
        }
        guard pcmFormat.isPCM, pcmFormat.processingSampleType != nil else {
            throw manualError(.invalidMode, "enableManualRenderingMode: \(pcmFormat) is not a PCM common format")
        }
        guard maximumFrameCount > 0 else {
            throw manualError(.invalidMode, "enableManualRenderingMode: maximumFrameCount must be positive")
        }
        // Every node's render buffer holds this many frames per channel: 2^31 frames would ask for
        // 8 GiB per channel per node (Apple documents no limit; -50, as for a render request
        // beyond the maximum, is the safe answer).
        guard maximumFrameCount <= AVAudioEngine.maximumManualRenderingFrameCount else {
            throw manualError(kAudio_ParamError, "enableManualRenderingMode: maximumFrameCount \(maximumFrameCount) exceeds the largest supported, \(AVAudioEngine.maximumManualRenderingFrameCount) frames")
        }
        setManualRendering(mode, format: pcmFormat, maximumFrames: maximumFrameCount)
        outputNode.deviceFormat = AVAudioFormat(standardFormatWithSampleRate: pcmFormat.sampleRate, channelLayoutOrCount: pcmFormat)
        outputNodeFormatDidChange()
        inputNodeFormatDidChange()
        outputNode.removeTap(onBus: 0)
        inputNode(ifCreated: { $0.removeTap(onBus: 0) })
        graphDidChange()
    }

    /// The largest `maximumFrameCount` manual rendering accepts (about 22 s at 48 kHz).
    static let maximumManualRenderingFrameCount: AVAudioFrameCount = 1 << 20

    /// Returns the engine to rendering on a device: stops and resets it first.
    public func disableManualRenderingMode() {
        guard isInManualRenderingMode else { return }
        // Outside the lock: stop() waits for the dispatcher and the cycle in flight, and reset()
        // may run completion handlers.
        stop()
        reset()
        lockWhenRenderIdle(); defer { lock.unlock() }
        guard manualRenderingState.mode != nil, !isRunningUnlocked else { return }
        setManualRendering(nil, format: nil, maximumFrames: 0)
        outputNode.deviceFormat = nil
        outputNodeFormatDidChange()
        inputNode(ifCreated: { $0.forgetManualRenderingInput() })
        inputNodeFormatDidChange()
        outputNode.removeTap(onBus: 0)
        inputNode(ifCreated: { $0.removeTap(onBus: 0) })
    }

    /// Whether the engine is in manual rendering mode.
    public var isInManualRenderingMode: Bool { lock.lock(); defer { lock.unlock() }; return manualRenderingState.mode != nil }

    /// The manual rendering mode (`.offline` when not in manual rendering mode, as Apple reports).
    public var manualRenderingMode: AVAudioEngineManualRenderingMode { manualRenderingState.mode ?? .offline }

    /// The format manual rendering produces.
    public var manualRenderingFormat: AVAudioFormat {
        manualRenderingState.format ?? outputNode.outputFormat(forBus: 0)
    }

    /// The largest frame count one manual render call may ask for.
    public var manualRenderingMaximumFrameCount: AVAudioFrameCount { manualRenderingState.maximumFrames }

    /// The engine's position in manual rendering: frames rendered since `start()` (or `reset`).
    public var manualRenderingSampleTime: AVAudioFramePosition { currentManualSampleTime }

    /// Renders `numberOfFrames` frames into `buffer` (offline mode). `buffer.frameLength` is set
    /// to the frames rendered. Throws when the engine is not in offline manual rendering mode,
    /// not running, or the request does not fit the buffer or the maximum frame count.
    public func renderOffline(_ numberOfFrames: AVAudioFrameCount, to buffer: AVAudioPCMBuffer) throws -> AVAudioEngineManualRenderingStatus {
        lock.lock()
        defer { lock.unlock() }
        let state = manualRenderingState
        guard state.mode == .offline, let format = state.format else {
            throw manualError(.invalidMode, "renderOffline: the engine is not in offline manual rendering mode")
        }
        guard isRunningUnlocked else { throw manualError(.notRunning, "renderOffline: the engine is not running; call start() first") }
        guard numberOfFrames <= state.maximumFrames else {
            throw manualError(kAudio_ParamError, "renderOffline: \(numberOfFrames) frames exceed the maximum frame count \(state.maximumFrames)")
        }
        guard numberOfFrames <= buffer.frameCapacity else {
            throw manualError(kAudio_ParamError, "renderOffline: \(numberOfFrames) frames exceed the buffer's capacity \(buffer.frameCapacity)")
        }
        guard buffer.format.commonFormat == format.commonFormat, buffer.format.isInterleaved == format.isInterleaved,
              buffer.format.channelCount == format.channelCount else {
            throw manualError(kAudio_ParamError, "renderOffline: the buffer's format \(buffer.format) differs from the manual rendering format \(format)")
        }
        let frames = Int(numberOfFrames)
        // The cycle runs under the gate, not the lock (render blocks are client code). Entering
        // the gate under the lock pins what was checked above: the mode, format and scratch
        // memory change only while the gate is closed and idle.
        switch gate.enter() {
        case .closed:
            throw manualError(.notRunning, "renderOffline: the engine is not running; call start() first")
        case .busy:
            return .cannotDoInCurrentContext   // another thread is inside a render call of this engine
        case .admitted:
            break
        }
        lock.unlock()
        let (status, source) = renderManualCycle(frames: frames)
        copyOutput(source, frames: frames, to: buffer.processingBufferPointer, format: format)
        gate.leave()
        buffer.frameLength = numberOfFrames
        // Completions and tap blocks run here, on the caller's thread, with no lock held.
        drainEventsAfterOfflineRender()
        lock.lock()
        return status
    }

    /// A block that renders in manual rendering mode (either mode), into the caller's
    /// AudioBufferList in the manual rendering format. Buffers whose `mData` is nil are pointed at
    /// the engine's own memory. Real-time safe in `.realtime` mode.
    public var manualRenderingBlock: AVAudioEngineManualRenderingBlock {
        return { [unowned self] frameCount, outBuffer, outError in
            // The gate, not the lock: a client's real-time thread must never block. While admitted,
            // stop()/disableManualRenderingMode() wait for this call before touching anything it
            // reads. Apple: `.error` with `notRunning` when the engine is not running;
            // `.cannotDoInCurrentContext` when the engine cannot render now (here: another thread
            // is inside a render call of this engine) — the client retries next cycle.
            let list = UnsafeMutableAudioBufferListPointer(outBuffer)
            // Apple: "irrespective of the returned status code, on exit, the output buffer's
            // mDataByteSize will indicate the number of PCM data bytes rendered" — none unless
            // the call renders.
            func renderedNothing() {
                var b = 0
                while b < list.count { list[b].mDataByteSize = 0; b += 1 }
            }
            switch self.gate.enter() {
            case .closed:
                renderedNothing()
                outError?.pointee = OSStatus(AVAudioEngineManualRenderingError.notRunning.rawValue)
                return .error
            case .busy:
                renderedNothing()
                outError?.pointee = noErr
                return .cannotDoInCurrentContext
            case .admitted:
                break
            }
            let state = self.manualRenderingState
            func fail(_ code: OSStatus) -> AVAudioEngineManualRenderingStatus {
                self.gate.leave()
                renderedNothing()
                outError?.pointee = code
                return .error
            }
            guard let mode = state.mode, let format = state.format, self.isRunningUnlocked else {
                return fail(OSStatus(AVAudioEngineManualRenderingError.notRunning.rawValue))
            }
            guard frameCount <= state.maximumFrames else { return fail(OSStatus(kAudioConverterErr_InvalidOutputSize)) }
            // The caller's buffers must be laid out as the manual rendering format says; checked
            // before rendering, so a refused call does not advance the timeline.
            guard let type = format.processingSampleType, list.count == (format.isInterleaved ? 1 : Int(format.channelCount)) else {
                return fail(OSStatus(kAudioConverterErr_FormatNotSupported))
            }
            // Engine memory can be lent only as one Float32 channel per buffer (see below); other
            // formats must bring their own memory.
            if type != .float32 || (format.isInterleaved && format.channelCount > 1) {
                var b = 0
                while b < list.count {
                    if list[b].mData == nil { return fail(OSStatus(kAudio_ParamError)) }
                    b += 1
                }
            }
            let frames = Int(frameCount)
            let (status, source) = self.renderManualCycle(frames: frames)
            let bytesPerFrame = Int(format.streamDescription.pointee.mBytesPerFrame)
            // Buffers without memory borrow the engine's (Float32 planar formats). Index loops:
            // generic collection algorithms allocate coroutine frames in debug builds.
            if let source {
                var i = 0
                while i < min(list.count, source.channelCount) {
                    if list[i].mData == nil { list[i].mData = UnsafeMutableRawPointer(source.channels[i]) }
                    i += 1
                }
            }
            var b = 0
            while b < list.count { list[b].mDataByteSize = UInt32(frames * bytesPerFrame); b += 1 }
            if format.isInterleaved {
                self.copyOutput(source, frames: frames, to: .interleaved(list[0].mData!, channelCount: Int(format.channelCount), sampleType: type), format: format)
            } else {
                for c in 0..<list.count {
                    guard let data = list[c].mData else { continue }
                    let sourceChannel = source.flatMap { c < $0.channelCount ? UnsafeMutableRawPointer($0.channels[c]) : nil }
                        ?? UnsafeMutableRawPointer(self.manualSilence.pointee)
                    if sourceChannel != data {
                        SampleConversion.convert(frameCount: frames, from: .interleaved(sourceChannel, channelCount: 1, sampleType: .float32),
                                                 to: .interleaved(data, channelCount: 1, sampleType: type))
                    }
                }
            }
            self.gate.leave()
            if mode == .offline { self.drainEventsAfterOfflineRender() }
            outError?.pointee = noErr
            return status
        }
    }

    /// Converts the rendered planar Float32 output into the manual rendering format. Channels the
    /// source lacks (or all, when nothing is connected to the output node) are silent.
    private func copyOutput(_ source: RenderBuffer?, frames: Int, to destination: ProcessingBufferPointer, format: AVAudioFormat) {
        let channels = Int(format.channelCount)
        let pointers = manualChannelPointers
        for c in 0..<channels {
            if let source, c < source.channelCount {
                pointers[c] = UnsafeMutableRawPointer(source.channels[c])
            } else {
                pointers[c] = UnsafeMutableRawPointer(manualSilence.pointee)
            }
        }
        SampleConversion.convert(frameCount: frames, from: .deinterleaved(UnsafeBufferPointer(start: pointers, count: channels), sampleType: .float32),
                                 to: destination)
    }

    /// Domain and codes as Apple reports them (evidence in Types/AVAudioErrors.swift).
    func manualError(_ code: AVAudioEngineManualRenderingError, _ message: String) -> NSError {
        manualError(code.rawValue, message)
    }

    func manualError(_ code: OSStatus, _ message: String) -> NSError {
        avfaudioError(code, "AVAudioEngine." + message)
    }

    func inputNode(ifCreated body: (AVAudioInputNode) -> Void) {
        if let node = createdInputNode { body(node) }
    }
}

extension AVAudioFormat {
    /// The standard format with another format's channel layout (or channel count).
    convenience init(standardFormatWithSampleRate sampleRate: Double, channelLayoutOrCount other: AVAudioFormat) {
        if let layout = other.channelLayout {
            self.init(standardFormatWithSampleRate: sampleRate, channelLayout: layout)
        } else {
            self.init(commonFormat: .pcmFormatFloat32, sampleRate: sampleRate, channels: other.channelCount, interleaved: false)!
        }
    }
}
