// AudioToolbox's MusicSequence handle, which AVAudioEngine.musicSequence names.
//
// On Apple platforms MusicPlayer.h declares `typedef struct OpaqueMusicSequence *MusicSequence;`,
// imported into Swift as `typealias MusicSequence = OpaquePointer`. The functions that create and
// fill a sequence (NewMusicSequence, MusicSequenceFileLoad, ...) arrive with the MIDI issue.

/// An opaque reference to a music sequence (AudioToolbox's `MusicSequence`).
public typealias MusicSequence = OpaquePointer
