// Apple's parameter IDs of the built-in effect units (AudioToolbox's AudioUnitParameters.h), for
// code that schedules changes through `auAudioUnit` by address:
//
//     delay.auAudioUnit.scheduleParameterBlock(AUEventSampleTime(t), 0,
//                                              AUParameterAddress(kDelayParam_WetDryMix), 100)
//
// The values are Apple's; our units use the same addresses. The N-band EQ's per-band IDs are
// bases: band i is base + i.

// MARK: AUDelay (AVAudioUnitDelay)

/// Dry/wet mix, 0 … 100 %.
public let kDelayParam_WetDryMix: AudioUnitParameterID = 0
/// Delay time, 0 … 2 s.
public let kDelayParam_DelayTime: AudioUnitParameterID = 1
/// Feedback, −100 … 100 %.
public let kDelayParam_Feedback: AudioUnitParameterID = 2
/// Low-pass cut-off of the echoes, 10 Hz … Nyquist.
public let kDelayParam_LopassCutoff: AudioUnitParameterID = 3

// MARK: AUReverb2 (AVAudioUnitReverb)

public let kReverb2Param_DryWetMix: AudioUnitParameterID = 0
public let kReverb2Param_Gain: AudioUnitParameterID = 1
public let kReverb2Param_MinDelayTime: AudioUnitParameterID = 2
public let kReverb2Param_MaxDelayTime: AudioUnitParameterID = 3
public let kReverb2Param_DecayTimeAt0Hz: AudioUnitParameterID = 4
public let kReverb2Param_DecayTimeAtNyquist: AudioUnitParameterID = 5
public let kReverb2Param_RandomizeReflections: AudioUnitParameterID = 6

// MARK: AUDistortion (AVAudioUnitDistortion)

public let kDistortionParam_Delay: AudioUnitParameterID = 0
public let kDistortionParam_Decay: AudioUnitParameterID = 1
public let kDistortionParam_DelayMix: AudioUnitParameterID = 2
public let kDistortionParam_Decimation: AudioUnitParameterID = 3
public let kDistortionParam_Rounding: AudioUnitParameterID = 4
public let kDistortionParam_DecimationMix: AudioUnitParameterID = 5
public let kDistortionParam_LinearTerm: AudioUnitParameterID = 6
public let kDistortionParam_SquaredTerm: AudioUnitParameterID = 7
public let kDistortionParam_CubicTerm: AudioUnitParameterID = 8
public let kDistortionParam_PolynomialMix: AudioUnitParameterID = 9
public let kDistortionParam_RingModFreq1: AudioUnitParameterID = 10
public let kDistortionParam_RingModFreq2: AudioUnitParameterID = 11
public let kDistortionParam_RingModBalance: AudioUnitParameterID = 12
public let kDistortionParam_RingModMix: AudioUnitParameterID = 13
public let kDistortionParam_SoftClipGain: AudioUnitParameterID = 14
public let kDistortionParam_FinalMix: AudioUnitParameterID = 15

// MARK: AUNBandEQ (AVAudioUnitEQ)

/// Overall gain, −96 … 24 dB.
public let kAUNBandEQParam_GlobalGain: AudioUnitParameterID = 0
/// Band i's bypass (0 or 1) is at 1000 + i.
public let kAUNBandEQParam_BypassBand: AudioUnitParameterID = 1000
/// Band i's filter type (a `kAUNBandEQFilterType_*` value) is at 2000 + i.
public let kAUNBandEQParam_FilterType: AudioUnitParameterID = 2000
/// Band i's frequency in Hz is at 3000 + i.
public let kAUNBandEQParam_Frequency: AudioUnitParameterID = 3000
/// Band i's gain in dB is at 4000 + i.
public let kAUNBandEQParam_Gain: AudioUnitParameterID = 4000
/// Band i's bandwidth in octaves is at 5000 + i.
public let kAUNBandEQParam_Bandwidth: AudioUnitParameterID = 5000

/// Filter types of the N-band EQ (the raw values of `AVAudioUnitEQFilterType`).
public let kAUNBandEQFilterType_Parametric = 0
public let kAUNBandEQFilterType_2ndOrderButterworthLowPass = 1
public let kAUNBandEQFilterType_2ndOrderButterworthHighPass = 2
public let kAUNBandEQFilterType_ResonantLowPass = 3
public let kAUNBandEQFilterType_ResonantHighPass = 4
public let kAUNBandEQFilterType_BandPass = 5
public let kAUNBandEQFilterType_BandStop = 6
public let kAUNBandEQFilterType_LowShelf = 7
public let kAUNBandEQFilterType_HighShelf = 8
public let kAUNBandEQFilterType_ResonantLowShelf = 9
public let kAUNBandEQFilterType_ResonantHighShelf = 10
public let kNumberOfAUNBandEQFilterTypes = 11

// MARK: AUNewTimePitch (AVAudioUnitTimePitch)

/// Playback rate, 1/32 … 32.
public let kNewTimePitchParam_Rate: AudioUnitParameterID = 0
/// Pitch shift in cents, −2400 … 2400.
public let kNewTimePitchParam_Pitch: AudioUnitParameterID = 1
/// Overlap of the analysis windows ("smoothness"), 3 … 32.
public let kNewTimePitchParam_Smoothness: AudioUnitParameterID = 4
/// The older name of `kNewTimePitchParam_Smoothness` (deprecated by Apple in its 2022 SDKs).
public let kNewTimePitchParam_Overlap: AudioUnitParameterID = kNewTimePitchParam_Smoothness
/// Spectral phase coherence through peak locking, 0 or 1.
public let kNewTimePitchParam_EnableSpectralCoherence: AudioUnitParameterID = 6
/// The older name of `kNewTimePitchParam_EnableSpectralCoherence`.
public let kNewTimePitchParam_EnablePeakLocking: AudioUnitParameterID = kNewTimePitchParam_EnableSpectralCoherence
/// Transient preservation, 0 or 1.
public let kNewTimePitchParam_EnableTransientPreservation: AudioUnitParameterID = 7

// MARK: AUVarispeed (AVAudioUnitVarispeed)

/// Playback rate, 0.25 … 4.
public let kVarispeedParam_PlaybackRate: AudioUnitParameterID = 0
/// Playback rate in cents, −2400 … 2400.
public let kVarispeedParam_PlaybackCents: AudioUnitParameterID = 1
