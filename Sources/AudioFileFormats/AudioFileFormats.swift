// Container readers and writers for uncompressed audio files: WAV (RIFF/RIFX, with automatic RF64),
// RF64, BW64, AIFF, AIFF-C, CAF and Sun/NeXT AU.
//
// This module moves raw interleaved sample bytes between files and memory. It never converts
// samples: a reader hands out the bytes exactly as the file stores them (described by
// `AudioDataDescription`), and a writer takes bytes already in the file's encoding and byte order.
// The AVAudioFile layer above converts with the AudioKernels.
//
// No Apple type names here; error codes are Apple's OSStatus values so the façade can pass them on.
import AudioKernels

/// An error from reading or writing an audio file. `code` is the OSStatus Apple's AudioToolbox
/// reports in the same situation; `message` is a sentence that names the file and what is wrong.
public struct AudioFileFormatError: Error, CustomStringConvertible, Sendable, Equatable {
    public var code: Int32
    public var message: String

    public init(code: Int32, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(message) [\(Self.codeName(code))]" }

    /// The code as Apple prints it: a four-character code in quotes ('fmt?') or a decimal number.
    public static func codeName(_ code: Int32) -> String {
        let bytes = withUnsafeBytes(of: UInt32(bitPattern: code).bigEndian) { Array($0) }
        if bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            return "'" + String(decoding: bytes, as: UTF8.self) + "'"
        }
        return String(code)
    }

    /// OSStatus values (AudioFile.h) used by this module.
    public enum Code {
        /// 'typ?': the file is not of a type this module reads.
        public static let unsupportedFileType: Int32 = 0x7479_703F
        /// 'fmt?': the sample format is not supported (by the container, or by this module).
        public static let unsupportedDataFormat: Int32 = 0x666D_743F
        /// 'dta?': the file is malformed.
        public static let invalidFile: Int32 = 0x6474_613F
        /// 'chk?': a chunk is malformed.
        public static let invalidChunk: Int32 = 0x6368_6B3F
        /// 'prm?': the file could not be opened or written for lack of permission.
        public static let permissions: Int32 = 0x7072_6D3F
        /// 'wht?': an unexpected system error.
        public static let unspecified: Int32 = 0x7768_743F
        /// 'op??': the operation is not supported.
        public static let operationNotSupported: Int32 = 0x6F70_3F3F
        /// 'off?': the container cannot hold more than 4 GiB of audio.
        public static let doesNotAllow64BitDataSize: Int32 = 0x6F66_663F
        /// -38: the file has been closed.
        public static let notOpen: Int32 = -38
        /// -39: end of file.
        public static let endOfFile: Int32 = -39
        /// -40: a negative or otherwise impossible position.
        public static let position: Int32 = -40
        /// -43: the file (or its directory) does not exist.
        public static let fileNotFound: Int32 = -43
    }
}

/// The container formats this module reads and writes.
public enum AudioContainerType: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// RIFF WAVE (little-endian 'RIFF', or big-endian 'RIFX' when reading).
    case wav
    /// EBU Tech 3306 RF64: WAV with 64-bit sizes in a 'ds64' chunk.
    case rf64
    /// ITU-R BS.2088 BW64: the same layout as RF64 with a 'BW64' magic.
    case bw64
    /// AIFF: big-endian signed integer samples.
    case aiff
    /// AIFF-C: AIFF with a compression type (also little-endian integers, floats, µ-law, A-law).
    case aifc
    /// Apple Core Audio Format.
    case caf
    /// Sun/NeXT audio ('.snd').
    case au

    /// The container a file name extension stands for (case-insensitive, with or without the dot):
    /// wav, wave, rf64, bw64, aif, aiff, aifc, caf, au, snd.
    public init?(fileExtension: String) {
        var ext = fileExtension.lowercased()
        if ext.hasPrefix(".") { ext.removeFirst() }
        switch ext {
        case "wav", "wave": self = .wav
        case "rf64": self = .rf64
        case "bw64": self = .bw64
        case "aif", "aiff": self = .aiff
        case "aifc": self = .aifc
        case "caf": self = .caf
        case "au", "snd": self = .au
        default: return nil
        }
    }

    /// The container a path's extension stands for; nil when there is no known extension.
    public init?(path: String) {
        let name = path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        self.init(fileExtension: String(name[name.index(after: dot)...]))
    }

    /// The extension files of this type usually carry (no dot).
    public var preferredFileExtension: String {
        switch self {
        case .wav: return "wav"
        case .rf64: return "rf64"
        case .bw64: return "bw64"
        case .aiff: return "aiff"
        case .aifc: return "aifc"
        case .caf: return "caf"
        case .au: return "au"
        }
    }

    public var description: String {
        switch self {
        case .wav: return "WAV"
        case .rf64: return "RF64"
        case .bw64: return "BW64"
        case .aiff: return "AIFF"
        case .aifc: return "AIFF-C"
        case .caf: return "CAF"
        case .au: return "AU"
        }
    }

    /// Whether this is one of the RIFF-WAVE family (WAV, RF64, BW64).
    public var isWAVFamily: Bool { self == .wav || self == .rf64 || self == .bw64 }
}

/// How the audio in a file is stored: everything needed to interpret the raw bytes.
public struct AudioDataDescription: Sendable, Hashable, CustomStringConvertible {
    /// Channel counts above this are rejected as absurd.
    public static let maximumChannelCount = 1024
    /// Sample rates above this (10 MHz) are rejected as absurd.
    public static let maximumSampleRate: Double = 10_000_000

    public var sampleRate: Double
    public var channelCount: Int
    /// The storage of one sample (the container size for integers: 20-bit audio in 3-byte
    /// containers is `.signed24` with `validBitsPerSample` 20).
    public var encoding: SampleEncoding
    /// Byte order of multi-byte samples. Meaningless for 1-byte encodings, where a reader reports
    /// the container's native order (true for AIFF, AU, big-endian CAF; false for WAV).
    public var bigEndian: Bool
    /// Significant bits in each sample. For integers it may be less than the container size
    /// (the samples are then left-justified, the low bits zero). 32/64 for floats, 8 for µ-law/A-law.
    public var validBitsPerSample: Int
    /// WAV's dwChannelMask (speaker positions), when the file has a WAVE_FORMAT_EXTENSIBLE header.
    public var channelMask: UInt32?
    /// The raw payload of a CAF 'chan' chunk: a big-endian AudioChannelLayout (layout tag,
    /// channel bitmap, number of descriptions, then 20-byte channel descriptions).
    public var channelLayoutData: [UInt8]?

    /// - Parameter validBitsPerSample: defaults to the whole container (8 for µ-law and A-law).
    public init(sampleRate: Double, channelCount: Int, encoding: SampleEncoding, bigEndian: Bool = false,
                validBitsPerSample: Int? = nil, channelMask: UInt32? = nil, channelLayoutData: [UInt8]? = nil) {
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.encoding = encoding
        self.bigEndian = bigEndian
        self.validBitsPerSample = validBitsPerSample ?? encoding.bytesPerSample * 8
        self.channelMask = channelMask
        self.channelLayoutData = channelLayoutData
    }

    /// Bytes one frame (one sample of every channel) occupies.
    public var bytesPerFrame: Int { channelCount * encoding.bytesPerSample }

    public var description: String {
        var text = "\(channelCount) ch, \(sampleRate) Hz, \(encoding)"
        if encoding.bytesPerSample > 1 { text += bigEndian ? " big-endian" : " little-endian" }
        if encoding.isLinearPCM && !encoding.isFloat && validBitsPerSample != encoding.bytesPerSample * 8 {
            text += " (\(validBitsPerSample) valid bits)"
        }
        if let mask = channelMask { text += ", channel mask 0x" + String(mask, radix: 16) }
        if let layout = channelLayoutData { text += ", channel layout (\(layout.count) bytes)" }
        return text
    }
}
