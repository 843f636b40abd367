// The packet layer's view of a compressed stream in a container: where each packet lies, how many
// frames it decodes to, the codec's setup bytes (the "magic cookie"), and the priming and
// remainder frames to drop so that the file's length is exact. Each container parser (CAF's
// `pakt`/`kuki`, MP4's `stbl`, Ogg pages, native FLAC frames) produces one; the decode path
// above it needs nothing else from the container.
//
// No Apple names here: the façade maps this onto AudioStreamPacketDescription and
// AVAudioFile/AVAudioConverter's packet semantics.

/// One packet's place in the file.
public struct StoredPacket: Equatable, Sendable {
    /// Byte offset of the packet's first byte from the start of the file.
    public var offset: Int64
    /// The packet's size in bytes.
    public var byteCount: Int
    /// Frames the packet decodes to (before priming/remainder trimming).
    public var frameCount: Int

    public init(offset: Int64, byteCount: Int, frameCount: Int) {
        self.offset = offset
        self.byteCount = byteCount
        self.frameCount = frameCount
    }
}

/// A container's compressed stream: codec, setup, packets and trimming.
public struct PacketIndex: Sendable {
    /// The codec's four-character code as Core Audio spells it, big-endian
    /// ('alac' = 0x616C6163, 'flac' = 0x666C6163 — kAudioFormatFLAC, whatever the container calls it —
    /// 'aac ' = 0x61616320, 'opus' = 0x6F707573).
    public var codec: UInt32
    public var sampleRate: Double
    public var channelCount: Int
    /// Bits per decoded sample as the container declares it (0 when it does not say).
    public var bitsPerSample: Int
    /// The codec's setup bytes as the container stores them (CAF `kuki`, MP4 sample-entry
    /// child box payload such as `alac`'s ALACSpecificConfig or `dfLa`'s metadata blocks).
    public var magicCookie: [UInt8]
    /// Every packet, in decode order.
    public var packets: [StoredPacket]
    /// Frames at the start of the decoded stream that are not part of the audio (encoder delay).
    public var primingFrames: Int64
    /// Frames at the end of the last packet that are not part of the audio (padding).
    public var remainderFrames: Int64
    /// Notes about tolerated damage, one sentence each.
    public var warnings: [String]
    /// The byte ranges of packets whose bytes are not contiguous (an Ogg packet spanning pages),
    /// by packet number, in order (their frameCount unused); `packets[k]` then gives the first
    /// piece's offset and the total size. Absent for every other packet.
    public var pieces: [Int: [StoredPacket]] = [:]

    public init(codec: UInt32, sampleRate: Double, channelCount: Int, bitsPerSample: Int = 0,
                magicCookie: [UInt8] = [], packets: [StoredPacket] = [],
                primingFrames: Int64 = 0, remainderFrames: Int64 = 0, warnings: [String] = []) {
        self.codec = codec
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.bitsPerSample = bitsPerSample
        self.magicCookie = magicCookie
        self.packets = packets
        self.primingFrames = primingFrames
        self.remainderFrames = remainderFrames
        self.warnings = warnings
    }

    /// Frames the packets decode to, before trimming.
    public var decodedFrameCount: Int64 { packets.reduce(0) { $0 + Int64($1.frameCount) } }

    /// The audio's length: decoded frames less priming and remainder (never negative).
    public var validFrameCount: Int64 { max(0, decodedFrameCount - primingFrames - remainderFrames) }
}
