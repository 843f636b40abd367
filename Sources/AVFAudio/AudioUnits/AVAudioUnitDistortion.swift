// AVAudioUnitDistortion: Apple's multistage distortion (AUDistortion, 'aufx'/'dist') with its
// factory presets. The DSP is DistortionKernel (see DistortionKernel.swift for the chain, the
// 4× oversampled clipper and the latency).
//
// Parameters (auAudioUnit.parameterTree): Apple's AUDistortion IDs, ranges and defaults —
//
//    0 delay (ms) 0.1…500, 0.1        1 decay (rate) 0.1…50, 1      2 delayMix (%) 0…100, 50
//    3 decimation (%) 0…100, 50       4 rounding (%) 0…100, 0       5 decimationMix (%) 0…100, 50
//    6 linearTerm 0…1, 1              7 squaredTerm 0…20, 0         8 cubicTerm 0…20, 0
//    9 polynomialMix (%) 0…100, 50   10 ringModFreq1 (Hz) 0.5…8000  11 ringModFreq2 (Hz) 0.5…8000
//   12 ringModBalance (%) 0…100, 50  13 ringModMix (%) 0…100, 0
//   14 softClipGain (dB) −80…20, −6 = `preGain`      15 finalMix (%) 0…100, 50 = `wetDryMix`
//
// — and this project's colour filters: 100 lowCut (Hz) 10…20000, 101 highCut (Hz) 10…20000
// (2nd-order Butterworth high- and low-pass on the wet signal; 10 Hz / 20 kHz are "open").
//
// A new unit holds `.drumsBitBrush` (Apple's documented default) with preGain −6 dB and
// wetDryMix 50 %. `loadFactoryPreset` sets every parameter except the wet/dry mix.

/// The factory presets of `AVAudioUnitDistortion`. Each one is a setting of the chain — pre-gain,
/// ring modulator, polynomial waveshaper + soft clip (4× oversampled), decimator/bit reduction,
/// echo, band-limiting colour — named for what it does:
///
/// | preset                   | character                                                        |
/// |--------------------------|------------------------------------------------------------------|
/// | drumsBitBrush            | 4-bit crush, mild rate reduction (11 kHz), 40 Hz–12 kHz           |
/// | drumsBufferBeats         | 62 ms stutter echo over a cubic drive                             |
/// | drumsLoFi                | 3.6 kHz sample rate, 8-bit, band-limited to 90 Hz–6 kHz           |
/// | multiBrokenSpeaker       | +12 dB into a cubic clipper, 420 Hz–3.4 kHz cone                  |
/// | multiCellphoneConcert    | narrow 550 Hz–3.8 kHz band, crushed to 7 bits                     |
/// | multiDecimated1 … 4      | rate reduction to 4.9, 2.8, 1.8, 1.0 kHz; 8, 6, 5, 3 bits         |
/// | multiDistortedFunk       | even+odd drive through a 1.6 ms resonant comb and a 60 Hz wobble  |
/// | multiDistortedCubed      | the heavy waveshaper: 16·x³ into the soft clip, full band         |
/// | multiDistortedSquared    | square law (14·x²): even harmonics, full band                     |
/// | multiEcho1 / multiEcho2  | 180 ms / 330 ms echoes over light drive                           |
/// | multiEchoTight1 / 2      | 28 ms / 14 ms slap-back combs                                     |
/// | multiEverythingIsBroken  | every stage at once                                               |
/// | speechAlienChatter       | ring modulation at 420 Hz and 2.1 kHz                             |
/// | speechCosmicInterference | 37 Hz / 1.5 kHz ring modulation into an 8 ms comb, 10-bit         |
/// | speechGoldenPi           | ring modulation at 161.8 Hz and 314.159 Hz (φ and π)              |
/// | speechRadioTower         | 600 Hz–3 kHz radio band, driven and crushed, 50 Hz hum            |
/// | speechWaves              | slow (0.7 / 1.3 Hz) ring modulation: amplitude waves, 40 ms echo  |
public enum AVAudioUnitDistortionPreset: Int, Sendable, CaseIterable {
    case drumsBitBrush = 0
    case drumsBufferBeats = 1
    case drumsLoFi = 2
    case multiBrokenSpeaker = 3
    case multiCellphoneConcert = 4
    case multiDecimated1 = 5
    case multiDecimated2 = 6
    case multiDecimated3 = 7
    case multiDecimated4 = 8
    case multiDistortedFunk = 9
    case multiDistortedCubed = 10
    case multiDistortedSquared = 11
    case multiEcho1 = 12
    case multiEcho2 = 13
    case multiEchoTight1 = 14
    case multiEchoTight2 = 15
    case multiEverythingIsBroken = 16
    case speechAlienChatter = 17
    case speechCosmicInterference = 18
    case speechGoldenPi = 19
    case speechRadioTower = 20
    case speechWaves = 21

    /// The preset's values of parameters 0…14 (Apple's IDs; finalMix excluded), then lowCut and
    /// highCut (addresses 100, 101).
    var values: [Float] {
        //         delay  decay  dMix  decim round dcMix  lin    sq    cu   pMix  ring1   ring2   bal  rMix  preGain lowCut highCut
        switch self {
        case .drumsBitBrush:            return [0.1, 1, 0, 35, 80, 100, 1, 0, 0, 0, 100, 100, 50, 0, -6, 40, 12_000]
        case .drumsBufferBeats:         return [62, 1.5, 55, 0, 0, 0, 1, 0, 3, 60, 100, 100, 50, 0, 0, 60, 16_000]
        case .drumsLoFi:                return [0.1, 1, 0, 62, 55, 100, 1, 2, 2, 50, 100, 100, 50, 0, -3, 90, 6_000]
        case .multiBrokenSpeaker:       return [0.1, 1, 0, 0, 0, 0, 1, 3, 10, 100, 100, 100, 50, 0, 12, 420, 3_400]
        case .multiCellphoneConcert:    return [0.1, 1, 0, 28, 60, 70, 1, 0, 2, 50, 100, 100, 50, 0, 3, 550, 3_800]
        case .multiDecimated1:          return [0.1, 1, 0, 55, 55, 100, 1, 0, 0, 0, 100, 100, 50, 0, 3, 10, 20_000]
        case .multiDecimated2:          return [0.1, 1, 0, 68, 65, 100, 1, 0, 0, 0, 100, 100, 50, 0, 0, 10, 20_000]
        case .multiDecimated3:          return [0.1, 1, 0, 80, 74, 100, 1, 0, 2, 40, 100, 100, 50, 0, 3, 10, 20_000]
        case .multiDecimated4:          return [0.1, 1, 0, 92, 85, 100, 1, 0, 4, 60, 100, 100, 50, 0, 6, 10, 20_000]
        case .multiDistortedFunk:       return [1.6, 3.5, 40, 0, 0, 0, 1, 4, 6, 80, 60, 60, 50, 15, 6, 80, 9_000]
        case .multiDistortedCubed:      return [0.1, 1, 0, 0, 0, 0, 1, 0, 16, 100, 100, 100, 50, 0, 6, 10, 20_000]
        case .multiDistortedSquared:    return [0.1, 1, 0, 0, 0, 0, 0.6, 14, 0, 100, 100, 100, 50, 0, 8, 30, 20_000]
        case .multiEcho1:               return [180, 1.2, 60, 0, 0, 0, 1, 0, 2, 40, 100, 100, 50, 0, 0, 10, 20_000]
        case .multiEcho2:               return [330, 0.6, 70, 0, 0, 0, 1, 0, 0, 0, 100, 100, 50, 0, -3, 120, 8_000]
        case .multiEchoTight1:          return [28, 4, 50, 0, 0, 0, 1, 0, 4, 60, 100, 100, 50, 0, 2, 10, 20_000]
        case .multiEchoTight2:          return [14, 6, 60, 0, 25, 50, 1, 0, 0, 0, 100, 100, 50, 0, 0, 10, 20_000]
        case .multiEverythingIsBroken:  return [90, 2, 40, 70, 70, 80, 1, 5, 12, 100, 330, 1_200, 40, 50, 14, 200, 7_000]
        case .speechAlienChatter:       return [0.1, 1, 0, 20, 0, 50, 1, 0, 0, 0, 420, 2_100, 30, 100, 0, 150, 8_000]
        case .speechCosmicInterference: return [8, 8, 40, 0, 40, 60, 1, 0, 0, 0, 37, 1_500, 50, 70, 3, 10, 20_000]
        case .speechGoldenPi:           return [0.1, 1, 0, 0, 0, 0, 1, 0, 3, 40, 161.8, 314.159, 50, 60, 0, 10, 20_000]
        case .speechRadioTower:         return [0.1, 1, 0, 15, 55, 60, 1, 0, 6, 80, 50, 50, 50, 8, 8, 600, 3_000]
        case .speechWaves:              return [40, 3, 30, 0, 0, 0, 1, 0, 0, 0, 0.7, 1.3, 50, 100, 0, 10, 20_000]
        }
    }

    /// The addresses `values` sets, in order.
    static let addresses: [AUParameterAddress] = Array(0 ... 14) + [DistortionKernel.lowCut, DistortionKernel.highCut]
}

/// An audio unit that implements a multistage distortion effect.
open class AVAudioUnitDistortion: AVAudioUnitEffect {
    /// Creates a distortion holding `.drumsBitBrush`, preGain −6 dB, wetDryMix 50 %.
    public init() {
        let parts = AVAudioUnitDistortion.parts()
        super.init(description: AVAudioUnitDistortion.componentDescription, kernelFactory: parts.kernel, parameters: parts.parameters)
    }

    /// Configures the unit as one of the factory presets (every parameter but the wet/dry mix).
    open func loadFactoryPreset(_ preset: AVAudioUnitDistortionPreset) {
        let v = preset.values
        for (i, a) in AVAudioUnitDistortionPreset.addresses.enumerated() { setParameterValue(a, v[i]) }
    }

    /// The gain applied before the distortion, in dB. Range −80 … 20; default −6.
    open var preGain: Float {
        get { parameterValue(DistortionKernel.softClipGain) }
        set { setParameterValue(DistortionKernel.softClipGain, newValue) }
    }

    /// The blend of the distorted and dry signals, in percent: 0 all dry. Range 0 … 100; default 50.
    open var wetDryMix: Float {
        get { parameterValue(DistortionKernel.finalMix) }
        set { setParameterValue(DistortionKernel.finalMix, newValue) }
    }

    open override var name: String { "AUDistortion" }

    static let componentDescription = AudioComponentDescription(
        componentType: kAudioUnitType_Effect, componentSubType: kAudioUnitSubType_Distortion,
        componentManufacturer: kAudioUnitManufacturer_Apple, componentFlags: 0, componentFlagsMask: 0)

    /// The parameters (Apple's AUDistortion IDs and ranges, then the colour filters; values of
    /// `.drumsBitBrush` with preGain −6 dB and mix 50 %) and the kernel factory.
    static func parts() -> BuiltInUnits.EffectParts {
        let v = AVAudioUnitDistortionPreset.drumsBitBrush.values
        func p(_ id: String, _ name: String, _ address: AUParameterAddress, _ min: AUValue, _ max: AUValue,
               _ unit: AudioUnitParameterUnit, _ value: AUValue) -> AUParameter {
            AVAudioUnit.parameter(id, name, address: address, min: min, max: max, unit: unit, value: value)
        }
        let parameters = [
            p("delay", "Delay", DistortionKernel.delay, 0.1, 500, .milliseconds, v[0]),
            p("decay", "Decay", DistortionKernel.decay, 0.1, 50, .rate, v[1]),
            p("delayMix", "Delay Mix", DistortionKernel.delayMix, 0, 100, .percent, v[2]),
            p("decimation", "Decimation", DistortionKernel.decimation, 0, 100, .percent, v[3]),
            p("rounding", "Rounding", DistortionKernel.rounding, 0, 100, .percent, v[4]),
            p("decimationMix", "Decimation Mix", DistortionKernel.decimationMix, 0, 100, .percent, v[5]),
            p("linearTerm", "Linear Term", DistortionKernel.linearTerm, 0, 1, .linearGain, v[6]),
            p("squaredTerm", "Squared Term", DistortionKernel.squaredTerm, 0, 20, .linearGain, v[7]),
            p("cubicTerm", "Cubic Term", DistortionKernel.cubicTerm, 0, 20, .linearGain, v[8]),
            p("polynomialMix", "Polynomial Mix", DistortionKernel.polynomialMix, 0, 100, .percent, v[9]),
            p("ringModFreq1", "Ring Mod Freq1", DistortionKernel.ringModFreq1, 0.5, 8000, .hertz, v[10]),
            p("ringModFreq2", "Ring Mod Freq2", DistortionKernel.ringModFreq2, 0.5, 8000, .hertz, v[11]),
            p("ringModBalance", "Ring Mod Balance", DistortionKernel.ringModBalance, 0, 100, .percent, v[12]),
            p("ringModMix", "Ring Mod Mix", DistortionKernel.ringModMix, 0, 100, .percent, v[13]),
            p("softClipGain", "Soft Clip Gain", DistortionKernel.softClipGain, -80, 20, .decibels, -6),
            p("finalMix", "Final Mix", DistortionKernel.finalMix, 0, 100, .percent, 50),
            p("lowCut", "Low Cut", DistortionKernel.lowCut, 10, 20_000, .hertz, v[15]),
            p("highCut", "High Cut", DistortionKernel.highCut, 10, 20_000, .hertz, v[16]),
        ]
        let captured = parameters
        let factory: EffectKernelFactory = { rate, channels, frames in
            let k = DistortionKernel(sampleRate: rate, channels: channels, maximumFrames: frames)
            for p in captured { k.setInitialParameter(p.address, p.value) }
            return k
        }
        return (factory, parameters)
    }
}
