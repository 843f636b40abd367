// Keys and values of settings dictionaries (AVAudioSettings.h): AVAudioFormat(settings:),
// AVAudioFile(forWriting:settings:), AVAudioRecorder and AVAudioConverter read them.
//
//     let settings: [String: Any] = [
//         AVFormatIDKey: kAudioFormatLinearPCM,
//         AVSampleRateKey: 48_000,
//         AVNumberOfChannelsKey: 2,
//         AVLinearPCMBitDepthKey: 24,
//     ]

// MARK: All formats
/// `AudioFormatID` of the format (`kAudioFormatLinearPCM`, `kAudioFormatMPEG4AAC`, ...).
public let AVFormatIDKey = "AVFormatIDKey"
/// Sample rate in hertz (floating point).
public let AVSampleRateKey = "AVSampleRateKey"
/// Number of channels (integer).
public let AVNumberOfChannelsKey = "AVNumberOfChannelsKey"

// MARK: Linear PCM
/// Bits per sample: 8, 16, 24 or 32 (64 for double).
public let AVLinearPCMBitDepthKey = "AVLinearPCMBitDepthKey"
/// Whether samples are big-endian (Bool).
public let AVLinearPCMIsBigEndianKey = "AVLinearPCMIsBigEndianKey"
/// Whether samples are floating point (Bool).
public let AVLinearPCMIsFloatKey = "AVLinearPCMIsFloatKey"
/// Whether channels are stored in separate buffers (Bool).
public let AVLinearPCMIsNonInterleaved = "AVLinearPCMIsNonInterleaved"

// MARK: Files
/// The file type to write (`AudioFileTypeID`, e.g. `kAudioFileWAVEType`); overrides the extension.
public let AVAudioFileTypeKey = "AVAudioFileTypeKey"

// MARK: Encoders
public let AVEncoderAudioQualityKey = "AVEncoderAudioQualityKey"
public let AVEncoderAudioQualityForVBRKey = "AVEncoderAudioQualityForVBRKey"
public let AVEncoderBitRateKey = "AVEncoderBitRateKey"
public let AVEncoderBitRatePerChannelKey = "AVEncoderBitRatePerChannelKey"
public let AVEncoderBitRateStrategyKey = "AVEncoderBitRateStrategyKey"
public let AVEncoderBitDepthHintKey = "AVEncoderBitDepthHintKey"
public let AVEncoderContentSourceKey = "AVEncoderContentSourceKey"
public let AVEncoderDynamicRangeControlConfigurationKey = "AVEncoderDynamicRangeControlConfigurationKey"
public let AVEncoderASPFrequencyKey = "AVEncoderASPFrequencyKey"

// MARK: Sample rate conversion
public let AVSampleRateConverterAlgorithmKey = "AVSampleRateConverterAlgorithmKey"
public let AVSampleRateConverterAudioQualityKey = "AVSampleRateConverterAudioQualityKey"

// MARK: Channel layout
/// A `Data` holding an `AudioChannelLayout` structure (with its channel descriptions).
public let AVChannelLayoutKey = "AVChannelLayoutKey"

// MARK: Values
public let AVAudioBitRateStrategy_Constant = "AVAudioBitRateStrategy_Constant"
public let AVAudioBitRateStrategy_LongTermAverage = "AVAudioBitRateStrategy_LongTermAverage"
public let AVAudioBitRateStrategy_VariableConstrained = "AVAudioBitRateStrategy_VariableConstrained"
public let AVAudioBitRateStrategy_Variable = "AVAudioBitRateStrategy_Variable"

public let AVSampleRateConverterAlgorithm_Normal = "AVSampleRateConverterAlgorithm_Normal"
public let AVSampleRateConverterAlgorithm_Mastering = "AVSampleRateConverterAlgorithm_Mastering"
public let AVSampleRateConverterAlgorithm_MinimumPhase = "AVSampleRateConverterAlgorithm_MinimumPhase"
