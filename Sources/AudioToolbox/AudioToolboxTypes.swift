// The AudioToolbox types AVAudioUnit's API names: component descriptions, parameter values,
// parameter units and the constants that identify Apple's built-in units.

public typealias OSType = UInt32
// `AUValue`, `AUParameterAddress`: AUParameters.swift.
public typealias AUAudioFrameCount = UInt32
public typealias AudioUnitParameterID = UInt32
public typealias AudioUnitScope = UInt32
public typealias AudioUnitElement = UInt32

/// A sample time on an audio unit's render timeline (AUAudioUnit.h).
public typealias AUEventSampleTime = Int64

/// A MIDI event delivered to a MIDI tap (`connectMIDI(...block:)`): sample time, cable, length,
/// bytes; returns noErr.
public typealias AUMIDIOutputEventBlock = (_ eventSampleTime: AUEventSampleTime, _ cable: UInt8, _ length: Int,
                                           _ midiBytes: UnsafePointer<UInt8>) -> OSStatus

/// Schedule a parameter change at the start of the next render cycle (plus an offset added to it).
public let AUEventSampleTimeImmediate: AUEventSampleTime = AUEventSampleTime(bitPattern: 0xFFFF_FFFF_0000_0000)

/// Identifies an audio unit: type, subtype and manufacturer four-character codes.
public struct AudioComponentDescription: Equatable, Hashable, Sendable {
    public var componentType: OSType
    public var componentSubType: OSType
    public var componentManufacturer: OSType
    public var componentFlags: UInt32
    public var componentFlagsMask: UInt32

    public init() {
        componentType = 0; componentSubType = 0; componentManufacturer = 0; componentFlags = 0; componentFlagsMask = 0
    }

    public init(componentType: OSType, componentSubType: OSType, componentManufacturer: OSType,
                componentFlags: UInt32, componentFlagsMask: UInt32) {
        self.componentType = componentType
        self.componentSubType = componentSubType
        self.componentManufacturer = componentManufacturer
        self.componentFlags = componentFlags
        self.componentFlagsMask = componentFlagsMask
    }
}

// `AudioUnitParameterUnit` and `AudioUnitParameterOptions`: AudioUnitParameterOptions.swift.

// MARK: Scopes (AUComponent.h)

/// The scope of a v2 audio unit's properties and parameters.
public let kAudioUnitScope_Global: AudioUnitScope = 0
public let kAudioUnitScope_Input: AudioUnitScope = 1
public let kAudioUnitScope_Output: AudioUnitScope = 2
public let kAudioUnitScope_Group: AudioUnitScope = 3
public let kAudioUnitScope_Part: AudioUnitScope = 4
public let kAudioUnitScope_Note: AudioUnitScope = 5
public let kAudioUnitScope_Layer: AudioUnitScope = 6
public let kAudioUnitScope_LayerItem: AudioUnitScope = 7

// MARK: Component types, subtypes, manufacturer

public let kAudioUnitType_Output: OSType = 0x6175_6F75            // 'auou'
public let kAudioUnitType_MusicDevice: OSType = 0x6175_6D75       // 'aumu'
public let kAudioUnitType_MusicEffect: OSType = 0x61756D66        // 'aumf'
public let kAudioUnitType_FormatConverter: OSType = 0x6175_6663   // 'aufc'
public let kAudioUnitType_Effect: OSType = 0x6175_6678            // 'aufx'
public let kAudioUnitType_Mixer: OSType = 0x6175_6D78             // 'aumx'
public let kAudioUnitType_Panner: OSType = 0x6175_706E            // 'aupn'
public let kAudioUnitType_Generator: OSType = 0x6175_676E         // 'augn'
public let kAudioUnitType_OfflineEffect: OSType = 0x6175_6F6C     // 'auol'
public let kAudioUnitType_MIDIProcessor: OSType = 0x6175_6D69     // 'aumi'

public let kAudioUnitManufacturer_Apple: OSType = 0x6170_706C     // 'appl'

public let kAudioUnitSubType_NBandEQ: OSType = 0x6E62_6571         // 'nbeq'
public let kAudioUnitSubType_Delay: OSType = 0x6465_6C79           // 'dely'
public let kAudioUnitSubType_SampleDelay: OSType = 0x7364_6C79     // 'sdly'
public let kAudioUnitSubType_Distortion: OSType = 0x6469_7374      // 'dist'
public let kAudioUnitSubType_Reverb2: OSType = 0x7276_6232         // 'rvb2'
public let kAudioUnitSubType_MatrixReverb: OSType = 0x6D72_6576    // 'mrev'
public let kAudioUnitSubType_NewTimePitch: OSType = 0x6E75_7470    // 'nutp'
public let kAudioUnitSubType_TimePitch: OSType = 0x746D_7074       // 'tmpt'
public let kAudioUnitSubType_Varispeed: OSType = 0x7661_7269       // 'vari'
public let kAudioUnitSubType_PeakLimiter: OSType = 0x6C6D_7472     // 'lmtr'
public let kAudioUnitSubType_DynamicsProcessor: OSType = 0x6463_6D70 // 'dcmp'
public let kAudioUnitSubType_LowPassFilter: OSType = 0x6C70_6173   // 'lpas'
public let kAudioUnitSubType_HighPassFilter: OSType = 0x6870_6173  // 'hpas'
public let kAudioUnitSubType_BandPassFilter: OSType = 0x6270_6173  // 'bpas'
public let kAudioUnitSubType_HighShelfFilter: OSType = 0x6873_6866 // 'hshf'
public let kAudioUnitSubType_LowShelfFilter: OSType = 0x6C73_6866  // 'lshf'
public let kAudioUnitSubType_ParametricEQ: OSType = 0x706D_6571     // 'pmeq'
public let kAudioUnitSubType_GraphicEQ: OSType = 0x6772_6571       // 'greq'
public let kAudioUnitSubType_MultiBandCompressor: OSType = 0x6D63_6D70 // 'mcmp'
public let kAudioUnitSubType_Sampler: OSType = 0x7361_6D70         // 'samp'
public let kAudioUnitSubType_MIDISynth: OSType = 0x6D73_796E       // 'msyn'
public let kAudioUnitSubType_AUConverter: OSType = 0x636F_6E76     // 'conv'
public let kAudioUnitSubType_MultiChannelMixer: OSType = 0x6D63_6D78 // 'mcmx'
public let kAudioUnitSubType_SpatialMixer: OSType = 0x3364_656D    // '3dem'
public let kAudioUnitSubType_GenericOutput: OSType = 0x6765_6E72   // 'genr'
public let kAudioUnitSubType_ScheduledSoundPlayer: OSType = 0x7373_706C // 'sspl'
public let kAudioUnitSubType_AudioFilePlayer: OSType = 0x6166_706C // 'afpl'

// MARK: Sampler banks

public let kAUSampler_DefaultPercussionBankMSB: Int = 0x78
public let kAUSampler_DefaultMelodicBankMSB: Int = 0x79
public let kAUSampler_DefaultBankLSB: Int = 0x00
