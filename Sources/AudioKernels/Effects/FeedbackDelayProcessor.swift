// The DSP of the feedback delay (AVAudioUnitDelay's kernel).
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

/// The delay (see the top of this file). Parameters are addressed as in AUDelay: 0 wet/dry mix
/// (%), 1 delay time (s), 2 feedback (%), 3 low-pass cutoff (Hz). `process`, `setParameter` and
/// `reset` run on the render thread and allocate nothing.
public final class FeedbackDelayProcessor {
    public static let wetDryMixAddress: UInt64 = 0
    public static let delayTimeAddress: UInt64 = 1
    public static let feedbackAddress: UInt64 = 2
    public static let lowPassCutoffAddress: UInt64 = 3

    public static let defaultRampFrames = 128
    public static let defaultDelayGlideSeconds = 0.05

    public let sampleRate: Double
    public let channelCapacity: Int
    let pairs: Int
    public let maximumFrames: Int
    /// Delay lines, one per channel (rounded up to pairs), each `lineLength` (a power of two).
    private let lines: UnsafeMutablePointer<Float>
    private let lineLength: Int
    private let mask: Int
    private var writeIndex = 0
    /// Low-pass state per pair: previous read value and previous echo.
    private let lpState: UnsafeMutablePointer<SIMD2<Double>>
    /// Where an odd channel count's missing partner writes.
    private let spare: UnsafeMutablePointer<Float>

    private var delay = LinearGlide(1)       // samples, ≥ 1
    private var feedback = LinearGlide(0.5)
    private var mix = LinearGlide(1)
    // First-order section y = b0·r + b1·r₁ − a1·y₁; the three glide together.
    private var lpB0 = LinearGlide(1), lpB1 = LinearGlide(0), lpA1 = LinearGlide(0)

    public init(sampleRate: Double, channels: Int, maximumFrames: Int) {
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
    }

    deinit {
        lines.deallocate()
        lpState.deallocate()
        spare.deallocate()
    }

    /// rampFrames < 0: set at once (initial values); 0: the default glide.
    public func setParameter(_ address: UInt64, _ value: Float, rampFrames: Int) {
        let v = Double(value)
        let frames = rampFrames < 0 ? 0 : rampFrames > 0 ? rampFrames : FeedbackDelayProcessor.defaultRampFrames
        switch address {
        case FeedbackDelayProcessor.wetDryMixAddress:
            mix.start(to: min(max(v, 0), 100) / 100, frames: frames)
        case FeedbackDelayProcessor.delayTimeAddress:
            let glide = rampFrames < 0 ? 0 : rampFrames > 0 ? rampFrames : Int((FeedbackDelayProcessor.defaultDelayGlideSeconds * sampleRate).roundedToNearest)
            delay.start(to: FeedbackDelayDesign.delaySamples(seconds: v, sampleRate: sampleRate), frames: glide)
        case FeedbackDelayProcessor.feedbackAddress:
            feedback.start(to: min(max(v, -100), 100) / 100, frames: frames)
        case FeedbackDelayProcessor.lowPassCutoffAddress:
            let c = FeedbackDelayDesign.lowPass(cutoff: v, sampleRate: sampleRate)
            lpB0.start(to: c.b0, frames: frames)
            lpB1.start(to: c.b1, frames: frames)
            lpA1.start(to: c.a1, frames: frames)
        default:
            break
        }
    }

    public func reset() {
        EffectMemory.zero(lines, count: pairs * 2 * lineLength)
        EffectMemory.zero(lpState, count: pairs * 2)
        streamPosition = 0
    }

    public var latencyFrames: Int { 0 }

    public var tailTime: Double {
        let fb = abs(feedback.to), d = delay.to / sampleRate
        if fb <= 0 { return d }
        if fb >= 1 { return .infinity }
        return d * (1 + 3 / -EffectMath.logarithm10(fb))
    }

    private var isGliding: Bool {
        // (locals: `||` on members would retain self)
        let d = delay.isActive, f = feedback.isActive, m = mix.isActive, b0 = lpB0.isActive, b1 = lpB1.isActive, a1 = lpA1.isActive
        return d || f || m || b0 || b1 || a1
    }

    public func process(input: UnsafePointer<UnsafeMutablePointer<Float>>, output: UnsafePointer<UnsafeMutablePointer<Float>>,
                          channels: Int, frames: Int) {
        // In parts that end on a fixed grid of the stream (every `flushGrid` frames since the last
        // reset), where tiny low-pass state is flushed to zero: flushing at the ends of the
        // caller's chunks instead made the output depend, far below audibility (~1e-31), on how
        // the stream was chunked (found by SoakTests).
        let channels = min(channels, channelCapacity)
        var done = 0
        while done < frames {
            let n = min(frames - done, FeedbackDelayProcessor.flushGrid - streamPosition % FeedbackDelayProcessor.flushGrid)
            processPart(input: input, output: output, channels: channels, offset: done, frames: n)
            done += n
            streamPosition += n
            if streamPosition % FeedbackDelayProcessor.flushGrid == 0 {
                var pair = 0
                while 2 * pair < channels { flush(pair); pair += 1 }
            }
        }
    }

    /// Frames between the points where tiny low-pass state is flushed.
    static let flushGrid = 256
    /// Frames processed since the last reset (the flush grid's origin).
    private var streamPosition = 0

    private func processPart(input: UnsafePointer<UnsafeMutablePointer<Float>>, output: UnsafePointer<UnsafeMutablePointer<Float>>,
                             channels: Int, offset: Int, frames: Int) {
        let gliding = isGliding
        var c = 0
        while c < channels {
            let pair = c / 2
            let stereo = c + 1 < channels
            let inA = UnsafePointer(input[c] + offset), outA = output[c] + offset
            let inB = stereo ? UnsafePointer(input[c + 1] + offset) : UnsafePointer(input[c] + offset)
            let outB = stereo ? output[c + 1] + offset : spare
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
                let v = FeedbackDelayDesign.flushed(x + fb * e)
                la[w] = Float(v.x); lb[w] = Float(v.y)
                let y = x + m * (e - x)
                outA[i] = Float(y.x); outB[i] = Float(y.y)
                w = (w + 1) & mask
            }
        } else if whole >= 2 {
            // Taps at n−whole−2 … n−whole+1; position t = 1 − frac past the second.
            let h = FeedbackDelayDesign.lagrangeWeights(1 - frac)
            let h0 = SIMD2(repeating: h.0), h1 = SIMD2(repeating: h.1), h2 = SIMD2(repeating: h.2), h3 = SIMD2(repeating: h.3)
            for i in 0 ..< n {
                let x = SIMD2(Double(inA[i]), Double(inB[i]))
                let j0 = (w &- whole &- 2) & mask, j1 = (j0 + 1) & mask, j2 = (j0 + 2) & mask, j3 = (j0 + 3) & mask
                let r = h0 * SIMD2(Double(la[j0]), Double(lb[j0])) + h1 * SIMD2(Double(la[j1]), Double(lb[j1]))
                    + h2 * SIMD2(Double(la[j2]), Double(lb[j2])) + h3 * SIMD2(Double(la[j3]), Double(lb[j3]))
                let e = b0 * r + b1 * r1 - a1 * e1
                r1 = r; e1 = e
                let v = FeedbackDelayDesign.flushed(x + fb * e)
                la[w] = Float(v.x); lb[w] = Float(v.y)
                let y = x + m * (e - x)
                outA[i] = Float(y.x); outB[i] = Float(y.y)
                w = (w + 1) & mask
            }
        } else {
            for i in 0 ..< n {
                let x = SIMD2(Double(inA[i]), Double(inB[i]))
                let r = FeedbackDelayDesign.read(la, lb, w, d, mask)
                let e = b0 * r + b1 * r1 - a1 * e1
                r1 = r; e1 = e
                let v = FeedbackDelayDesign.flushed(x + fb * e)
                la[w] = Float(v.x); lb[w] = Float(v.y)
                let y = x + m * (e - x)
                outA[i] = Float(y.x); outB[i] = Float(y.y)
                w = (w + 1) & mask
            }
        }
        lpState[2 * pair] = r1; lpState[2 * pair + 1] = e1
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
            let r = FeedbackDelayDesign.read(la, lb, w, delay.current, mask)
            let e = lpB0.current * r + lpB1.current * r1 - lpA1.current * e1
            r1 = r; e1 = e
            let v = FeedbackDelayDesign.flushed(x + feedback.current * e)
            la[w] = Float(v.x); lb[w] = Float(v.y)
            let y = x + mix.current * (e - x)
            outA[i] = Float(y.x); outB[i] = Float(y.y)
            w = (w + 1) & mask
        }
        lpState[2 * pair] = r1; lpState[2 * pair + 1] = e1
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

/// The delay's coefficient design and line reads (a caseless enum: calling a class's static methods passes its
/// metatype, which the real-time checker cannot clear).
enum FeedbackDelayDesign {
    /// The delay in samples (1 … 2 s): a time that is a whole number of samples to the precision
    /// of its Float32 parameter (2⁻²³ relative) is that whole number exactly.
    static func delaySamples(seconds: Double, sampleRate: Double) -> Double {
        let d = min(max(seconds, 0), 2) * sampleRate
        let whole = d.roundedToNearest
        return max(abs(d - whole) <= d * 0x1p-23 ? whole : d, 1)
    }

    /// The first-order Butterworth low-pass at `cutoff` (identity at or above Nyquist).
    static func lowPass(cutoff: Double, sampleRate: Double) -> (b0: Double, b1: Double, a1: Double) {
        let fc = max(cutoff, 1)
        if fc >= sampleRate / 2 { return (1, 0, 0) }
        let k = EffectMath.tangent(Double.pi * fc / sampleRate)
        return (k / (1 + k), k / (1 + k), (k - 1) / (k + 1))
    }

    /// The line value `d` (≥ 1) samples before write position `w`: cubic Lagrange when it has
    /// two written samples on each side, linear between the last two otherwise.
    @inline(__always)
    static func read(_ la: UnsafeMutablePointer<Float>, _ lb: UnsafeMutablePointer<Float>, _ w: Int, _ d: Double, _ mask: Int) -> SIMD2<Double> {
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
}
