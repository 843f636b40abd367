// The render-event structs of AudioToolbox's AUAudioUnit.h (and the two CoreMIDI structs one of
// them embeds), declared in C so that their layout is Apple's: `AURenderEvent` is a C union, and
// an audio unit's internal render block walks a linked list of them through `head.next`.
//
// Field names, sizes and order follow Apple's AUAudioUnit.h, MIDIServices.h and
// AudioUnitProperties.h; the Swift importer turns them into the types Apple's Swift SDK shows
// (`AURenderEvent` with `head`, `parameter`, `MIDI`, `MIDIEventsList`; `AURenderEventType` with
// `.parameter`, `.parameterRamp`, `.MIDI`, `.midiSysEx`, `.midiEventList`).
// Included from CCoreAudioTypes.h.
#ifndef OPENAVFAUDIO_AURENDEREVENT_H
#define OPENAVFAUDIO_AURENDEREVENT_H

#include <stdint.h>

// MARK: - CoreMIDI: MIDIEventList (MIDIServices.h; 4-byte packing as Apple declares it)

OAV_ENUM_BEGIN(int32_t) {
    kMIDIProtocol_1_0 OAV_SWIFT_NAME(_1_0) = 1,
    kMIDIProtocol_2_0 OAV_SWIFT_NAME(_2_0) = 2
} MIDIProtocolID;

typedef uint64_t MIDITimeStamp;

#pragma pack(push, 4)
/// One packet of Universal MIDI Packet words with its time stamp.
typedef struct MIDIEventPacket {
    MIDITimeStamp timeStamp;
    uint32_t wordCount;
    uint32_t words[64];
} MIDIEventPacket;

/// A list of MIDI event packets (variable length: `numPackets` packets follow one another).
typedef struct MIDIEventList {
    MIDIProtocolID protocol;
    uint32_t numPackets;
    MIDIEventPacket packet[1];
} MIDIEventList;
#pragma pack(pop)

// MARK: - AudioUnitRenderActionFlags (AUComponent.h)

OAV_OPTIONS_BEGIN(uint32_t) {
    kAudioUnitRenderAction_PreRender OAV_SWIFT_NAME(unitRenderAction_PreRender) = (1U << 2),
    kAudioUnitRenderAction_PostRender OAV_SWIFT_NAME(unitRenderAction_PostRender) = (1U << 3),
    kAudioUnitRenderAction_OutputIsSilence OAV_SWIFT_NAME(unitRenderAction_OutputIsSilence) = (1U << 4),
    kAudioOfflineUnitRenderAction_Preflight OAV_SWIFT_NAME(offlineUnitRenderAction_Preflight) = (1U << 5),
    kAudioOfflineUnitRenderAction_Render OAV_SWIFT_NAME(offlineUnitRenderAction_Render) = (1U << 6),
    kAudioOfflineUnitRenderAction_Complete OAV_SWIFT_NAME(offlineUnitRenderAction_Complete) = (1U << 7),
    kAudioUnitRenderAction_PostRenderError OAV_SWIFT_NAME(unitRenderAction_PostRenderError) = (1U << 8),
    kAudioUnitRenderAction_DoNotCheckRenderArgs OAV_SWIFT_NAME(unitRenderAction_DoNotCheckRenderArgs) = (1U << 9)
} AudioUnitRenderActionFlags;

// MARK: - AURenderEvent (AUAudioUnit.h)

/// The kind of a render event (the `eventType` of every event's header).
OAV_ENUM_BEGIN(uint8_t) {
    AURenderEventParameter OAV_SWIFT_NAME(parameter) = 1,
    AURenderEventParameterRamp OAV_SWIFT_NAME(parameterRamp) = 2,
    AURenderEventMIDI OAV_SWIFT_NAME(MIDI) = 8,
    AURenderEventMIDISysEx OAV_SWIFT_NAME(midiSysEx) = 9,
    AURenderEventMIDIEventList OAV_SWIFT_NAME(midiEventList) = 10
} AURenderEventType;

union AURenderEvent;

/// The fields every render event starts with.
typedef struct AURenderEventHeader {
    union AURenderEvent *_Nullable next;
    int64_t eventSampleTime;           // AUEventSampleTime
    AURenderEventType eventType;
    uint8_t reserved;
} AURenderEventHeader;

/// A parameter change (`.parameter`) or ramp (`.parameterRamp`).
typedef struct AUParameterEvent {
    union AURenderEvent *_Nullable next;
    int64_t eventSampleTime;           // AUEventSampleTime
    AURenderEventType eventType;
    uint8_t reserved[3];
    uint32_t rampDurationSampleFrames; // AUAudioFrameCount
    uint64_t parameterAddress;         // AUParameterAddress
    float value;                       // AUValue
} AUParameterEvent;

/// A MIDI 1.0 message of up to three bytes (`.MIDI`), or a system-exclusive one (`.midiSysEx`).
typedef struct AUMIDIEvent {
    union AURenderEvent *_Nullable next;
    int64_t eventSampleTime;           // AUEventSampleTime
    AURenderEventType eventType;
    uint8_t reserved;
    uint16_t length;
    uint8_t cable;
    uint8_t data[3];
} AUMIDIEvent;

/// A list of Universal MIDI Packets (`.midiEventList`).
typedef struct AUMIDIEventList {
    union AURenderEvent *_Nullable next;
    int64_t eventSampleTime;           // AUEventSampleTime
    AURenderEventType eventType;
    uint8_t reserved;
    uint8_t cable;
    MIDIEventList eventList;
} AUMIDIEventList;

/// One event of the list an audio unit's internal render block receives, in time order.
typedef union AURenderEvent {
    AURenderEventHeader head;
    AUParameterEvent parameter;
    AUMIDIEvent MIDI;
    AUMIDIEventList MIDIEventsList;
} AURenderEvent;

#endif
