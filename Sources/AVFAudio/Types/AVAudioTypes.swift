// Scalar type aliases and small enums shared by the whole API (AVAudioTypes.h, AVAudioFormat.h,
// AVAudioSettings.h).

/// A number of sample frames.
public typealias AVAudioFrameCount = UInt32
/// A position in an audio file or stream, in sample frames.
public typealias AVAudioFramePosition = Int64
/// A number of packets.
public typealias AVAudioPacketCount = UInt32
/// A number of audio channels.
public typealias AVAudioChannelCount = UInt32
/// The index of a node's input or output bus.
public typealias AVAudioNodeBus = Int

/// Apple's Foundation spells this `AutoreleasingUnsafeMutablePointer<NSError?>?`; Linux has no
/// autorelease pools, so a plain pointer serves: `&error` at the call site converts as on Apple.
public typealias NSErrorPointer = UnsafeMutablePointer<NSError?>?

/// The PCM sample formats that AVAudioFormat, AVAudioPCMBuffer and AVAudioFile name directly.
public enum AVAudioCommonFormat: UInt, Sendable {
    /// A format other than the four below (integer of another width, big-endian, compressed, ...).
    case otherFormat = 0
    /// Native-endian 32-bit float: the standard format when deinterleaved.
    case pcmFormatFloat32 = 1
    /// Native-endian 64-bit float.
    case pcmFormatFloat64 = 2
    /// Native-endian signed 16-bit integer.
    case pcmFormatInt16 = 3
    /// Native-endian signed 32-bit integer.
    case pcmFormatInt32 = 4
}

/// Encoder and sample-rate-converter quality levels (values are Apple's).
public enum AVAudioQuality: Int, Sendable {
    case min = 0
    case low = 0x20
    case medium = 0x40
    case high = 0x60
    case max = 0x7F
}
