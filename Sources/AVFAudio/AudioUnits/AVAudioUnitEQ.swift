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
// octaves, gain in dB — over the event's ramp, or over `EqualizerProcessor.defaultRampFrames` (128) when
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

// The kernel (EQKernel.swift) binds the parameters to AudioKernels' EqualizerProcessor
// (Sources/AudioKernels/Effects/EqualizerProcessor.swift), where the biquads are designed and run.
