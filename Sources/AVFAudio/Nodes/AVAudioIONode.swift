// The engine's I/O nodes. The output node's input is what the device (or manual rendering)
// receives; the input node delivers the device's input (silence on the null device) or, in
// manual rendering, what the client's input block supplies.

/// A node that performs audio input or output.
open class AVAudioIONode: AVAudioNode {
    /// Seconds from the device to this node (input) or from this node to the listener (output).
    open var presentationLatency: TimeInterval { _engine?.outputPresentationLatency ?? 0 }

    /// Voice processing (echo cancellation, AGC) is not available on Linux: always false.
    open var isVoiceProcessingEnabled: Bool { false }

    /// Voice processing is not available on Linux: throws an `NSError` saying so, never pretends.
    open func setVoiceProcessingEnabled(_ enabled: Bool) throws {
        guard enabled else { return }
        throw NSError(domain: NSOSStatusErrorDomain, code: Int(kAudioFileUnsupportedPropertyError), userInfo: [
            NSLocalizedDescriptionKey: "\(nodeName): voice processing (echo cancellation, automatic gain control) is not available in OpenAVFAudio on Linux",
        ])
    }
}

/// The engine's output: connect what should be heard (usually the main mixer) to its input.
open class AVAudioOutputNode: AVAudioIONode {
    /// The device or manual rendering format; nil until the engine knows it.
    var deviceFormat: AVAudioFormat? {
        didSet { outputFormats[0] = deviceFormat ?? AVAudioOutputNode.fallbackFormat }
    }

    /// The device format before a device is opened: 48 kHz stereo, the null device's format.
    static let fallbackFormat = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!

    init() {
        super.init(renderer: NodeRenderer(), inputs: 1, outputs: 1)
        outputFormats[0] = AVAudioOutputNode.fallbackFormat
    }

    /// The rate at which the engine's timeline runs.
    var outputRate: Double { outputFormats[0].sampleRate }

    override func defaultInputFormat(bus: AVAudioNodeBus) -> AVAudioFormat { outputFormats[0] }

    override func willSetInputFormat(_ format: AVAudioFormat, bus: AVAudioNodeBus) -> String? {
        format.sampleRate == outputRate ? nil
            : "the output node renders at \(outputRate) Hz (its device or manual rendering format \(outputFormats[0])); connect through a mixer to convert the sample rate"
    }
}

/// The engine's input.
///
/// Its output format is the device's input format (the null device's: 48 kHz stereo) or, in
/// manual rendering mode, the format given to `setManualRenderingInputPCMFormat(_:inputBlock:)`
/// (until one is given, the manual rendering format). Connections made with format nil follow it
/// whenever it changes, whatever the order of the calls (see `AVAudioEngine.inputNodeFormatDidChange`).
open class AVAudioInputNode: AVAudioIONode, AVAudioMixing {
    /// Seconds from the device's input to this node, as the backend measures it (0 without input).
    open override var presentationLatency: TimeInterval { _engine?.inputPresentationLatency ?? 0 }

    /// The format the manual rendering block supplies; forgotten when manual rendering ends.
    private(set) var manualInputFormat: AVAudioFormat?

    init() {
        super.init(renderer: InputRenderer(), inputs: 1, outputs: 1)
        outputFormats[0] = AVAudioOutputNode.fallbackFormat
    }

    /// Sets the format and the block that supply the input node's audio in manual rendering mode.
    /// Returns false when the format is not PCM. The block is called on the render thread with
    /// the number of frames needed — never more than the engine's `manualRenderingMaximumFrameCount`
    /// (a rate conversion downstream is fed in several calls) — and returns an AudioBufferList in
    /// `format` holding that many frames, or nil when it has no data. As Apple documents, nil or
    /// fewer frames "will not be used for rendering": the engine renders silence in their place
    /// and the render call returns `.insufficientDataFromInputNode`.
    ///
    /// The node's output takes `format`'s rate and channels (as a standard format) while the
    /// engine is in manual rendering mode; set before `enableManualRenderingMode`, it applies
    /// from then on.
    @discardableResult
    open func setManualRenderingInputPCMFormat(_ format: AVAudioFormat, inputBlock block: @escaping AVAudioIONodeInputBlock) -> Bool {
        guard format.isPCM, format.processingSampleType != nil else { return false }
        guard let engine = _engine else {
            manualInputFormat = format
            (renderer as! InputRenderer).configure(format: format, block: block)
            return true
        }
        engine.lock.lock(); defer { engine.lock.unlock() }
        manualInputFormat = format
        (renderer as! InputRenderer).configure(format: format, block: block)
        engine.inputNodeFormatDidChange()
        engine.graphDidChange()
        return true
    }

    /// Manual rendering ended: the block is invalidated, as Apple documents.
    func forgetManualRenderingInput() {
        manualInputFormat = nil
        (renderer as! InputRenderer).configure(format: nil, block: nil)
    }

    override func defaultInputFormat(bus: AVAudioNodeBus) -> AVAudioFormat { outputFormats[0] }

    /// On a device the output must be the device's format; in manual rendering it may have
    /// another rate than the manual input format (the node converts), not another channel count.
    override func willSetOutputFormat(_ format: AVAudioFormat, bus: AVAudioNodeBus) -> String? {
        guard let engine = _engine else { return nil }
        let native = engine.inputNodeNativeFormat
        if engine.isInManualRenderingMode {
            return format.channelCount == native.channelCount ? nil
                : "in manual rendering the input node converts the sample rate of its input format \(native), not its channel count; connect with \(native.channelCount) channel(s) and convert downstream"
        }
        return format.hasSameRateAndChannels(as: native) ? nil
            : "the input node produces \(native) (the device's input format); connect with that format (or nil) and convert downstream"
    }
}

/// Pulls the manual-rendering input block (or renders silence).
///
/// The block is never asked for more than the engine's maximum frame count: a cycle needing more
/// (a rate conversion downstream pulls an upper bound, the first cycle of a converter its whole
/// filter span) calls it several times, copying each answer before the next call (Apple: the
/// returned data stays valid "until the input block is called again"). An answer that is nil,
/// has the wrong number of buffers, or holds fewer bytes than asked for is not used: the cycle's
/// input is silence and the cycle reports insufficient input.
///
/// When the node's output has another rate than the block's format (an explicit connection format
/// in manual rendering), the block's frames go through a streaming rate converter first; the
/// converter persists across plans while the rates stay the same, so the stream stays continuous.
final class InputRenderer: NodeRenderer {
    private struct Source {
        let format: AVAudioFormat
        let block: AVAudioIONodeInputBlock
    }
    private var source: Source?
    /// The largest request the block may get: the engine's manual maximum frame count (set by
    /// the plan compiler before each plan is built).
    var maximumRequestFrames = 4096
    /// The engine's view of the device's captured frames (set by the plan compiler).
    /// (the engine owns it and outlives its plans; held unmanaged: no refcounting on the render thread)
    var deviceInput: DeviceInputSlot? {
        get { deviceInputRef?.takeUnretainedValue() }
        set { deviceInputRef = newValue.map { .passUnretained($0) } }
    }
    fileprivate var deviceInputRef: Unmanaged<DeviceInputSlot>?
    private var rateConverter: MixerRateConverter?

    /// Control side; takes effect through the next plan (the plan compile happens after this).
    func configure(format: AVAudioFormat?, block: AVAudioIONodeInputBlock?) {
        if let format, let block { source = Source(format: format, block: block) } else { source = nil }
    }

    final class State: RenderStep {
        override var kind: StepKind { .input(.passUnretained(self)) }
        private let owner: Unmanaged<InputRenderer>
        let format: AVAudioFormat?
        let block: AVAudioIONodeInputBlock?
        let sampleType: ProcessingSampleType?
        let channels: Int
        let bufferCount: Int
        /// Bytes per frame in each AudioBuffer the block returns.
        let bytesPerFrame: Int
        let maximumRequest: Int
        let sourcePointers: UnsafeMutablePointer<UnsafeMutableRawPointer>
        let destinationPointers: UnsafeMutablePointer<UnsafeMutableRawPointer>
        /// Rate conversion to the output's rate: the converter and its block-rate input.
        let converter: MixerRateConverter?
        let staging: RenderBuffer?
        /// For the render thread (kept alive by the fields above).
        private let converterRef: Unmanaged<MixerRateConverter>?
        private let stagingRef: Unmanaged<RenderBuffer>?
        private let hasBlock: Bool
        init(renderer: InputRenderer, format: AVAudioFormat?, block: AVAudioIONodeInputBlock?, maximumRequest: Int,
             converter: MixerRateConverter?, stagingCapacity: Int) {
            owner = .passUnretained(renderer)
            self.format = format
            self.block = block
            sampleType = format?.processingSampleType
            channels = Int(format?.channelCount ?? 1)
            bufferCount = format.map { $0.isInterleaved ? 1 : Int($0.channelCount) } ?? 1
            bytesPerFrame = Int(format?.streamDescription.pointee.mBytesPerFrame ?? 4)
            self.maximumRequest = max(1, maximumRequest)
            sourcePointers = .allocate(capacity: max(1, channels))
            destinationPointers = .allocate(capacity: max(1, channels))
            self.converter = converter
            let channels = self.channels
            let staging = converter.map { _ in RenderBuffer(channelCount: channels, capacity: max(1, stagingCapacity)) }
            self.staging = staging
            stagingRef = staging.map { .passUnretained($0) }
            converterRef = converter.map { .passUnretained($0) }
            hasBlock = block != nil
            super.init(renderer: renderer)
        }

        /// Render thread: one cycle. Proved free of locks, allocation and reference counting up
        /// to the client's input block (`RenderPathProof.input`).
        override func render(_ cycle: inout RenderCycle, inputs: UnsafeBufferPointer<RenderBuffer?>, outputs: UnsafeBufferPointer<RenderBuffer>) {
            let output = outputs.unmanaged(0)
            let frames = cycle.frames
            let (outChannels, outCount) = (output.channels, output.channelCount)
            guard hasBlock, let type = sampleType, channels == outCount else {
                // Not manual rendering: the device's captured frames for this cycle, when it has input.
                if let slot = owner._withUnsafeGuaranteedRef({ $0.deviceInputRef }) {
                    let (pointers, slotChannels, slotOffset) = slot._withUnsafeGuaranteedRef { ($0.pointers, $0.channels, $0.offset) }
                    if let captured = pointers, slotChannels == outCount {
                        output.restoreChannels()
                        var c = 0
                        while c < slotChannels {
                            copyFloats(outChannels[c], captured[c] + slotOffset, frames)
                            c += 1
                        }
                        output.frames = frames
                        output.isSilent = false
                        return
                    }
                }
                output.clear(frames: frames)
                return
            }
            guard let converter = converterRef, let staging = stagingRef else {
                if !pull(frames: frames, into: output, type: type) {
                    output.clear(frames: frames)
                    cycle.inputWasInsufficient = true
                    return
                }
                output.frames = frames
                output.isSilent = false
                return
            }
            // Feed the converter every cycle (silence when the block had nothing) so its stream stays continuous.
            let needed = min(staging.capacity, converter._withUnsafeGuaranteedRef { $0.inputFramesNeeded(forOutputFrames: frames) })
            let ok = pull(frames: needed, into: staging, type: type)
            if !ok { staging.clear(frames: needed) }
            staging.frames = needed
            let converted = converter.convert(staging, producing: frames)
            output.restoreChannels()
            var c = 0
            while c < outCount {
                copyFloats(outChannels[c], converted[c], frames)
                c += 1
            }
            output.frames = frames
            output.isSilent = false
            if !ok {
                output.clear(frames: frames)
                cycle.inputWasInsufficient = true
            }
        }

        /// Fills `frames` frames of `destination` from the block, in requests of at most the maximum.
        /// Returns false when an answer cannot be used.
        @inline(__always)
        private func pull(frames: Int, into destination: Unmanaged<RenderBuffer>, type: ProcessingSampleType) -> Bool {
            destination.restoreChannels()
            let destinationChannels = destination.channels
            var offset = 0
            while offset < frames {
                let request = min(maximumRequest, frames - offset)
                guard pullOnce(frames: request, into: destinationChannels, at: offset, type: type) else { return false }
                offset += request
            }
            return true
        }

        /// Calls the block for `frames` frames and converts its answer into `destination` at `offset`.
        @inline(__always)
        private func pullOnce(frames: Int, into destination: UnsafeMutablePointer<UnsafeMutablePointer<Float>>, at offset: Int,
                              type: ProcessingSampleType) -> Bool {
            guard let list = ClientCall.input(.passUnretained(self), AVAudioFrameCount(frames)) else { return false }
            let abl = UnsafeMutableAudioBufferListPointer(UnsafeMutablePointer(mutating: list))
            guard abl.count == bufferCount else { return false }
            let bytes = frames * bytesPerFrame
            var b = 0
            while b < bufferCount {
                guard let data = abl[b].mData, Int(abl[b].mDataByteSize) >= bytes else { return false }
                sourcePointers[b] = data
                b += 1
            }
            let interleaved = bufferCount == 1 ? channels > 1 : false   // (not `&&`: its autoclosure captures self)
            let source: ProcessingBufferPointer = interleaved
                ? .interleaved(sourcePointers[0], channelCount: channels, sampleType: type)
                : .deinterleaved(UnsafeBufferPointer(start: sourcePointers, count: channels), sampleType: type)
            var c = 0
            while c < channels {
                destinationPointers[c] = UnsafeMutableRawPointer(destination[c] + offset)
                c += 1
            }
            KernelCall.convert(frameCount: frames, from: source,
                               to: .deinterleaved(UnsafeBufferPointer(start: UnsafePointer(destinationPointers), count: channels), sampleType: .float32))
            return true
        }
        deinit {
            sourcePointers.deallocate()
            destinationPointers.deallocate()
        }
    }

    override func makeStepState(inputFormats: [AVAudioFormat?], outputFormats: [AVAudioFormat], maximumFrames: Int) -> RenderStep? {
        var converter: MixerRateConverter?
        if let format = source?.format, format.sampleRate != outputFormats[0].sampleRate {
            let channels = Int(format.channelCount)
            if let existing = rateConverter, existing.matches(input: format, output: outputFormats[0], channels: channels) {
                converter = existing
            } else {
                converter = MixerRateConverter(inputRate: format.sampleRate, outputRate: outputFormats[0].sampleRate,
                                               channels: channels, maximumOutputFrames: maximumFrames)
            }
        }
        rateConverter = converter
        return State(renderer: self, format: source?.format, block: source?.block, maximumRequest: maximumRequestFrames, converter: converter,
                     stagingCapacity: converter?.maximumInputFrames(forOutputFrames: maximumFrames) ?? 0)
    }

    override func resetState() {
        rateConverter?.reset()
    }
}

import AudioKernels

/// The device's captured frames for the device callback in flight: written by the engine on the
/// render thread before each engine cycle, read by the input node's renderer in that cycle.
final class DeviceInputSlot {
    var pointers: UnsafePointer<UnsafeMutablePointer<Float>>?
    var channels = 0
    /// Frames into the device callback where this engine cycle starts.
    var offset = 0
}
