// The DSP of AVAudioUnitReverb: a 16-line feedback delay network (FDN) behind input diffusion
// and early reflections, driven by Apple's Reverb2 parameters (kReverb2Param_*).
//
//   input ─▶ 6 series allpasses per side ─▶ reflection line ─┬─ 16 taps per side between the minimum
//     (1.5…12 ms, gains 0.65…0.54:            (one per side)  │  and maximum delay time, pseudo-random
//      dense, spectrally flat smearing)                        │  per seed: early reflections
//                                                             └─ one tap per FDN line, at the minimum
//                                                                delay time plus 0…20 ms (× room size),
//                                                                so the lines' first returns are spread
//
//   FDN: 16 delay lines with distinct prime lengths (31…89 ms at the reference size, scaled by the
//   room size the maximum delay time implies); each line's output passes a two-tap absorption
//   filter p + q·z⁻¹ whose gain is exactly g₀ = 10^(−3·d/(fs·T₀)) at DC and g_N = 10^(−3·d/(fs·T_N))
//   at Nyquist (Jot's rule: each line loses 60 dB in T₀ resp. T_N seconds whatever its length, so
//   the network's RT60 is decayTimeAt0Hz at low and decayTimeAtNyquist at high frequencies),
//   then the orthonormal matrix ¼·(H4 ⊗ H4) — a 16×16 Hadamard: every line feeds every line with
//   the same weight, energy preserved — back into the lines, plus the input.
//
// Output: early reflections + the network; wet level ∝ gain / T₀^¼ (the wet energy of an
// impulse grows with √T₀ only).
//
// Stereo: the left input drives the even lines, the right input the odd lines (with signs); the
// left and right outputs are two different rows of the Hadamard product (orthogonal ±¼ sums of
// all 16 lines), so the two tails are decorrelated while each carries the whole network. Mono:
// one input drives all lines, one output row. More than two channels: channels alternate the
// left and right roles.
//
// Block processing: every line is longer than the 64-frame block, so everything a block reads
// from the lines was written by earlier blocks. The block is then a sequence of plain loops over
// contiguous memory (the compiler vectorizes them): read and absorb each line, two radix-4
// butterfly passes of the Hadamard across the 16 rows, write back with the input added. The
// delay memories are "sliding" buffers — linear, written forward, the last `history` samples
// moved back to the start when the end is reached — so no loop ever wraps around.
//
// Everything is allocated when the kernel is made (lines sized for the largest room and the
// longest reflection time at this sample rate); parameter changes recompute coefficients and line
// lengths in place (a bounded prime search: no allocation). A −360 dB constant added to the wet
// input keeps the memories off subnormal numbers after the input falls silent. The dry path is
// not delayed: the latency is 0.

/// The reverb: a 16-line feedback delay network behind input diffusion and early reflections
/// (see the top of this file). Parameters are addressed by Reverb2's numbers (the static
/// constants); `process`, `setParameter` and `reset` run on the render thread and allocate nothing.
public final class ReverbProcessor {
    // Apple's parameter IDs (AudioUnitParameters.h, AUReverb2).
    public static let dryWetMix: UInt64 = 0
    public static let gain: UInt64 = 1
    public static let minDelayTime: UInt64 = 2
    public static let maxDelayTime: UInt64 = 3
    public static let decayTimeAt0Hz: UInt64 = 4
    public static let decayTimeAtNyquist: UInt64 = 5
    public static let randomizeReflections: UInt64 = 6

    static let blockSize = 64
    static let reflectionTaps = 16
    /// Line lengths at room size 1 (seconds), before rounding to distinct primes.
    static let baseLineSeconds: [Double] = [0.0311, 0.0347, 0.0373, 0.0401, 0.0431, 0.0467, 0.0497, 0.0531,
                                            0.0563, 0.0601, 0.0641, 0.0683, 0.0727, 0.0769, 0.0823, 0.0887]
    static let smallestSize = 0.6
    static let largestSize = 1.7
    /// Input diffusion: allpass lengths (seconds) per side, and gains.
    static let diffuserSeconds: [[Double]] = [[0.00151, 0.00193, 0.00331, 0.00509, 0.00787, 0.01187],
                                              [0.00157, 0.00211, 0.00313, 0.00541, 0.00743, 0.01231]]
    static let diffuserGains: [Float] = [0.65, 0.62, 0.6, 0.58, 0.56, 0.54]
    static let diffuserStages = 6
    /// The Hadamard rows the left and right outputs read (indices into the mixed lines).
    static let leftRow = 0, rightRow = 5

    public let sampleRate: Double
    public let channels: Int

    private var lines: SlidingDelayLines
    private let delays = UnsafeMutablePointer<Int>.allocate(capacity: 16)
    /// Absorption p + q·z⁻¹ per line (¼ of the Hadamard folded in).
    private let absorbP = UnsafeMutablePointer<Float>.allocate(capacity: 16)
    private let absorbQ = UnsafeMutablePointer<Float>.allocate(capacity: 16)
    /// Rows of a block: the absorbed line outputs, mixed in place.
    private let rows: UnsafeMutablePointer<Float>

    private var reflections: SlidingDelayLines
    private let tapDelays = UnsafeMutablePointer<Int>.allocate(capacity: 2 * ReverbProcessor.reflectionTaps)
    private let tapGains = UnsafeMutablePointer<Float>.allocate(capacity: 2 * ReverbProcessor.reflectionTaps)
    private var preDelay = 1
    /// Extra delay of each line's input behind the pre-delay (spreads the first returns in time).
    private let injectionOffsets = UnsafeMutablePointer<Int>.allocate(capacity: 16)
    /// Copies of `baseLineSeconds` and `injectionSpread` (render-side code reads no static arrays:
    /// their lazy initialisation could take a lock).
    private let lineSeconds = UnsafeMutablePointer<Double>.allocate(capacity: 16)
    private let spreadSeconds = UnsafeMutablePointer<Double>.allocate(capacity: 16)
    static let injectionSpread: [Double] = [0, 0.0093, 0.0041, 0.0157, 0.0022, 0.0118, 0.0071, 0.0189,
                                            0.0011, 0.0134, 0.0057, 0.0173, 0.0031, 0.0105, 0.0083, 0.0199]

    private var diffusers: SlidingDelayLines
    private let diffuserDelays = UnsafeMutablePointer<Int>.allocate(capacity: 2 * ReverbProcessor.diffuserStages)
    private let diffuserGain = UnsafeMutablePointer<Float>.allocate(capacity: ReverbProcessor.diffuserStages)

    /// Per block: diffused input (2 sides), early reflections (2 sides), dry gain (more than two channels).
    private let scratch: UnsafeMutablePointer<Float>

    // Parameters.
    private var minDelay = 0.008, maxDelay = 0.050, decayLow = 1.0, decayHigh = 0.5, seed = 1
    private var mix = ParameterRamp(1), outputGain = ParameterRamp(1)
    /// Wet level normalisation (depends on the decay time).
    private var wetScale: Float = 1

    public init(sampleRate: Double, channels: Int, maximumFrames: Int) {
        self.sampleRate = sampleRate
        self.channels = channels
        let b = ReverbProcessor.blockSize
        let longestLine = Int((ReverbProcessor.baseLineSeconds.last! * 1.03 * ReverbProcessor.largestSize * sampleRate).rounded(.up)) + 64
        lines = SlidingDelayLines(count: 16, history: longestLine + 2, block: b)
        rows = .allocate(capacity: 16 * b)
        rows.initialize(repeating: 0, count: 16 * b)
        reflections = SlidingDelayLines(count: 2, history: Int((1.0 * sampleRate).rounded(.up)) + 2, block: b)
        var longestDiffuser = 1
        let stages = ReverbProcessor.diffuserStages
        for side in 0 ..< 2 {
            for k in 0 ..< stages {
                let d = max(1, Int((ReverbProcessor.diffuserSeconds[side][k] * sampleRate).roundedToNearest))
                diffuserDelays[side * stages + k] = d
                longestDiffuser = max(longestDiffuser, d)
            }
        }
        diffusers = SlidingDelayLines(count: 2 * stages, history: longestDiffuser + 1, block: b)
        for k in 0 ..< stages { diffuserGain[k] = ReverbProcessor.diffuserGains[k] }
        scratch = .allocate(capacity: 5 * b)
        scratch.initialize(repeating: 0, count: 5 * b)
        tapDelays.initialize(repeating: 1, count: 2 * ReverbProcessor.reflectionTaps)
        tapGains.initialize(repeating: 0, count: 2 * ReverbProcessor.reflectionTaps)
        delays.initialize(repeating: b, count: 16)
        injectionOffsets.initialize(repeating: 0, count: 16)
        absorbP.initialize(repeating: 0, count: 16)
        absorbQ.initialize(repeating: 0, count: 16)
        for i in 0 ..< 16 {
            (lineSeconds + i).initialize(to: ReverbProcessor.baseLineSeconds[i])
            (spreadSeconds + i).initialize(to: ReverbProcessor.injectionSpread[i])
        }
        updateGeometry()
        updateDecay()
    }

    deinit {
        lines.free()
        reflections.free()
        diffusers.free()
        rows.deallocate()
        scratch.deallocate()
        delays.deallocate()
        absorbP.deallocate()
        absorbQ.deallocate()
        tapDelays.deallocate()
        injectionOffsets.deallocate()
        tapGains.deallocate()
        diffuserDelays.deallocate()
        diffuserGain.deallocate()
        lineSeconds.deallocate()
        spreadSeconds.deallocate()
    }

    /// Sets a parameter before the first render (no ramps).
    public func setInitialParameter(_ address: UInt64, _ value: Float) {
        setParameter(address, value, rampFrames: 0)
    }

    public func setParameter(_ address: UInt64, _ value: Float, rampFrames: Int) {
        let v = Double(value.isNaN ? 0 : value)
        switch address {
        case ReverbProcessor.dryWetMix: mix.start(to: Float(min(max(v, 0), 100) / 100), frames: rampFrames)
        case ReverbProcessor.gain: outputGain.start(to: Float(EffectMath.power(10, min(max(v, -20), 20) / 20)), frames: rampFrames)
        case ReverbProcessor.minDelayTime: minDelay = min(max(v, 0.0001), 1.0); updateGeometry(); updateDecay()
        case ReverbProcessor.maxDelayTime: maxDelay = min(max(v, 0.0001), 1.0); updateGeometry(); updateDecay()
        case ReverbProcessor.decayTimeAt0Hz: decayLow = min(max(v, 0.001), 20); updateDecay()
        case ReverbProcessor.decayTimeAtNyquist: decayHigh = min(max(v, 0.001), 20); updateDecay()
        case ReverbProcessor.randomizeReflections: seed = Int(min(max(v, 1), 1000).roundedToNearest); updateGeometry(); updateDecay()
        default: break
        }
    }

    /// Room size from the maximum delay time: 0.05 s (Reverb2's default) is size 1.
    public var roomSize: Double { min(max(0.55 + 9 * max(maxDelay, minDelay), ReverbProcessor.smallestSize), ReverbProcessor.largestSize) }

    /// Line lengths (distinct primes), reflection taps and pre-delay from the delay times and the
    /// seed. Render thread safe: no allocation (the prime search is a bounded trial division).
    private func updateGeometry() {
        let size = roomSize
        var rng = SplitMix64(seed: UInt64(seed))
        let scale = sampleRate * size
        var previous = 0
        for i in 0 ..< 16 {
            // Seeds other than 1 move each line by up to ±3 %.
            let jitter = seed == 1 ? 0 : (rng.unit() * 2 - 1) * 0.03
            var target = Int((lineSeconds[i] * (1 + jitter) * scale).roundedToNearest)
            target = max(max(target, previous + 1), ReverbProcessor.blockSize)  // (two-argument max: the variadic one builds an array)
            var p = ReverbLoops.prime(atLeast: target)
            while ReverbLoops.contains(delays, count: i, p) { p = ReverbLoops.prime(atLeast: p + 1) }
            delays[i] = min(p, lines.history - 2)
            previous = p
        }
        // Early reflections: tap 0 at the minimum delay, the others spread (pseudo-randomly, per
        // side) up to the maximum delay.
        let lo = min(minDelay, maxDelay), hi = max(minDelay, maxDelay)
        preDelay = max(1, min(Int((lo * sampleRate).roundedToNearest), reflections.history - 1))
        for i in 0 ..< 16 {
            injectionOffsets[i] = min(Int((spreadSeconds[i] * size * sampleRate).roundedToNearest), reflections.history - 1 - preDelay)
        }
        for side in 0 ..< 2 {
            for k in 0 ..< ReverbProcessor.reflectionTaps {
                let fraction = k == 0 ? 0 : (Double(k) - 0.5 + rng.unit()) / Double(ReverbProcessor.reflectionTaps - 1)
                let t = lo + (hi - lo) * min(fraction, 1)
                let offset = k == 0 ? 0 : side * 7
                tapDelays[side * ReverbProcessor.reflectionTaps + k] = max(1, min(Int((t * sampleRate).roundedToNearest) + offset, reflections.history - 1))
            }
        }
    }

    /// Absorption coefficients for the decay times (line lengths enter here too), reflection
    /// gains and the wet level normalisation.
    private func updateDecay() {
        for i in 0 ..< 16 {
            let d = Double(delays[i])
            let g0 = EffectMath.power(10, -3 * d / (sampleRate * decayLow))
            let gN = EffectMath.power(10, -3 * d / (sampleRate * decayHigh))
            // p + q·z⁻¹: p + q = g0 at DC, p − q = gN at Nyquist; ¼ of the Hadamard folded in.
            absorbP[i] = Float(0.125 * (g0 + gN))
            absorbQ[i] = Float(0.125 * (g0 - gN))
        }
        let lo = min(minDelay, maxDelay)
        for side in 0 ..< 2 {
            for k in 0 ..< ReverbProcessor.reflectionTaps {
                let t = Double(tapDelays[side * ReverbProcessor.reflectionTaps + k]) / sampleRate - lo
                let sign: Float = ((k * 5 + side * 3) & 2) == 0 ? 1 : -1
                tapGains[side * ReverbProcessor.reflectionTaps + k] = sign * Float(ReverbProcessor.reflectionLevel * EffectMath.power(10, -3 * t / decayLow) / (1 + 0.12 * Double(k)))
            }
        }
        // A longer tail carries more energy: scale so that the wet energy of an impulse grows
        // with the square root of the decay time only.
        wetScale = Float(ReverbProcessor.wetLevel / EffectMath.power(max(decayLow, 0.05), 0.25))
    }

    static let reflectionLevel = 0.2
    static let antiDenormal: Float = 1e-18
    static let wetLevel = 0.6

    public func reset() {
        lines.clear()
        reflections.clear()
        diffusers.clear()
    }

    public var latencyFrames: Int { 0 }
    public var tailTime: Double {
        max(decayLow, decayHigh) + max(minDelay, maxDelay) + lineSeconds[15] * roomSize
    }

    public func process(input: UnsafePointer<UnsafeMutablePointer<Float>>, output: UnsafePointer<UnsafeMutablePointer<Float>>,
                          channels: Int, frames: Int) {
        guard channels > 0 else { return }
        var done = 0
        while done < frames {
            let n = min(ReverbProcessor.blockSize, frames - done)
            processBlock(input: input, output: output, channels: channels, offset: done, frames: n)
            done += n
        }
    }

    /// One block of n ≤ blockSize frames.
    private func processBlock(input: UnsafePointer<UnsafeMutablePointer<Float>>, output: UnsafePointer<UnsafeMutablePointer<Float>>,
                              channels: Int, offset: Int, frames n: Int) {
        let b = ReverbProcessor.blockSize
        let stereo = channels >= 2
        let inL = input[0] + offset, inR = input[stereo ? 1 : 0] + offset
        let sL = scratch, sR = scratch + b, erL = scratch + 2 * b, erR = scratch + 3 * b

        // 1. Input diffusion: 6 allpasses per side (v = x + g·buf[t−d]; y = buf[t−d] − g·v).
        // A constant far below audibility (−360 dB) keeps every memory of the network away from
        // subnormal numbers when the input falls silent (subnormal arithmetic is slow on many
        // CPUs); it never reaches the dry path.
        let guardValue = ReverbProcessor.antiDenormal
        var t = 0
        while t < n { sL[t] = inL[t] + guardValue; sR[t] = inR[t] + guardValue; t += 1 }
        let stages = ReverbProcessor.diffuserStages
        var k = 0
        while k < stages {
            ReverbLoops.allpass(sL, n, diffusers.line(k), diffuserDelays[k], diffuserGain[k])
            ReverbLoops.allpass(sR, n, diffusers.line(stages + k), diffuserDelays[stages + k], diffuserGain[k])
            k += 1
        }
        diffusers.advance(n)

        // 2. Reflection lines: write the diffused block, then read the taps (all behind or within
        // what was just written).
        let rL = reflections.line(0), rR = reflections.line(1)
        EffectMemory.copy(rL, from: sL, count: n)
        EffectMemory.copy(rR, from: sR, count: n)
        let nt = ReverbProcessor.reflectionTaps
        k = 0
        while k < nt {
            ReverbLoops.taps(erL, n, rL, tapDelays + k, tapGains + k, accumulate: k > 0)
            ReverbLoops.taps(erR, n, rR, tapDelays + nt + k, tapGains + nt + k, accumulate: k > 0)
            k += 8
        }
        let pL = rL - preDelay, pR = rR - preDelay

        // 3. FDN. Read and absorb every line into its row: rows[i] = p·y[t] + q·y[t−1].
        var i = 0
        while i < 16 {
            let y = lines.line(i) - delays[i]
            let p = absorbP[i], q = absorbQ[i], row = rows + i * b
            var t = 0
            while t < n { row[t] = p * y[t] + q * y[t - 1]; t += 1 }
            i += 1
        }
        // Hadamard, first radix-4 pass: across rows {g, g+4, g+8, g+12}.
        var g = 0
        while g < 4 {
            ReverbLoops.butterfly4(rows + g * b, rows + (g + 4) * b, rows + (g + 8) * b, rows + (g + 12) * b, n)
            g += 1
        }
        // Second pass: across rows {4g … 4g+3}.
        g = 0
        while g < 4 {
            let r0 = rows + 4 * g * b
            ReverbLoops.butterfly4(r0, r0 + b, r0 + 2 * b, r0 + 3 * b, n)
            g += 1
        }
        // Write back with the input: left drives even lines, right odd lines, alternating signs.
        i = 0
        while i < 16 {
            let dst = lines.line(i), row = rows + i * b
            let src = ((i & 1) == 0 ? pL : pR) - injectionOffsets[i]
            let s: Float = (i & 2) == 0 ? 0.5 : -0.5
            var t = 0
            while t < n { dst[t] = row[t] + s * src[t]; t += 1 }
            i += 1
        }
        // Wet sums: early reflections + the two output rows (rows of the whole product).
        let outRowL = rows + ReverbProcessor.leftRow * b, outRowR = rows + ReverbProcessor.rightRow * b
        t = 0
        while t < n { erL[t] += outRowL[t]; erR[t] += outRowR[t]; t += 1 }
        lines.advance(n)
        reflections.advance(n)

        // 4. Wet/dry.
        let scale = wetScale
        let outL = output[0] + offset
        if stereo {
            let outR = output[1] + offset
            let steady = !mix.isRamping, steadyGain = !outputGain.isRamping  // (locals: `&&` on members would retain self)
            if steady && steadyGain {
                let m = mix.value, k = outputGain.value * scale * mix.value, dryGain = 1 - m
                t = 0
                while t < n {
                    let xL = inL[t], xR = inR[t]
                    outL[t] = dryGain * xL + k * erL[t]
                    outR[t] = dryGain * xR + k * erR[t]
                    t += 1
                }
            } else {
                let keep = scratch + 4 * b
                var mixRamp = mix, gainRamp = outputGain
                defer { mix = mixRamp; outputGain = gainRamp }
                t = 0
                while t < n {
                    let m = mixRamp.next(), k = gainRamp.next() * scale * m
                    keep[t] = 1 - m
                    let xL = inL[t], xR = inR[t]
                    outL[t] = (1 - m) * xL + k * erL[t]
                    outR[t] = (1 - m) * xR + k * erR[t]
                    erL[t] *= k; erR[t] *= k
                    t += 1
                }
                if channels > 2 { mixExtraChannels(input: input, output: output, channels: channels, offset: offset, frames: n) }
                return
            }
            if channels > 2 {
                let m = mix.value, k = outputGain.value * scale * m
                t = 0
                while t < n { erL[t] *= k; erR[t] *= k; scratch[4 * b + t] = 1 - m; t += 1 }
                mixExtraChannels(input: input, output: output, channels: channels, offset: offset, frames: n)
            }
        } else {
            var mixRamp = mix, gainRamp = outputGain
            defer { mix = mixRamp; outputGain = gainRamp }
            t = 0
            while t < n {
                let m = mixRamp.next(), k = gainRamp.next() * scale * m
                outL[t] = (1 - m) * inL[t] + k * erL[t]
                t += 1
            }
        }
    }

    /// Channels 2, 3, …: their own dry signal (× the dry gain in scratch) plus the scaled wet of
    /// their side (left for even, right for odd channels).
    private func mixExtraChannels(input: UnsafePointer<UnsafeMutablePointer<Float>>, output: UnsafePointer<UnsafeMutablePointer<Float>>,
                                  channels: Int, offset: Int, frames n: Int) {
        let b = ReverbProcessor.blockSize
        let keep = scratch + 4 * b
        var c = 2
        while c < channels {
            let dry = input[c] + offset, dst = output[c] + offset, wet = scratch + (2 + (c & 1)) * b
            var t = 0
            while t < n { dst[t] = keep[t] * dry[t] + wet[t]; t += 1 }
            c += 1
        }
    }
}

/// The reverb's block loops and prime search (a caseless enum: calling a class's static methods
/// passes its metatype, which the real-time checker cannot clear).
enum ReverbLoops {
    /// A Schroeder allpass over a block, in pieces no longer than its delay (so every read is of
    /// an earlier write).
    @inline(__always)
    static func allpass(_ s: UnsafeMutablePointer<Float>, _ n: Int, _ line: UnsafeMutablePointer<Float>, _ d: Int, _ g: Float) {
        var start = 0
        while start < n {
            let m = min(n - start, d)
            let w = line + start, r = w - d, x = s + start
            var t = 0
            while t < m {
                let delayed = r[t]
                let v = x[t] + g * delayed
                w[t] = v
                x[t] = delayed - g * v
                t += 1
            }
            start += m
        }
    }

    /// out[t] (+)= Σ_k gain[k]·line[t − delay[k]] over 8 taps.
    @inline(__always)
    static func taps(_ out: UnsafeMutablePointer<Float>, _ n: Int, _ line: UnsafeMutablePointer<Float>,
                             _ delay: UnsafeMutablePointer<Int>, _ gain: UnsafeMutablePointer<Float>, accumulate: Bool = false) {
        let x0 = line - delay[0], x1 = line - delay[1], x2 = line - delay[2], x3 = line - delay[3]
        let x4 = line - delay[4], x5 = line - delay[5], x6 = line - delay[6], x7 = line - delay[7]
        let k0 = gain[0], k1 = gain[1], k2 = gain[2], k3 = gain[3], k4 = gain[4], k5 = gain[5], k6 = gain[6], k7 = gain[7]
        var t = 0
        if accumulate {
            while t < n {
                out[t] += k0 * x0[t] + k1 * x1[t] + k2 * x2[t] + k3 * x3[t] + k4 * x4[t] + k5 * x5[t] + k6 * x6[t] + k7 * x7[t]
                t += 1
            }
        } else {
            while t < n {
                out[t] = k0 * x0[t] + k1 * x1[t] + k2 * x2[t] + k3 * x3[t] + k4 * x4[t] + k5 * x5[t] + k6 * x6[t] + k7 * x7[t]
                t += 1
            }
        }
    }

    /// H4 across four rows, in place.
    @inline(__always)
    static func butterfly4(_ r0: UnsafeMutablePointer<Float>, _ r1: UnsafeMutablePointer<Float>,
                                   _ r2: UnsafeMutablePointer<Float>, _ r3: UnsafeMutablePointer<Float>, _ n: Int) {
        var t = 0
        while t < n {
            let a = r0[t] + r1[t], c = r0[t] - r1[t], d = r2[t] + r3[t], e = r2[t] - r3[t]
            r0[t] = a + d; r1[t] = c + e; r2[t] = a - d; r3[t] = c - e
            t += 1
        }
    }

    static func contains(_ p: UnsafeMutablePointer<Int>, count: Int, _ x: Int) -> Bool {
        var i = 0
        while i < count { if p[i] == x { return true }; i += 1 }
        return false
    }

    static func prime(atLeast n: Int) -> Int {
        var c = max(n, 2)
        while !isPrime(c) { c += 1 }
        return c
    }

    static func isPrime(_ n: Int) -> Bool {
        if n < 4 { return n >= 2 }
        if n % 2 == 0 { return false }
        var d = 3
        while d * d <= n {
            if n % d == 0 { return false }
            d += 2
        }
        return true
    }
}
