// The DSP of AVAudioUnitDistortion: Apple's AUDistortion parameters (kDistortionParam_*) driving
// a fixed chain, plus two colour filters (this project's extension, addresses 100 and 101).
//
//   x ─▶ pre-gain (preGain = kDistortionParam_SoftClipGain, dB)
//     ─▶ ring modulator: x·((1−b)·sin 2πf₁t + b·sin 2πf₂t), mixed by ringModMix
//     ─▶ ×4 oversampling ─▶ polynomial linear·x + squared·x² + cubic·x³, mixed by polynomialMix
//                        ─▶ soft clip x/√(1+x²), antiderivative anti-aliased ─▶ ÷4
//     ─▶ decimator: sample-and-hold at fs·2^(−6·decimation/100), rounded to
//        16 − 15·rounding/100 bits, mixed by decimationMix
//     ─▶ echo: feedback comb, `delay` ms, each repeat exp(−decay/10) of the previous, mixed by delayMix
//     ─▶ colour: 2nd-order Butterworth high-pass (lowCut) and low-pass (highCut)
//     ─▶ wet/dry (wetDryMix = kDistortionParam_FinalMix) against the input delayed by the latency.
//
// Aliasing. Only the waveshaper is nonlinear in a way that aliases unintentionally (decimation
// and rounding alias on purpose, as their names say). It runs at 4× the sample rate:
//   up   ×2  51-tap half-band (Kaiser β 7; −55 dB at 28 kHz), polyphase: 13 tap pairs per frame
//        ×2  15-tap half-band (−40 dB at 72 kHz), 4 tap pairs per 2× frame
//   clip first-order antiderivative anti-aliasing (ADAA) of f(x) = x/√(1+x²), F(x) = √(1+x²):
//        y[n] = (F(x[n]) − F(x[n−1]))/(x[n] − x[n−1]) = (x[n] + x[n−1])/(√(1+x[n]²) + √(1+x[n−1]²)),
//        exact and without a division by a small difference; f is analytic (poles at ±i), so its
//        harmonics fall off exponentially, and ADAA takes most of what is left above 2× Nyquist
//   down ÷2  16-tap low-pass (even length: its half-sample delay cancels ADAA's; −45 dB at 72 kHz)
//        ÷2  56-tap equiripple low-pass (0.12 dB ripple to 20 kHz, −63 dB from 25 kHz), so
//            harmonics just above Nyquist are gone before they fold
// (frequencies for 48 kHz; every design is relative to the sample rate). A −6 dBFS 5 kHz sine
// through the heavy waveshaper (.multiDistortedCubed, THD 21 %) leaves nothing inharmonic above
// −91 dB re the fundamental (the 5th harmonic, 25 kHz, folded to 23 kHz); the soft clip alone at
// the maximum pre-gain (+20 dB, THD 27 %): −82 dB.
//
// Latency: the filters' delays add up to 120 samples at 4×, exactly 30 frames; the dry signal is
// delayed by the same 30 frames, so wet and dry stay aligned at any mix.
//
// Processing is in blocks of at most 256 frames (the output does not depend on the block size:
// every stage is a stream with its own history); each stream (input, 2×, the two 4× phases, ...)
// lives in a linear history buffer (SlidingDelayLines), so every filter is a set of plain loops
// over contiguous memory, which the compiler vectorizes; linear-phase filters take their taps in
// symmetric pairs (one multiply per pair). Nothing is allocated after init.

internal import CEffectKernels

/// The distortion chain (see the top of this file). Parameters are addressed by AUDistortion's
/// numbers plus the colour filters (the static constants); `process`, `setParameter` and `reset`
/// run on the render thread and allocate nothing.
public final class DistortionProcessor {
    /// The C kernels (chosen once per process: AVX2 or portable).
    private let kernels = cek_kernels()
    // Apple's parameter IDs (AudioUnitParameters.h, AUDistortion).
    public static let delay: UInt64 = 0
    public static let decay: UInt64 = 1
    public static let delayMix: UInt64 = 2
    public static let decimation: UInt64 = 3
    public static let rounding: UInt64 = 4
    public static let decimationMix: UInt64 = 5
    public static let linearTerm: UInt64 = 6
    public static let squaredTerm: UInt64 = 7
    public static let cubicTerm: UInt64 = 8
    public static let polynomialMix: UInt64 = 9
    public static let ringModFreq1: UInt64 = 10
    public static let ringModFreq2: UInt64 = 11
    public static let ringModBalance: UInt64 = 12
    public static let ringModMix: UInt64 = 13
    public static let softClipGain: UInt64 = 14
    public static let finalMix: UInt64 = 15
    // This project's colour filters.
    public static let lowCut: UInt64 = 100
    public static let highCut: UInt64 = 101

    public static let blockSize = 256
    /// Frames by which the output lags the input (the oversampling filters' delay).
    public static let latency = 30

    public let sampleRate: Double
    public let channels: Int

    // Filters (Float taps, as (offset, coefficient) lists over a phase stream).
    private let up1: DistortionFIR       // x → even 96 kHz phase (the odd phase is x delayed)
    private let up1Delay: Int
    private let up2: DistortionFIR       // u → even 192 kHz phase (the odd phase is u delayed)
    private let up2Delay: Int
    private let down2: DistortionFIR     // ye, yo → y2
    private let down1: DistortionFIR     // y2e, y2o → out

    // Streams, one line per channel.
    private var raw: SlidingDelayLines       // the input, for the delayed dry path
    private var pre: SlidingDelayLines       // after pre-gain and ring modulation (48 kHz)
    private var u: SlidingDelayLines         // 96 kHz
    private var we: SlidingDelayLines        // 192 kHz even phase, after the polynomial
    private var wo: SlidingDelayLines        // 192 kHz odd phase
    private var ye: SlidingDelayLines        // after the soft clip
    private var yo: SlidingDelayLines
    private var y2e: SlidingDelayLines       // 96 kHz after the first decimation, even/odd
    private var y2o: SlidingDelayLines

    /// Per block: the carrier, 96 kHz output, a 48 kHz work row.
    private let scratch: UnsafeMutablePointer<Float>
    /// Per block and channel: the wet signal at the sample rate.
    private let rows: UnsafeMutablePointer<Float>

    // Per-channel state.
    private let echo: UnsafeMutablePointer<Float>
    private let echoCapacity: Int
    private let echoMask: Int
    private var echoWrite = 0
    private let holdValue: UnsafeMutablePointer<Float>
    /// The sample-and-hold clock (shared by the channels: they hold at the same instants).
    private var holdPhase: Float = 1
    /// Colour biquads (high-pass, low-pass) state: 4 doubles per channel each.
    private let colourState: UnsafeMutablePointer<Double>

    // Ring modulator oscillators (shared by all channels): rotating phasors in Float64.
    private var osc1 = SIMD2<Double>(1, 0), osc2 = SIMD2<Double>(1, 0)
    private var rot1 = SIMD2<Double>(1, 0), rot2 = SIMD2<Double>(1, 0)

    // Parameters.
    private var delayFrames = 5, echoFeedback: Float = 0.905, delayMixValue: Float = 0.5
    private var holdStep: Float = 0.125, quantizeStep: Float = 0, decimationMixValue: Float = 0.5
    private var linear: Float = 1, squared: Float = 0, cubic: Float = 0, polyMix: Float = 0.5
    private var ringFreq1 = 100.0, ringFreq2 = 100.0, ringBalance: Float = 0.5, ringMix: Float = 0
    private var lowCutHz = 10.0, highCutHz = 20_000.0
    private var highPass = DistortionBiquad.identity, lowPass = DistortionBiquad.identity, lowPassActive = false
    private var preGain = ParameterRamp(0.5), mix = ParameterRamp(0.5)
    private var decimationPercent: Float = 50, roundingPercent: Float = 0
    private var decimatorOn: Bool {
        // (locals: `&&` on members would retain self)
        let mixOn = decimationMixValue > 0, holds = holdStep < 1, rounds = quantizeStep > 0
        return mixOn && (holds || rounds)
    }

    public init(sampleRate: Double, channels: Int, maximumFrames: Int) {
        self.sampleRate = sampleRate
        self.channels = max(1, channels)
        let b = DistortionProcessor.blockSize
        let c = self.channels
        // Filter designs (normalised: the same at every sample rate).
        let h1 = DistortionProcessor.halfBand(length: 51, beta: 7.0)                          // at 2×
        let h2 = DistortionProcessor.halfBand(length: 15, beta: 7.0)                          // at 4×
        let d2 = DistortionProcessor.lowPass(length: 16, cutoff: 0.25, beta: 7.0)             // at 4×: passes the 2× band
        let d1 = DistortionProcessor.finalLowPass + DistortionProcessor.finalLowPass.reversed()   // at 2×: 20 kHz pass, 25 kHz stop
        // Up-sampling by 2: out[2m+p] = 2 Σ_i h[2i+p]·in[m−i]. For a half-band of length 4k+3
        // the centre tap (index 2k+1) is alone in branch 1, which is a pure delay of k; branch 0
        // is the FIR.
        func evenBranch(_ h: [Double]) -> [(stream: Int, offset: Int, coefficient: Double)] {
            stride(from: 0, to: h.count, by: 2).map { (0, $0 / 2, 2 * h[$0]) }
        }
        up1 = DistortionFIR(evenBranch(h1))
        up1Delay = (h1.count - 3) / 4
        up2 = DistortionFIR(evenBranch(h2))
        up2Delay = (h2.count - 3) / 4
        // Down-sampling by 2 with phase 0: out[m] = Σ_k h[k]·in[2m − k]: even k read the even
        // phase (stream 0) at m − k/2, odd k the odd phase (stream 1) at m − (k+1)/2.
        func phases(_ h: [Double]) -> [(stream: Int, offset: Int, coefficient: Double)] {
            h.indices.map { k in k % 2 == 0 ? (0, k / 2, h[k]) : (1, (k + 1) / 2, h[k]) }
        }
        down2 = DistortionFIR(phases(d2))
        down1 = DistortionFIR(phases(d1))
        // Latency at 4×: up1 (51−1) + up2 (15−1)/2 + ADAA ½ + down2 (16−1)/2 + down1 (56−1) = 120 = 4·30.
        precondition((h1.count - 1) * 2 + (h2.count - 1) + 1 + (d2.count - 1) + (d1.count - 1) * 2 == 8 * DistortionProcessor.latency)

        raw = SlidingDelayLines(count: c, history: DistortionProcessor.latency + 1, block: b)
        pre = SlidingDelayLines(count: c, history: up1.reach + up1Delay + 1, block: b)
        u = SlidingDelayLines(count: c, history: up2.reach + up2Delay + 1, block: 2 * b)
        we = SlidingDelayLines(count: c, history: 2, block: 2 * b)
        wo = SlidingDelayLines(count: c, history: 2, block: 2 * b)
        ye = SlidingDelayLines(count: c, history: down2.reach + 1, block: 2 * b)
        yo = SlidingDelayLines(count: c, history: down2.reach + 1, block: 2 * b)
        y2e = SlidingDelayLines(count: c, history: down1.reach + 1, block: b)
        y2o = SlidingDelayLines(count: c, history: down1.reach + 1, block: b)
        scratch = .allocate(capacity: 13 * b + 1)
        scratch.initialize(repeating: 0, count: 13 * b + 1)
        rows = .allocate(capacity: c * b)
        rows.initialize(repeating: 0, count: c * b)
        echoCapacity = DistortionProcessor.powerOfTwo(atLeast: Int((0.5 * sampleRate).rounded(.up)) + 2)
        echoMask = echoCapacity - 1
        echo = .allocate(capacity: c * echoCapacity)
        echo.initialize(repeating: 0, count: c * echoCapacity)
        holdValue = .allocate(capacity: c)
        holdValue.initialize(repeating: 0, count: c)
        colourState = .allocate(capacity: 8 * c)
        colourState.initialize(repeating: 0, count: 8 * c)
        updateRing()
        updateColour()
        updateDelay(0.1)
    }

    deinit {
        raw.free(); pre.free(); u.free(); we.free(); wo.free(); ye.free(); yo.free(); y2e.free(); y2o.free()
        up1.free(); up2.free(); down2.free(); down1.free()
        scratch.deallocate()
        rows.deallocate()
        echo.deallocate()
        holdValue.deallocate()
        colourState.deallocate()
    }

    static func powerOfTwo(atLeast n: Int) -> Int {
        var p = 1
        while p < n { p <<= 1 }
        return p
    }

    // MARK: filter design

    /// The first half of the 96→48 kHz decimation filter (56 taps, symmetric): a Parks–McClellan
    /// equiripple low-pass designed at 96 kHz with passband 0…20 kHz (ripple 0.12 dB) and
    /// stopband from 25 kHz (−63 dB), stopband weight 10 (scipy.signal.remez), normalised to unit
    /// DC gain. Relative to the rate, so the same table serves every sample rate. Equiripple
    /// needs 56 taps where a Kaiser window needs 80 for this transition.
    static let finalLowPass: [Double] = [
        0.0005833463390475554, -0.0006099080732211051, -0.0027353748626815183, -0.0023550849679492424,
        0.0015047383251226428, 0.0031156405172983164, -0.0014129722801282522, -0.0049822592520597404,
        0.00037655235929618866, 0.007061328480998418, 0.0016650078224508442, -0.009139507446033894,
        -0.004992557792459538, 0.010829860997569862, 0.009854052987197262, -0.01162416049484184,
        -0.016506240372862926, 0.01084345950373066, 0.025310716906852188, -0.007501937232182444,
        -0.03702545188244968, -0.0001491343768730329, 0.0537547776444957, 0.01644270966587595,
        -0.08304239667349086, -0.05891235395431447, 0.17471156812235727, 0.42493557998925574,
    ]

    /// I₀, the modified Bessel function of the first kind (series).
    static func besselI0(_ x: Double) -> Double {
        var sum = 1.0, term = 1.0, k = 1.0
        while term > 1e-14 * sum {
            term *= (x / (2 * k)) * (x / (2 * k))
            sum += term
            k += 1
        }
        return sum
    }

    /// A Kaiser-windowed sinc low-pass with unit DC gain; `cutoff` in cycles per sample.
    static func lowPass(length n: Int, cutoff: Double, beta: Double) -> [Double] {
        var h = [Double](repeating: 0, count: n)
        let mid = Double(n - 1) / 2
        let i0b = besselI0(beta)
        for i in 0 ..< n {
            let m = Double(i) - mid
            let x = 2 * cutoff * m
            let sinc = x == 0 ? 1 : EffectMath.sine(Double.pi * x) / (Double.pi * x)
            let r = mid == 0 ? 0 : m / mid
            h[i] = 2 * cutoff * sinc * besselI0(beta * (1 - r * r).squareRoot()) / i0b
        }
        let s = h.reduce(0, +)
        return h.map { $0 / s }
    }

    /// A half-band low-pass (cutoff a quarter of the rate) of odd length 4k+3: every other tap is
    /// exactly zero, the centre exactly ½.
    static func halfBand(length n: Int, beta: Double) -> [Double] {
        var h = lowPass(length: n, cutoff: 0.25, beta: beta)
        let c = (n - 1) / 2
        for i in 0 ..< n where (i - c) % 2 == 0 && i != c { h[i] = 0 }
        h[c] = 0
        let side = h.reduce(0, +)
        // Side taps sum to ½, centre ½: DC gain 1, and the two polyphase branches each sum to ½.
        return h.enumerated().map { $0.offset == c ? 0.5 : $0.element * 0.5 / side }
    }

    // MARK: parameters

    /// Sets a parameter before the first render (no ramps).
    public func setInitialParameter(_ address: UInt64, _ value: Float) {
        setParameter(address, value, rampFrames: 0)
    }

    public func setParameter(_ address: UInt64, _ value: Float, rampFrames: Int) {
        let v = value.isNaN ? 0 : value
        func percent(_ x: Float) -> Float { min(max(x, 0), 100) / 100 }
        switch address {
        case DistortionProcessor.delay: updateDelay(Double(min(max(v, 0.1), 500)))
        case DistortionProcessor.decay: echoFeedback = Float(EffectMath.exponential(-0.1 * Double(min(max(v, 0.1), 50))))
        case DistortionProcessor.delayMix: delayMixValue = percent(v)
        case DistortionProcessor.decimation: decimationPercent = min(max(v, 0), 100); holdStep = Float(EffectMath.power(2, -6 * Double(decimationPercent) / 100))
        case DistortionProcessor.rounding:
            roundingPercent = min(max(v, 0), 100)
            let bits = 16 - 15 * Double(roundingPercent) / 100
            quantizeStep = roundingPercent == 0 ? 0 : Float(EffectMath.power(2, 1 - bits))
        case DistortionProcessor.decimationMix: decimationMixValue = percent(v)
        case DistortionProcessor.linearTerm: linear = min(max(v, 0), 1)
        case DistortionProcessor.squaredTerm: squared = min(max(v, 0), 20)
        case DistortionProcessor.cubicTerm: cubic = min(max(v, 0), 20)
        case DistortionProcessor.polynomialMix: polyMix = percent(v)
        case DistortionProcessor.ringModFreq1: ringFreq1 = Double(min(max(v, 0.5), 8000)); updateRing()
        case DistortionProcessor.ringModFreq2: ringFreq2 = Double(min(max(v, 0.5), 8000)); updateRing()
        case DistortionProcessor.ringModBalance: ringBalance = percent(v)
        case DistortionProcessor.ringModMix: ringMix = percent(v)
        case DistortionProcessor.softClipGain: preGain.start(to: Float(EffectMath.power(10, Double(min(max(v, -80), 20)) / 20)), frames: rampFrames)
        case DistortionProcessor.finalMix: mix.start(to: percent(v), frames: rampFrames)
        case DistortionProcessor.lowCut: lowCutHz = Double(min(max(v, 10), 20_000)); updateColour()
        case DistortionProcessor.highCut: highCutHz = Double(min(max(v, 10), 20_000)); updateColour()
        default: break
        }
    }

    private func updateDelay(_ ms: Double) {
        delayFrames = max(1, min(Int((ms / 1000 * sampleRate).roundedToNearest), echoCapacity - 1))
    }

    private func updateRing() {
        let w1 = 2 * Double.pi * min(ringFreq1, sampleRate / 2) / sampleRate
        let w2 = 2 * Double.pi * min(ringFreq2, sampleRate / 2) / sampleRate
        rot1 = SIMD2(EffectMath.cosine(w1), EffectMath.sine(w1))
        rot2 = SIMD2(EffectMath.cosine(w2), EffectMath.sine(w2))
    }

    private func updateColour() {
        highPass = DistortionBiquad.butterworth(highPass: true, frequency: lowCutHz, sampleRate: sampleRate)
        lowPassActive = highCutHz < min(20_000, 0.45 * sampleRate)  // (below both)
        lowPass = lowPassActive ? DistortionBiquad.butterworth(highPass: false, frequency: highCutHz, sampleRate: sampleRate) : .identity
    }

    public func reset() {
        raw.clear(); pre.clear(); u.clear(); we.clear(); wo.clear(); ye.clear(); yo.clear(); y2e.clear(); y2o.clear()
        EffectMemory.zero(echo, count: channels * echoCapacity)
        EffectMemory.zero(holdValue, count: channels)
        holdPhase = 1
        EffectMemory.zero(colourState, count: 8 * channels)
        osc1 = SIMD2(1, 0)
        osc2 = SIMD2(1, 0)
    }

    public var latencyFrames: Int { DistortionProcessor.latency }
    public var tailTime: Double {
        // The echo rings until its repeats fall by 60 dB.
        let repeats = echoFeedback > 0.0001 ? EffectMath.logarithm(0.001) / EffectMath.logarithm(Double(echoFeedback)) : 1
        return Double(DistortionProcessor.latency) / sampleRate + Double(delayFrames) / sampleRate * max(1, repeats)
    }

    // MARK: render

    public func process(input: UnsafePointer<UnsafeMutablePointer<Float>>, output: UnsafePointer<UnsafeMutablePointer<Float>>,
                          channels: Int, frames: Int) {
        let channels = min(channels, self.channels)
        guard channels > 0 else { return }
        var done = 0
        while done < frames {
            let n = min(DistortionProcessor.blockSize, frames - done)
            processBlock(input: input, output: output, channels: channels, offset: done, frames: n)
            done += n
        }
    }

    private func processBlock(input: UnsafePointer<UnsafeMutablePointer<Float>>, output: UnsafePointer<UnsafeMutablePointer<Float>>,
                              channels: Int, offset: Int, frames n: Int) {
        let b = DistortionProcessor.blockSize
        let gainRow = scratch, carrier = scratch + b, work = scratch + 2 * b, mixRow = scratch + 3 * b
        let wide = scratch + 4 * b  // 2b: the 96 kHz block
        let rootE = scratch + 6 * b, rootO = scratch + 8 * b  // √(1+w²) of the 192 kHz phases (rootO shifted by one)

        // Per-block rows shared by the channels: pre-gain and mix ramps, the ring carrier.
        var gainRamp = preGain, mixRamp = mix
        var t = 0
        if gainRamp.isRamping || mixRamp.isRamping {
            while t < n { gainRow[t] = gainRamp.next(); mixRow[t] = mixRamp.next(); t += 1 }
            preGain = gainRamp
            mix = mixRamp
        } else {
            let g = gainRamp.value, m = mixRamp.value
            while t < n { gainRow[t] = g; mixRow[t] = m; t += 1 }
        }
        let ringOn = ringMix > 0
        if ringOn {
            var p1 = osc1, p2 = osc2
            let r1 = rot1, r2 = rot2, bal = Double(ringBalance)
            t = 0
            while t < n {
                carrier[t] = Float((1 - bal) * p1.y + bal * p2.y)
                p1 = SIMD2(p1.x * r1.x - p1.y * r1.y, p1.x * r1.y + p1.y * r1.x)
                p2 = SIMD2(p2.x * r2.x - p2.y * r2.y, p2.x * r2.y + p2.y * r2.x)
                // Keep |p| = 1 (rounding would drift it): one Newton step of 1/|p|, every sample,
                // so the carrier does not depend on how the frames were split into calls.
                p1 *= 1.5 - 0.5 * (p1.x * p1.x + p1.y * p1.y)
                p2 *= 1.5 - 0.5 * (p2.x * p2.x + p2.y * p2.y)
                t += 1
            }
            osc1 = p1
            osc2 = p2
        }
        let rm = ringMix
        let lin = linear, sq = squared, cu = cubic, pm = polyMix
        if decimatorOn {
            // Hold instants: the clock advances by holdStep per frame and takes a sample when it
            // passes 1 (every frame when decimation is 0). Row: the index of the last frame taken.
            let heldIndex = UnsafeMutableRawPointer(scratch + 11 * b).assumingMemoryBound(to: Int32.self)
            var phase = holdPhase, last: Int32 = -1
            let step = holdStep
            t = 0
            while t < n {
                phase += step
                if phase >= 1 { phase -= 1; last = Int32(t) }
                heldIndex[t] = last
                t += 1
            }
            holdPhase = phase
        }
        let raw = self.raw, pre = self.pre, u = self.u, we = self.we, wo = self.wo
        let ye = self.ye, yo = self.yo, y2e = self.y2e, y2o = self.y2o
        let up1 = self.up1, up2 = self.up2, down2 = self.down2, down1 = self.down1
        let up1Delay = self.up1Delay, up2Delay = self.up2Delay
        var c = 0
        while c < channels {
            let x = input[c] + offset
            // Dry path (delayed by the latency) and the pre-gained, ring-modulated input.
            let rawLine = raw.line(c), preLine = pre.line(c)
            EffectMemory.copy(rawLine, from: x, count: n)
            if ringOn {
                t = 0
                while t < n {
                    let g = gainRow[t] * x[t]
                    preLine[t] = g + rm * (g * carrier[t] - g)
                    t += 1
                }
            } else {
                t = 0
                while t < n { preLine[t] = gainRow[t] * x[t]; t += 1 }
            }

            // ×2: even 96 kHz phase = the FIR branch, odd phase = input delayed (centre tap).
            let uLine = u.line(c)
            up1.apply(work, n, preLine, preLine)
            let delayed1 = preLine - up1Delay
            t = 0
            while t < n { uLine[2 * t] = work[t]; uLine[2 * t + 1] = delayed1[t]; t += 1 }

            // ×2 again, into the two 192 kHz phases; then the polynomial.
            let weLine = we.line(c), woLine = wo.line(c)
            up2.apply(weLine, 2 * n, uLine, uLine)
            let delayed2 = uLine - up2Delay
            let m2 = 2 * n
            t = 0
            if pm == 0 {
                // polynomial mixed out (e.g. the default preset): the even phase stays as it is
                while t < m2 { woLine[t] = delayed2[t]; t += 1 }
            }
            while t < m2 {
                let ve = weLine[t], vo = delayed2[t]
                let pe = lin * ve + sq * ve * ve + cu * ve * ve * ve
                let po = lin * vo + sq * vo * vo + cu * vo * vo * vo
                weLine[t] = ve + pm * (pe - ve)
                woLine[t] = vo + pm * (po - vo)
                t += 1
            }

            // Soft clip with ADAA: y = (w + w₋₁)/(√(1+w²) + √(1+w₋₁²)); the odd phase's
            // predecessor is the even sample of the same index, the even phase's the odd one before.
            let yeLine = ye.line(c), yoLine = yo.line(c)
            DistortionSoftClip.run(kernels, weLine, woLine, rootE, rootO, yeLine, yoLine, m2)

            // ÷2 to 96 kHz, split into phases; ÷2 to the sample rate.
            down2.apply(wide, m2, yeLine, yoLine)
            let eLine = y2e.line(c), oLine = y2o.line(c)
            t = 0
            while t < n { eLine[t] = wide[2 * t]; oLine[t] = wide[2 * t + 1]; t += 1 }
            down1.apply(rows + c * b, n, eLine, oLine)
            c += 1
        }

        // At the sample rate: decimation and rounding, echo, colour, wet/dry.
        c = 0
        while c < channels { decimateAndEcho(channel: c, work: rows + c * b, n: n); c += 1 }
        colour(channels: channels, n: n)
        c = 0
        while c < channels {
            let wet = rows + c * b, out = output[c] + offset
            let dry = raw.line(c) - DistortionProcessor.latency
            t = 0
            while t < n {
                let d = dry[t]
                out[t] = d + mixRow[t] * (wet[t] - d)
                t += 1
            }
            c += 1
        }
        self.raw.advance(n); self.pre.advance(n); self.u.advance(2 * n); self.we.advance(2 * n); self.wo.advance(2 * n)
        self.ye.advance(2 * n); self.yo.advance(2 * n); self.y2e.advance(n); self.y2o.advance(n)
        echoWrite = (echoWrite + n) & echoMask
    }

    /// Decimator and echo of one channel, in place on its row.
    @inline(__always)
    private func decimateAndEcho(channel c: Int, work: UnsafeMutablePointer<Float>, n: Int) {
        // Decimator: per frame, the index of the frame last held (a row shared by the channels,
        // made once per block in processBlock; −1: a frame of an earlier block, whose value is
        // kept at row[−1]); the rounded signal; then the held value is read by index — no
        // dependency from frame to frame, so nothing waits on the previous sample.
        if decimatorOn {
            let b = DistortionProcessor.blockSize
            let heldIndex = UnsafeMutableRawPointer(scratch + 11 * b).assumingMemoryBound(to: Int32.self)
            let rounded = scratch + 12 * b + 1
            let q = quantizeStep, invQ = q > 0 ? 1 / q : 0, dm = decimationMixValue
            // Round to the nearest multiple of q (|s/q| < 2^22: adding and removing 1.5·2^23
            // rounds to an integer, ties to even, without a libm call).
            let magic: Float = 12_582_912
            rounded[-1] = holdValue[c]
            var t = 0
            if q > 0 {
                while t < n { rounded[t] = ((work[t] * invQ + magic) - magic) * q; t += 1 }
            } else {
                while t < n { rounded[t] = work[t]; t += 1 }
            }
            t = 0
            while t < n {
                let s = work[t]
                work[t] = s + dm * (rounded[Int(heldIndex[t])] - s)
                t += 1
            }
            holdValue[c] = rounded[Int(heldIndex[n - 1])]
        }
        // Echo: a feedback comb; the line holds comb output e[n] = s[n] + fb·e[n−D].
        let em = delayMixValue
        if em > 0 {
            let line = echo + c * echoCapacity, mask = echoMask, fb = echoFeedback, d = delayFrames
            var w = echoWrite
            var t = 0
            while t < n {
                let s = work[t]
                let delayed = line[(w - d) & mask]
                line[w] = s + fb * delayed + 1e-18   // −360 dB: keeps the line off subnormal numbers
                work[t] = s + em * delayed
                w = (w + 1) & mask
                t += 1
            }
        }
    }

    /// Colour filters: high-pass, then low-pass when it is on (Float64 direct form I, the
    /// feedback term of the previous output subtracted last so the recursion's critical path is
    /// one multiply and one subtraction), two channels at a time so the recursions of a pair run
    /// side by side. A high-pass at its lowest setting (10 Hz) is skipped unless the squared
    /// term puts DC into the signal.
    private func colour(channels: Int, n: Int) {
        let b = DistortionProcessor.blockSize
        let cuts = lowCutHz > 10, squares = squared > 0, shapes = polyMix > 0, lowPassOn = lowPassActive  // (locals: see decimatorOn)
        let highPassOn = cuts || (squares && shapes)
        guard highPassOn || lowPassOn else { return }
        let hp = highPassOn ? highPass : .identity, lp = lowPass, both = lowPassActive
        let tiny = SIMD2<Double>(repeating: 1e-30)
        var c = 0
        while c < channels {
            let pair = c + 1 < channels
            let x0 = rows + c * b, x1 = pair ? x0 + b : x0
            let s0 = colourState + 8 * c, s1 = pair ? s0 + 8 : s0
            // State per channel: x[n−1], x[n−2], y[n−1], y[n−2] of each filter.
            var hx1 = SIMD2(s0[0], s1[0]), hx2 = SIMD2(s0[1], s1[1]), hy1 = SIMD2(s0[2], s1[2]), hy2 = SIMD2(s0[3], s1[3])
            var lx1 = SIMD2(s0[4], s1[4]), lx2 = SIMD2(s0[5], s1[5]), ly1 = SIMD2(s0[6], s1[6]), ly2 = SIMD2(s0[7], s1[7])
            var t = 0
            while t < n {
                let x = SIMD2(Double(x0[t]), Double(x1[t]))
                // (+ tiny: a −600 dB constant keeps the recursions off subnormal numbers when the
                // input falls silent — subnormal arithmetic is slow on many CPUs.)
                // (The −600 dB constant joins the feed-forward sum, off the recursion's critical
                // path, which is then one multiply and one subtraction per sample: the loop is
                // bound by that latency.)
                let y = hp.b0 * x + hp.b1 * hx1 + hp.b2 * hx2 + tiny - hp.a2 * hy2 - hp.a1 * hy1
                hx2 = hx1; hx1 = x; hy2 = hy1; hy1 = y
                var z = y
                if both {
                    z = lp.b0 * y + lp.b1 * lx1 + lp.b2 * lx2 + tiny - lp.a2 * ly2 - lp.a1 * ly1
                    lx2 = lx1; lx1 = y; ly2 = ly1; ly1 = z
                }
                x0[t] = Float(z.x)
                if pair { x1[t] = Float(z.y) }
                t += 1
            }
            s0[0] = hx1.x; s0[1] = hx2.x; s0[2] = hy1.x; s0[3] = hy2.x
            s0[4] = lx1.x; s0[5] = lx2.x; s0[6] = ly1.x; s0[7] = ly2.x
            if pair {
                s1[0] = hx1.y; s1[1] = hx2.y; s1[2] = hy1.y; s1[3] = hy2.y
                s1[4] = lx1.y; s1[5] = lx2.y; s1[6] = ly1.y; s1[7] = ly2.y
            }
            c += 2
        }
    }
}

/// A linear-phase FIR as pairs of taps with equal coefficients (the filter's symmetry):
/// out[t] (+)= Σ_p coef[p]·(a[t − offsetA[p]] + b[t − offsetB[p]]), where `a` and `b` are the
/// same stream (a polyphase branch of an up-sampler) or the two phases of one (a down-sampler).
/// Pairs go in groups of four (padded with zero pairs), so each pass over the block does eight
/// loads and four multiplies per sample.
struct DistortionFIR {
    let offsetsA: UnsafeMutablePointer<Int>
    let offsetsB: UnsafeMutablePointer<Int>
    let coefficients: UnsafeMutablePointer<Float>
    let count: Int
    /// The largest offset: the history the source streams must keep.
    let reach: Int
    let kernels: UnsafePointer<CEKKernels>

    /// `taps`: (stream 0 or 1, offset, coefficient); every coefficient must occur in pairs
    /// (a lone centre tap is paired with a zero-weight partner).
    init(_ taps: [(stream: Int, offset: Int, coefficient: Double)]) {
        // Pair tap i with its mirror (the list is in filter order: tap k and tap N−1−k).
        var pairs: [(Int, Int, Double)] = []
        var i = 0, j = taps.count - 1
        while i < j {
            pairs.append((taps[i].stream == 0 ? taps[i].offset : taps[j].offset,
                          taps[i].stream == 0 ? taps[j].offset : taps[i].offset,
                          0.5 * (taps[i].coefficient + taps[j].coefficient)))
            i += 1; j -= 1
        }
        if i == j { pairs.append((taps[i].offset, taps[i].offset, 0.5 * taps[i].coefficient)) }
        let padded = (pairs.count + 3) / 4 * 4
        count = padded
        offsetsA = .allocate(capacity: max(padded, 4))
        offsetsB = .allocate(capacity: max(padded, 4))
        coefficients = .allocate(capacity: max(padded, 4))
        offsetsA.initialize(repeating: 0, count: max(padded, 4))
        offsetsB.initialize(repeating: 0, count: max(padded, 4))
        coefficients.initialize(repeating: 0, count: max(padded, 4))
        var r = 0
        for (k, p) in pairs.enumerated() {
            offsetsA[k] = p.0
            offsetsB[k] = p.1
            coefficients[k] = Float(p.2)
            r = max(r, p.0, p.1)
        }
        reach = r
        kernels = cek_kernels()
    }

    func free() {
        offsetsA.deallocate()
        offsetsB.deallocate()
        coefficients.deallocate()
    }

    /// The filter over a block, in CEffectKernels (AVX2 when the CPU has it; the same
    /// operations in the same order as the Swift loop it replaced, so bit-identical).
    /// Vouched real-time safe by hand (the checker cannot see into C): loads, arithmetic and
    /// stores on the given rows only.
    @_semantics("no_performance_analysis") @inline(never)
    func apply(_ out: UnsafeMutablePointer<Float>, _ n: Int, _ a: UnsafeMutablePointer<Float>, _ b: UnsafeMutablePointer<Float>) {
        kernels.pointee.fir(out, n, a, b, offsetsA, offsetsB, coefficients, count)
    }
}

/// Float64 biquad coefficients (a0 = 1) for the colour filters.
struct DistortionBiquad {
    var b0 = 1.0, b1 = 0.0, b2 = 0.0, a1 = 0.0, a2 = 0.0
    static let identity = DistortionBiquad()

    /// 2nd-order Butterworth (bilinear transform, Q = 1/√2).
    static func butterworth(highPass: Bool, frequency: Double, sampleRate: Double) -> DistortionBiquad {
        let f = min(max(frequency, 1), 0.49 * sampleRate)
        let w0 = 2 * Double.pi * f / sampleRate
        let c = EffectMath.cosine(w0), alpha = EffectMath.sine(w0) / 1.4142135623730951  // √2 (the literal is the correctly rounded √2)
        let a0 = 1 + alpha
        if highPass {
            return DistortionBiquad(b0: (1 + c) / 2 / a0, b1: -(1 + c) / a0, b2: (1 + c) / 2 / a0, a1: -2 * c / a0, a2: (1 - alpha) / a0)
        }
        return DistortionBiquad(b0: (1 - c) / 2 / a0, b1: (1 - c) / a0, b2: (1 - c) / 2 / a0, a1: -2 * c / a0, a2: (1 - alpha) / a0)
    }
}

enum DistortionSoftClip {
    /// The anti-aliased soft clip over both 192 kHz phases (see `CEKKernels.softClip`), in
    /// CEffectKernels: eight lanes of √ and ÷ with AVX2, bit-identical to the scalar loop.
    /// Vouched real-time safe by hand (the checker cannot see into C): arithmetic on the given
    /// rows only.
    @_semantics("no_performance_analysis") @inline(never)
    static func run(_ kernels: UnsafePointer<CEKKernels>, _ we: UnsafeMutablePointer<Float>, _ wo: UnsafeMutablePointer<Float>,
                    _ rootE: UnsafeMutablePointer<Float>, _ rootO: UnsafeMutablePointer<Float>,
                    _ ye: UnsafeMutablePointer<Float>, _ yo: UnsafeMutablePointer<Float>, _ m2: Int) {
        kernels.pointee.softClip(we, wo, rootE, rootO, ye, yo, m2)
    }
}
