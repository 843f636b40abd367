// The CoreMIDI handle types AVFAudio's API names (`AVMusicTrack.destinationMIDIEndpoint`). On
// Apple platforms MIDIServices.h declares `typedef UInt32 MIDIObjectRef;` and
// `typedef MIDIObjectRef MIDIEndpointRef;`, imported into Swift as these aliases. There is no
// CoreMIDI service on Linux: an endpoint can be stored, and the sequencer sends nothing to it.

/// A CoreMIDI object (0: none).
public typealias MIDIObjectRef = UInt32
/// A MIDI source or destination.
public typealias MIDIEndpointRef = MIDIObjectRef
