// AVAudioUnitVarispeed: Apple's varispeed (AUVarispeed, 'aufc'/'vari'): resampling playback,
// pitch and duration change together.
//
// The node's input is its own rate domain: each cycle it pulls about rate x frames from upstream
// and resamples them into the cycle's frames with a SampleRateConverter in variable-ratio mode
// (out/in = 1/rate; a windowed-sinc interpolator whose cut-off follows the output's Nyquist
// frequency when speeding up, so nothing aliases; 125 dB stop band). Rate changes glide linearly
// over the event's ramp, or 10 ms when it has none, so the pitch bends without a click. The
// converter is time-aligned: no latency.
//
// Rate changes scheduled inside a cycle take effect at their exact output frame (see the design
// note in TimeEffectRenderer.swift): the cycle is resampled in segments, the input pulled for it
// is an upper bound at the highest rate in the cycle, and the frames the converter did not
// consume wait in the DSP's input FIFO for the next cycle.
import Synchronization
import AudioKernels

// Apple's parameter IDs of this unit (`kVarispeedParam_*`) are AudioToolbox's
// (Sources/AudioToolbox/AudioUnitParameters.swift).

/// A time effect that changes the playback rate, and with it the pitch.
open class AVAudioUnitVarispeed: AVAudioUnitTimeEffect {
    private let rateParameter: AUParameter
    private let centsParameter: AUParameter

    /// Creates a varispeed at rate 1.
    public init() {
        let parts = AVAudioUnitVarispeed.parts()
        rateParameter = parts.parameters[0]
        centsParameter = parts.parameters[1]
        super.init(description: AVAudioUnitVarispeed.componentDescription, renderer: parts.renderer, parameters: parts.parameters)
    }

    /// The playback rate: 2 plays twice as fast, an octave up. Range 0.25 … 4, default 1.
    open var rate: Float {
        get { rateParameter.value }
        set { rateParameter.value = newValue }
    }

    open override var name: String { "AUVarispeed" }

    /// The input runs at its own pace: its own rate domain.
    override func changesRate(onInputBus bus: AVAudioNodeBus) -> Bool { true }

    static let componentDescription = AudioComponentDescription(
        componentType: kAudioUnitType_FormatConverter, componentSubType: kAudioUnitSubType_Varispeed,
        componentManufacturer: kAudioUnitManufacturer_Apple, componentFlags: 0, componentFlagsMask: 0)

    /// The parameters (rate and cents, kept in step) and the render object.
    static func parts() -> BuiltInUnits.TimeEffectParts {
        let rate = AVAudioUnit.parameter("playbackRate", "Playback Rate", address: AUParameterAddress(kVarispeedParam_PlaybackRate),
                                         min: 0.25, max: 4, unit: .rate, value: 1)
        let cents = AVAudioUnit.parameter("playbackCents", "Playback Cents", address: AUParameterAddress(kVarispeedParam_PlaybackCents),
                                          min: -2400, max: 2400, unit: .cents, value: 0)
        // the two are one value: setting one updates the other (observers of both are told)
        _ = rate.token(byAddingParameterObserver: { [weak cents] _, value in
            cents?.setStoredValue(AUValue(1200 * log2(Double(value))))
        })
        _ = cents.token(byAddingParameterObserver: { [weak rate] _, value in
            rate?.setStoredValue(AUValue(pow(2, Double(value) / 1200)))
        })
        return (VarispeedRenderer(), [rate, cents])
    }
}

/// The varispeed's render object: a variable-ratio SampleRateConverter per format.
final class VarispeedRenderer: TimeEffectRenderer {
    /// The DSP of one format.
    final class DSP: TimeEffectDSP {
        let converter: SampleRateConverter
        let channels: Int
        let defaultRamp: Int
        /// Rate in effect (render thread).
        var rate: Double
        /// Input not consumed yet (planar, `fifoCapacity` frames per channel; render thread).
        let fifo: UnsafeMutablePointer<Float>
        let fifoCapacity: Int
        var fifoCount = 0
        let fifoPointers: UnsafeMutablePointer<UnsafePointer<Float>>

        init(sampleRate: Double, channels: Int, rate: Double, maximumFrames: Int) {
            converter = SampleRateConverter(inputRate: sampleRate, outputRate: sampleRate, channels: channels, quality: .medium,
                                            variableRatio: 0.25...4)
            self.channels = channels
            defaultRamp = max(1, Int(sampleRate / 100))
            self.rate = rate
            converter.setRatio(1 / rate, rampFrames: 0)
            // a cycle's request (≤ the plan's bound) on top of one cycle's margin left over
            fifoCapacity = 2 * VarispeedRenderer.maximumInput(maximumFrames, converter) + 1024
            fifo = .allocate(capacity: channels * fifoCapacity)
            fifo.initialize(repeating: 0, count: channels * fifoCapacity)
            fifoPointers = .allocate(capacity: channels)
            for c in 0..<channels { fifoPointers[c] = UnsafePointer(fifo + c * fifoCapacity) }
        }

        deinit {
            fifo.deallocate()
            fifoPointers.deallocate()
        }
    }

    /// The most input frames a cycle of `frames` frames asks for: rate 4, plus the kernel's
    /// reach at the widest stretch (4 × the nominal one).
    static func maximumInput(_ frames: Int, _ c: SampleRateConverter) -> Int {
        4 * frames + 4 * (c.leadingFrames + c.trailingFrames) + 64
    }

    /// Rate the next DSP starts at (control side: the unit's current value).
    final class InitialRate { let bits = Atomic<UInt32>(Float(1).bitPattern) }
    private let initialRate: InitialRate

    init() {
        let initialRate = InitialRate()
        self.initialRate = initialRate
        super.init(makeDSP: { sampleRate, channels, maximumFrames in
            DSP(sampleRate: sampleRate, channels: channels, rate: Double(Float(bitPattern: initialRate.bits.load(ordering: .relaxed))),
                maximumFrames: maximumFrames)
        })
    }

    override func schedule(address: AUParameterAddress, value: AUValue, at time: AUEventSampleTime, ramp: AUAudioFrameCount) {
        let rate = VarispeedRenderer.rate(address: address, value: value)
        initialRate.bits.store(Float(rate).bitPattern, ordering: .relaxed)
        super.schedule(address: address, value: value, at: time, ramp: ramp)
    }

    static func rate(address: AUParameterAddress, value: AUValue) -> Double {
        let r = address == AUParameterAddress(kVarispeedParam_PlaybackCents) ? pow(2, Double(value) / 1200) : Double(value)
        return Swift.min(4, Swift.max(0.25, r.isFinite ? r : 1))
    }
}

extension VarispeedRenderer.DSP {
    var latencyFrames: Int { 0 }

    func apply(_ address: AUParameterAddress, _ value: AUValue, ramp: Int) {
        guard address <= 1 else { return }
        let d = self
        let rate = VarispeedRenderer.rate(address: address, value: value)
        if rate == d.rate { return }
        d.rate = rate
        d.converter.setRatio(1 / rate, rampFrames: ramp > 0 ? ramp : d.defaultRamp)
    }

    func inputFrames(_ frames: Int, changes: UnsafeBufferPointer<TimeEffectChange>) -> Int {
        let d = self
        let need = d.converter.inputFramesNeeded(forOutputFrames: frames)
        if changes.isEmpty { return max(0, need - d.fifoCount) }
        // Changes midway: at most the frames at the highest rate in the cycle (a glide stays
        // between its ends), plus the interpolator's reach ahead at that rate (its kernel widens
        // with the rate, to keep the output alias-free), plus a few for rounding; what is not
        // consumed waits in the FIFO.
        var highest = d.rate
        var i = 0
        while i < changes.count {
            if changes[i].address <= 1 { highest = max(highest, VarispeedRenderer.rate(address: changes[i].address, value: changes[i].value)) }
            i += 1
        }
        let reach = Int((Double(d.converter.trailingFrames) * Swift.max(1, highest)).rounded(.up))
        let margin = Int((Double(frames) * (highest - d.rate)).rounded(.up)) + reach + 16
        return max(0, need + margin - d.fifoCount)
    }

    func maximumInputFrames(_ frames: Int) -> Int {
        VarispeedRenderer.maximumInput(frames, converter)
    }

    func process(_ input: RenderBuffer?, _ output: RenderBuffer, offset: Int, frames: Int, state: TimeEffectRenderer.State) {
        let d = self
        // The converter reads the new input in place while nothing is left over from earlier
        // (the usual case: it takes in all it is given); otherwise the input joins the FIFO.
        let direct = d.fifoCount == 0 && input.map { $0.frames > 0 } == true
        if !direct, let input, input.frames > 0 {
            let take = min(input.frames, d.fifoCapacity - d.fifoCount)
            for c in 0..<d.channels {
                (d.fifo + c * d.fifoCapacity + d.fifoCount).update(from: input.channels[min(c, input.channelCount - 1)], count: take)
            }
            d.fifoCount += take
        }
        state.bind(direct ? input : nil, output, offset: offset)
        let available = direct ? input.unsafelyUnwrapped.frames : d.fifoCount
        let inputs = UnsafeBufferPointer(start: UnsafePointer(direct ? state.inputPointers : d.fifoPointers), count: d.channels)
        let outputs = UnsafeBufferPointer(start: UnsafePointer(state.outputPointers), count: d.channels)
        var consumed = 0, produced = 0
        while produced < frames {
            let r = d.converter.process(input: inputs, offset: consumed, inputFrames: available - consumed,
                                        output: outputs, offset: produced, outputCapacity: frames - produced)
            consumed += r.consumed
            produced += r.produced
            if r.produced == 0 && r.consumed == 0 { break }
        }
        // the plan rendered what the converter asked for; anything short is silence
        if produced < frames {
            for c in 0..<d.channels { (output.channels[c] + offset + produced).update(repeating: 0, count: frames - produced) }
        }
        // keep the unconsumed input at the front of the FIFO
        let left = available - consumed
        if left > 0 && (direct || consumed > 0) {
            for c in 0..<d.channels {
                let p = d.fifo + c * d.fifoCapacity
                p.update(from: inputs[c] + consumed, count: min(left, d.fifoCapacity))
            }
        }
        d.fifoCount = min(left, d.fifoCapacity)
    }

    func reset() {
        let d = self
        d.converter.reset()
        d.converter.setRatio(1 / d.rate, rampFrames: 0)
        d.fifoCount = 0
    }
}
