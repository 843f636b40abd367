// How one sample is stored in a file or stream: the vocabulary shared by the sample-conversion
// kernels (this module) and the container readers and writers (AudioFileFormats).
//
// This module deliberately uses no Apple names: it is the engine room under the AVFAudio façade.

/// The storage of one sample value.
public enum SampleEncoding: Sendable, Hashable, CustomStringConvertible {
    /// 8-bit unsigned integer, offset binary (128 = silence): WAV's 8-bit format.
    case unsigned8
    /// 8-bit two's-complement integer: AIFF's and AU's 8-bit format.
    case signed8
    /// 16-bit two's-complement integer.
    case signed16
    /// 24-bit two's-complement integer packed in 3 bytes.
    case signed24
    /// 32-bit two's-complement integer.
    case signed32
    /// IEEE 754 binary32.
    case float32
    /// IEEE 754 binary64.
    case float64
    /// G.711 µ-law, 8 bits per sample.
    case ulaw
    /// G.711 A-law, 8 bits per sample.
    case alaw

    /// Bytes one sample occupies.
    @inlinable
    public var bytesPerSample: Int {
        switch self {
        case .unsigned8, .signed8, .ulaw, .alaw: return 1
        case .signed16: return 2
        case .signed24: return 3
        case .signed32, .float32: return 4
        case .float64: return 8
        }
    }

    /// Whether the encoding is linear PCM (integer or float), as opposed to a G.711 companding law.
    public var isLinearPCM: Bool { self != .ulaw && self != .alaw }

    public var isFloat: Bool { self == .float32 || self == .float64 }

    public var description: String {
        switch self {
        case .unsigned8: return "8-bit unsigned integer"
        case .signed8: return "8-bit signed integer"
        case .signed16: return "16-bit signed integer"
        case .signed24: return "24-bit signed integer"
        case .signed32: return "32-bit signed integer"
        case .float32: return "32-bit float"
        case .float64: return "64-bit float"
        case .ulaw: return "µ-law"
        case .alaw: return "A-law"
        }
    }
}

/// The in-memory sample types that processing buffers hold (AVAudioCommonFormat's four PCM cases).
public enum ProcessingSampleType: Sendable, Hashable {
    case float32, float64, int16, int32

    @inlinable
    public var bytesPerSample: Int {
        switch self {
        case .int16: return 2
        case .float32, .int32: return 4
        case .float64: return 8
        }
    }
}
