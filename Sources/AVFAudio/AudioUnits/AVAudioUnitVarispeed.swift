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
        /// The converter for the render thread (`converter` keeps it alive).
        private let converterRef: Unmanaged<SampleRateConverter>
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
            converterRef = .passUnretained(converter)
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

        // Render thread (proved by RenderPathProof.timeEffect): the converter is reached
        // unmanaged through KernelCall (proved in AudioKernels), the buffers and the plan state
        // unmanaged, closures capture only plain values.

        override var latencyFrames: Int { 0 }

        override func apply(_ address: AUParameterAddress, _ value: AUValue, ramp: Int) {
            guard address <= 1 else { return }
            let rate = varispeedRate(address: address, value: value)
            if rate == self.rate { return }
            self.rate = rate
            KernelCall.setRatio(converterRef, 1 / rate, rampFrames: ramp > 0 ? ramp : defaultRamp)
        }

        override func inputFrames(_ frames: Int, changes: UnsafeBufferPointer<TimeEffectChange>) -> Int {
            let need = KernelCall.inputFramesNeeded(converterRef, forOutputFrames: frames)
            if changes.count == 0 { return larger(0, need - fifoCount) }
            // Changes midway: at most the frames at the highest rate in the cycle (a glide stays
            // between its ends), plus the interpolator's reach ahead at that rate (its kernel widens
            // with the rate, to keep the output alias-free), plus a few for rounding; what is not
            // consumed waits in the FIFO.
            var highest = rate
            var i = 0
            while i < changes.count {
                if changes[i].address <= 1 { highest = larger(highest, varispeedRate(address: changes[i].address, value: changes[i].value)) }
                i += 1
            }
            let reach = roundUp(Double(KernelCall.trailingFrames(converterRef)) * larger(1, highest))
            let margin = roundUp(Double(frames) * (highest - rate)) + reach + 16
            return larger(0, need + margin - fifoCount)
        }

        override func maximumInputFrames(_ frames: Int) -> Int {
            VarispeedRenderer.maximumInput(frames, converter)
        }

        override func process(_ input: Unmanaged<RenderBuffer>?, _ output: Unmanaged<RenderBuffer>, offset: Int, frames: Int,
                              state: Unmanaged<TimeEffectRenderer.State>) {
            let inputFrames = input?.frames ?? 0
            // The converter reads the new input in place while nothing is left over from earlier
            // (the usual case: it takes in all it is given); otherwise the input joins the FIFO.
            let direct = fifoCount == 0 ? inputFrames > 0 : false
            if !direct, let input, inputFrames > 0 {
                let take = smaller(inputFrames, fifoCapacity - fifoCount)
                let (source, count) = (input.channels, input.channelCount)
                var c = 0
                while c < channels {
                    copyFloats(fifo + c * fifoCapacity + fifoCount, source[smaller(c, count - 1)], take)
                    c += 1
                }
                fifoCount += take
            }
            let (inputPointers, outputPointers) = state._withUnsafeGuaranteedRef { s -> (UnsafeMutablePointer<UnsafePointer<Float>>, UnsafeMutablePointer<UnsafeMutablePointer<Float>>) in
                s.bind(direct ? input : nil, output, offset: offset)
                return (s.inputPointers, s.outputPointers)
            }
            let available = direct ? inputFrames : fifoCount
            let inputs = UnsafeBufferPointer(start: UnsafePointer(direct ? inputPointers : fifoPointers), count: channels)
            let outputs = UnsafeBufferPointer(start: UnsafePointer(outputPointers), count: channels)
            var consumed = 0, produced = 0
            while produced < frames {
                let r = KernelCall.process(converterRef, input: inputs, offset: consumed, inputFrames: available - consumed,
                                           output: outputs, offset: produced, outputCapacity: frames - produced)
                consumed += r.consumed
                produced += r.produced
                if r.produced == 0 && r.consumed == 0 { break }
            }
            // the plan rendered what the converter asked for; anything short is silence
            if produced < frames {
                let out = output.channels
                var c = 0
                while c < channels { zeroFloats(out[c] + offset + produced, frames - produced); c += 1 }
            }
            // keep the unconsumed input at the front of the FIFO
            let left = available - consumed
            if left > 0 {
                if direct || consumed > 0 {
                    var c = 0
                    while c < channels {
                        copyFloats(fifo + c * fifoCapacity, inputs[c] + consumed, smaller(left, fifoCapacity))
                        c += 1
                    }
                }
            }
            fifoCount = smaller(left, fifoCapacity)
        }

        override func reset() {
            KernelCall.reset(converterRef)
            KernelCall.setRatio(converterRef, 1 / rate, rampFrames: 0)
            fifoCount = 0
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

    /// The rate for a parameter change (cents or rate), clamped to 0.25…4 (`varispeedRate`).
    static func rate(address: AUParameterAddress, value: AUValue) -> Double {
        varispeedRate(address: address, value: value)
    }
}


/// The varispeed's rate for a parameter change (cents or rate), clamped to 0.25…4.
@inline(__always)
func varispeedRate(address: AUParameterAddress, value: AUValue) -> Double {
    let r = address == 1 /* kVarispeedParam_PlaybackCents (a literal: see AVAudioUnitTimePitch's DSP) */ ? KernelCall.power(2, widen(value) / 1200) : widen(value)
    let finite = r - r == 0 ? r : 1   // (finite: `isFinite` is not visible to the real-time check here; inf − inf and NaN are NaN)
    return finite < 0.25 ? 0.25 : (finite > 4 ? 4 : finite)
}

/// `Int(x.rounded(.up))` for the render thread (the rounding-rule enum is metadata the real-time
/// check rejects). For |x| within Int's range.
@inline(__always)
func roundUp(_ x: Double) -> Int {
    let i = Int(x)
    return Double(i) < x ? i + 1 : i
}
