// AVAudioUnitReverb: Apple's reverb (AUReverb2, 'aufx'/'rvb2') with its factory presets. The
// DSP is ReverbKernel (a 16-line feedback delay network; see ReverbKernel.swift).
//
// Parameters (auAudioUnit.parameterTree), Apple's AUReverb2 IDs, ranges and defaults:
//
//   0 kReverb2Param_DryWetMix            %        0 … 100      100   = `wetDryMix`
//   1 kReverb2Param_Gain                 dB     −20 … 20         0   wet level
//   2 kReverb2Param_MinDelayTime         s   0.0001 … 1      0.008   first reflection, pre-delay of the tail
//   3 kReverb2Param_MaxDelayTime         s   0.0001 … 1      0.050   last reflection; sets the room size
//   4 kReverb2Param_DecayTimeAt0Hz       s    0.001 … 20       1.0   RT60 at low frequencies
//   5 kReverb2Param_DecayTimeAtNyquist   s    0.001 … 20       0.5   RT60 at Nyquist
//   6 kReverb2Param_RandomizeReflections      1 … 1000         1   seed of the reflection pattern
//
// A new unit holds `.mediumHall` (Apple's documented default). `loadFactoryPreset` sets
// parameters 2…6; it leaves the wet/dry mix and the gain as they are.

/// The factory presets of `AVAudioUnitReverb`.
///
/// What each preset sets, and what it measures: the wet impulse response at 48 kHz (6 s, left
/// channel; `avaudio-bench fx-reverb --quality`, the same figures as the peers'
/// `audiometrics.rt60` on the written files). RT60 by Schroeder backward integration from the
/// peak: T20 and T30 extrapolate the −5…−25 dB and −5…−35 dB parts of the energy decay curve to
/// −60 dB, EDT the 0…−10 dB part; "T20 1 kHz" is T20 of the 1 kHz octave band, which follows
/// the 0 Hz decay time — the broadband figures are shorter because the high frequencies, which
/// carry most of a flat impulse's energy, die sooner:
///
/// | preset        | delays (ms) | decay 0 Hz / Nyquist (s) | T20 (s) | T30 (s) | EDT (s) | T20 1 kHz (s) |
/// |---------------|-------------|--------------------------|---------|---------|---------|---------------|
/// | smallRoom     |   2 … 16    | 0.45 / 0.22              | 0.40    | 0.40    | 0.41    | 0.44          |
/// | mediumRoom    |   4 … 26    | 0.75 / 0.35              | 0.63    | 0.66    | 0.61    | 0.75          |
/// | largeRoom     |   7 … 38    | 1.10 / 0.50              | 0.94    | 0.97    | 0.86    | 1.11          |
/// | largeRoom2    |   9 … 45    | 1.40 / 0.60              | 1.22    | 1.26    | 1.10    | 1.39          |
/// | mediumChamber |   5 … 35    | 1.30 / 0.90              | 1.15    | 1.17    | 1.14    | 1.28          |
/// | largeChamber  |   7 … 48    | 1.80 / 1.20              | 1.57    | 1.62    | 1.54    | 1.83          |
/// | mediumHall    |  12 … 60    | 1.90 / 0.80              | 1.63    | 1.68    | 1.41    | 1.84          |
/// | mediumHall2   |  14 … 64    | 2.10 / 1.00              | 1.82    | 1.87    | 1.65    | 2.07          |
/// | mediumHall3   |  10 … 70    | 2.30 / 0.90              | 1.97    | 2.03    | 1.67    | 2.26          |
/// | largeHall     |  16 … 85    | 2.80 / 1.20              | 2.38    | 2.47    | 2.06    | 2.83          |
/// | largeHall2    |  20 … 95    | 3.30 / 1.50              | 2.82    | 2.91    | 2.44    | 3.34          |
/// | plate         | 0.5 … 22    | 1.60 / 1.40              | 1.50    | 1.51    | 1.52    | 1.57          |
/// | cathedral     |  30 … 130   | 5.50 / 2.20              | 4.70    | 4.87    | 4.06    | 5.54          |
///
/// ("delays": the minimum and maximum delay time — first reflection and pre-delay of the tail,
/// last reflection and room size.) Rooms decay fastest, halls slower, the cathedral slowest; the
/// plate has almost no pre-delay and the flattest, brightest decay; chambers are brighter than
/// rooms and halls of similar size. No metallic ringing, for every preset: the normalized echo
/// density (Abel & Huang, 20 ms windows) averages 0.97…1.02 over 30…300 ms after the onset and
/// never falls below 0.80 there; the tail's spectrum (100…600 ms, 1/12-octave bands 200 Hz…8 kHz,
/// minus its quadratic trend) deviates 1.4…2.0 dB rms; left and right tails are decorrelated
/// (|correlation| ≤ 0.03 from 50 ms on).
public enum AVAudioUnitReverbPreset: Int, Sendable, CaseIterable {
    case smallRoom = 0
    case mediumRoom = 1
    case largeRoom = 2
    case mediumHall = 3
    case largeHall = 4
    case plate = 5
    case mediumChamber = 6
    case largeChamber = 7
    case cathedral = 8
    case largeRoom2 = 9
    case mediumHall2 = 10
    case mediumHall3 = 11
    case largeHall2 = 12

    /// The Reverb2 parameters of the preset: minimum and maximum delay time (s), decay time at
    /// 0 Hz and at Nyquist (s), reflection seed.
    var parameters: (minDelay: Float, maxDelay: Float, decay0Hz: Float, decayNyquist: Float, seed: Float) {
        switch self {
        case .smallRoom: return (0.002, 0.016, 0.45, 0.22, 1)
        case .mediumRoom: return (0.004, 0.026, 0.75, 0.35, 1)
        case .largeRoom: return (0.007, 0.038, 1.10, 0.50, 1)
        case .largeRoom2: return (0.009, 0.045, 1.40, 0.60, 7)
        case .mediumChamber: return (0.005, 0.035, 1.30, 0.90, 17)
        case .largeChamber: return (0.007, 0.048, 1.80, 1.20, 19)
        case .mediumHall: return (0.012, 0.060, 1.90, 0.80, 1)
        case .mediumHall2: return (0.014, 0.064, 2.10, 1.00, 5)
        case .mediumHall3: return (0.010, 0.070, 2.30, 0.90, 11)
        case .largeHall: return (0.016, 0.085, 2.80, 1.20, 1)
        case .largeHall2: return (0.020, 0.095, 3.30, 1.50, 13)
        case .plate: return (0.0005, 0.022, 1.60, 1.40, 3)
        case .cathedral: return (0.030, 0.130, 5.50, 2.20, 23)
        }
    }
}

/// An audio unit that implements a reverb effect.
open class AVAudioUnitReverb: AVAudioUnitEffect {
    /// Creates a reverb holding the `.mediumHall` preset, fully wet (Reverb2's default mix).
    public init() {
        let parts = AVAudioUnitReverb.parts()
        super.init(description: AVAudioUnitReverb.componentDescription, kernelFactory: parts.kernel, parameters: parts.parameters)
    }

    /// Configures the unit as one of the factory presets (the room parameters; the wet/dry mix
    /// is kept).
    open func loadFactoryPreset(_ preset: AVAudioUnitReverbPreset) {
        let p = preset.parameters
        setParameterValue(ReverbKernel.minDelayTime, p.minDelay)
        setParameterValue(ReverbKernel.maxDelayTime, p.maxDelay)
        setParameterValue(ReverbKernel.decayTimeAt0Hz, p.decay0Hz)
        setParameterValue(ReverbKernel.decayTimeAtNyquist, p.decayNyquist)
        setParameterValue(ReverbKernel.randomizeReflections, p.seed)
    }

    /// The blend of the wet and dry signals, in percent: 0 all dry, 100 all wet. Range 0 … 100;
    /// default 100.
    open var wetDryMix: Float {
        get { parameterValue(ReverbKernel.dryWetMix) }
        set { setParameterValue(ReverbKernel.dryWetMix, newValue) }
    }

    open override var name: String { "AUReverb2" }

    static let componentDescription = AudioComponentDescription(
        componentType: kAudioUnitType_Effect, componentSubType: kAudioUnitSubType_Reverb2,
        componentManufacturer: kAudioUnitManufacturer_Apple, componentFlags: 0, componentFlagsMask: 0)

    /// The parameters (Apple's Reverb2 IDs; values of the `.mediumHall` preset) and the kernel
    /// factory of a reverb.
    static func parts() -> BuiltInUnits.EffectParts {
        let m = AVAudioUnitReverbPreset.mediumHall.parameters
        let parameters = [
            AVAudioUnit.parameter("dryWetMix", "Dry Wet Mix", address: ReverbKernel.dryWetMix, min: 0, max: 100, unit: .percent, value: 100),
            AVAudioUnit.parameter("gain", "Gain", address: ReverbKernel.gain, min: -20, max: 20, unit: .decibels, value: 0),
            AVAudioUnit.parameter("minDelayTime", "Min Delay Time", address: ReverbKernel.minDelayTime, min: 0.0001, max: 1, unit: .seconds, value: m.minDelay),
            AVAudioUnit.parameter("maxDelayTime", "Max Delay Time", address: ReverbKernel.maxDelayTime, min: 0.0001, max: 1, unit: .seconds, value: m.maxDelay),
            AVAudioUnit.parameter("decayTimeAt0Hz", "Decay Time At 0 Hz", address: ReverbKernel.decayTimeAt0Hz, min: 0.001, max: 20, unit: .seconds, value: m.decay0Hz),
            AVAudioUnit.parameter("decayTimeAtNyquist", "Decay Time At Nyquist", address: ReverbKernel.decayTimeAtNyquist, min: 0.001, max: 20, unit: .seconds, value: m.decayNyquist),
            AUParameter(identifier: "randomizeReflections", name: "Randomize Reflections", address: ReverbKernel.randomizeReflections,
                        min: 1, max: 1000, unit: .generic, unitName: nil, flags: [.flag_IsReadable, .flag_IsWritable],
                        valueStrings: nil, dependentParameters: nil, value: m.seed),
        ]
        let captured = parameters
        let factory: EffectKernelFactory = { rate, channels, frames in
            let k = ReverbKernel(sampleRate: rate, channels: channels, maximumFrames: frames)
            for p in captured { k.setInitialParameter(p.address, p.value) }
            return k
        }
        return (factory, parameters)
    }
}
