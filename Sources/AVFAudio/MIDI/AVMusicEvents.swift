// The music events a track holds (AVMusicEvents.h, iOS 16 / macOS 13): MIDI channel messages,
// notes with durations, sysex, meta events, tempo, parameter and preset changes, user data.
//
// A track does not keep the objects it is given: `AVMusicTrack.addEvent(_:at:)` stores a copy
// and `enumerateEvents(in:using:)` hands out copies whose changes are written back (Apple: "the
// track will not hold references to AVMusicEvents that are added"). Each class therefore knows
// how to copy itself (`_copy()`), and the MIDI messages it plays as (`midiMessages`).
import Foundation

/// A fractional number of beats.
public typealias AVMusicTimeStamp = Double

/// A beat range within a music track: start and length, in beats.
public struct _AVBeatRange: Equatable, Sendable {
    public var start: AVMusicTimeStamp
    public var length: AVMusicTimeStamp
    public init() { start = 0; length = 0 }
    public init(start: AVMusicTimeStamp, length: AVMusicTimeStamp) { self.start = start; self.length = length }
}
/// A specific time range within a music track.
public typealias AVBeatRange = _AVBeatRange

/// Creates a beat range with the specified start time and length.
public func AVMakeBeatRange(_ startBeat: AVMusicTimeStamp, _ lengthInBeats: AVMusicTimeStamp) -> AVBeatRange {
    AVBeatRange(start: startBeat, length: lengthInBeats)
}

/// A length that reaches beyond the last event of any track (Apple: "an end time beyond the last
/// event in the track"; its value is `DBL_MAX` in the header, i.e. `Double.greatestFiniteMagnitude`).
public var AVMusicTimeStampEndOfTrack: Double { .greatestFiniteMagnitude }

/// A base class for the events you associate with a music track.
open class AVMusicEvent: NSObject {
    public override init() { super.init() }

    /// A copy with the same content (tracks store copies).
    func _copy() -> AVMusicEvent { AVMusicEvent() }
    /// The extra beats the event lasts (notes only).
    var _duration: AVMusicTimeStamp { 0 }
}

/// A base class for all MIDI messages that operate on a single MIDI channel.
open class AVMIDIChannelEvent: AVMusicEvent {
    /// The MIDI channel (0 … 15).
    open var channel: UInt32 = 0
    public override init() { super.init() }
    init(channel: UInt32) { self.channel = channel; super.init() }
}

/// An object that represents MIDI note on or off messages.
open class AVMIDINoteEvent: AVMusicEvent {
    /// The MIDI channel (0 … 15).
    open var channel: UInt32
    /// The MIDI key number (0 … 127).
    open var key: UInt32
    /// The MIDI velocity (0 … 127).
    open var velocity: UInt32
    /// The duration for the note, in beats.
    open var duration: AVMusicTimeStamp

    /// Creates an event with a MIDI channel, key number, velocity, and duration.
    public init(channel: UInt32, key keyNum: UInt32, velocity: UInt32, duration: AVMusicTimeStamp) {
        self.channel = channel; key = keyNum; self.velocity = velocity; self.duration = duration
        super.init()
    }
    override func _copy() -> AVMusicEvent { AVMIDINoteEvent(channel: channel, key: key, velocity: velocity, duration: duration) }
    override var _duration: AVMusicTimeStamp { max(0, duration) }
}

/// An object that represents a MIDI control change message.
open class AVMIDIControlChangeEvent: AVMIDIChannelEvent {
    /// Types of MIDI control change events (the controller numbers of the MIDI 1.0 specification).
    public enum MessageType: Int, @unchecked Sendable {
        case bankSelect = 0
        case modWheel = 1
        case breath = 2
        case foot = 4
        case portamentoTime = 5
        case dataEntry = 6
        case volume = 7
        case balance = 8
        case pan = 10
        case expression = 11
        case sustain = 64
        case portamento = 65
        case sostenuto = 66
        case soft = 67
        case legatoPedal = 68
        case hold2Pedal = 69
        case filterResonance = 71
        case releaseTime = 72
        case attackTime = 73
        case brightness = 74
        case decayTime = 75
        case vibratoRate = 76
        case vibratoDepth = 77
        case vibratoDelay = 78
        case reverbLevel = 91
        case chorusLevel = 93
        case RPN_LSB = 100
        case RPN_MSB = 101
        case allSoundOff = 120
        case resetAllControllers = 121
        case allNotesOff = 123
        case omniModeOff = 124
        case omniModeOn = 125
        case monoModeOn = 126
        case monoModeOff = 127
    }

    /// The type of control change message.
    open private(set) var messageType: MessageType
    /// The value of the control change event.
    open private(set) var value: UInt32
    /// The controller number as read from a file (controllers without a `MessageType` case, such
    /// as 32 for bank select LSB, are kept and played as they are).
    let controller: UInt8

    /// Creates an event with a channel, control change type, and a value.
    public init(channel: UInt32, messageType: MessageType, value: UInt32) {
        self.messageType = messageType
        self.value = value
        controller = UInt8(messageType.rawValue)
        super.init(channel: channel)
    }
    /// An event for any controller number (files carry all 128).
    init(channel: UInt32, controller: UInt8, value: UInt32) {
        messageType = MessageType(rawValue: Int(controller)) ?? .bankSelect
        self.value = value
        self.controller = controller
        super.init(channel: channel)
    }
    override func _copy() -> AVMusicEvent { AVMIDIControlChangeEvent(channel: channel, controller: controller, value: value) }
}

/// An object that represents a MIDI poly or key pressure event.
open class AVMIDIPolyPressureEvent: AVMIDIChannelEvent {
    /// The MIDI key number.
    open var key: UInt32
    /// The poly pressure value for the requested key.
    open var pressure: UInt32
    /// Creates an event with a channel, MIDI key number, and a key pressure value.
    public init(channel: UInt32, key: UInt32, pressure: UInt32) {
        self.key = key; self.pressure = pressure
        super.init(channel: channel)
    }
    override func _copy() -> AVMusicEvent { AVMIDIPolyPressureEvent(channel: channel, key: key, pressure: pressure) }
}

/// An object that represents a MIDI program or patch change message.
open class AVMIDIProgramChangeEvent: AVMIDIChannelEvent {
    /// The MIDI program number (0 … 127).
    open var programNumber: UInt32
    /// Creates a program change event with a channel and program number.
    public init(channel: UInt32, programNumber: UInt32) {
        self.programNumber = programNumber
        super.init(channel: channel)
    }
    override func _copy() -> AVMusicEvent { AVMIDIProgramChangeEvent(channel: channel, programNumber: programNumber) }
}

/// An object that represents a MIDI channel pressure message.
open class AVMIDIChannelPressureEvent: AVMIDIChannelEvent {
    /// The MIDI channel pressure.
    open var pressure: UInt32
    /// Creates a pressure event with a channel and pressure value.
    public init(channel: UInt32, pressure: UInt32) {
        self.pressure = pressure
        super.init(channel: channel)
    }
    override func _copy() -> AVMusicEvent { AVMIDIChannelPressureEvent(channel: channel, pressure: pressure) }
}

/// An object that represents a MIDI pitch bend message.
open class AVMIDIPitchBendEvent: AVMIDIChannelEvent {
    /// The value of the pitch bend event (0 … 16383, 8192 is the centre).
    open var value: UInt32
    /// Creates an event with a channel and pitch bend value.
    public init(channel: UInt32, value: UInt32) {
        self.value = value
        super.init(channel: channel)
    }
    override func _copy() -> AVMusicEvent { AVMIDIPitchBendEvent(channel: channel, value: value) }
}

/// An object that represents a MIDI system exclusive message.
open class AVMIDISysexEvent: AVMusicEvent {
    let data: Data
    /// The size of the data that this event contains.
    open var sizeInBytes: UInt32 { UInt32(data.count) }
    /// Creates a system event with the data you specify (the whole message, from F0 to F7).
    public init(data: Data) {
        self.data = data
        super.init()
    }
    override func _copy() -> AVMusicEvent { AVMIDISysexEvent(data: data) }
}

/// An object that represents MIDI meta event messages.
open class AVMIDIMetaEvent: AVMusicEvent {
    /// Constants that represent the types of meta events (the type bytes of SMF 1.0).
    public enum EventType: Int, @unchecked Sendable {
        case sequenceNumber = 0x00
        case text = 0x01
        case copyright = 0x02
        case trackName = 0x03
        case instrument = 0x04
        case lyric = 0x05
        case marker = 0x06
        case cuePoint = 0x07
        case midiChannel = 0x20
        case midiPort = 0x21
        case endOfTrack = 0x2F
        case tempo = 0x51
        case smpteOffset = 0x54
        case timeSignature = 0x58
        case keySignature = 0x59
        case proprietaryEvent = 0x7F
    }
    /// The type of meta event.
    open private(set) var type: EventType
    /// The type byte (meta types without an `EventType` case survive loading and writing).
    let typeByte: UInt8
    let data: Data

    /// Creates an event with a MIDI meta event type and data.
    public init(type: EventType, data: Data) {
        self.type = type
        typeByte = UInt8(type.rawValue)
        self.data = data
        super.init()
    }
    init(typeByte: UInt8, data: Data) {
        type = EventType(rawValue: Int(typeByte)) ?? .proprietaryEvent
        self.typeByte = typeByte
        self.data = data
        super.init()
    }
    override func _copy() -> AVMusicEvent { AVMIDIMetaEvent(typeByte: typeByte, data: data) }
}

/// An object that represents a custom user message.
open class AVMusicUserEvent: AVMusicEvent {
    let data: Data
    /// The size of the data that the user event represents.
    open var sizeInBytes: UInt32 { UInt32(data.count) }
    /// Creates a user event with the data you specify.
    public init(data: Data) {
        self.data = data
        super.init()
    }
    override func _copy() -> AVMusicEvent { AVMusicUserEvent(data: data) }
}

/// An object that represents a tempo change to a specific beats-per-minute value.
open class AVExtendedTempoEvent: AVMusicEvent {
    /// The tempo in beats per minute as a positive value.
    open var tempo: Double
    /// Creates an extended tempo event.
    public init(tempo: Double) {
        self.tempo = tempo
        super.init()
    }
    override func _copy() -> AVMusicEvent { AVExtendedTempoEvent(tempo: tempo) }
}

/// An object that represents a custom extension of a MIDI note on event.
open class AVExtendedNoteOnEvent: AVMusicEvent {
    /// A constant that represents the default instrument identifier.
    public class var defaultInstrument: UInt32 { 0 }
    /// The MIDI note number (fractional values address microtonal pitches).
    open var midiNote: Float
    /// The MIDI velocity.
    open var velocity: Float
    /// The instrument identifier.
    open var instrumentID: UInt32
    /// The audio unit channel (group) that handles the event.
    open var groupID: UInt32
    /// The duration of the event, in beats.
    open var duration: AVMusicTimeStamp

    /// Creates an event with a MIDI note, velocity, group identifier, and duration (the default instrument).
    public init(midiNote: Float, velocity: Float, groupID: UInt32, duration: AVMusicTimeStamp) {
        self.midiNote = midiNote; self.velocity = velocity; instrumentID = AVExtendedNoteOnEvent.defaultInstrument
        self.groupID = groupID; self.duration = duration
        super.init()
    }
    /// Creates a note on event with an instrument identifier.
    public init(midiNote: Float, velocity: Float, instrumentID: UInt32, groupID: UInt32, duration: AVMusicTimeStamp) {
        self.midiNote = midiNote; self.velocity = velocity; self.instrumentID = instrumentID
        self.groupID = groupID; self.duration = duration
        super.init()
    }
    override func _copy() -> AVMusicEvent {
        AVExtendedNoteOnEvent(midiNote: midiNote, velocity: velocity, instrumentID: instrumentID, groupID: groupID, duration: duration)
    }
    override var _duration: AVMusicTimeStamp { max(0, duration) }
}

/// An object that represents a parameter event on a music track's destination.
open class AVParameterEvent: AVMusicEvent {
    /// The identifier of the parameter.
    open var parameterID: UInt32
    /// The audio unit scope for the parameter.
    open var scope: UInt32
    /// The element index in the scope.
    open var element: UInt32
    /// The value of the parameter to set.
    open var value: Float
    /// Creates an event with a parameter identifier, scope, element, and value for the parameter to set.
    public init(parameterID: UInt32, scope: UInt32, element: UInt32, value: Float) {
        self.parameterID = parameterID; self.scope = scope; self.element = element; self.value = value
        super.init()
    }
    override func _copy() -> AVMusicEvent { AVParameterEvent(parameterID: parameterID, scope: scope, element: element, value: value) }
}

/// An object that represents a preset load and change on the music track's destination audio unit.
open class AVAUPresetEvent: AVMusicEvent {
    /// The audio unit scope.
    open var scope: UInt32
    /// The element index in the scope.
    open var element: UInt32
    /// The dictionary that contains the preset.
    open private(set) var presetDictionary: [AnyHashable: Any]
    /// Creates an event with the scope, element, and dictionary for the preset.
    public init(scope: UInt32, element: UInt32, dictionary presetDictionary: [AnyHashable: Any]) {
        self.scope = scope; self.element = element; self.presetDictionary = presetDictionary
        super.init()
    }
    override func _copy() -> AVMusicEvent { AVAUPresetEvent(scope: scope, element: element, dictionary: presetDictionary) }
}
