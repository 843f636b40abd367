// The general Core Audio OSStatus codes (CoreAudioTypes' CoreAudioBaseTypes.h). The codes of
// AudioFile, AudioConverter, AudioFormat and audio units are AudioToolbox's
// (Sources/AudioToolbox/AudioToolboxErrors.swift).

public let kAudio_UnimplementedError: OSStatus = -4
public let kAudio_FileNotFoundError: OSStatus = -43
public let kAudio_FilePermissionError: OSStatus = -54
public let kAudio_TooManyFilesOpenError: OSStatus = -42
public let kAudio_BadFilePathError: OSStatus = 0x2170_7468 // '!pth'
public let kAudio_ParamError: OSStatus = -50
public let kAudio_MemFullError: OSStatus = -108

