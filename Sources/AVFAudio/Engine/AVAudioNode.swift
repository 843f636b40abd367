// AVAudioNode: the control object every node shares. Holds the node's bus formats, its taps and
// its render object (`NodeRenderer`), and describes itself in error messages.
//
// Bus formats: an output bus has the format of its connection (or the node's default, 44.1 kHz
// stereo Float32, while unconnected); an input bus has the format of the connection feeding it.
// Nodes that pass audio through unchanged (effects, the output node) adopt their input format
// for their output, as Apple's do.
import Synchronization

/// The base class of everything in an engine graph.
open class AVAudioNode: NSObject {
    /// The render object.
    let renderer: NodeRenderer
    weak var _engine: AVAudioEngine?
    var inputFormats: [AVAudioFormat?]
    var outputFormats: [AVAudioFormat]
    /// Mixing parameters (AVAudioMixing) this node carries into mixers, and per-connection overrides.
    let mixing = MixingSettings(volume: 1, pan: 0)
    var mixingDestinations: [MixingDestinationKey: AVAudioMixingDestination] = [:]
    /// Installed taps, keyed by output bus.
    var taps: [AVAudioNodeBus: TapRenderer] = [:]
    /// Render-time stamp of the last cycle (sample time; host time), written by the render thread.
    let lastSampleTime = Atomic<Int64>(Int64.min)
    let lastHostTime = Atomic<UInt64>(0)

    /// The default format of an unconnected bus: 44.1 kHz stereo Float32, deinterleaved.
    static let defaultFormat = AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2)!

    init(renderer: NodeRenderer, inputs: Int, outputs: Int) {
        self.renderer = renderer
        inputFormats = Array(repeating: nil, count: inputs)
        outputFormats = Array(repeating: AVAudioNode.defaultFormat, count: outputs)
        super.init()
    }

    /// The engine the node is attached to, if any.
    open var engine: AVAudioEngine? { _engine }

    /// The number of input buses.
    open var numberOfInputs: Int { inputFormats.count }

    /// The number of output buses.
    open var numberOfOutputs: Int { outputFormats.count }

    /// The format of input bus `bus`: its connection's, or the default while unconnected.
    open func inputFormat(forBus bus: AVAudioNodeBus) -> AVAudioFormat {
        precondition(bus >= 0 && bus < inputFormats.count, "\(nodeName).inputFormat(forBus: \(bus)): the node has \(inputFormats.count) input bus(es)")
        return inputFormats[bus] ?? defaultInputFormat(bus: bus)
    }

    /// The format of output bus `bus`.
    open func outputFormat(forBus bus: AVAudioNodeBus) -> AVAudioFormat {
        precondition(bus >= 0 && bus < outputFormats.count, "\(nodeName).outputFormat(forBus: \(bus)): the node has \(outputFormats.count) output bus(es)")
        return outputFormats[bus]
    }

    /// A name for an input bus (nil: none).
    open func name(forInputBus bus: AVAudioNodeBus) -> String? { nil }

    /// A name for an output bus (nil: none).
    open func name(forOutputBus bus: AVAudioNodeBus) -> String? { nil }

    /// Clears the node's DSP state (delay lines, filter memories, scheduled data for players).
    open func reset() {
        renderer.resetState()
    }

    /// The time of the node's last render cycle, or nil when the engine is not rendering.
    open var lastRenderTime: AVAudioTime? {
        let s = lastSampleTime.load(ordering: .acquiring)
        guard s != Int64.min, let engine = _engine, engine.isRunning else { return nil }
        return AVAudioTime(hostTime: lastHostTime.load(ordering: .relaxed), sampleTime: s, atRate: outputFormats.first?.sampleRate ?? inputFormat(forBus: 0).sampleRate)
    }

    /// Processing latency, in seconds (0 for nodes that add none).
    open var latency: TimeInterval { 0 }

    /// The latency from this node's output to the device, in seconds.
    open var outputPresentationLatency: TimeInterval {
        _engine?.outputPresentationLatency ?? 0
    }

    // MARK: Taps

    /// Installs a tap on output bus `bus`: `block` receives the bus's audio in buffers of exactly
    /// `bufferSize` frames with consecutive sample times, on a dispatcher thread in real-time
    /// mode and before `renderOffline` returns in offline mode. `format` (nil: the bus format)
    /// may change the channel count but must have the bus's sample rate. One tap per bus.
    /// `bufferSize` is a request, as Apple documents ("the implementation may choose another
    /// size"): sizes above `maximumTapBufferSize` get buffers of that size.
    open func installTap(onBus bus: AVAudioNodeBus, bufferSize: AVAudioFrameCount, format: AVAudioFormat?, block tapBlock: @escaping AVAudioNodeTapBlock) {
        precondition(bus >= 0 && bus < outputFormats.count, "\(nodeName).installTap(onBus: \(bus)): the node has \(outputFormats.count) output bus(es)")
        precondition(taps[bus] == nil, "\(nodeName).installTap(onBus: \(bus)): a tap is already installed on this bus; remove it first")
        let busFormat = outputFormats[bus]
        let tapFormat = format ?? busFormat
        precondition(tapFormat.sampleRate == busFormat.sampleRate,
                     "\(nodeName).installTap(onBus: \(bus)): the tap format \(tapFormat) must have the bus's sample rate (bus format \(busFormat))")
        precondition(bufferSize > 0, "\(nodeName).installTap(onBus: \(bus)): bufferSize must be positive")
        // (under the engine's lock: the plan compiler reads `taps`, maybe on another thread)
        let engine = _engine
        engine?.lock.lock(); defer { engine?.lock.unlock() }
        taps[bus] = TapRenderer(node: self, bus: bus, bufferSize: Int(min(bufferSize, AVAudioNode.maximumTapBufferSize)), busChannels: Int(busFormat.channelCount), format: tapFormat, block: tapBlock)
        _engine?.graphDidChange()
    }

    /// The largest tap buffer, in frames (about 22 s at 48 kHz): the tap's ring holds four of
    /// them per channel, so 2^32 − 1 frames would have asked for 64 GiB per channel.
    static let maximumTapBufferSize: AVAudioFrameCount = 1 << 20

    /// Removes the tap on `bus`, if any.
    open func removeTap(onBus bus: AVAudioNodeBus) {
        let engine = _engine
        engine?.lock.lock(); defer { engine?.lock.unlock() }
        guard taps.removeValue(forKey: bus) != nil else { return }
        _engine?.graphDidChange()
    }

    // MARK: Subclass hooks (internal)

    /// The input format reported for an unconnected bus.
    func defaultInputFormat(bus: AVAudioNodeBus) -> AVAudioFormat { AVAudioNode.defaultFormat }

    /// Called when a connection sets input `bus`'s format; nodes that pass audio through adopt it
    /// for their output. Returns a reason when the node cannot accept the format.
    func willSetInputFormat(_ format: AVAudioFormat, bus: AVAudioNodeBus) -> String? { nil }

    /// Called after input `bus`'s format was set or cleared.
    func didSetInputFormat(_ format: AVAudioFormat?, bus: AVAudioNodeBus) {}

    /// Returns a reason when output `bus` cannot take `format`.
    func willSetOutputFormat(_ format: AVAudioFormat, bus: AVAudioNodeBus) -> String? { nil }

    /// Whether input `bus` is converted to another sample rate inside the node (a mixer input
    /// whose rate differs from the mixer's output): the plan gives that input its own rate domain.
    func changesRate(onInputBus bus: AVAudioNodeBus) -> Bool { false }

    /// Whether the node consumes its input without an output (sink) and so roots a render.
    var isSink: Bool { false }

    /// The node's name in messages: its class and, when attached, its index in the engine.
    var nodeName: String { String(describing: type(of: self)) }

    open override var description: String { "<\(nodeName)>" }
}
