// The codec registry: each codec declares its four-character code, what it decodes and
// encodes, and how to make a decoder from a stream's setup (sample rate, channels, depth and the
// container's magic cookie). Containers find packets (AudioFileFormats' PacketIndex); the
// registry turns packets into samples. AVAudioFile, AVAudioConverter and `avaudio` look codecs
// up here, so adding a codec is adding its files and one entry to `AudioCodecRegistry.all`.
//
// Samples cross this boundary as interleaved Int32, right-justified and sign-extended to the
// stream's `bitsPerSample` (FLAC and ALAC are integer codecs of at most 32 bits).

/// What a decoder is made from: the stream's parameters as the container declares them.
public struct AudioStreamSetup: Sendable, Equatable {
    /// Core Audio's four-character format ID, big-endian ('alac', 'flac', 'aac ', …).
    public var codec: UInt32
    public var sampleRate: Double
    public var channelCount: Int
    /// Bits per decoded sample as the container declares it (0 when it does not say; the
    /// cookie then decides).
    public var bitsPerSample: Int
    /// The codec's setup bytes as the container stores them.
    public var magicCookie: [UInt8]

    public init(codec: UInt32, sampleRate: Double, channelCount: Int, bitsPerSample: Int = 0, magicCookie: [UInt8] = []) {
        self.codec = codec
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.bitsPerSample = bitsPerSample
        self.magicCookie = magicCookie
    }
}

/// Decodes one codec's packets, one at a time, in decode order (or after `reset()`, from any
/// packet the codec can start at: every packet for FLAC and ALAC).
public protocol AudioPacketDecoder: AnyObject {
    var channelCount: Int { get }
    /// Bits of each decoded sample (samples are right-justified, sign-extended Int32).
    var bitsPerSample: Int { get }
    var sampleRate: Double { get }
    /// The most frames one packet decodes to: the capacity a caller must provide.
    var maximumFramesPerPacket: Int { get }
    /// Decodes `packet` into `output` as interleaved samples (`channelCount` per frame, at most
    /// `frameCapacity` frames). Returns the frames decoded. Throws CodecError on damaged data,
    /// never traps.
    func decode(_ packet: UnsafeRawBufferPointer, into output: UnsafeMutablePointer<Int32>, frameCapacity: Int) throws -> Int
    /// Forgets state carried between packets (after a seek).
    func reset()
}

/// A decoder whose samples are Float32 (a lossy transform codec: Vorbis). `decode` writes each
/// sample's Float32 bit pattern into the Int32 slot (same size and alignment), and
/// `bitsPerSample` is 32; callers that see this protocol read the buffer as Float32.
/// `prerollPackets`: how many packets before the one wanted a decoder needs after `reset()`
/// for that packet's samples to be right (Vorbis: 1, the overlap with the block before).
public protocol AudioFloatPacketDecoder: AudioPacketDecoder {
    var prerollPackets: Int { get }
}

/// Encodes interleaved Int32 frames into one codec's packets.
public protocol AudioPacketEncoder: AnyObject {
    var channelCount: Int { get }
    var bitsPerSample: Int { get }
    var sampleRate: Double { get }
    /// Frames per packet (the last packet of a stream may hold fewer).
    var framesPerPacket: Int { get }
    /// The largest packet this encoder can produce, in bytes.
    var maximumPacketSize: Int { get }
    /// The setup bytes a container stores for a decoder (CAF `kuki`, MP4 sample-entry box payload).
    var magicCookie: [UInt8] { get }
    /// Encodes `frameCount` (≤ framesPerPacket) interleaved frames into `output` (at least
    /// `maximumPacketSize` bytes); returns the packet's size in bytes.
    func encode(_ samples: UnsafePointer<Int32>, frameCount: Int, into output: UnsafeMutableRawPointer) throws -> Int
}

/// One codec's entry in the registry.
public struct AudioCodecEntry: Sendable {
    public var codec: UInt32
    /// A name a person knows ("FLAC", "Apple Lossless").
    public var name: String
    public var makeDecoder: (@Sendable (AudioStreamSetup) throws -> AudioPacketDecoder)?
    public var makeEncoder: (@Sendable (AudioStreamSetup) throws -> AudioPacketEncoder)?

    public init(codec: UInt32, name: String,
                makeDecoder: (@Sendable (AudioStreamSetup) throws -> AudioPacketDecoder)? = nil,
                makeEncoder: (@Sendable (AudioStreamSetup) throws -> AudioPacketEncoder)? = nil) {
        self.codec = codec
        self.name = name
        self.makeDecoder = makeDecoder
        self.makeEncoder = makeEncoder
    }
}

public enum AudioCodecRegistry {
    /// Every codec this library has, in no particular order. Each codec adds its entry here.
    public static let all: [AudioCodecEntry] = [
        AudioCodecEntry(codec: 0x616C_6163, name: "Apple Lossless", makeDecoder: { try ALACDecoder(setup: $0) }, makeEncoder: { try ALACEncoder(setup: $0) }),
        AudioCodecEntry(codec: 0x666C_6163, name: "FLAC", makeDecoder: { try FLACPacketDecoder(setup: $0) }, makeEncoder: { try FLACPacketEncoder(setup: $0) }),
        AudioCodecEntry(codec: vorbisFormatID, name: "Vorbis", makeDecoder: { try VorbisPacketDecoder(setup: $0) }),
    ]

    public static func entry(for codec: UInt32) -> AudioCodecEntry? { all.first { $0.codec == codec } }

    /// A decoder for `setup`, or a CodecError naming the codec when none exists.
    public static func decoder(for setup: AudioStreamSetup) throws -> AudioPacketDecoder {
        guard let make = entry(for: setup.codec)?.makeDecoder else {
            throw CodecError(.unsupported, "no decoder for \(fourCharacterName(setup.codec)) audio in this library")
        }
        return try make(setup)
    }

    /// An encoder for `setup`, or a CodecError naming the codec when none exists.
    public static func encoder(for setup: AudioStreamSetup) throws -> AudioPacketEncoder {
        guard let make = entry(for: setup.codec)?.makeEncoder else {
            throw CodecError(.unsupported, "no encoder for \(fourCharacterName(setup.codec)) audio in this library")
        }
        return try make(setup)
    }

    /// 'alac' for 0x616C6163; hex when the bytes are not printable.
    public static func fourCharacterName(_ code: UInt32) -> String {
        let bytes = [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: code >> UInt32($0)) }
        guard bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return "0x" + String(code, radix: 16) }
        return "'" + String(decoding: bytes, as: UTF8.self) + "'"
    }
}
