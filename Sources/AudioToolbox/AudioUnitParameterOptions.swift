// A parameter's unit of measurement and its option flags, with Apple's raw values
// (AudioToolbox's AudioUnitProperties.h: `AudioUnitParameterUnit`, `AudioUnitParameterOptions`).
//
// Apple declares both as C enums (CF_ENUM / CF_OPTIONS), which Swift imports as an enum with cases
// (`.hertz`) and an option set with members (`.flag_CanRamp`); the C names
// (`kAudioUnitParameterUnit_Hertz`, `kAudioUnitParameterFlag_CanRamp`) are not available to Swift
// code on Apple platforms, so they are not declared here either.

/// The unit of measurement of a parameter's value.
public enum AudioUnitParameterUnit: UInt32, Sendable {
    /// Untyped value, generally between 0 and 1.
    case generic = 0
    /// An integer index (menu selections); see `AUParameter.valueStrings`.
    case indexed = 1
    /// 0 is false, anything else true.
    case boolean = 2
    /// Usually 0 … 100, sometimes −50 … 50.
    case percent = 3
    /// Absolute or relative time.
    case seconds = 4
    /// One sample frame is 1 / sample rate seconds.
    case sampleFrames = 5
    /// −180 … 180 degrees.
    case phase = 6
    /// A rate multiplier (2: twice as fast).
    case rate = 7
    /// Absolute frequency, cycles per second.
    case hertz = 8
    /// Relative pitch, 1/100 semitone.
    case cents = 9
    /// Relative pitch in semitones.
    case relativeSemiTones = 10
    /// Absolute pitch as defined by MIDI.
    case midiNoteNumber = 11
    /// A MIDI controller value, 0 … 127.
    case midiController = 12
    /// Logarithmic relative gain.
    case decibels = 13
    /// Linear relative gain.
    case linearGain = 14
    /// −180 … 180 degrees (3D coordinates).
    case degrees = 15
    /// 0 … 100, crossfading two sources by sqrt(x) and sqrt(1 − x).
    case equalPowerCrossfade = 16
    /// 0 … 1, pow(x, 3) gives the linear gain of a mixer fader.
    case mixerFaderCurve1 = 17
    /// Left-to-right mixer pan.
    case pan = 18
    /// Distance in meters.
    case meters = 19
    /// Absolute pitch: 1200 × log2(f / 440) + 6900.
    case absoluteCents = 20
    /// Relative pitch in octaves (1 = 1200 cents).
    case octaves = 21
    /// Tempo, beats per minute.
    case BPM = 22
    /// Time in beats of the current tempo.
    case beats = 23
    /// Time in milliseconds.
    case milliseconds = 24
    /// A ratio (compression, expansion).
    case ratio = 25
    /// A unit named by `AUParameter.unitName`.
    case customUnit = 26
    /// A 32-bit MIDI 2.0 controller value.
    case midi2Controller = 27
}

/// Characteristics of a parameter: how hosts should display, store and automate it.
///
/// Bits 16 … 18 (`flag_DisplayMask` with bit 22) hold a display scale, one of the values
/// `flag_DisplaySquareRoot` … `flag_DisplayExponential` or `flag_DisplayLogarithmic`; read it as
/// `flags.intersection(.flag_DisplayMask)`.
public struct AudioUnitParameterOptions: OptionSet, Hashable, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// The host must release `cfNameString` of the v2 parameter info.
    public static let flag_CFNameRelease = AudioUnitParameterOptions(rawValue: 1 << 4)
    /// Not saved in presets.
    public static let flag_OmitFromPresets = AudioUnitParameterOptions(rawValue: 1 << 13)
    /// A host may plot the parameter's history (a meter).
    public static let flag_PlotHistory = AudioUnitParameterOptions(rawValue: 1 << 14)
    /// A read-only meter.
    public static let flag_MeterReadOnly = AudioUnitParameterOptions(rawValue: 1 << 15)

    /// The bits that hold the display scale (bits 16 … 18 and the logarithmic bit 22).
    public static let flag_DisplayMask = AudioUnitParameterOptions(rawValue: (7 << 16) | (1 << 22))
    public static let flag_DisplaySquareRoot = AudioUnitParameterOptions(rawValue: 1 << 16)
    public static let flag_DisplaySquared = AudioUnitParameterOptions(rawValue: 2 << 16)
    public static let flag_DisplayCubed = AudioUnitParameterOptions(rawValue: 3 << 16)
    public static let flag_DisplayCubeRoot = AudioUnitParameterOptions(rawValue: 4 << 16)
    public static let flag_DisplayExponential = AudioUnitParameterOptions(rawValue: 5 << 16)

    /// The v2 parameter info's `clumpID` groups it with others.
    public static let flag_HasClump = AudioUnitParameterOptions(rawValue: 1 << 20)
    /// The unit converts values to strings (`AUParameter.string(fromValue:)`).
    public static let flag_ValuesHaveStrings = AudioUnitParameterOptions(rawValue: 1 << 21)
    /// Display on a logarithmic scale.
    public static let flag_DisplayLogarithmic = AudioUnitParameterOptions(rawValue: 1 << 22)
    /// Changes are applied with high resolution (a host should not quantize them).
    public static let flag_IsHighResolution = AudioUnitParameterOptions(rawValue: 1 << 23)
    /// Changing the value is not real-time safe (hosts should not automate it while rendering).
    public static let flag_NonRealTime = AudioUnitParameterOptions(rawValue: 1 << 24)
    /// The unit can ramp the value (`scheduleParameterBlock` with a ramp duration).
    public static let flag_CanRamp = AudioUnitParameterOptions(rawValue: 1 << 25)
    /// For experts: a host may hide it in a simple view.
    public static let flag_ExpertMode = AudioUnitParameterOptions(rawValue: 1 << 26)
    /// The v2 parameter info carries its name as a CFString.
    public static let flag_HasCFNameString = AudioUnitParameterOptions(rawValue: 1 << 27)
    /// Changing it changes other parameters of the global scope.
    public static let flag_IsGlobalMeta = AudioUnitParameterOptions(rawValue: 1 << 28)
    /// Changing it changes other parameters of the same element.
    public static let flag_IsElementMeta = AudioUnitParameterOptions(rawValue: 1 << 29)
    /// The value can be read.
    public static let flag_IsReadable = AudioUnitParameterOptions(rawValue: 1 << 30)
    /// The value can be written.
    public static let flag_IsWritable = AudioUnitParameterOptions(rawValue: 1 << 31)
}
