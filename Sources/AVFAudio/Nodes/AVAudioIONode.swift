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
open class AVAudioInputNode: AVAudioIONode, AVAudioMixing {
    private var manualFormat: AVAudioFormat?
    private var inputBlock: AVAudioIONodeInputBlock?

    init() {
        super.init(renderer: InputRenderer(), inputs: 1, outputs: 1)
        outputFormats[0] = AVAudioOutputNode.fallbackFormat
    }

    /// Sets the format and the block that supply the input node's audio in manual rendering mode.
    /// Returns false when the format is not PCM. The block is called on the render thread with
    /// the number of frames needed; it returns an AudioBufferList in `format`, or nil when it has
    /// no data (the engine then renders silence and reports `.insufficientDataFromInputNode`).
    @discardableResult
    open func setManualRenderingInputPCMFormat(_ format: AVAudioFormat, inputBlock block: @escaping AVAudioIONodeInputBlock) -> Bool {
        guard format.isPCM, format.processingSampleType != nil else { return false }
        manualFormat = format
        inputBlock = block
        outputFormats[0] = AVAudioFormat(standardFormatWithSampleRate: format.sampleRate, channelLayoutOrCount: format)
        (renderer as! InputRenderer).configure(format: format, block: block)
        _engine?.graphDidChange()
        return true
    }

    override func defaultInputFormat(bus: AVAudioNodeBus) -> AVAudioFormat { outputFormats[0] }

    override func willSetOutputFormat(_ format: AVAudioFormat, bus: AVAudioNodeBus) -> String? {
        format.hasSameRateAndChannels(as: outputFormats[0]) ? nil
            : "the input node produces \(outputFormats[0]); connect with that format (or nil) and convert downstream"
    }
}

/// Pulls the manual-rendering input block (or renders silence).
final class InputRenderer: NodeRenderer {
    private struct Source {
        let format: AVAudioFormat
        let block: AVAudioIONodeInputBlock
    }
    private var source: Source?

    /// Control side; takes effect through the next plan (the plan compile happens after this).
    func configure(format: AVAudioFormat, block: @escaping AVAudioIONodeInputBlock) {
        source = Source(format: format, block: block)
    }

    final class State {
        let format: AVAudioFormat?
        let block: AVAudioIONodeInputBlock?
        let pointers: UnsafeMutablePointer<UnsafeMutableRawPointer>
        init(format: AVAudioFormat?, block: AVAudioIONodeInputBlock?, channels: Int) {
            self.format = format
            self.block = block
            pointers = .allocate(capacity: max(1, channels))
        }
        deinit { pointers.deallocate() }
    }

    override func makeStepState(inputFormats: [AVAudioFormat?], outputFormats: [AVAudioFormat], maximumFrames: Int) -> AnyObject? {
        State(format: source?.format, block: source?.block, channels: Int(source?.format.channelCount ?? 1))
    }

    override func render(_ cycle: inout RenderCycle, inputs: UnsafeBufferPointer<RenderBuffer?>, outputs: UnsafeBufferPointer<RenderBuffer>, state: AnyObject?) {
        let output = outputs[0]
        let frames = cycle.frames
        guard let state = state.map({ unsafeDowncast($0, to: State.self) }), let format = state.format, let block = state.block else {
            output.clear(frames: frames)
            return
        }
        guard let list = block(AVAudioFrameCount(frames)), let type = format.processingSampleType else {
            output.clear(frames: frames)
            cycle.inputWasInsufficient = true
            return
        }
        let abl = UnsafeMutableAudioBufferListPointer(UnsafeMutablePointer(mutating: list))
        let channels = min(Int(format.channelCount), output.channelCount)
        let source: ProcessingBufferPointer
        if format.isInterleaved {
            guard let data = abl[0].mData else { output.clear(frames: frames); cycle.inputWasInsufficient = true; return }
            source = .interleaved(data, channelCount: Int(format.channelCount), sampleType: type)
        } else {
            for c in 0..<min(abl.count, Int(format.channelCount)) {
                guard let data = abl[c].mData else { output.clear(frames: frames); cycle.inputWasInsufficient = true; return }
                state.pointers[c] = data
            }
            source = .deinterleaved(UnsafeBufferPointer(start: state.pointers, count: Int(format.channelCount)), sampleType: type)
        }
        let raw = UnsafeRawPointer(output.channels).assumingMemoryBound(to: UnsafeMutableRawPointer.self)
        if channels == Int(format.channelCount) {
            SampleConversion.convert(frameCount: frames, from: source, to: .deinterleaved(UnsafeBufferPointer(start: raw, count: channels), sampleType: .float32))
        }
        output.frames = frames
        output.isSilent = false
    }
}

import AudioKernels
