// OSStatus codes and file type identifiers of AudioToolbox (AudioFile.h, AudioConverter.h,
// AudioFormat.h, AUComponent.h) that AVAudioFile, AVAudioConverter and AVAudioEngine report.
// AVFAudio wraps them in NSError the way Apple does (domains per class: see
// Sources/AVFAudio/Types/AVAudioErrors.swift). The general Core Audio codes (`kAudio_ParamError`,
// ...) are CoreAudioTypes' (CoreAudioBaseTypes.h): Sources/CoreAudioTypes/CoreAudioErrors.swift.

public let kAudioFileUnspecifiedError: OSStatus = 0x7768_743F // 'wht?'
public let kAudioFileUnsupportedFileTypeError: OSStatus = 0x7479_703F // 'typ?'
public let kAudioFileUnsupportedDataFormatError: OSStatus = 0x666D_743F // 'fmt?'
public let kAudioFileUnsupportedPropertyError: OSStatus = 0x7074_793F // 'pty?'
public let kAudioFileBadPropertySizeError: OSStatus = 0x2173_697A // '!siz'
public let kAudioFilePermissionsError: OSStatus = 0x7072_6D3F // 'prm?'
public let kAudioFileNotOptimizedError: OSStatus = 0x6F70_746D // 'optm'
public let kAudioFileInvalidChunkError: OSStatus = 0x6368_6B3F // 'chk?'
public let kAudioFileDoesNotAllow64BitDataSizeError: OSStatus = 0x6F66_663F // 'off?'
public let kAudioFileInvalidPacketOffsetError: OSStatus = 0x7063_6B3F // 'pck?'
public let kAudioFileInvalidPacketDependencyError: OSStatus = 0x6465_703F // 'dep?'
public let kAudioFileInvalidFileError: OSStatus = 0x6474_613F // 'dta?'
public let kAudioFileOperationNotSupportedError: OSStatus = 0x6F70_3F3F // 'op??'
public let kAudioFileNotOpenError: OSStatus = -38
public let kAudioFileEndOfFileError: OSStatus = -39
public let kAudioFilePositionError: OSStatus = -40
public let kAudioFileFileNotFoundError: OSStatus = -43

// Audio unit errors that AVAudioEngine reports (AUComponent.h).
public let kAudioUnitErr_FailedInitialization: OSStatus = -10875
public let kAudioUnitErr_FormatNotSupported: OSStatus = -10868
public let kAudioUnitErr_InvalidPropertyValue: OSStatus = -10851

public let kAudioConverterErr_FormatNotSupported: OSStatus = 0x666D_743F // 'fmt?'
public let kAudioConverterErr_OperationNotSupported: OSStatus = 0x6F70_3F3F // 'op??'
public let kAudioConverterErr_PropertyNotSupported: OSStatus = 0x7072_6F70 // 'prop'
public let kAudioConverterErr_InvalidInputSize: OSStatus = 0x696E_737A // 'insz'
public let kAudioConverterErr_InvalidOutputSize: OSStatus = 0x6F74_737A // 'otsz'
public let kAudioConverterErr_UnspecifiedError: OSStatus = 0x7768_6174 // 'what'
public let kAudioConverterErr_BadPropertySizeError: OSStatus = 0x2173_697A // '!siz'
public let kAudioConverterErr_RequiresPacketDescriptionsError: OSStatus = 0x2170_6B64 // '!pkd'
public let kAudioConverterErr_InputSampleRateOutOfRange: OSStatus = 0x2169_7372 // '!isr'
public let kAudioConverterErr_OutputSampleRateOutOfRange: OSStatus = 0x216F_7372 // '!osr'

public let kAudioFormatUnspecifiedError: OSStatus = 0x7768_6174 // 'what'
public let kAudioFormatUnsupportedPropertyError: OSStatus = 0x7072_6F70 // 'prop'
public let kAudioFormatBadPropertySizeError: OSStatus = 0x2173_697A // '!siz'
public let kAudioFormatBadSpecifierSizeError: OSStatus = 0x2173_7063 // '!spc'
public let kAudioFormatUnsupportedDataFormatError: OSStatus = 0x666D_743F // 'fmt?'
public let kAudioFormatUnknownFormatError: OSStatus = 0x2166_6D74 // '!fmt'

/// File type identifiers (AudioFile.h).
public typealias AudioFileTypeID = UInt32
public let kAudioFileAIFFType: AudioFileTypeID = 0x4149_4646 // 'AIFF'
public let kAudioFileAIFCType: AudioFileTypeID = 0x4149_4643 // 'AIFC'
public let kAudioFileWAVEType: AudioFileTypeID = 0x5741_5645 // 'WAVE'
public let kAudioFileRF64Type: AudioFileTypeID = 0x5246_3634 // 'RF64'
public let kAudioFileBW64Type: AudioFileTypeID = 0x4257_3634 // 'BW64'
public let kAudioFileWave64Type: AudioFileTypeID = 0x5736_3466 // 'W64f'
public let kAudioFileSoundDesigner2Type: AudioFileTypeID = 0x5344_6632 // 'Sd2f'
public let kAudioFileNextType: AudioFileTypeID = 0x4E65_5854 // 'NeXT'
public let kAudioFileMP3Type: AudioFileTypeID = 0x4D50_4733 // 'MPG3'
public let kAudioFileMP2Type: AudioFileTypeID = 0x4D50_4732 // 'MPG2'
public let kAudioFileMP1Type: AudioFileTypeID = 0x4D50_4731 // 'MPG1'
public let kAudioFileAC3Type: AudioFileTypeID = 0x6163_2D33 // 'ac-3'
public let kAudioFileAAC_ADTSType: AudioFileTypeID = 0x6164_7473 // 'adts'
public let kAudioFileMPEG4Type: AudioFileTypeID = 0x6D70_3466 // 'mp4f'
public let kAudioFileM4AType: AudioFileTypeID = 0x6D34_6166 // 'm4af'
public let kAudioFileM4BType: AudioFileTypeID = 0x6D34_6266 // 'm4bf'
public let kAudioFileCAFType: AudioFileTypeID = 0x6361_6666 // 'caff'
public let kAudioFile3GPType: AudioFileTypeID = 0x3367_7070 // '3gpp'
public let kAudioFile3GP2Type: AudioFileTypeID = 0x3367_7032 // '3gp2'
public let kAudioFileAMRType: AudioFileTypeID = 0x616D_7266 // 'amrf'
public let kAudioFileFLACType: AudioFileTypeID = 0x666C_6163 // 'flac'
public let kAudioFileLATMInLOASType: AudioFileTypeID = 0x6C6F_6173 // 'loas'

// Music sequence and player errors (MusicPlayer.h), which AVAudioSequencer reports.
public let kAudioToolboxErr_InvalidSequenceType: OSStatus = -10846
public let kAudioToolboxErr_TrackIndexError: OSStatus = -10859
public let kAudioToolboxErr_TrackNotFound: OSStatus = -10858
public let kAudioToolboxErr_EndOfTrack: OSStatus = -10857
public let kAudioToolboxErr_StartOfTrack: OSStatus = -10856
public let kAudioToolboxErr_IllegalTrackDestination: OSStatus = -10855
public let kAudioToolboxErr_NoSequence: OSStatus = -10854
public let kAudioToolboxErr_InvalidEventType: OSStatus = -10853
public let kAudioToolboxErr_InvalidPlayerState: OSStatus = -10852
public let kAudioToolboxErr_CannotDoInCurrentContext: OSStatus = -10863
