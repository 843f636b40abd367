// FLACEncoder behind the AudioPacketEncoder protocol: one FLAC frame per packet, as containers
// that carry FLAC as packets store it (MP4's 'fLaC' sample entry, Ogg FLAC). The packet is the
// whole frame — header, subframes, CRC — exactly the bytes a native .flac stream would hold
// at that point, and frames are numbered from 0 (fixed block size), so a decoder reading the
// packets one by one sees the same stream.
//
// The magic cookie is the 34-byte STREAMINFO body with unknown totals (frame sizes 0, total
// samples 0, MD5 all zero: "not computed", RFC 9639 §8.2): a container that wants STREAMINFO
// current builds it with `streamInfo(totalSamples:)` instead.

public final class FLACPacketEncoder: AudioPacketEncoder {
    public let encoder: FLACEncoder
    public var channelCount: Int { encoder.channelCount }
    public var bitsPerSample: Int { encoder.bitsPerSample }
    public var sampleRate: Double { Double(encoder.sampleRate) }
    public var framesPerPacket: Int { encoder.blockSize }
    /// The encoder's output buffer capacity, which bounds every frame it writes.
    public var maximumPacketSize: Int { 32 + encoder.blockSize * encoder.channelCount * 5 }
    public var magicCookie: [UInt8] { streamInfo(totalSamples: 0) }
    private var frameNumber: Int64 = 0
    /// Smallest and largest frame so far (for STREAMINFO; 0 until a frame is written).
    public private(set) var minimumFrameSize = 0
    public private(set) var maximumFrameSize = 0

    /// `compressionLevel` 0…8 on libFLAC's scale (FLACEncoder.parameters(forLevel:)).
    public init(sampleRate: Int, channelCount: Int, bitsPerSample: Int, compressionLevel: Int = 5) throws {
        let level = FLACEncoder.parameters(forLevel: compressionLevel)
        encoder = try FLACEncoder(sampleRate: sampleRate, channelCount: channelCount, bitsPerSample: bitsPerSample,
                                  blockSize: level.blockSize, maximumLPCOrder: level.maximumLPCOrder)
    }

    /// STREAMINFO with this stream's frame sizes so far and `totalSamples` (0: unknown); MD5 unset.
    public func streamInfo(totalSamples: Int64) -> [UInt8] {
        encoder.streamInfo(minimumFrameSize: minimumFrameSize, maximumFrameSize: maximumFrameSize, totalSamples: totalSamples, md5: [])
    }

    public func encode(_ samples: UnsafePointer<Int32>, frameCount: Int, into output: UnsafeMutableRawPointer) throws -> Int {
        guard frameCount >= 1, frameCount <= encoder.blockSize else {
            throw CodecError(.unsupported, "a FLAC packet holds 1 to \(encoder.blockSize) frames, not \(frameCount)")
        }
        let channels = encoder.channelCount
        for c in 0..<channels {
            let out = encoder.samples(channel: c)
            for i in 0..<frameCount { out[i] = Int64(samples[i * channels + c]) }
        }
        let frame = encoder.encodeFrame(count: frameCount, frameNumber: frameNumber)
        guard frame.count <= maximumPacketSize else {
            throw CodecError(.unsupported, "a FLAC frame of \(frame.count) bytes is larger than the \(maximumPacketSize) bytes reserved for it")
        }
        output.copyMemory(from: frame.baseAddress!, byteCount: frame.count)
        frameNumber += 1
        minimumFrameSize = minimumFrameSize == 0 ? frame.count : min(minimumFrameSize, frame.count)
        maximumFrameSize = max(maximumFrameSize, frame.count)
        return frame.count
    }
}
