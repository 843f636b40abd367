// AudioToolbox-level types of the v3 audio-unit render contract (AUAudioUnit.h, AUComponent.h,
// AudioComponent.h): the block typealiases a unit renders through, the host callbacks it may
// call, instantiation options and bus types. The C structs (`AURenderEvent` and its members,
// `AURenderEventType`, `AudioUnitRenderActionFlags`, `MIDIEventList`) are in CCoreAudioTypes'
// AURenderEvent.h, where C guarantees Apple's layout.
//

/// Schedules a parameter change at a sample time (`AUAudioUnit.scheduleParameterBlock`).
public typealias AUScheduleParameterBlock = (_ eventSampleTime: AUEventSampleTime, _ rampDurationSampleFrames: AUAudioFrameCount,
                                             _ parameterAddress: AUParameterAddress, _ value: AUValue) -> Void

/// A number of audio channels.
public typealias AUAudioChannelCount = UInt32

/// The result code of a render block (`noErr` on success).
public typealias AUAudioUnitStatus = OSStatus

/// An audio component instance (opaque in Apple's SDK: a pointer to an opaque struct). Here it
/// is the address of the `AUAudioUnit` behind it; clients only pass it around.
public typealias AudioComponentInstance = OpaquePointer
/// A v2 audio unit handle (`AVAudioUnit.audioUnit`).
public typealias AudioUnit = AudioComponentInstance

/// Block an audio unit calls to get its input: renders `frameCount` frames of input bus
/// `inputBusNumber` into `inputData` (whose `mData` pointers may be nil: the host then points
/// them at its own memory).
public typealias AURenderPullInputBlock = (_ actionFlags: UnsafeMutablePointer<AudioUnitRenderActionFlags>,
                                           _ timestamp: UnsafePointer<AudioTimeStamp>,
                                           _ frameCount: AUAudioFrameCount,
                                           _ inputBusNumber: Int,
                                           _ inputData: UnsafeMutablePointer<AudioBufferList>) -> AUAudioUnitStatus

/// What hosts call to render an audio unit's output bus `outputBusNumber`.
public typealias AURenderBlock = (_ actionFlags: UnsafeMutablePointer<AudioUnitRenderActionFlags>,
                                  _ timestamp: UnsafePointer<AudioTimeStamp>,
                                  _ frameCount: AUAudioFrameCount,
                                  _ outputBusNumber: Int,
                                  _ outputData: UnsafeMutablePointer<AudioBufferList>,
                                  _ pullInputBlock: AURenderPullInputBlock?) -> AUAudioUnitStatus

/// What a unit implements (`AUAudioUnit.internalRenderBlock`): as `AURenderBlock`, plus the
/// events due in this cycle as a linked list in time order (`realtimeEventListHead`, nil when none).
public typealias AUInternalRenderBlock = (_ actionFlags: UnsafeMutablePointer<AudioUnitRenderActionFlags>,
                                          _ timestamp: UnsafePointer<AudioTimeStamp>,
                                          _ frameCount: AUAudioFrameCount,
                                          _ outputBusNumber: Int,
                                          _ outputData: UnsafeMutablePointer<AudioBufferList>,
                                          _ realtimeEventListHead: UnsafePointer<AURenderEvent>?,
                                          _ pullInputBlock: AURenderPullInputBlock?) -> AUAudioUnitStatus

/// Called before and after each render (`AUAudioUnit.token(byAddingRenderObserver:)`).
public typealias AURenderObserver = (_ actionFlags: AudioUnitRenderActionFlags, _ timestamp: UnsafePointer<AudioTimeStamp>,
                                     _ frameCount: AUAudioFrameCount, _ outputBusNumber: Int) -> Void

/// Schedules a MIDI 1.0 message (`length` bytes at `midiBytes`) at a sample time, for `cable`.
public typealias AUScheduleMIDIEventBlock = (_ eventSampleTime: AUEventSampleTime, _ cable: UInt8, _ length: Int,
                                             _ midiBytes: UnsafePointer<UInt8>) -> Void

/// Schedules (or sends) a MIDI event list — Universal MIDI Packets — at a sample time, for `cable`.
public typealias AUMIDIEventListBlock = (_ eventSampleTime: AUEventSampleTime, _ cable: UInt8,
                                         _ eventList: UnsafePointer<MIDIEventList>) -> OSStatus

/// The host's tempo, time signature and beat position, asked at the start of a render cycle.
/// Any pointer may be nil (not wanted). Returns false when the host cannot tell.
public typealias AUHostMusicalContextBlock = (_ currentTempo: UnsafeMutablePointer<Double>?,
                                              _ timeSignatureNumerator: UnsafeMutablePointer<Double>?,
                                              _ timeSignatureDenominator: UnsafeMutablePointer<Int>?,
                                              _ currentBeatPosition: UnsafeMutablePointer<Double>?,
                                              _ sampleOffsetToNextBeat: UnsafeMutablePointer<Int>?,
                                              _ currentMeasureDownbeatPosition: UnsafeMutablePointer<Double>?) -> Bool

/// The host's transport state (AUAudioUnit.h `AUHostTransportStateFlags`).
public struct AUHostTransportStateFlags: OptionSet, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    /// The transport started, stopped or moved since the last call.
    public static let changed = AUHostTransportStateFlags(rawValue: 1)
    /// The transport is moving.
    public static let moving = AUHostTransportStateFlags(rawValue: 2)
    /// The host is recording (or armed to).
    public static let recording = AUHostTransportStateFlags(rawValue: 4)
    /// The host is cycling (looping).
    public static let cycling = AUHostTransportStateFlags(rawValue: 8)
}

/// The host's transport: flags, current sample position, cycle start and end beat positions.
public typealias AUHostTransportStateBlock = (_ transportStateFlags: UnsafeMutablePointer<AUHostTransportStateFlags>?,
                                              _ currentSamplePosition: UnsafeMutablePointer<Double>?,
                                              _ cycleStartBeatPosition: UnsafeMutablePointer<Double>?,
                                              _ cycleEndBeatPosition: UnsafeMutablePointer<Double>?) -> Bool

/// How to instantiate a component (AudioComponent.h). Everything is in process here.
public struct AudioComponentInstantiationOptions: OptionSet, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public static let loadOutOfProcess = AudioComponentInstantiationOptions(rawValue: 1)
    public static let loadInProcess = AudioComponentInstantiationOptions(rawValue: 2)
    public static let loadedRemotely = AudioComponentInstantiationOptions(rawValue: 1 << 31)
}

/// Flags of an audio component (AudioComponent.h), in `AudioComponentDescription.componentFlags`.
public struct AudioComponentFlags: OptionSet, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    /// Found only by a specific search (type, subtype and manufacturer all non-zero), never by a
    /// wildcard one.
    public static let unsearchable = AudioComponentFlags(rawValue: 1)
    public static let sandboxSafe = AudioComponentFlags(rawValue: 2)
    public static let isV3AudioUnit = AudioComponentFlags(rawValue: 4)
    public static let requiresAsyncInstantiation = AudioComponentFlags(rawValue: 8)
    public static let canLoadInProcess = AudioComponentFlags(rawValue: 0x10)
}

/// Whether a bus array holds input or output busses.
public enum AUAudioUnitBusType: Int, Sendable {
    case input = 1
    case output = 2
}

// MARK: Error codes of audio units (AUComponent.h; FailedInitialization, FormatNotSupported and
// InvalidPropertyValue are in AudioToolboxErrors.swift)

public let kAudioUnitErr_InvalidProperty: OSStatus = -10879
public let kAudioUnitErr_InvalidParameter: OSStatus = -10878
public let kAudioUnitErr_InvalidElement: OSStatus = -10877
public let kAudioUnitErr_NoConnection: OSStatus = -10876
public let kAudioUnitErr_TooManyFramesToProcess: OSStatus = -10874
public let kAudioUnitErr_InvalidFile: OSStatus = -10871
public let kAudioUnitErr_Uninitialized: OSStatus = -10867
public let kAudioUnitErr_InvalidScope: OSStatus = -10866
public let kAudioUnitErr_PropertyNotWritable: OSStatus = -10865
public let kAudioUnitErr_CannotDoInCurrentContext: OSStatus = -10863
public let kAudioUnitErr_PropertyNotInUse: OSStatus = -10850
public let kAudioUnitErr_Initialized: OSStatus = -10849
public let kAudioUnitErr_InvalidOfflineRender: OSStatus = -10848
public let kAudioUnitErr_Unauthorized: OSStatus = -10847
public let kAudioComponentErr_InstanceInvalidated: OSStatus = -66749
public let kAudioComponentErr_DuplicateDescription: OSStatus = -66752
public let kAudioComponentErr_UnsupportedType: OSStatus = -66751
public let kAudioComponentErr_TooManyInstances: OSStatus = -66750
public let kAudioComponentErr_NotPermitted: OSStatus = -66748
public let kAudioComponentErr_InitializationTimedOut: OSStatus = -66747
public let kAudioComponentErr_InvalidFormat: OSStatus = -66746

// MARK: Preset dictionary keys (AudioUnitProperties.h: the keys of an .aupreset property list)

public let kAUPresetVersionKey = "version"
public let kAUPresetTypeKey = "type"
public let kAUPresetSubtypeKey = "subtype"
public let kAUPresetManufacturerKey = "manufacturer"
public let kAUPresetDataKey = "data"
public let kAUPresetNameKey = "name"
public let kAUPresetNumberKey = "preset-number"
public let kAUPresetRenderQualityKey = "render-quality"
public let kAUPresetCPULoadKey = "cpu-load"
public let kAUPresetElementNameKey = "element-name"
public let kAUPresetExternalFileRefs = "file-references"
public let kAUPresetVSTDataKey = "vstdata"
public let kAUPresetVSTPresetKey = "vstpreset"
public let kAUPresetMASDataKey = "masdata"
public let kAUPresetPartKey = "part"
