// AVAudioUnitDelay: Apple's delay (AUDelay, 'aufx'/'dely'), and the kernel that runs it.
//
// One feedback delay line per channel, with a low-pass inside the loop so every repeat is
// darker than the one before:
//
//   r[n] = w[n − D]                      read D = delayTime · sampleRate samples back
//   e[n] = LP(r[n])                      the echo
//   w[n] = x[n] + feedback · e[n]        written into the line
//   y[n] = (1 − mix) · x[n] + mix · e[n]
//
// so the k-th echo of an impulse arrives at k·D with amplitude feedback^(k−1), filtered k times.
// LP is the first-order Butterworth low-pass (the bilinear transform of ωc/(s + ωc), prewarped so
// it is −3 dB exactly at `lowPassCutoff`); at a cutoff of sampleRate/2 it is the identity.
// A fractional D is read with 4-point (cubic) Lagrange interpolation, which reproduces
// polynomials up to degree 3 exactly: the centroid of an echo lands exactly on D. The line
// delays by at least one sample (a delay of 0 s renders as 1 sample: the feedback needs one).
//
// Parameter changes glide linearly over the event's ramp, or when it has none over 128 samples
// (feedback, mix, cutoff — click-free, as in AVAudioUnitEQ) or 50 ms (delay time: the read head
// slides to the new position like a tape delay's instead of jumping, which would click).
// The dry signal is not delayed: latency 0.

/// A delay with feedback and a low-pass in the feedback loop.
open class AVAudioUnitDelay: AVAudioUnitEffect {
    private let wetDryMixParameter, delayTimeParameter, feedbackParameter, lowPassCutoffParameter: AUParameter

    /// Creates a delay with Apple's defaults: 1 s, 50 % feedback, 15 kHz cutoff, 100 % wet.
    public init() {
        let parts = AVAudioUnitDelay.parts(wetDryMix: 100)
        (wetDryMixParameter, delayTimeParameter, feedbackParameter, lowPassCutoffParameter) =
            (parts.parameters[0], parts.parameters[1], parts.parameters[2], parts.parameters[3])
        super.init(description: AVAudioUnitDelay.componentDescription, kernelFactory: parts.kernel, parameters: parts.parameters)
    }

    /// Delay in seconds. Range 0 … 2, default 1.
    open var delayTime: TimeInterval {
        get { TimeInterval(delayTimeParameter.value) }
        set { delayTimeParameter.value = AUValue(newValue) }
    }

    /// Feedback in percent. Range −100 … 100, default 50.
    open var feedback: Float {
        get { feedbackParameter.value }
        set { feedbackParameter.value = newValue }
    }

    /// Cutoff of the low-pass in the feedback loop, in hertz. Range 10 … sample rate / 2, default 15 000.
    open var lowPassCutoff: Float {
        get { lowPassCutoffParameter.value }
        set {
            let nyquist = Float((outputFormats.first?.sampleRate ?? 44_100) / 2)
            lowPassCutoffParameter.value = Swift.min(Swift.max(newValue.isNaN ? 10 : newValue, 10), nyquist)
        }
    }

    /// Wet (delayed) share of the output in percent. Range 0 … 100, default 100.
    open var wetDryMix: Float {
        get { wetDryMixParameter.value }
        set { wetDryMixParameter.value = newValue }
    }

    open override var name: String { "AUDelay" }

    /// Until the echoes fall 60 dB below the first (the delay time when there is no feedback).
    override var tailTime: TimeInterval {
        let d = delayTime, fb = Double(abs(feedback)) / 100
        if fb <= 0 { return d }
        if fb >= 1 { return .infinity }
        return d * (1 + 3 / -log10(fb))
    }

    static let componentDescription = AudioComponentDescription(
        componentType: kAudioUnitType_Effect, componentSubType: kAudioUnitSubType_Delay,
        componentManufacturer: kAudioUnitManufacturer_Apple, componentFlags: 0, componentFlagsMask: 0)

    // Apple's parameter IDs (AudioUnitParameters.h).
    static let wetDryMixAddress: AUParameterAddress = 0
    static let delayTimeAddress: AUParameterAddress = 1
    static let feedbackAddress: AUParameterAddress = 2
    static let lowPassCutoffAddress: AUParameterAddress = 3

    /// The parameters and kernel factory. The audio unit's own wet/dry default is 50 %
    /// (AudioUnitParameters.h); AVAudioUnitDelay sets 100 %.
    static func parts(wetDryMix: AUValue = 50) -> BuiltInUnits.EffectParts {
        let parameters = [
            AVAudioUnit.parameter("wetDryMix", "Dry/Wet Mix", address: wetDryMixAddress, min: 0, max: 100, unit: .equalPowerCrossfade, value: wetDryMix),
            AVAudioUnit.parameter("delayTime", "Delay Time", address: delayTimeAddress, min: 0, max: 2, unit: .seconds, value: 1),
            AVAudioUnit.parameter("feedback", "Feedback", address: feedbackAddress, min: -100, max: 100, unit: .percent, value: 50),
            // The range's top is Nyquist of the highest supported rate; the kernel (and
            // `lowPassCutoff`) clamp to Nyquist of the actual rate.
            AVAudioUnit.parameter("lopassCutoff", "Low Pass Cutoff Frequency", address: lowPassCutoffAddress, min: 10, max: 96_000, unit: .hertz, value: 15_000),
        ]
        let factory: EffectKernelFactory = { rate, channels, frames in
            let k = DelayKernel(sampleRate: rate, channels: channels, maximumFrames: frames)
            for p in parameters { k.setParameter(p.address, p.value, rampFrames: -1) }
            return k
        }
        return (factory, parameters)
    }
}

// MARK: - Kernel

/// The DSP of AVAudioUnitDelay. `process` and `setParameter` allocate nothing.
final class DelayKernel: EffectKernel {
    static let defaultRampFrames = 128
    static let defaultDelayGlideSeconds = 0.05

    let sampleRate: Double
    let channelCapacity: Int
    let pairs: Int
    let maximumFrames: Int
    /// Delay lines, one per channel (rounded up to pairs), each `lineLength` (a power of two).
    private let lines: UnsafeMutablePointer<Float>
    private let lineLength: Int
    private let mask: Int
    private var writeIndex = 0
    /// Low-pass state per pair: previous read value and previous echo.
    private let lpState: UnsafeMutablePointer<SIMD2<Double>>
    /// Where an odd channel count's missing partner writes.
    private let spare: UnsafeMutablePointer<Float>

    private var delay = LinearRamp(1)       // samples, ≥ 1
    private var feedback = LinearRamp(0.5)
    private var mix = LinearRamp(1)
    // First-order section y = b0·r + b1·r₁ − a1·y₁; the three glide together.
    private var lpB0 = LinearRamp(1), lpB1 = LinearRamp(0), lpA1 = LinearRamp(0)

    init(sampleRate: Double, channels: Int, maximumFrames: Int) {
        self.sampleRate = sampleRate
        channelCapacity = max(1, channels)
        pairs = (channelCapacity + 1) / 2
        self.maximumFrames = max(1, maximumFrames)
        var length = 1
        while length < Int((2 * sampleRate).rounded(.up)) + 8 { length <<= 1 }
        lineLength = length
        mask = length - 1
        lines = .allocate(capacity: pairs * 2 * length)
        lines.initialize(repeating: 0, count: pairs * 2 * length)
        lpState = .allocate(capacity: pairs * 2)
        lpState.initialize(repeating: .zero, count: pairs * 2)
        spare = .allocate(capacity: self.maximumFrames)
        spare.initialize(repeating: 0, count: self.maximumFrames)
        super.init()
    }

    deinit {
        lines.deallocate()
        lpState.deallocate()
        spare.deallocate()
    }

    /// rampFrames < 0: set at once (initial values); 0: the default glide.
    override func setParameter(_ address: AUParameterAddress, _ value: AUValue, rampFrames: Int) {
        let v = Double(value)
        let frames = rampFrames < 0 ? 0 : rampFrames > 0 ? rampFrames : Self.defaultRampFrames
        switch address {
        case AVAudioUnitDelay.wetDryMixAddress:
            mix.start(to: min(max(v, 0), 100) / 100, frames: frames)
        case AVAudioUnitDelay.delayTimeAddress:
            let glide = rampFrames < 0 ? 0 : rampFrames > 0 ? rampFrames : Int((Self.defaultDelayGlideSeconds * sampleRate).rounded())
            delay.start(to: Self.delaySamples(seconds: v, sampleRate: sampleRate), frames: glide)
        case AVAudioUnitDelay.feedbackAddress:
            feedback.start(to: min(max(v, -100), 100) / 100, frames: frames)
        case AVAudioUnitDelay.lowPassCutoffAddress:
            let c = Self.lowPass(cutoff: v, sampleRate: sampleRate)
            lpB0.start(to: c.b0, frames: frames)
            lpB1.start(to: c.b1, frames: frames)
            lpA1.start(to: c.a1, frames: frames)
        default:
            break
        }
    }

    /// The delay in samples (1 … 2 s): a time that is a whole number of samples to the precision
    /// of its Float32 parameter (2⁻²³ relative) is that whole number exactly.
    static func delaySamples(seconds: Double, sampleRate: Double) -> Double {
        let d = min(max(seconds, 0), 2) * sampleRate
        let whole = d.rounded()
        return max(abs(d - whole) <= d * 0x1p-23 ? whole : d, 1)
    }

    /// The first-order Butterworth low-pass at `cutoff` (identity at or above Nyquist).
    static func lowPass(cutoff: Double, sampleRate: Double) -> (b0: Double, b1: Double, a1: Double) {
        let fc = max(cutoff, 1)
        if fc >= sampleRate / 2 { return (1, 0, 0) }
        let k = tan(Double.pi * fc / sampleRate)
        return (k / (1 + k), k / (1 + k), (k - 1) / (k + 1))
    }

    override func reset() {
        lines.update(repeating: 0, count: pairs * 2 * lineLength)
        lpState.update(repeating: .zero, count: pairs * 2)
    }

    override var latencyFrames: Int { 0 }

    override var tailTime: TimeInterval {
        let fb = abs(feedback.to), d = delay.to / sampleRate
        if fb <= 0 { return d }
        if fb >= 1 { return .infinity }
        return d * (1 + 3 / -log10(fb))
    }

    private var isGliding: Bool {
        delay.isActive || feedback.isActive || mix.isActive || lpB0.isActive || lpB1.isActive || lpA1.isActive
    }

    override func process(input: UnsafePointer<UnsafeMutablePointer<Float>>, output: UnsafePointer<UnsafeMutablePointer<Float>>,
                          channels: Int, frames: Int) {
        let channels = min(channels, channelCapacity)
        let gliding = isGliding
        var c = 0
        while c < channels {
            let pair = c / 2
            let stereo = c + 1 < channels
            let inA = UnsafePointer(input[c]), outA = output[c]
            let inB = stereo ? UnsafePointer(input[c + 1]) : UnsafePointer(input[c])
            let outB = stereo ? output[c + 1] : spare
            if gliding {
                runGliding(pair: pair, inA, inB, outA, outB, frames)
            } else {
                runStatic(pair: pair, inA, inB, outA, outB, frames)
            }
            c += 2
        }
        writeIndex = (writeIndex + frames) & mask
        if gliding {
            delay.advance(frames); feedback.advance(frames); mix.advance(frames)
            lpB0.advance(frames); lpB1.advance(frames); lpA1.advance(frames)
        }
    }

    /// Constant parameters: the read taps and their weights are fixed for the whole call.
    private func runStatic(pair: Int, _ inA: UnsafePointer<Float>, _ inB: UnsafePointer<Float>,
                           _ outA: UnsafeMutablePointer<Float>, _ outB: UnsafeMutablePointer<Float>, _ n: Int) {
        let la = lines + 2 * pair * lineLength, lb = la + lineLength
        let mask = self.mask
        let d = delay.to
        let whole = Int(d)
        let frac = d - Double(whole)
        let b0 = SIMD2(repeating: lpB0.to), b1 = SIMD2(repeating: lpB1.to), a1 = SIMD2(repeating: lpA1.to)
        let fb = SIMD2(repeating: feedback.to), m = SIMD2(repeating: mix.to)
        var r1 = lpState[2 * pair], e1 = lpState[2 * pair + 1]
        var w = writeIndex
        if frac == 0 {
            for i in 0 ..< n {
                let x = SIMD2(Double(inA[i]), Double(inB[i]))
                let j = (w &- whole) & mask
                let r = SIMD2(Double(la[j]), Double(lb[j]))
                let e = b0 * r + b1 * r1 - a1 * e1
                r1 = r; e1 = e
                let v = Self.flushed(x + fb * e)
                la[w] = Float(v.x); lb[w] = Float(v.y)
                let y = x + m * (e - x)
                outA[i] = Float(y.x); outB[i] = Float(y.y)
                w = (w + 1) & mask
            }
        } else if whole >= 2 {
            // Taps at n−whole−2 … n−whole+1; position t = 1 − frac past the second.
            let h = Self.lagrangeWeights(1 - frac)
            let h0 = SIMD2(repeating: h.0), h1 = SIMD2(repeating: h.1), h2 = SIMD2(repeating: h.2), h3 = SIMD2(repeating: h.3)
            for i in 0 ..< n {
                let x = SIMD2(Double(inA[i]), Double(inB[i]))
                let j0 = (w &- whole &- 2) & mask, j1 = (j0 + 1) & mask, j2 = (j0 + 2) & mask, j3 = (j0 + 3) & mask
                let r = h0 * SIMD2(Double(la[j0]), Double(lb[j0])) + h1 * SIMD2(Double(la[j1]), Double(lb[j1]))
                    + h2 * SIMD2(Double(la[j2]), Double(lb[j2])) + h3 * SIMD2(Double(la[j3]), Double(lb[j3]))
                let e = b0 * r + b1 * r1 - a1 * e1
                r1 = r; e1 = e
                let v = Self.flushed(x + fb * e)
                la[w] = Float(v.x); lb[w] = Float(v.y)
                let y = x + m * (e - x)
                outA[i] = Float(y.x); outB[i] = Float(y.y)
                w = (w + 1) & mask
            }
        } else {
            for i in 0 ..< n {
                let x = SIMD2(Double(inA[i]), Double(inB[i]))
                let r = Self.read(la, lb, w, d, mask)
                let e = b0 * r + b1 * r1 - a1 * e1
                r1 = r; e1 = e
                let v = Self.flushed(x + fb * e)
                la[w] = Float(v.x); lb[w] = Float(v.y)
                let y = x + m * (e - x)
                outA[i] = Float(y.x); outB[i] = Float(y.y)
                w = (w + 1) & mask
            }
        }
        lpState[2 * pair] = r1; lpState[2 * pair + 1] = e1
        flush(pair)
    }

    /// Gliding parameters: every sample reads its own delay, feedback, mix and low-pass.
    private func runGliding(pair: Int, _ inA: UnsafePointer<Float>, _ inB: UnsafePointer<Float>,
                            _ outA: UnsafeMutablePointer<Float>, _ outB: UnsafeMutablePointer<Float>, _ n: Int) {
        let la = lines + 2 * pair * lineLength, lb = la + lineLength
        var delay = self.delay, feedback = self.feedback, mix = self.mix
        var lpB0 = self.lpB0, lpB1 = self.lpB1, lpA1 = self.lpA1
        var r1 = lpState[2 * pair], e1 = lpState[2 * pair + 1]
        var w = writeIndex
        for i in 0 ..< n {
            // Sample i uses the values after i + 1 steps: a change scheduled here starts here.
            delay.advance(1); feedback.advance(1); mix.advance(1)
            lpB0.advance(1); lpB1.advance(1); lpA1.advance(1)
            let x = SIMD2(Double(inA[i]), Double(inB[i]))
            let r = Self.read(la, lb, w, delay.current, mask)
            let e = lpB0.current * r + lpB1.current * r1 - lpA1.current * e1
            r1 = r; e1 = e
            let v = Self.flushed(x + feedback.current * e)
            la[w] = Float(v.x); lb[w] = Float(v.y)
            let y = x + mix.current * (e - x)
            outA[i] = Float(y.x); outB[i] = Float(y.y)
            w = (w + 1) & mask
        }
        lpState[2 * pair] = r1; lpState[2 * pair + 1] = e1
        flush(pair)
    }

    /// The line value `d` (≥ 1) samples before write position `w`: cubic Lagrange when it has
    /// two written samples on each side, linear between the last two otherwise.
    @inline(__always)
    private static func read(_ la: UnsafeMutablePointer<Float>, _ lb: UnsafeMutablePointer<Float>, _ w: Int, _ d: Double, _ mask: Int) -> SIMD2<Double> {
        let whole = Int(d)
        let frac = d - Double(whole)
        if frac == 0 {
            let j = (w &- whole) & mask
            return SIMD2(Double(la[j]), Double(lb[j]))
        }
        if whole < 2 {
            // d in (1, 2): between w−2 and w−1.
            let j1 = (w &- 1) & mask, j2 = (w &- 2) & mask
            return SIMD2(Double(la[j1]), Double(lb[j1])) * (1 - frac) + SIMD2(Double(la[j2]), Double(lb[j2])) * frac
        }
        let h = lagrangeWeights(1 - frac)
        let j0 = (w &- whole &- 2) & mask, j1 = (j0 + 1) & mask, j2 = (j0 + 2) & mask, j3 = (j0 + 3) & mask
        return SIMD2(Double(la[j0]), Double(lb[j0])) * h.0 + SIMD2(Double(la[j1]), Double(lb[j1])) * h.1
            + SIMD2(Double(la[j2]), Double(lb[j2])) * h.2 + SIMD2(Double(la[j3]), Double(lb[j3])) * h.3
    }

    /// Rounds magnitudes below ~1e-36 to zero so the Float32 line never holds subnormals
    /// (silence after feedback would otherwise decay into them, and they are slow on x86).
    @inline(__always)
    static func flushed(_ v: SIMD2<Double>) -> SIMD2<Double> {
        let k = SIMD2<Double>(repeating: 1e-20)
        return (v + k) - k
    }

    /// Cubic Lagrange weights for points at −1, 0, 1, 2 and position t in [0, 1).
    @inline(__always)
    static func lagrangeWeights(_ t: Double) -> (Double, Double, Double, Double) {
        let tm1 = t - 1, tm2 = t - 2, tp1 = t + 1
        return (-t * tm1 * tm2 / 6, tp1 * tm1 * tm2 / 2, -tp1 * t * tm2 / 2, tp1 * t * tm1 / 6)
    }

    /// Low-pass state that can only decay into subnormals (slow on x86) is set to zero.
    @inline(__always)
    private func flush(_ pair: Int) {
        let r = lpState[2 * pair], e = lpState[2 * pair + 1]
        if abs(r.x) < 1e-30 && abs(r.y) < 1e-30 && abs(e.x) < 1e-30 && abs(e.y) < 1e-30 {
            lpState[2 * pair] = .zero; lpState[2 * pair + 1] = .zero
        }
    }
}
