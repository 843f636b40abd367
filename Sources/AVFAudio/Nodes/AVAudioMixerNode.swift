// AVAudioMixerNode: sums any number of inputs into one output, with per-input volume and pan
// (set on the source nodes through AVAudioMixing), an output volume, channel up/down-mixing
// between layouts, and sample-rate conversion per input.
//
// Pan law (stereo output). A mono input is panned with equal power: left gain cos θ, right gain
// sin θ, θ = (pan + 1)·π/4, so at pan 0 each side gets 1/√2 (−3 dB) and the power stays constant
// across the field. That rests on measurements of Apple's engine (iOS 18.2 simulator, a public
// probe program printing rendered peaks): a mono player at amplitude 1.0 into the main mixer
// renders 0.7071 on the stereo output, 0.5 renders 0.3536, and a mono 0.25 DC input through the
// input node renders 0.1768 — the same 1/√2 whatever the source. Apple documents only the centre
// value indirectly (kAudioFormatProperty_PanningMatrix: "for stereo formats, vector based panning
// is equivalent to the equal-power panning mode"); the sin/cos curve between the centre and the
// ends is the standard equal-power law consistent with those points, not a measured curve.
// Stereo inputs keep unity at centre (L → L, R → R) and pan as a balance — left gain
// min(1, 1 − pan), right gain min(1, 1 + pan) — for which no Apple measurement is public. Other
// channel counts go through ChannelMixPlan's downmix/upmix matrix (ITU-R BS.775 coefficients)
// before the balance.
//
// Ramps: a change of an input's volume or pan, or of the output volume, glides linearly to the
// new gain over 10 ms of output frames (`GainRamp`), so it never zippers (clicks). The ramp is
// counted in frames on the mixer's output timeline, not in cycles, so offline output does not
// depend on chunk sizes. A value set before an input's first rendered cycle applies at once.
// Apple does not document whether or how long AVAudioMixerNode ramps; 10 ms is our choice.
import Synchronization
import AudioKernels

/// A node that mixes its inputs into a single output.
open class AVAudioMixerNode: AVAudioNode, AVAudioMixing {
    /// Per-input-bus parameters shared with the render thread.
    private var inputControls: [MixerInputControl] = []
    let outputVolumeBits = Atomic<UInt32>(Float(1).bitPattern)

    /// Creates a mixer.
    public init() {
        super.init(renderer: MixerRenderer(), inputs: 1, outputs: 1)
        (renderer as! MixerRenderer).node = self
        inputControls = [MixerInputControl()]
    }

    /// The mixer's output gain, 0 … 1 (values above 1 amplify).
    open var outputVolume: Float {
        get { Float(bitPattern: outputVolumeBits.load(ordering: .relaxed)) }
        set { outputVolumeBits.store(max(0, newValue).bitPattern, ordering: .relaxed) }
    }

    /// The lowest input bus with nothing connected.
    open var nextAvailableInputBus: AVAudioNodeBus {
        guard let engine = _engine else { return 0 }
        var bus = 0
        while engine.connection(into: self, bus: bus) != nil { bus += 1 }
        return bus
    }

    /// Mixer inputs accept any PCM format: rates are converted, channels mixed.
    override func willSetInputFormat(_ format: AVAudioFormat, bus: AVAudioNodeBus) -> String? { nil }

    override func changesRate(onInputBus bus: AVAudioNodeBus) -> Bool {
        guard let f = inputFormats[bus] else { return false }
        return f.sampleRate != outputFormats[0].sampleRate
    }

    /// Grows the input bus list so `bus` exists (mixers have as many inputs as you connect).
    func ensureInputBus(_ bus: AVAudioNodeBus) {
        precondition(bus >= 0 && bus < 65_536, "AVAudioMixerNode: input bus \(bus) is out of range")
        while inputFormats.count <= bus {
            inputFormats.append(nil)
            inputControls.append(MixerInputControl())
        }
    }

    func inputControl(_ bus: AVAudioNodeBus) -> MixerInputControl { inputControls[bus] }

    override func didSetInputFormat(_ format: AVAudioFormat?, bus: AVAudioNodeBus) {
        // A new connection starts from its mixing source's current values.
        _engine?.updateMixerInput(self, bus: bus)
    }
}

extension AVAudioEngine {
    /// The node whose AVAudioMixing settings apply to `mixer`'s input `bus`: the first node
    /// upstream that conforms to AVAudioMixing, found through nodes that do not (effects, which
    /// "cannot talk to their downstream mixer", AVAudioMixing.h) along their single input. Nil when
    /// nothing is connected, or the path meets a node without inputs or with several.
    func mixingSource(of mixer: AVAudioMixerNode, bus: AVAudioNodeBus) -> AVAudioNode? {
        var node = connection(into: mixer, bus: bus)?.source
        var steps = 0
        while let current = node, !(current is AVAudioMixing) {
            guard current.numberOfInputs == 1, steps < nodes.count else { return nil }
            node = connection(into: current, bus: 0)?.source
            steps += 1
        }
        return node
    }

    /// Sets `mixer` input `bus`'s volume and pan from its mixing source (unity and centre when it
    /// has none).
    func updateMixerInput(_ mixer: AVAudioMixerNode, bus: AVAudioNodeBus) {
        lock.lock(); defer { lock.unlock() }
        guard bus < mixer.numberOfInputs else { return }
        let (volume, pan) = mixingSource(of: mixer, bus: bus)?.effectiveMixing(intoMixer: mixer, bus: bus) ?? (1, 0)
        mixer.inputControl(bus).set(volume: volume, pan: pan)
    }

    /// Copies a source node's effective volume/pan into every mixer input it feeds.
    func updateMixerInputs(fedBy source: AVAudioNode) {
        lock.lock(); defer { lock.unlock() }
        for node in nodes.values {
            guard let mixer = node as? AVAudioMixerNode else { continue }
            for bus in 0..<mixer.numberOfInputs where mixingSource(of: mixer, bus: bus) === source {
                updateMixerInput(mixer, bus: bus)
            }
        }
    }

    /// After connections changed: every mixer input takes its (possibly new) mixing source's
    /// values, and per-connection settings whose path from the source broke are forgotten
    /// (AVAudioMixing.h: "not preserved upon disconnection").
    func mixingPathsDidChange() {
        var live = Set<MixingKey>()
        for node in nodes.values {
            guard let mixer = node as? AVAudioMixerNode else { continue }
            for bus in 0..<mixer.numberOfInputs {
                if let source = mixingSource(of: mixer, bus: bus) {
                    live.insert(MixingKey(source: ObjectIdentifier(source), mixer: ObjectIdentifier(mixer), bus: bus))
                }
            }
        }
        for node in nodes.values where !node.mixingDestinations.isEmpty {
            node.mixingDestinations = node.mixingDestinations.filter {
                live.contains(MixingKey(source: ObjectIdentifier(node), mixer: $0.key.mixer, bus: $0.key.bus))
            }
        }
        for node in nodes.values {
            guard let mixer = node as? AVAudioMixerNode else { continue }
            for bus in 0..<mixer.numberOfInputs { updateMixerInput(mixer, bus: bus) }
        }
    }

    private struct MixingKey: Hashable {
        let source: ObjectIdentifier
        let mixer: ObjectIdentifier
        let bus: AVAudioNodeBus
    }
}

/// Volume and pan of one mixer input, written by the control side, read by the render thread.
final class MixerInputControl {
    private let volumeBits = Atomic<UInt32>(Float(1).bitPattern)
    // The side gains of both pan laws (note at the top), computed here on the control side so the
    // render thread does no trigonometry per input per cycle.
    private let monoLeftBits = Atomic<UInt32>((Float(1) * equalPowerGain(1)).bitPattern)
    private let monoRightBits = Atomic<UInt32>((Float(1) * equalPowerGain(1)).bitPattern)
    private let balanceLeftBits = Atomic<UInt32>(Float(1).bitPattern)
    private let balanceRightBits = Atomic<UInt32>(Float(1).bitPattern)

    func set(volume: Float, pan: Float) {
        volumeBits.store(volume.bitPattern, ordering: .relaxed)
        monoLeftBits.store((volume * equalPowerGain(1 + pan)).bitPattern, ordering: .relaxed)
        monoRightBits.store((volume * equalPowerGain(1 - pan)).bitPattern, ordering: .relaxed)
        balanceLeftBits.store((volume * min(1, 1 - pan)).bitPattern, ordering: .relaxed)
        balanceRightBits.store((volume * min(1, 1 + pan)).bitPattern, ordering: .relaxed)
    }

    @inline(__always) var volume: Float { Float(bitPattern: volumeBits.load(ordering: .relaxed)) }
    /// Left and right gains (volume included) of a mono input (equal power) or another (balance).
    @inline(__always) func sideGains(mono: Bool) -> (left: Float, right: Float) {
        mono ? (Float(bitPattern: monoLeftBits.load(ordering: .relaxed)), Float(bitPattern: monoRightBits.load(ordering: .relaxed)))
             : (Float(bitPattern: balanceLeftBits.load(ordering: .relaxed)), Float(bitPattern: balanceRightBits.load(ordering: .relaxed)))
    }

    /// Render thread: when no ramp is running and none would start this cycle, the gains to apply
    /// (left, right, volume); nil otherwise (the caller aims and advances the ramps). Small, so
    /// the common case costs three atomic loads and three compares per input.
    @inline(__always) func steadyGains(mono: Bool) -> (left: Float, right: Float, volume: Float)? {
        let side = sideGains(mono: mono)
        let v = volume
        guard leftRamp.isSteady(at: side.left), rightRamp.isSteady(at: side.right), volumeRamp.isSteady(at: v) else { return nil }
        return (side.left, side.right, v)
    }

    // Render-thread state: the gains actually applied (left, right: stereo output; volume: others).
    var leftRamp = GainRamp()
    var rightRamp = GainRamp()
    var volumeRamp = GainRamp()
}

/// A gain that glides to each new target over a fixed number of frames (render-thread state).
/// The gain of a frame depends only on its position in the ramp, so rendering in chunks of any
/// size gives the same samples.
struct GainRamp {
    private(set) var start: Float = 1
    private(set) var target: Float = 1
    /// Frames of the ramp already rendered; `length` once settled.
    private var position = 0
    private var length = 0
    private var primed = false

    /// Render thread, at the start of a cycle: aim at `newTarget` (a new ramp of `frames` frames
    /// starts from the current gain when it changed; the first call jumps).
    @inline(__always)
    mutating func aim(at newTarget: Float, frames: Int) {
        guard primed else {
            start = newTarget; target = newTarget; length = frames; position = frames; primed = true
            return
        }
        guard newTarget != target else { return }
        start = gain(at: 0)
        target = newTarget
        length = max(1, frames)
        position = 0
    }

    /// The gain `offset` frames into the current cycle.
    @inline(__always)
    func gain(at offset: Int) -> Float {
        let p = position + offset
        if p >= length { return target }
        return start + (target - start) * (Float(p) / Float(length))
    }

    /// Whether the gain stays `target` for the whole cycle.
    @inline(__always) var isSettled: Bool { position >= length }

    /// Whether the gain is settled at `value`, so that aiming at it changes nothing. Never for an
    /// unprimed ramp: its first aim must jump (the initial gain applies at once, later changes glide).
    @inline(__always) func isSteady(at value: Float) -> Bool {
        guard primed else { return false }
        return position >= length ? value == target : false
    }

    @inline(__always)
    mutating func advance(_ frames: Int) { position = min(length, position + frames) }
}

/// The mixer's render object.
final class MixerRenderer: NodeRenderer {
    weak var node: AVAudioMixerNode?

    /// How one input is mixed, fixed for a plan.
    final class InputState {
        enum Route { case monoToStereo, stereoToStereo, matrix(ChannelMatrix) }
        let control: MixerInputControl
        let route: Route
        /// Scratch for the matrix route (output channels × maximum frames).
        let scratch: PlanarScratch?
        let rateConverter: MixerRateConverter?
        /// The matrix route's matrix in raw memory, for the render thread.
        let matrixKernel: ChannelMatrixKernel?
        init(control: MixerInputControl, route: Route, scratch: PlanarScratch?, rateConverter: MixerRateConverter?) {
            self.control = control
            self.route = route
            self.scratch = scratch
            self.rateConverter = rateConverter
            if case .matrix(let matrix) = route { matrixKernel = ChannelMatrixKernel(matrix) } else { matrixKernel = nil }
        }
    }

    /// What the render loop reads per input bus: no reference-counted fields (the objects are
    /// kept alive by `State.inputs`), so walking 64 inputs costs no retain/release.
    struct Slot {
        /// 0: bus unused; 1: mono → stereo; 2: stereo → stereo; 3: channel matrix.
        var route: UInt8
        var control: Unmanaged<MixerInputControl>?
        var converter: Unmanaged<MixerRateConverter>?
        /// The matrix route: its kernel and scratch (output channels × maximum frames).
        var matrix: Unmanaged<ChannelMatrixKernel>?
        var scratch: UnsafeMutablePointer<UnsafeMutablePointer<Float>>?
    }

    /// The mixer's part of one plan (see the design note in NodeRenderer.swift).
    final class State: RenderStep {
        override var kind: StepKind { .mixer(.passUnretained(self)) }
        private let owner: Unmanaged<MixerRenderer>
        let inputs: [InputState?]
        let outputChannels: Int
        let slots: UnsafeMutablePointer<Slot>
        let slotCount: Int
        /// The node, for its output volume (every plan that renders a node keeps it alive).
        let node: Unmanaged<AVAudioMixerNode>
        /// The mono and stereo inputs of a cycle, gathered for the summing kernel.
        let pending: UnsafeMutablePointer<StereoMixInput>
        /// Ramp length: 10 ms of output frames.
        let rampFrames: Int
        init(renderer: MixerRenderer, inputs: [InputState?], outputChannels: Int, node: AVAudioMixerNode, sampleRate: Double) {
            owner = .passUnretained(renderer)
            self.inputs = inputs
            rampFrames = max(1, Int((sampleRate * 0.01).rounded()))
            self.outputChannels = outputChannels
            self.node = .passUnretained(node)
            slotCount = inputs.count
            slots = .allocate(capacity: max(1, inputs.count))
            for (bus, input) in inputs.enumerated() {
                let route: UInt8
                switch input?.route {
                case nil: route = 0
                case .monoToStereo?: route = 1
                case .stereoToStereo?: route = 2
                case .matrix?: route = 3
                }
                (slots + bus).initialize(to: Slot(route: route, control: input.map { .passUnretained($0.control) },
                                                  converter: input?.rateConverter.map { .passUnretained($0) },
                                                  matrix: input?.matrixKernel.map { .passUnretained($0) },
                                                  scratch: input?.scratch?.channels))
            }
            pending = .allocate(capacity: max(1, inputs.count))
            super.init(renderer: renderer)
        }
        deinit {
            slots.deallocate()
            pending.deallocate()
        }

        override func render(_ cycle: inout RenderCycle, inputs: UnsafeBufferPointer<RenderBuffer?>, outputs: UnsafeBufferPointer<RenderBuffer>) {
            // (everything passed unmanaged: a closure capturing a reference retains it)
            let me = Unmanaged.passUnretained(self)
            let output = outputs.unmanaged(0)
            owner._withUnsafeGuaranteedRef { $0.render(&cycle, inputs: inputs, output: output, state: me) }
        }

        override func inputFrames(forOutputFrames outputFrames: Int, bus: Int) -> Int {
            guard bus < slotCount, let converter = slots[bus].converter else { return outputFrames }
            return converter._withUnsafeGuaranteedRef { $0.inputFramesNeeded(forOutputFrames: outputFrames) }
        }

        override func maximumInputFrames(forOutputFrames outputFrames: Int, bus: Int) -> Int {
            guard bus < slotCount, let converter = slots[bus].converter else { return outputFrames }
            return converter._withUnsafeGuaranteedRef { $0.maximumInputFrames(forOutputFrames: outputFrames) }
        }

        override func inputSampleTime(bus: Int) -> Int64 {
            guard bus < slotCount, let converter = slots[bus].converter else { return 0 }
            return converter._withUnsafeGuaranteedRef { $0.inputSampleTime }
        }
    }

    private let kernel = StereoMixKernel()
    /// Render thread: the output volume actually applied.
    private var outputRamp = GainRamp()

    /// Rate converters persist across plans while an input's formats stay the same.
    private var converters: [Int: MixerRateConverter] = [:]

    override func makeStepState(inputFormats: [AVAudioFormat?], outputFormats: [AVAudioFormat], maximumFrames: Int) -> RenderStep? {
        guard let node else { return nil }
        let output = outputFormats[0]
        let outChannels = Int(output.channelCount)
        var inputs: [InputState?] = []
        for (bus, format) in inputFormats.enumerated() {
            guard let format else { inputs.append(nil); continue }
            let inChannels = Int(format.channelCount)
            let route: InputState.Route
            if outChannels == 2 && inChannels == 1 { route = .monoToStereo }
            else if outChannels == 2 && inChannels == 2 { route = .stereoToStereo }
            else { route = .matrix(ChannelMixPlan.matrix(from: format, to: output, downmix: true, channelMap: nil)) }
            var converter: MixerRateConverter?
            if format.sampleRate != output.sampleRate {
                if let existing = converters[bus], existing.matches(input: format, output: output, channels: inChannels) {
                    converter = existing
                } else {
                    converter = MixerRateConverter(inputRate: format.sampleRate, outputRate: output.sampleRate,
                                                   channels: inChannels, maximumOutputFrames: maximumFrames)
                    converters[bus] = converter
                }
            } else {
                converters[bus] = nil
            }
            var scratch: PlanarScratch?
            if case .matrix = route { scratch = PlanarScratch(channels: outChannels, frames: maximumFrames) }
            inputs.append(InputState(control: node.inputControl(bus), route: route, scratch: scratch, rateConverter: converter))
        }
        return State(renderer: self, inputs: inputs, outputChannels: outChannels, node: node, sampleRate: output.sampleRate)
    }

    /// Render thread: one cycle. `state` and `output` are borrowed from the plan, which keeps them
    /// (and through the state every input's objects) alive while it renders. Proved free of locks,
    /// allocation and reference counting (`RenderPathProof.mixer`), except the two paths behind
    /// `convertInput` (inputs at another rate: the streaming resampler's objects) and
    /// `mixThroughMatrix` (layouts other than mono/stereo into stereo), not restructured yet.
    func render(_ cycle: inout RenderCycle, inputs: UnsafeBufferPointer<RenderBuffer?>, output: Unmanaged<RenderBuffer>,
                state: Unmanaged<State>) {
        let frames = cycle.frames
        let (slots, slotCount, pending, rampFrames, node) = state._withUnsafeGuaranteedRef {
            ($0.slots, $0.slotCount, $0.pending, $0.rampFrames, $0.node)
        }
        let (out, outputChannels) = output._withUnsafeGuaranteedRef { o -> (UnsafeMutablePointer<UnsafeMutablePointer<Float>>, Int) in
            o.clear(frames: frames)
            return (o.channels, o.channelCount)
        }
        var anything = false
        var pendingCount = 0
        let busCount = min(inputs.count, slotCount)
        // The input buffers, read as unmanaged references (same layout as `RenderBuffer?`: one
        // nullable pointer), so that reading one is not a retain.
        let inputBuffers = UnsafeRawPointer(inputs.baseAddress.unsafelyUnwrapped).assumingMemoryBound(to: Unmanaged<RenderBuffer>?.self)
        var bus = 0
        while bus < busCount {
            let slot = slots[bus]
            bus += 1
            guard slot.route != 0, let control = slot.control, let input = inputBuffers[bus - 1] else { continue }
            // Gains for this cycle: ramped towards the current volume/pan (see GainRamp); without a
            // change, the steady gains (no ramp to aim or advance).
            let mono = slot.route == 1
            if let steady = control._withUnsafeGuaranteedRef({ $0.steadyGains(mono: mono) }), slot.route != 3 {
                let source: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
                if let converter = slot.converter {
                    source = convertInput(converter, input, frames: frames)
                } else {
                    let (channels, silent) = input._withUnsafeGuaranteedRef { ($0.channels, $0.isSilent) }
                    if silent { continue }
                    source = channels
                }
                guard steady.volume > 0 else { continue }
                anything = true
                pending[pendingCount] = StereoMixInput(left: source[0], right: mono ? source[0] : source[1],
                                                       gainLeft: steady.left, gainRight: steady.right)
                pendingCount += 1
                continue
            }
            let (l, r, v) = control._withUnsafeGuaranteedRef { c -> (GainRamp, GainRamp, GainRamp) in
                // Mono inputs: equal power; stereo and others: balance (note at the top).
                let side = c.sideGains(mono: mono)
                c.leftRamp.aim(at: side.left, frames: rampFrames)
                c.rightRamp.aim(at: side.right, frames: rampFrames)
                c.volumeRamp.aim(at: c.volume, frames: rampFrames)
                let gains = (c.leftRamp, c.rightRamp, c.volumeRamp)
                c.leftRamp.advance(frames); c.rightRamp.advance(frames); c.volumeRamp.advance(frames)
                return gains
            }
            let settled = l.isSettled ? (r.isSettled ? v.isSettled : false) : false
            // Bring the input to the output rate first (consumes input.frames, produces `frames`).
            let source: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
            if let converter = slot.converter {
                source = convertInput(converter, input, frames: frames)
            } else {
                let (channels, silent) = input._withUnsafeGuaranteedRef { ($0.channels, $0.isSilent) }
                if silent { continue }
                source = channels
            }
            if settled, !(v.target > 0) { continue }
            anything = true
            if !settled, slot.route != 3 {
                // Ramping (10 ms after a change): per-frame gains, outside the summing kernel.
                let left = source[0], right = slot.route == 1 ? source[0] : source[1]
                let outLeft = out[0], outRight = out[1]
                for i in 0..<frames {
                    outLeft[i] += left[i] * l.gain(at: i)
                    outRight[i] += right[i] * r.gain(at: i)
                }
                continue
            }
            switch slot.route {
            case 1:
                pending[pendingCount] = StereoMixInput(left: source[0], right: source[0], gainLeft: l.target, gainRight: r.target)
                pendingCount += 1
            case 2:
                pending[pendingCount] = StereoMixInput(left: source[0], right: source[1], gainLeft: l.target, gainRight: r.target)
                pendingCount += 1
            default:
                mixThroughMatrix(slot, outputChannels: outputChannels, source: source, into: out, frames: frames,
                                 volume: v.target, left: l.target, right: r.target,
                                 ramps: settled ? nil : (l, r, v))
            }
        }
        if pendingCount > 0 {
            kernel.mix(into: out[0], out[1], inputs: pending, count: pendingCount, frames: frames)
        }
        let outputVolume = Float(bitPattern: node._withUnsafeGuaranteedRef { $0.outputVolumeBits.load(ordering: .relaxed) })
        outputRamp.aim(at: outputVolume, frames: rampFrames)
        let ramp = outputRamp
        outputRamp.advance(frames)
        if anything {
            if !ramp.isSettled {
                for c in 0..<outputChannels {
                    let p = out[c]
                    for i in 0..<frames { p[i] *= ramp.gain(at: i) }
                }
            } else if outputVolume != 1 {
                for c in 0..<outputChannels {
                    let p = out[c]
                    for i in 0..<frames { p[i] *= outputVolume }
                }
            }
        }
        let silent = !anything
        output._withUnsafeGuaranteedRef { $0.isSilent = silent }
    }

    /// An input at another rate, through its streaming resampler (proved with the mixer; the
    /// resampler itself by its own module's proof, see KernelCall.swift).
    @inline(__always)
    private func convertInput(_ converter: Unmanaged<MixerRateConverter>, _ input: Unmanaged<RenderBuffer>,
                                     frames: Int) -> UnsafeMutablePointer<UnsafeMutablePointer<Float>> {
        converter.convert(input, producing: frames)
    }

    /// Other layouts: the input goes through its channel matrix into scratch, then into the output
    /// (proved with the mixer; the matrix kernel by AudioKernels' own proof, see KernelCall.swift).
    @inline(__always)
    private func mixThroughMatrix(_ slot: Slot, outputChannels: Int, source: UnsafeMutablePointer<UnsafeMutablePointer<Float>>,
                                  into out: UnsafeMutablePointer<UnsafeMutablePointer<Float>>, frames: Int,
                                  volume: Float, left: Float, right: Float, ramps: (GainRamp, GainRamp, GainRamp)?) {
        guard let matrix = slot.matrix, let scratch = slot.scratch else { return }
        KernelCall.apply(matrix, frames: frames, input: UnsafePointer(source), output: UnsafePointer(scratch))
        if let (l, r, v) = ramps {
            var c = 0
            while c < outputChannels {
                let ramp = outputChannels == 2 ? (c == 0 ? l : r) : v
                let dst = out[c], src = scratch[c]
                var i = 0
                while i < frames { dst[i] += src[i] * ramp.gain(at: i); i += 1 }
                c += 1
            }
            return
        }
        var c = 0
        while c < outputChannels {
            let g = outputChannels == 2 ? (c == 0 ? left : right) : volume
            accumulate(out[c], scratch[c], g, frames)
            c += 1
        }
    }

    @inline(__always)
    private func accumulate(_ dst: UnsafeMutablePointer<Float>, _ src: UnsafeMutablePointer<Float>, _ gain: Float, _ frames: Int) {
        var i = 0
        if gain == 1 {
            while i < frames { dst[i] += src[i]; i += 1 }
        } else {
            while i < frames { dst[i] += src[i] * gain; i += 1 }
        }
    }

    override func resetState() {
        for c in converters.values { c.reset() }
    }
}

/// Planar Float32 scratch owned by a plan's step state.
final class PlanarScratch {
    let channels: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    let count: Int
    private let memory: UnsafeMutablePointer<Float>
    init(channels count: Int, frames: Int) {
        self.count = count
        memory = .allocate(capacity: max(1, count * frames))
        memory.initialize(repeating: 0, count: max(1, count * frames))
        channels = .allocate(capacity: max(1, count))
        for c in 0..<count { channels[c] = memory + c * frames }
    }
    deinit {
        memory.deallocate()
        channels.deallocate()
    }
}

/// One side's equal-power gain, cos(x·π/4) for x = 1 ± pan in 0 … 2: written as cos of 1 ± pan
/// (not cos θ and sin θ) so both sides are bit-identical at the centre, and exactly 0 at the
/// far end (Float π/2 is a hair short of π/2, whose cosine would be 7.5e-8).
@inline(__always)
func equalPowerGain(_ x: Float) -> Float {
    x >= 2 ? 0 : cos(x * (Float.pi / 4))
}
