// The encoder content description types of AVAudioSettings.h (iOS 26 / macOS 26): what the audio
// is and how it was made (AVAudioContentSource) and which dynamic range control an encoder
// applies (AVAudioDynamicRangeControlConfiguration). They are the values of the settings keys
// `AVEncoderContentSourceKey` and `AVEncoderDynamicRangeControlConfigurationKey` and of
// AVAudioConverter's `contentSource` and `dynamicRangeControlConfiguration`.
//
// Names and raw values are Apple's (AVAudioSettings.h; the Swift names drop the type prefix and
// keep the underscores, as Apple's Swift interface shows: `.appleCapture_Traditional`,
// `.av_Spatial_Live`). Only codecs that carry such metadata (Apple's APAC, xHE-AAC) use them;
// none of this library's encoders does (AVAudioConverter.swift says what a converter reports).

/// The source of the audio content: captured, music or audio-visual, traditional (stereo or
/// multichannel) or spatial, made with Apple's apps or with others'.
public enum AVAudioContentSource: Int, Sendable {
    case unspecified = -1
    case reserved = 0
    /// Apple device capture (or non-professional content from an Apple app), traditional format.
    case appleCapture_Traditional = 1
    /// Apple device capture, spatial format.
    case appleCapture_Spatial = 2
    /// Apple device capture, spatial format with enhancements.
    case appleCapture_Spatial_Enhanced = 3
    case appleMusic_Traditional = 4
    case appleMusic_Spatial = 5
    case appleAV_Traditional_Offline = 6
    case appleAV_Spatial_Offline = 7
    case appleAV_Traditional_Live = 8
    case appleAV_Spatial_Live = 9
    case applePassthrough = 10
    /// Capture by other devices and apps, traditional format.
    case capture_Traditional = 33
    case capture_Spatial = 34
    case capture_Spatial_Enhanced = 35
    case music_Traditional = 36
    case music_Spatial = 37
    case av_Traditional_Offline = 38
    case av_Spatial_Offline = 39
    case av_Traditional_Live = 40
    case av_Spatial_Live = 41
    case passthrough = 42
}

/// The dynamic range control an encoder configures for its stream (codecs with DRC metadata).
public enum AVAudioDynamicRangeControlConfiguration: Int, Sendable {
    case none = 0
    case music = 1
    case speech = 2
    case movie = 3
    case capture = 4
}
