// FLAC as a packet codec, the encoding side of FLACPacketDecoder: one packet = one FLAC frame
// (header, subframes, CRC: exactly the bytes a native .flac stream would hold at that point),
// as MP4's `fLaC` sample entry, CAF and Ogg store FLAC, encoded by FLACEncoder. Frames are
// numbered from 0 (fixed block size: frame numbers, not sample numbers, in the frame headers);
// every packet holds `framesPerPacket` frames but the last, which may hold fewer (RFC 9639 §9.1).
//
// The magic cookie is what FLACPacketDecoder (and AVAudioConverter's decoder) takes: the
// stream's metadata, here the one STREAMINFO block with its 4-byte block header (marked last)
// and without the "fLaC" marker — MP4's `dfLa` box holds the same blocks. A packet encoder sees
// the stream one packet at a time, so the cookie's frame sizes, total samples and MD5 are
// "unknown" (0), which RFC 9639 §8.2 allows; the block size and the format fields, all a decoder
// needs, are exact. A container that keeps STREAMINFO current (the MP4 writer) builds the
// 34-byte body with `streamInfo(totalSamples:)`, which carries the frame sizes seen so far.

/// Encodes interleaved Int32 frames into FLAC frames, one per packet.
public final class FLACPacketEncoder: AudioPacketEncoder {
    public let encoder: FLACEncoder
    public var channelCount: Int { encoder.channelCount }
    public var bitsPerSample: Int { encoder.bitsPerSample }
    public var sampleRate: Double { Double(encoder.sampleRate) }
    public var framesPerPacket: Int { encoder.blockSize }
    /// The compression level (0…8, libFLAC's scale).
    public let level: Int
    /// The encoder's output buffer capacity, which bounds every frame it writes.
    public var maximumPacketSize: Int { 32 + encoder.blockSize * encoder.channelCount * 5 }
    /// The STREAMINFO metadata block (block header marked last + the 34-byte body), totals unknown.
    public var magicCookie: [UInt8] { [0x80, 0, 0, 34] + encoder.streamInfo(minimumFrameSize: 0, maximumFrameSize: 0, totalSamples: 0, md5: []) }
    private var frameNumber: Int64 = 0
    /// Smallest and largest frame so far (for STREAMINFO; 0 until a frame is written).
    public private(set) var minimumFrameSize = 0
    public private(set) var maximumFrameSize = 0

    /// `compressionLevel` 0…8 on libFLAC's scale (FLACEncoder.parameters(forLevel:)). Throws
    /// CodecError when FLAC cannot hold the format (1–8 channels, 4–32 bits, 1 to 1,048,575 Hz).
    public init(sampleRate: Int, channelCount: Int, bitsPerSample: Int, compressionLevel: Int = 5) throws {
        let parameters = FLACEncoder.parameters(forLevel: compressionLevel)
        encoder = try FLACEncoder(sampleRate: sampleRate, channelCount: channelCount, bitsPerSample: bitsPerSample,
                                  blockSize: parameters.blockSize, maximumLPCOrder: parameters.maximumLPCOrder)
        level = max(0, min(8, compressionLevel))
    }

    /// The registry's entry point. `setup.bitsPerSample` 0 means 16; the rate must be a whole
    /// number of hertz.
    public convenience init(setup: AudioStreamSetup, level: Int = 5) throws {
        guard setup.sampleRate.isFinite, setup.sampleRate == setup.sampleRate.rounded(), setup.sampleRate >= 1, setup.sampleRate <= 1_048_575 else {
            throw CodecError(.unsupported, "FLAC holds whole-number sample rates of 1 to 1,048,575 Hz, not \(setup.sampleRate) Hz")
        }
        try self.init(sampleRate: Int(setup.sampleRate), channelCount: setup.channelCount,
                      bitsPerSample: setup.bitsPerSample == 0 ? 16 : setup.bitsPerSample, compressionLevel: level)
    }

    /// STREAMINFO's 34-byte body with this stream's frame sizes so far and `totalSamples`
    /// (0: unknown); MD5 unset.
    public func streamInfo(totalSamples: Int64) -> [UInt8] {
        encoder.streamInfo(minimumFrameSize: minimumFrameSize, maximumFrameSize: maximumFrameSize, totalSamples: totalSamples, md5: [])
    }

    public func encode(_ samples: UnsafePointer<Int32>, frameCount n: Int, into output: UnsafeMutableRawPointer) throws -> Int {
        guard n >= 1 && n <= encoder.blockSize else {
            throw CodecError(.unsupported, "a FLAC packet of this stream holds 1 to \(encoder.blockSize) frames, not \(n)")
        }
        let channels = encoder.channelCount
        let lowest = -(Int64(1) << Int64(bitsPerSample - 1)), highest = (Int64(1) << Int64(bitsPerSample - 1)) - 1
        for c in 0..<channels {
            let channel = encoder.samples(channel: c)
            var p = samples + c
            for i in 0..<n {
                // Clamped, so a sample outside the declared depth cannot make an undecodable frame.
                channel[i] = min(max(Int64(p.pointee), lowest), highest)
                p += channels
            }
        }
        let frame = encoder.encodeFrame(count: n, frameNumber: frameNumber)
        guard frame.count <= maximumPacketSize else {
            throw CodecError(.corrupt, "a FLAC frame of \(frame.count) bytes is larger than the \(maximumPacketSize) bytes reserved for it")
        }
        output.copyMemory(from: frame.baseAddress!, byteCount: frame.count)
        frameNumber += 1
        minimumFrameSize = minimumFrameSize == 0 ? frame.count : min(minimumFrameSize, frame.count)
        maximumFrameSize = max(maximumFrameSize, frame.count)
        return frame.count
    }

    /// Starts a new stream: the next packet is frame 0.
    public func reset() { frameNumber = 0; minimumFrameSize = 0; maximumFrameSize = 0 }
}
