// The DSP of the multi-band equalizer (AVAudioUnitEQ's kernel).
//
// Each band is one biquad from Robert Bristow-Johnson's "Audio EQ Cookbook" (the bilinear
// transform of a second-order analog prototype, frequency-warped so the design frequency lands
// exactly):
//
//   parametric            peaking EQ, Q from `bandwidth`, boost/cut `gain`
//   lowPass / highPass    2nd-order Butterworth (Q = 1/√2); `gain` and `bandwidth` unused
//   resonantLowPass/HighPass   the same with Q from `bandwidth`
//   bandPass / bandStop   constant 0 dB peak band-pass / notch, Q from `bandwidth`
//   lowShelf / highShelf  shelves with slope S = 1 (Q = 1/√2), `gain` at DC / Nyquist
//   resonantLowShelf/HighShelf shelves with Q from `bandwidth`
//
// "Q from bandwidth" is the cookbook's digital bandwidth relation
// 1/Q = 2·sinh(ln2/2 · BW · ω0/sin ω0): BW octaves between the −3 dB points (band-pass, notch)
// or the half-gain points (peaking).
//
// The filters run in Float64 transposed direct form II (two state variables per band and
// channel, carried as SIMD2<Double> for a channel pair): in Float32 a low-frequency shelf's
// coefficients and state lose so much precision that the output nulls against an exact
// reference only to about −82 dB; in Float64 the error is the final rounding to Float32
// (the peers' 10-band EQ nulls at −152 dB against a Float64 direct-form reference).
//
// Speed: the cascade is bound by multiplier throughput, not by the recursions' latency, when
// several bands run in one sample loop (their recursions overlap); so static bands run in
// groups of two to five with their state in registers, and in normalized form — numerator
// divided by b0, the b0s multiplied back once per group — four multiplications a band and
// sample instead of five.
//
// Parameter changes never switch coefficients abruptly (that steps the output: zipper noise).
// A change of frequency, gain or bandwidth glides the parameter — frequency and bandwidth in
// octaves, gain in dB — over the event's ramp, or over `defaultRampFrames` (128) when
// it has none; a change of filter type or bypass crossfades the coefficients from the old
// filter to the new one over the same time. Coefficients are recomputed from the gliding
// parameters every 32 samples and interpolated linearly sample by sample in between.
// Interpolating between two stable biquads stays stable: the set of stable (a1, a2) is the
// "stability triangle", a convex set. 128 samples (2.7 ms at 48 kHz) is short enough that a
// change scheduled at sample T is complete at T + 128 — sooner than the ear separates two
// events — and long enough that the largest change (−96 → +24 dB) moves by under 1 dB per
// sample; the transient of a linear ramp of length L falls off above fs/L (375 Hz at 48 kHz),
// where the step of an unramped change would spray energy up to Nyquist.

/// Biquad coefficients normalized to a0 = 1: y = b0·x + b1·x₁ + b2·x₂ − a1·y₁ − a2·y₂.
public struct BiquadCoefficients: Equatable, Sendable {
    public var b0 = 1.0, b1 = 0.0, b2 = 0.0, a1 = 0.0, a2 = 0.0

    public init(b0: Double = 1, b1: Double = 0, b2: Double = 0, a1: Double = 0, a2: Double = 0) {
        self.b0 = b0; self.b1 = b1; self.b2 = b2; self.a1 = a1; self.a2 = a2
    }

    public static let identity = BiquadCoefficients()

    @inline(__always)
    static func lerp(_ a: BiquadCoefficients, _ b: BiquadCoefficients, _ t: Double) -> BiquadCoefficients {
        BiquadCoefficients(b0: a.b0 + (b.b0 - a.b0) * t, b1: a.b1 + (b.b1 - a.b1) * t, b2: a.b2 + (b.b2 - a.b2) * t,
                           a1: a.a1 + (b.a1 - a.a1) * t, a2: a.a2 + (b.a2 - a.a2) * t)
    }

    /// The cookbook biquad of a filter type (Float64 throughout). `type` takes the raw values
    /// of the façade's filter-type enum: 0 peaking, 1 Butterworth low-pass, 2 Butterworth high-pass,
    /// 3 resonant low-pass, 4 resonant high-pass, 5 band-pass, 6 notch, 7 low shelf, 8 high shelf,
    /// 9 resonant low shelf, 10 resonant high shelf.
    public static func design(type: Int, frequency: Double, gainDB: Double, bandwidth: Double, sampleRate: Double) -> BiquadCoefficients {
        let f = min(max(frequency, 1), 0.499 * sampleRate)
        let bw = min(max(bandwidth, 0.05), 5)
        let w0 = 2 * Double.pi * f / sampleRate
        let c = EffectMath.cosine(w0), s = EffectMath.sine(w0)
        let A = EffectMath.power(10, gainDB / 40)
        let alphaBW = s * EffectMath.hyperbolicSine(0.693_147_180_559_945_3 / 2 * bw * w0 / s)
        let alphaButterworth = s / 1.4142135623730951  // √2 (the literal is the correctly rounded √2)
        var b0 = 1.0, b1 = 0.0, b2 = 0.0, a0 = 1.0, a1 = 0.0, a2 = 0.0
        switch type {
        case 1, 3:   // low-pass
            let alpha = type == 1 ? alphaButterworth : alphaBW
            b0 = (1 - c) / 2; b1 = 1 - c; b2 = (1 - c) / 2
            a0 = 1 + alpha; a1 = -2 * c; a2 = 1 - alpha
        case 2, 4:   // high-pass
            let alpha = type == 2 ? alphaButterworth : alphaBW
            b0 = (1 + c) / 2; b1 = -(1 + c); b2 = (1 + c) / 2
            a0 = 1 + alpha; a1 = -2 * c; a2 = 1 - alpha
        case 5:      // band-pass, 0 dB peak
            b0 = alphaBW; b1 = 0; b2 = -alphaBW
            a0 = 1 + alphaBW; a1 = -2 * c; a2 = 1 - alphaBW
        case 6:      // notch
            b0 = 1; b1 = -2 * c; b2 = 1
            a0 = 1 + alphaBW; a1 = -2 * c; a2 = 1 - alphaBW
        case 7, 9:   // low shelf
            let alpha = type == 7 ? alphaButterworth : alphaBW
            let q = 2 * EffectMath.squareRoot(A) * alpha
            b0 = A * ((A + 1) - (A - 1) * c + q); b1 = 2 * A * ((A - 1) - (A + 1) * c); b2 = A * ((A + 1) - (A - 1) * c - q)
            a0 = (A + 1) + (A - 1) * c + q; a1 = -2 * ((A - 1) + (A + 1) * c); a2 = (A + 1) + (A - 1) * c - q
        case 8, 10:  // high shelf
            let alpha = type == 8 ? alphaButterworth : alphaBW
            let q = 2 * EffectMath.squareRoot(A) * alpha
            b0 = A * ((A + 1) + (A - 1) * c + q); b1 = -2 * A * ((A - 1) + (A + 1) * c); b2 = A * ((A + 1) + (A - 1) * c - q)
            a0 = (A + 1) - (A - 1) * c + q; a1 = 2 * ((A - 1) - (A + 1) * c); a2 = (A + 1) - (A - 1) * c - q
        default:     // parametric (peaking)
            b0 = 1 + alphaBW * A; b1 = -2 * c; b2 = 1 - alphaBW * A
            a0 = 1 + alphaBW / A; a1 = -2 * c; a2 = 1 - alphaBW / A
        }
        let g = 1 / a0
        return BiquadCoefficients(b0: b0 * g, b1: b1 * g, b2: b2 * g, a1: a1 * g, a2: a2 * g)
    }
}

/// The equalizer: a cascade of Float64 TDF-II biquads per channel pair, then the global gain.
/// Parameters are addressed as in AUNBandEQ: 0 global gain (dB), 1000 + band bypass, 2000 + band
/// filter type, 3000 + band frequency (Hz), 4000 + band gain (dB), 5000 + band bandwidth
/// (octaves). `process`, `setParameter` and `reset` run on the render thread and allocate nothing.
public final class EqualizerProcessor {
    public static let globalGainAddress: UInt64 = 0
    public static let bypassBandAddress: UInt64 = 1000
    public static let filterTypeAddress: UInt64 = 2000
    public static let frequencyAddress: UInt64 = 3000
    public static let gainAddress: UInt64 = 4000
    public static let bandwidthAddress: UInt64 = 5000

    public static let maximumBands = 1000
    /// Frames over which an unramped parameter change glides (see the file header).
    public static let defaultRampFrames = 128
    /// During glides, coefficients are recomputed every `segmentFrames` and interpolated between.
    static let segmentFrames = 32
    /// Frames processed per pass when nothing glides (the SIMD2 scratch stays in L1).
    static let blockFrames = 256

    /// One band's settings and glides (control values at the render side).
    struct Band {
        var type = 0
        var bypass = true
        var logFrequency: LinearGlide      // log2 Hz
        var gainDB: LinearGlide
        var logBandwidth: LinearGlide      // log2 octaves
        /// Crossfade after a type or bypass change: from `morphFrom` to the live design.
        var morphFrom = BiquadCoefficients.identity
        var morph = LinearGlide(1)
        /// Coefficients in use at the last processed sample, and their per-sample step in the
        /// current segment.
        var current = BiquadCoefficients.identity
        var step = BiquadCoefficients(b0: 0)
        var segmentTarget = BiquadCoefficients.identity
        var gliding = false

        init() {
            logFrequency = LinearGlide(EffectMath.logarithm2(1000.0))
            gainDB = LinearGlide(0)
            logBandwidth = LinearGlide(EffectMath.logarithm2(0.5))
        }

        var isGliding: Bool { logFrequency.isActive || gainDB.isActive || logBandwidth.isActive || morph.isActive }
    }

    public let sampleRate: Double
    public let channelCapacity: Int
    public let bandCount: Int
    private let bands: UnsafeMutablePointer<Band>
    /// Filter state: [pair][band] → (s1, s2), each a SIMD2 of the pair's two channels.
    private let state: UnsafeMutablePointer<SIMD2<Double>>
    private let scratch: UnsafeMutablePointer<SIMD2<Double>>
    /// Indices of the non-bypassed bands (valid while nothing glides).
    private let active: UnsafeMutablePointer<Int>
    private var activeCount = 0
    private var glidingCount = 0
    private var gain: LinearGlide          // linear global gain

    public init(sampleRate: Double, channels: Int, maximumFrames: Int, bandCount: Int) {
        self.sampleRate = sampleRate
        channelCapacity = max(1, channels)
        self.bandCount = bandCount
        bands = .allocate(capacity: max(1, bandCount))
        bands.initialize(repeating: Band(), count: max(1, bandCount))
        let pairs = (channelCapacity + 1) / 2
        state = .allocate(capacity: max(1, pairs * bandCount * 2))
        state.initialize(repeating: .zero, count: max(1, pairs * bandCount * 2))
        scratch = .allocate(capacity: EqualizerProcessor.blockFrames)
        scratch.initialize(repeating: .zero, count: EqualizerProcessor.blockFrames)
        active = .allocate(capacity: max(1, bandCount))
        active.initialize(repeating: 0, count: max(1, bandCount))
        gain = LinearGlide(1)
    }

    deinit {
        bands.deinitialize(count: max(1, bandCount))
        bands.deallocate()
        state.deallocate()
        scratch.deallocate()
        active.deallocate()
    }

    // MARK: parameters

    /// Control side, before the kernel is published: set a value without gliding.
    public func setInitialParameter(_ address: UInt64, _ value: Float) {
        apply(address, Double(value), frames: 0)
    }

    /// Control side: settle every band on its design after the initial values.
    public func finishInitialParameters() {
        for i in 0 ..< bandCount {
            bands[i].morph = LinearGlide(1)
            bands[i].current = design(i)
            bands[i].gliding = false
        }
        glidingCount = 0
        rebuildActiveList()
    }

    public func setParameter(_ address: UInt64, _ value: Float, rampFrames: Int) {
        apply(address, Double(value), frames: rampFrames > 0 ? rampFrames : EqualizerProcessor.defaultRampFrames)
    }

    private func apply(_ address: UInt64, _ value: Double, frames: Int) {
        if address == EqualizerProcessor.globalGainAddress {
            gain.start(to: EffectMath.power(10, min(max(value, -96), 24) / 20), frames: frames)
            return
        }
        let kind = address / 1000, index = Int(address % 1000)
        guard index < bandCount, kind >= 1, kind <= 5 else { return }
        let band = bands + index
        switch kind {
        case 1, 2:
            let bypass = kind == 1 ? value >= 0.5 : band.pointee.bypass
            let type = kind == 2 ? Int(min(max(value, 0), 10).roundedToNearest) : band.pointee.type
            guard bypass != band.pointee.bypass || type != band.pointee.type else { return }
            band.pointee.morphFrom = band.pointee.current
            band.pointee.bypass = bypass
            band.pointee.type = type
            band.pointee.morph = LinearGlide(0)
            band.pointee.morph.start(to: 1, frames: frames)
        case 3: band.pointee.logFrequency.start(to: EffectMath.logarithm2(min(max(value, 1), 0.499 * sampleRate)), frames: frames)
        case 4: band.pointee.gainDB.start(to: min(max(value, -96), 24), frames: frames)
        default: band.pointee.logBandwidth.start(to: EffectMath.logarithm2(min(max(value, 0.05), 5)), frames: frames)
        }
        if frames > 0 {
            if !band.pointee.gliding { band.pointee.gliding = true; glidingCount += 1 }
        }
    }

    /// The band's filter for its parameters at the current point of their glides (identity when bypassed).
    @inline(__always)
    private func design(_ i: Int) -> BiquadCoefficients {
        let b = bands[i]
        let live = b.bypass ? BiquadCoefficients.identity
            : BiquadCoefficients.design(type: b.type, frequency: EffectMath.exponential2(b.logFrequency.current), gainDB: b.gainDB.current,
                                        bandwidth: EffectMath.exponential2(b.logBandwidth.current), sampleRate: sampleRate)
        return b.morph.isActive ? BiquadCoefficients.lerp(b.morphFrom, live, b.morph.current) : live
    }

    private func rebuildActiveList() {
        activeCount = 0
        for i in 0 ..< bandCount where !bands[i].bypass {
            active[activeCount] = i
            activeCount += 1
        }
    }

    public func reset() {
        let pairs = (channelCapacity + 1) / 2
        EffectMemory.zero(state, count: max(1, pairs * bandCount * 2))
        streamPosition = 0
    }

    public var latencyFrames: Int { 0 }

    // MARK: processing

    public func process(input: UnsafePointer<UnsafeMutablePointer<Float>>, output: UnsafePointer<UnsafeMutablePointer<Float>>,
                          channels: Int, frames: Int) {
        let channels = min(channels, channelCapacity)
        var done = 0
        while done < frames {
            let gliding = glidingCount > 0
            // Blocks and glide segments end on a fixed grid of the stream (frames since the last
            // reset), so the flushes and coefficient steps fall on the same samples however the
            // caller chunks the stream (SoakTests found the output differing, ~1e-31, with chunking).
            let toBlock = EqualizerProcessor.blockFrames - streamPosition % EqualizerProcessor.blockFrames
            let toSegment = EqualizerProcessor.segmentFrames - streamPosition % EqualizerProcessor.segmentFrames
            let n = min(frames - done, gliding ? min(toSegment, shortestGlide()) : toBlock)
            if gliding { beginSegment(n) }
            var c = 0
            while c < channels {
                let pair = c / 2
                let stereo = c + 1 < channels
                load(input[c] + done, stereo ? input[c + 1] + done : nil, n)
                if gliding { runGliding(pair: pair, n) } else { runStatic(pair: pair, n) }
                store(output[c] + done, stereo ? output[c + 1] + done : nil, n)
                if (streamPosition + n) % EqualizerProcessor.blockFrames == 0 { flushDenormals(pair: pair) }
                c += 2
            }
            if gliding { endSegment() }
            gain.advance(n)
            done += n
            streamPosition += n
        }
    }

    /// Frames processed since the last reset (the block grid's origin).
    private var streamPosition = 0

    @inline(__always)
    private func load(_ a: UnsafeMutablePointer<Float>, _ b: UnsafeMutablePointer<Float>?, _ n: Int) {
        if let b {
            for i in 0 ..< n { scratch[i] = SIMD2(Double(a[i]), Double(b[i])) }
        } else {
            for i in 0 ..< n { scratch[i] = SIMD2(Double(a[i]), 0) }
        }
    }

    /// Writes the scratch through the global gain (gliding from the value at the start of this pass).
    @inline(__always)
    private func store(_ a: UnsafeMutablePointer<Float>, _ b: UnsafeMutablePointer<Float>?, _ n: Int) {
        if gain.isActive {
            let g0 = gain.current
            let rest = gain.length - gain.elapsed
            let stepG = (gain.to - g0) / Double(rest)
            for i in 0 ..< n {
                let g = i + 1 >= rest ? gain.to : g0 + stepG * Double(i + 1)
                let y = scratch[i] * g
                a[i] = Float(y.x)
                if let b { b[i] = Float(y.y) }
            }
            return
        }
        let g = gain.to
        if g == 1 {
            if let b {
                for i in 0 ..< n { let y = scratch[i]; a[i] = Float(y.x); b[i] = Float(y.y) }
            } else {
                for i in 0 ..< n { a[i] = Float(scratch[i].x) }
            }
        } else {
            let gv = SIMD2(repeating: g)
            if let b {
                for i in 0 ..< n { let y = scratch[i] * gv; a[i] = Float(y.x); b[i] = Float(y.y) }
            } else {
                for i in 0 ..< n { a[i] = Float(scratch[i].x * g) }
            }
        }
    }

    /// Filter state so small it can only decay into subnormals (slow on x86) is set to zero.
    @inline(__always)
    private func flushDenormals(pair: Int) {
        let s = state + pair * bandCount * 2
        for i in 0 ..< bandCount * 2 {
            let v = s[i]
            if abs(v.x) < 1e-30 && abs(v.y) < 1e-30 { s[i] = .zero }
        }
    }

    // Static path: the active bands in groups of two to five per pass, their state in registers.
    // One band alone is bound by its recursion's latency (about 9 cycles a sample); in a group
    // the bands' recursions overlap and the loop runs at the multiplier throughput instead
    // (10 bands: 5 + 5, 9: 5 + 4, 8: 4 + 4, 7: 4 + 3, 6: 3 + 3).
    private func runStatic(pair: Int, _ n: Int) {
        let s = state + pair * bandCount * 2
        var k = 0
        while k < activeCount {
            let left = activeCount - k
            let size = left >= 10 || left == 5 || left == 9 ? 5 : left >= 8 || left == 4 || left == 7 ? 4 : left >= 3 ? 3 : left
            switch size {
            case 5: run5(active[k], active[k + 1], active[k + 2], active[k + 3], active[k + 4], s, n)
            case 4: run4(active[k], active[k + 1], active[k + 2], active[k + 3], s, n)
            case 3: run3(active[k], active[k + 1], active[k + 2], s, n)
            case 2: run2(active[k], active[k + 1], s, n)
            default: run1(active[k], s, n)
            }
            k += size
        }
    }

    private struct Coef2 {
        let b0, b1, b2, a1, a2: SIMD2<Double>
        @inline(__always) init(_ c: BiquadCoefficients) {
            b0 = SIMD2(repeating: c.b0); b1 = SIMD2(repeating: c.b1); b2 = SIMD2(repeating: c.b2)
            a1 = SIMD2(repeating: c.a1); a2 = SIMD2(repeating: c.a2)
        }
        /// One TDF-II step.
        @inline(__always) func tick(_ x: SIMD2<Double>, _ s1: inout SIMD2<Double>, _ s2: inout SIMD2<Double>) -> SIMD2<Double> {
            let y = b0 * x + s1
            s1 = b1 * x - a1 * y + s2
            s2 = b2 * x - a2 * y
            return y
        }
    }

    @inline(__always)
    private func run1(_ i: Int, _ s: UnsafeMutablePointer<SIMD2<Double>>, _ n: Int) {
        let c = Coef2(bands[i].current)
        var s1 = s[2 * i], s2 = s[2 * i + 1]
        let buf = scratch
        for t in 0 ..< n { buf[t] = c.tick(buf[t], &s1, &s2) }
        s[2 * i] = s1; s[2 * i + 1] = s2
    }

    /// A band of a static group in normalized form: its numerator divided by its b0, and the
    /// group's running product P of b0s taken out of the signal (multiplied back once at the
    /// group's end): four multiplications per band and sample instead of five. The state of the
    /// normalized band is its canonical state divided by P (its own b0 included).
    private struct NormalizedBand {
        let b1, b2, a1, a2: SIMD2<Double>
        /// P up to and including this band.
        let p: Double
        @inline(__always) init(_ c: BiquadCoefficients, _ product: inout Double) {
            b1 = SIMD2(repeating: c.b1 / c.b0); b2 = SIMD2(repeating: c.b2 / c.b0)
            a1 = SIMD2(repeating: c.a1); a2 = SIMD2(repeating: c.a2)
            product *= c.b0
            p = product
        }
        @inline(__always) func tick(_ x: SIMD2<Double>, _ s1: inout SIMD2<Double>, _ s2: inout SIMD2<Double>) -> SIMD2<Double> {
            let y = x + s1
            s1 = b1 * x - a1 * y + s2
            s2 = b2 * x - a2 * y
            return y
        }
        @inline(__always) func load(_ s: UnsafeMutablePointer<SIMD2<Double>>, _ i: Int) -> (SIMD2<Double>, SIMD2<Double>) {
            let r = 1 / p
            return (s[2 * i] * r, s[2 * i + 1] * r)
        }
        @inline(__always) func store(_ s: UnsafeMutablePointer<SIMD2<Double>>, _ i: Int, _ s1: SIMD2<Double>, _ s2: SIMD2<Double>) {
            s[2 * i] = s1 * p; s[2 * i + 1] = s2 * p
        }
    }

    /// Whether a band can be normalized (every cookbook filter can: b0 > 0).
    @inline(__always)
    private func normalizable(_ i: Int) -> Bool {
        let b0 = bands[i].current.b0
        return b0 > 1e-30 && b0 < 1e30
    }

    /// Whether every band of a group can be normalized. (Evaluated as locals combined with `&`:
    /// `&&` on method calls would retain self inside its autoclosure.)
    @inline(__always)
    private func normalizable(_ i: Int, _ j: Int, _ k: Int = -1, _ l: Int = -1, _ m: Int = -1) -> Bool {
        let a = normalizable(i), b = normalizable(j)
        let c = k < 0 ? true : normalizable(k), d = l < 0 ? true : normalizable(l), e = m < 0 ? true : normalizable(m)
        return a && b && c && d && e
    }

    @inline(__always)
    private func run2(_ i: Int, _ j: Int, _ s: UnsafeMutablePointer<SIMD2<Double>>, _ n: Int) {
        guard normalizable(i, j) else { run1(i, s, n); run1(j, s, n); return }
        var p = 1.0
        let ci = NormalizedBand(bands[i].current, &p), cj = NormalizedBand(bands[j].current, &p)
        var (s1i, s2i) = ci.load(s, i), (s1j, s2j) = cj.load(s, j)
        let g = SIMD2(repeating: p)
        let buf = scratch
        for t in 0 ..< n {
            buf[t] = cj.tick(ci.tick(buf[t], &s1i, &s2i), &s1j, &s2j) * g
        }
        ci.store(s, i, s1i, s2i); cj.store(s, j, s1j, s2j)
    }

    @inline(__always)
    private func run3(_ i: Int, _ j: Int, _ k: Int, _ s: UnsafeMutablePointer<SIMD2<Double>>, _ n: Int) {
        guard normalizable(i, j, k) else { run1(i, s, n); run1(j, s, n); run1(k, s, n); return }
        var p = 1.0
        let ci = NormalizedBand(bands[i].current, &p), cj = NormalizedBand(bands[j].current, &p), ck = NormalizedBand(bands[k].current, &p)
        var (s1i, s2i) = ci.load(s, i), (s1j, s2j) = cj.load(s, j), (s1k, s2k) = ck.load(s, k)
        let g = SIMD2(repeating: p)
        let buf = scratch
        for t in 0 ..< n {
            buf[t] = ck.tick(cj.tick(ci.tick(buf[t], &s1i, &s2i), &s1j, &s2j), &s1k, &s2k) * g
        }
        ci.store(s, i, s1i, s2i); cj.store(s, j, s1j, s2j); ck.store(s, k, s1k, s2k)
    }

    @inline(__always)
    private func run4(_ i: Int, _ j: Int, _ k: Int, _ l: Int, _ s: UnsafeMutablePointer<SIMD2<Double>>, _ n: Int) {
        guard normalizable(i, j, k, l) else {
            run2(i, j, s, n); run2(k, l, s, n); return
        }
        var p = 1.0
        let ci = NormalizedBand(bands[i].current, &p), cj = NormalizedBand(bands[j].current, &p)
        let ck = NormalizedBand(bands[k].current, &p), cl = NormalizedBand(bands[l].current, &p)
        var (s1i, s2i) = ci.load(s, i), (s1j, s2j) = cj.load(s, j), (s1k, s2k) = ck.load(s, k), (s1l, s2l) = cl.load(s, l)
        let g = SIMD2(repeating: p)
        let buf = scratch
        for t in 0 ..< n {
            let a = ci.tick(buf[t], &s1i, &s2i)
            let b = cj.tick(a, &s1j, &s2j)
            let c = ck.tick(b, &s1k, &s2k)
            buf[t] = cl.tick(c, &s1l, &s2l) * g
        }
        ci.store(s, i, s1i, s2i); cj.store(s, j, s1j, s2j); ck.store(s, k, s1k, s2k); cl.store(s, l, s1l, s2l)
    }

    @inline(__always)
    private func run5(_ i: Int, _ j: Int, _ k: Int, _ l: Int, _ m: Int, _ s: UnsafeMutablePointer<SIMD2<Double>>, _ n: Int) {
        guard normalizable(i, j, k, l, m) else {
            run2(i, j, s, n); run3(k, l, m, s, n); return
        }
        var p = 1.0
        let ci = NormalizedBand(bands[i].current, &p), cj = NormalizedBand(bands[j].current, &p), ck = NormalizedBand(bands[k].current, &p)
        let cl = NormalizedBand(bands[l].current, &p), cm = NormalizedBand(bands[m].current, &p)
        var (s1i, s2i) = ci.load(s, i), (s1j, s2j) = cj.load(s, j), (s1k, s2k) = ck.load(s, k)
        var (s1l, s2l) = cl.load(s, l), (s1m, s2m) = cm.load(s, m)
        let g = SIMD2(repeating: p)
        let buf = scratch
        for t in 0 ..< n {
            let a = ci.tick(buf[t], &s1i, &s2i)
            let b = cj.tick(a, &s1j, &s2j)
            let c = ck.tick(b, &s1k, &s2k)
            let d = cl.tick(c, &s1l, &s2l)
            buf[t] = cm.tick(d, &s1m, &s2m) * g
        }
        ci.store(s, i, s1i, s2i); cj.store(s, j, s1j, s2j); ck.store(s, k, s1k, s2k)
        cl.store(s, l, s1l, s2l); cm.store(s, m, s1m, s2m)
    }

    // Gliding path: every band, coefficients stepping sample by sample through the segment.

    /// Frames until the next glide ends (segments end there, so a short ramp is not stretched).
    private func shortestGlide() -> Int {
        var m = Int.max
        for i in 0 ..< bandCount where bands[i].gliding {
            let b = bands[i]
            if b.logFrequency.isActive { m = min(m, b.logFrequency.length - b.logFrequency.elapsed) }
            if b.gainDB.isActive { m = min(m, b.gainDB.length - b.gainDB.elapsed) }
            if b.logBandwidth.isActive { m = min(m, b.logBandwidth.length - b.logBandwidth.elapsed) }
            if b.morph.isActive { m = min(m, b.morph.length - b.morph.elapsed) }
        }
        return max(1, m)
    }

    private func beginSegment(_ n: Int) {
        for i in 0 ..< bandCount where bands[i].gliding {
            bands[i].logFrequency.advance(n)
            bands[i].gainDB.advance(n)
            bands[i].logBandwidth.advance(n)
            bands[i].morph.advance(n)
            let target = design(i)
            let c = bands[i].current, d = 1 / Double(n)
            bands[i].segmentTarget = target
            bands[i].step = BiquadCoefficients(b0: (target.b0 - c.b0) * d, b1: (target.b1 - c.b1) * d, b2: (target.b2 - c.b2) * d,
                                               a1: (target.a1 - c.a1) * d, a2: (target.a2 - c.a2) * d)
        }
    }

    private func endSegment() {
        for i in 0 ..< bandCount where bands[i].gliding {
            bands[i].current = bands[i].segmentTarget
            if !bands[i].isGliding {
                bands[i].gliding = false
                glidingCount -= 1
            }
        }
        if glidingCount == 0 { rebuildActiveList() }
    }

    private func runGliding(pair: Int, _ n: Int) {
        let s = state + pair * bandCount * 2
        for i in 0 ..< bandCount {
            let b = bands[i]
            if !b.gliding {
                if !b.bypass { run1(i, s, n) }
                continue
            }
            var c = b.current
            let d = b.step
            var s1 = s[2 * i], s2 = s[2 * i + 1]
            for t in 0 ..< n {
                if t + 1 == n {
                    c = b.segmentTarget
                } else {
                    c.b0 += d.b0; c.b1 += d.b1; c.b2 += d.b2; c.a1 += d.a1; c.a2 += d.a2
                }
                let x = scratch[t]
                let y = c.b0 * x + s1
                s1 = c.b1 * x - c.a1 * y + s2
                s2 = c.b2 * x - c.a2 * y
                scratch[t] = y
            }
            s[2 * i] = s1; s[2 * i + 1] = s2
        }
    }
}
