// AVAudioUnitEQ: Apple's multi-band equalizer (AUNBandEQ, 'aufx'/'nbeq'), and the kernel that
// runs it.
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
// octaves, gain in dB — over the event's ramp, or over `EQKernel.defaultRampFrames` (128) when
// it has none; a change of filter type or bypass crossfades the coefficients from the old
// filter to the new one over the same time. Coefficients are recomputed from the gliding
// parameters every 32 samples and interpolated linearly sample by sample in between.
// Interpolating between two stable biquads stays stable: the set of stable (a1, a2) is the
// "stability triangle", a convex set. 128 samples (2.7 ms at 48 kHz) is short enough that a
// change scheduled at sample T is complete at T + 128 — sooner than the ear separates two
// events — and long enough that the largest change (−96 → +24 dB) moves by under 1 dB per
// sample; the transient of a linear ramp of length L falls off above fs/L (375 Hz at 48 kHz),
// where the step of an unramped change would spray energy up to Nyquist.

/// The filter shape of an equalizer band.
public enum AVAudioUnitEQFilterType: Int, Sendable {
    /// Peaking filter: `frequency` (center), `bandwidth`, `gain`.
    case parametric = 0
    /// 2nd-order Butterworth low-pass: `frequency` (−3 dB cutoff).
    case lowPass = 1
    /// 2nd-order Butterworth high-pass: `frequency` (−3 dB cutoff).
    case highPass = 2
    /// Low-pass with resonance: `frequency`, `bandwidth`.
    case resonantLowPass = 3
    /// High-pass with resonance: `frequency`, `bandwidth`.
    case resonantHighPass = 4
    /// Band-pass: `frequency` (center), `bandwidth`.
    case bandPass = 5
    /// Band-stop (notch): `frequency` (center), `bandwidth`.
    case bandStop = 6
    /// Low shelf: `frequency`, `gain`.
    case lowShelf = 7
    /// High shelf: `frequency`, `gain`.
    case highShelf = 8
    /// Low shelf with resonance: `frequency`, `bandwidth`, `gain`.
    case resonantLowShelf = 9
    /// High shelf with resonance: `frequency`, `bandwidth`, `gain`.
    case resonantHighShelf = 10
}

/// The parameters of one band of an `AVAudioUnitEQ` (only the unit's `bands` vends them).
open class AVAudioUnitEQFilterParameters: NSObject {
    let bypassParameter: AUParameter
    let filterTypeParameter: AUParameter
    let frequencyParameter: AUParameter
    let gainParameter: AUParameter
    let bandwidthParameter: AUParameter
    weak var unit: AVAudioUnitEQ?

    init(parameters p: [AUParameter]) {
        (bypassParameter, filterTypeParameter, frequencyParameter, gainParameter, bandwidthParameter) = (p[0], p[1], p[2], p[3], p[4])
        super.init()
    }

    /// The filter shape. Default: `.parametric`.
    open var filterType: AVAudioUnitEQFilterType {
        get { AVAudioUnitEQFilterType(rawValue: Int(filterTypeParameter.value)) ?? .parametric }
        set { filterTypeParameter.value = AUValue(newValue.rawValue) }
    }

    /// Frequency in hertz: center, cutoff or shelf midpoint. Range 20 Hz … sample rate / 2,
    /// default 1000 (AUNBandEQ's defaults, AudioUnitParameters.h).
    open var frequency: Float {
        get { frequencyParameter.value }
        set {
            let nyquist = Float((unit?.parameterSampleRate ?? 44_100) / 2)
            frequencyParameter.value = Swift.min(Swift.max(newValue.isNaN ? 20 : newValue, 20), nyquist)
        }
    }

    /// Bandwidth in octaves. Range 0.05 … 5, default 0.5.
    open var bandwidth: Float {
        get { bandwidthParameter.value }
        set { bandwidthParameter.value = newValue }
    }

    /// Gain in dB. Range −96 … 24, default 0.
    open var gain: Float {
        get { gainParameter.value }
        set { gainParameter.value = newValue }
    }

    /// Whether the band is bypassed. Default: true (as Apple's: set it false to hear the band).
    open var bypass: Bool {
        get { bypassParameter.value != 0 }
        set { bypassParameter.value = newValue ? 1 : 0 }
    }
}

/// A multi-band equalizer.
open class AVAudioUnitEQ: AVAudioUnitEffect {
    /// The bands, one per `numberOfBands`.
    public let bands: [AVAudioUnitEQFilterParameters]
    private let globalGainParameter: AUParameter

    /// Creates an equalizer with `numberOfBands` bands (all bypassed, parametric, 0 dB).
    public init(numberOfBands: Int) {
        precondition(numberOfBands >= 0 && numberOfBands <= EQKernel.maximumBands,
                     "AVAudioUnitEQ(numberOfBands: \(numberOfBands)): the number of bands must be 0…\(EQKernel.maximumBands)")
        let parts = AVAudioUnitEQ.parts(numberOfBands: numberOfBands)
        globalGainParameter = parts.parameters[0]
        bands = (0 ..< numberOfBands).map { i in
            AVAudioUnitEQFilterParameters(parameters: (0 ..< 5).map { parts.parameters[1 + 5 * i + $0] })
        }
        super.init(description: AVAudioUnitEQ.componentDescription, kernelFactory: parts.kernel, parameters: parts.parameters)
        for b in bands { b.unit = self }
    }

    /// Creates a one-band equalizer.
    public convenience init() { self.init(numberOfBands: 1) }

    /// Overall gain in dB applied after the bands. Range −96 … 24, default 0.
    open var globalGain: Float {
        get { globalGainParameter.value }
        set { globalGainParameter.value = newValue }
    }

    open override var name: String { "AUNBandEQ" }

    /// The sample rate the frequency range refers to (the node's format).
    var parameterSampleRate: Double { outputFormats.first?.sampleRate ?? 44_100 }

    static let componentDescription = AudioComponentDescription(
        componentType: kAudioUnitType_Effect, componentSubType: kAudioUnitSubType_NBandEQ,
        componentManufacturer: kAudioUnitManufacturer_Apple, componentFlags: 0, componentFlagsMask: 0)

    // Apple's parameter IDs (AudioUnitParameters.h).
    static let globalGainAddress: AUParameterAddress = 0
    static let bypassBandAddress: AUParameterAddress = 1000
    static let filterTypeAddress: AUParameterAddress = 2000
    static let frequencyAddress: AUParameterAddress = 3000
    static let gainAddress: AUParameterAddress = 4000
    static let bandwidthAddress: AUParameterAddress = 5000

    /// The parameters (global gain, then per band: bypass, type, frequency, gain, bandwidth) and
    /// the kernel factory of an equalizer with `numberOfBands` bands.
    static func parts(numberOfBands n: Int) -> BuiltInUnits.EffectParts {
        var parameters = [AVAudioUnit.parameter("globalGain", "Global Gain", address: globalGainAddress, min: -96, max: 24, unit: .decibels, value: 0)]
        for i in 0 ..< n {
            let b = AUParameterAddress(i)
            let types = ["Parametric", "2nd Order Butterworth LP", "2nd Order Butterworth HP", "Resonant LP", "Resonant HP",
                         "Bandpass", "Bandstop", "Low Shelf", "High Shelf", "Resonant Low Shelf", "Resonant High Shelf"]
            parameters += [
                AVAudioUnit.parameter("bypassBand\(i)", "Bypass Band \(i)", address: bypassBandAddress + b, min: 0, max: 1, unit: .boolean, value: 1),
                AUParameter(identifier: "filterType\(i)", name: "Filter Type \(i)", address: filterTypeAddress + b, min: 0, max: 10,
                            unit: .indexed, unitName: nil, flags: [.flag_IsReadable, .flag_IsWritable],
                            valueStrings: types, dependentParameters: nil, value: 0),
                // The range's top is Nyquist of the highest supported rate; the kernel (and
                // `frequency`) clamp to Nyquist of the actual rate.
                AVAudioUnit.parameter("frequency\(i)", "Frequency \(i)", address: frequencyAddress + b, min: 20, max: 96_000, unit: .hertz, value: 1000),
                AVAudioUnit.parameter("gain\(i)", "Gain \(i)", address: gainAddress + b, min: -96, max: 24, unit: .decibels, value: 0),
                AVAudioUnit.parameter("bandwidth\(i)", "Bandwidth \(i)", address: bandwidthAddress + b, min: 0.05, max: 5, unit: .octaves, value: 0.5),
            ]
        }
        let captured = parameters
        let factory: EffectKernelFactory = { rate, channels, frames in
            let k = EQKernel(sampleRate: rate, channels: channels, maximumFrames: frames, bandCount: n)
            for p in captured { k.setInitialParameter(p.address, p.value) }
            k.finishInitialParameters()
            return k
        }
        return (factory, parameters)
    }
}

// MARK: - Kernel

/// Biquad coefficients normalized to a0 = 1: y = b0·x + b1·x₁ + b2·x₂ − a1·y₁ − a2·y₂.
struct BiquadCoefficients: Equatable {
    var b0 = 1.0, b1 = 0.0, b2 = 0.0, a1 = 0.0, a2 = 0.0

    static let identity = BiquadCoefficients()

    @inline(__always)
    static func lerp(_ a: BiquadCoefficients, _ b: BiquadCoefficients, _ t: Double) -> BiquadCoefficients {
        BiquadCoefficients(b0: a.b0 + (b.b0 - a.b0) * t, b1: a.b1 + (b.b1 - a.b1) * t, b2: a.b2 + (b.b2 - a.b2) * t,
                           a1: a.a1 + (b.a1 - a.a1) * t, a2: a.a2 + (b.a2 - a.a2) * t)
    }

    /// The cookbook biquad of an AVAudioUnitEQFilterType raw value (Float64 throughout).
    static func design(type: Int, frequency: Double, gainDB: Double, bandwidth: Double, sampleRate: Double) -> BiquadCoefficients {
        let f = min(max(frequency, 1), 0.499 * sampleRate)
        let bw = min(max(bandwidth, 0.05), 5)
        let w0 = 2 * Double.pi * f / sampleRate
        let c = cos(w0), s = sin(w0)
        let A = pow(10, gainDB / 40)
        let alphaBW = s * sinh(0.693_147_180_559_945_3 / 2 * bw * w0 / s)
        let alphaButterworth = s / 2.squareRoot()
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
            let q = 2 * A.squareRoot() * alpha
            b0 = A * ((A + 1) - (A - 1) * c + q); b1 = 2 * A * ((A - 1) - (A + 1) * c); b2 = A * ((A + 1) - (A - 1) * c - q)
            a0 = (A + 1) + (A - 1) * c + q; a1 = -2 * ((A - 1) + (A + 1) * c); a2 = (A + 1) + (A - 1) * c - q
        case 8, 10:  // high shelf
            let alpha = type == 8 ? alphaButterworth : alphaBW
            let q = 2 * A.squareRoot() * alpha
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

/// A value gliding linearly from `from` to `to` over `length` frames.
struct LinearRamp {
    var from: Double
    var to: Double
    var length = 0
    var elapsed = 0

    init(_ value: Double) { from = value; to = value }

    var isActive: Bool { elapsed < length }
    var current: Double { elapsed >= length ? to : from + (to - from) * (Double(elapsed) / Double(length)) }

    /// Starts gliding from the current value to `target` over `frames` frames (0: jump).
    mutating func start(to target: Double, frames: Int) {
        from = frames > 0 ? current : target
        to = target
        length = frames
        elapsed = 0
    }

    mutating func advance(_ frames: Int) { elapsed = min(length, elapsed + frames) }
}

/// The DSP of AVAudioUnitEQ: a cascade of Float64 TDF-II biquads per channel pair, then the
/// global gain. `process` and `setParameter` allocate nothing.
final class EQKernel: EffectKernel {
    static let maximumBands = 1000
    /// Frames over which an unramped parameter change glides (see the file header).
    static let defaultRampFrames = 128
    /// During glides, coefficients are recomputed every `segmentFrames` and interpolated between.
    static let segmentFrames = 32
    /// Frames processed per pass when nothing glides (the SIMD2 scratch stays in L1).
    static let blockFrames = 256

    /// One band's settings and glides (control values at the render side).
    struct Band {
        var type = 0
        var bypass = true
        var logFrequency: LinearRamp      // log2 Hz
        var gainDB: LinearRamp
        var logBandwidth: LinearRamp      // log2 octaves
        /// Crossfade after a type or bypass change: from `morphFrom` to the live design.
        var morphFrom = BiquadCoefficients.identity
        var morph = LinearRamp(1)
        /// Coefficients in use at the last processed sample, and their per-sample step in the
        /// current segment.
        var current = BiquadCoefficients.identity
        var step = BiquadCoefficients(b0: 0)
        var segmentTarget = BiquadCoefficients.identity
        var gliding = false

        init() {
            logFrequency = LinearRamp(log2(1000.0))
            gainDB = LinearRamp(0)
            logBandwidth = LinearRamp(log2(0.5))
        }

        var isGliding: Bool { logFrequency.isActive || gainDB.isActive || logBandwidth.isActive || morph.isActive }
    }

    let sampleRate: Double
    let channelCapacity: Int
    let bandCount: Int
    private let bands: UnsafeMutablePointer<Band>
    /// Filter state: [pair][band] → (s1, s2), each a SIMD2 of the pair's two channels.
    private let state: UnsafeMutablePointer<SIMD2<Double>>
    private let scratch: UnsafeMutablePointer<SIMD2<Double>>
    /// Indices of the non-bypassed bands (valid while nothing glides).
    private let active: UnsafeMutablePointer<Int>
    private var activeCount = 0
    private var glidingCount = 0
    private var gain: LinearRamp          // linear global gain

    init(sampleRate: Double, channels: Int, maximumFrames: Int, bandCount: Int) {
        self.sampleRate = sampleRate
        channelCapacity = max(1, channels)
        self.bandCount = bandCount
        bands = .allocate(capacity: max(1, bandCount))
        bands.initialize(repeating: Band(), count: max(1, bandCount))
        let pairs = (channelCapacity + 1) / 2
        state = .allocate(capacity: max(1, pairs * bandCount * 2))
        state.initialize(repeating: .zero, count: max(1, pairs * bandCount * 2))
        scratch = .allocate(capacity: Self.blockFrames)
        scratch.initialize(repeating: .zero, count: Self.blockFrames)
        active = .allocate(capacity: max(1, bandCount))
        active.initialize(repeating: 0, count: max(1, bandCount))
        gain = LinearRamp(1)
        super.init()
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
    func setInitialParameter(_ address: AUParameterAddress, _ value: AUValue) {
        apply(address, Double(value), frames: 0)
    }

    /// Control side: settle every band on its design after the initial values.
    func finishInitialParameters() {
        for i in 0 ..< bandCount {
            bands[i].morph = LinearRamp(1)
            bands[i].current = design(i)
            bands[i].gliding = false
        }
        glidingCount = 0
        rebuildActiveList()
    }

    override func setParameter(_ address: AUParameterAddress, _ value: AUValue, rampFrames: Int) {
        apply(address, Double(value), frames: rampFrames > 0 ? rampFrames : Self.defaultRampFrames)
    }

    private func apply(_ address: AUParameterAddress, _ value: Double, frames: Int) {
        if address == AVAudioUnitEQ.globalGainAddress {
            gain.start(to: pow(10, min(max(value, -96), 24) / 20), frames: frames)
            return
        }
        let kind = address / 1000, index = Int(address % 1000)
        guard index < bandCount, kind >= 1, kind <= 5 else { return }
        let band = bands + index
        switch kind {
        case 1, 2:
            let bypass = kind == 1 ? value >= 0.5 : band.pointee.bypass
            let type = kind == 2 ? Int(min(max(value, 0), 10).rounded()) : band.pointee.type
            guard bypass != band.pointee.bypass || type != band.pointee.type else { return }
            band.pointee.morphFrom = band.pointee.current
            band.pointee.bypass = bypass
            band.pointee.type = type
            band.pointee.morph = LinearRamp(0)
            band.pointee.morph.start(to: 1, frames: frames)
        case 3: band.pointee.logFrequency.start(to: log2(min(max(value, 1), 0.499 * sampleRate)), frames: frames)
        case 4: band.pointee.gainDB.start(to: min(max(value, -96), 24), frames: frames)
        default: band.pointee.logBandwidth.start(to: log2(min(max(value, 0.05), 5)), frames: frames)
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
            : BiquadCoefficients.design(type: b.type, frequency: exp2(b.logFrequency.current), gainDB: b.gainDB.current,
                                        bandwidth: exp2(b.logBandwidth.current), sampleRate: sampleRate)
        return b.morph.isActive ? BiquadCoefficients.lerp(b.morphFrom, live, b.morph.current) : live
    }

    private func rebuildActiveList() {
        activeCount = 0
        for i in 0 ..< bandCount where !bands[i].bypass {
            active[activeCount] = i
            activeCount += 1
        }
    }

    override func reset() {
        let pairs = (channelCapacity + 1) / 2
        state.update(repeating: .zero, count: max(1, pairs * bandCount * 2))
    }

    override var latencyFrames: Int { 0 }

    // MARK: processing

    override func process(input: UnsafePointer<UnsafeMutablePointer<Float>>, output: UnsafePointer<UnsafeMutablePointer<Float>>,
                          channels: Int, frames: Int) {
        let channels = min(channels, channelCapacity)
        var done = 0
        while done < frames {
            let gliding = glidingCount > 0
            let n = min(frames - done, gliding ? min(Self.segmentFrames, shortestGlide()) : Self.blockFrames)
            if gliding { beginSegment(n) }
            var c = 0
            while c < channels {
                let pair = c / 2
                let stereo = c + 1 < channels
                load(input[c] + done, stereo ? input[c + 1] + done : nil, n)
                if gliding { runGliding(pair: pair, n) } else { runStatic(pair: pair, n) }
                store(output[c] + done, stereo ? output[c + 1] + done : nil, n)
                flushDenormals(pair: pair)
                c += 2
            }
            if gliding { endSegment() }
            gain.advance(n)
            done += n
        }
    }

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

    @inline(__always)
    private func run2(_ i: Int, _ j: Int, _ s: UnsafeMutablePointer<SIMD2<Double>>, _ n: Int) {
        guard normalizable(i) && normalizable(j) else { run1(i, s, n); run1(j, s, n); return }
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
        guard normalizable(i) && normalizable(j) && normalizable(k) else { run1(i, s, n); run1(j, s, n); run1(k, s, n); return }
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
        guard normalizable(i) && normalizable(j) && normalizable(k) && normalizable(l) else {
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
        guard normalizable(i) && normalizable(j) && normalizable(k) && normalizable(l) && normalizable(m) else {
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
