// AVAudioMixerNode: sums any number of inputs into one output, with per-input volume and pan
// (set on the source nodes through AVAudioMixing), an output volume, channel up/down-mixing
// between layouts, and sample-rate conversion per input.
//
// Pan law (stereo output): a balance law that keeps unity gain at centre — left gain
// min(1, 1 − pan), right gain min(1, 1 + pan) — applied to mono inputs (copied to both sides)
// and stereo inputs alike. Other channel counts go through ChannelMixPlan's downmix/upmix matrix
// (ITU-R BS.775 coefficients) before the balance.
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
        // A new connection starts from its source's current mixing values.
        if let engine = _engine, let c = engine.connection(into: self, bus: bus) {
            let (volume, pan) = c.source.effectiveMixing(intoMixer: self, bus: bus)
            inputControls[bus].set(volume: volume, pan: pan)
        }
    }
}

extension AVAudioEngine {
    /// Copies a source node's effective volume/pan into every mixer input it feeds.
    func updateMixerInputs(fedBy source: AVAudioNode) {
        lock.lock(); defer { lock.unlock() }
        for node in attachedNodes {
            guard let mixer = node as? AVAudioMixerNode else { continue }
            for bus in 0..<mixer.numberOfInputs {
                guard let c = connection(into: mixer, bus: bus), c.source === source else { continue }
                let (volume, pan) = source.effectiveMixing(intoMixer: mixer, bus: bus)
                mixer.inputControl(bus).set(volume: volume, pan: pan)
            }
        }
    }
}

/// Volume and pan of one mixer input, written by the control side, read by the render thread.
final class MixerInputControl {
    private let volumeBits = Atomic<UInt32>(Float(1).bitPattern)
    private let panBits = Atomic<UInt32>(Float(0).bitPattern)

    func set(volume: Float, pan: Float) {
        volumeBits.store(volume.bitPattern, ordering: .relaxed)
        panBits.store(pan.bitPattern, ordering: .relaxed)
    }

    @inline(__always) var volume: Float { Float(bitPattern: volumeBits.load(ordering: .relaxed)) }
    @inline(__always) var pan: Float { Float(bitPattern: panBits.load(ordering: .relaxed)) }
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
        init(control: MixerInputControl, route: Route, scratch: PlanarScratch?, rateConverter: MixerRateConverter?) {
            self.control = control
            self.route = route
            self.scratch = scratch
            self.rateConverter = rateConverter
        }
    }

    /// one input gathered for the grouped kernel.
    struct Pending {
        var left: UnsafePointer<Float>
        var right: UnsafePointer<Float>
        var gl: Float
        var gr: Float
    }

    final class State {
        let inputs: [InputState?]
        let outputChannels: Int
        let mono: UnsafeMutablePointer<Pending>
        let stereo: UnsafeMutablePointer<Pending>
        init(inputs: [InputState?], outputChannels: Int) {
            self.inputs = inputs
            self.outputChannels = outputChannels
            mono = .allocate(capacity: max(1, inputs.count))
            stereo = .allocate(capacity: max(1, inputs.count))
        }
        deinit { mono.deallocate(); stereo.deallocate() }
    }

    /// Rate converters persist across plans while an input's formats stay the same.
    private var converters: [Int: MixerRateConverter] = [:]

    override func makeStepState(inputFormats: [AVAudioFormat?], outputFormats: [AVAudioFormat], maximumFrames: Int) -> AnyObject? {
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
        return State(inputs: inputs, outputChannels: outChannels)
    }

    override func inputFrames(forOutputFrames outputFrames: Int, bus: Int, state: AnyObject?) -> Int {
        guard let state = state.map({ unsafeDowncast($0, to: State.self) }), bus < state.inputs.count,
              let converter = state.inputs[bus]?.rateConverter else { return outputFrames }
        return converter.inputFramesNeeded(forOutputFrames: outputFrames)
    }

    override func maximumInputFrames(forOutputFrames outputFrames: Int, bus: Int, state: AnyObject?) -> Int {
        guard let state = state.map({ unsafeDowncast($0, to: State.self) }), bus < state.inputs.count,
              let converter = state.inputs[bus]?.rateConverter else { return outputFrames }
        return converter.maximumInputFrames(forOutputFrames: outputFrames)
    }

    override func inputSampleTime(bus: Int, state: AnyObject?) -> Int64 {
        guard let state = state.map({ unsafeDowncast($0, to: State.self) }), bus < state.inputs.count,
              let converter = state.inputs[bus]?.rateConverter else { return 0 }
        return converter.inputSampleTime
    }

    override func render(_ cycle: inout RenderCycle, inputs: UnsafeBufferPointer<RenderBuffer?>, outputs: UnsafeBufferPointer<RenderBuffer>, state: AnyObject?) {
        let output = outputs[0]
        let frames = cycle.frames
        output.clear(frames: frames)
        guard let state = state.map({ unsafeDowncast($0, to: State.self) }) else { return }
        let out = output.channels
        var anything = false
        var monoCount = 0, stereoCount = 0
        for bus in 0..<min(inputs.count, state.inputs.count) {
            guard let input = inputs[bus], let st = state.inputs[bus] else { continue }
            let volume = st.control.volume
            // Bring the input to the output rate first (consumes input.frames, produces `frames`).
            var source = input.channels
            if let converter = st.rateConverter {
                source = converter.convert(input, producing: frames)
            } else if input.isSilent {
                continue
            }
            guard volume > 0 else { continue }
            anything = true
            let pan = st.control.pan
            let left = volume * min(1, 1 - pan), right = volume * min(1, 1 + pan)
            switch st.route {
            case .monoToStereo:
                state.mono[monoCount] = Pending(left: UnsafePointer(source[0]), right: UnsafePointer(source[0]), gl: left, gr: right)
                monoCount += 1
            case .stereoToStereo:
                state.stereo[stereoCount] = Pending(left: UnsafePointer(source[0]), right: UnsafePointer(source[1]), gl: left, gr: right)
                stereoCount += 1
            case .matrix(let matrix):
                let scratch = st.scratch!
                matrix.apply(frames: frames, input: UnsafePointer(source), output: UnsafePointer(scratch.channels))
                for c in 0..<state.outputChannels {
                    let g = state.outputChannels == 2 ? (c == 0 ? left : right) : volume
                    accumulate(out[c], scratch.channels[c], g, frames)
                }
            }
        }
        if monoCount > 0 || stereoCount > 0 {
            let l = out[0], r = out[1]
            MixerRenderer.mixGroups(l, r, state.mono, monoCount, frames)
            MixerRenderer.mixGroups(l, r, state.stereo, stereoCount, frames)
        }
        let outputVolume = Float(bitPattern: node?.outputVolumeBits.load(ordering: .relaxed) ?? Float(1).bitPattern)
        if anything && outputVolume != 1 {
            for c in 0..<output.channelCount {
                let p = out[c]
                for i in 0..<frames { p[i] *= outputVolume }
            }
        }
        output.isSilent = !anything
    }

    /// L += Σ gl·left, R += Σ gr·right, four inputs per pass over the accumulators.
    static func mixGroups(_ l: UnsafeMutablePointer<Float>, _ r: UnsafeMutablePointer<Float>,
                          _ p: UnsafeMutablePointer<Pending>, _ count: Int, _ frames: Int) {
        var k = 0
        while k + 4 <= count {
            let a = p[k], b = p[k + 1], c = p[k + 2], d = p[k + 3]
            let al = a.left, ar = a.right, bl = b.left, br = b.right, cl = c.left, cr = c.right, dl = d.left, dr = d.right
            for i in 0 ..< frames {
                l[i] += (a.gl * al[i] + b.gl * bl[i]) + (c.gl * cl[i] + d.gl * dl[i])
                r[i] += (a.gr * ar[i] + b.gr * br[i]) + (c.gr * cr[i] + d.gr * dr[i])
            }
            k += 4
        }
        while k < count {
            let a = p[k]
            let al = a.left, ar = a.right
            for i in 0 ..< frames {
                l[i] += a.gl * al[i]
                r[i] += a.gr * ar[i]
            }
            k += 1
        }
    }

    @inline(__always)
    private func accumulate(_ dst: UnsafeMutablePointer<Float>, _ src: UnsafeMutablePointer<Float>, _ gain: Float, _ frames: Int) {
        if gain == 1 {
            for i in 0..<frames { dst[i] += src[i] }
        } else {
            for i in 0..<frames { dst[i] += src[i] * gain }
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
