// FLAC as a packet codec, the encoding side of FLACPacketDecoder: one packet = one FLAC frame,
// as MP4's `fLaC` sample entry, CAF and Ogg store FLAC, encoded by FLACEncoder.
//
// The magic cookie is what FLACPacketDecoder takes: the stream's metadata, here the one
// STREAMINFO block with its 4-byte block header (marked last) and without the "fLaC" marker —
// MP4's `dfLa` box holds the same blocks. A packet encoder sees the stream one packet at a time,
// so STREAMINFO's frame sizes, total samples and MD5 are left "unknown" (0), which RFC 9639 §8.2
// allows; the block size and the format fields, all a decoder needs, are exact.
//
// The stream is fixed-blocksize (frame numbers, not sample numbers, in the frame headers): every
// packet holds `framesPerPacket` frames but the last, which may hold fewer (§9.1).

/// Encodes interleaved Int32 frames into FLAC frames, one per packet.
public final class FLACPacketEncoder: AudioPacketEncoder {
    public let channelCount: Int
    public let bitsPerSample: Int
    public let sampleRate: Double
    public var framesPerPacket: Int { encoder.blockSize }
    public let maximumPacketSize: Int
    public let magicCookie: [UInt8]
    /// The compression level (0…8, libFLAC's scale).
    public let level: Int
    private let encoder: FLACEncoder
    private var frameNumber: Int64 = 0

    /// `setup.bitsPerSample` 0 means 16. Throws CodecError when FLAC cannot hold the format
    /// (1–8 channels, 4–32 bits, whole-number rates of 1 Hz to 1,048,575 Hz).
    public init(setup: AudioStreamSetup, level: Int = 5) throws {
        let bits = setup.bitsPerSample == 0 ? 16 : setup.bitsPerSample
        guard setup.sampleRate.isFinite, setup.sampleRate == setup.sampleRate.rounded(), setup.sampleRate >= 1, setup.sampleRate <= 1_048_575 else {
            throw CodecError(.unsupported, "FLAC holds whole-number sample rates of 1 to 1,048,575 Hz, not \(setup.sampleRate) Hz")
        }
        let parameters = FLACEncoder.parameters(forLevel: level)
        encoder = try FLACEncoder(sampleRate: Int(setup.sampleRate), channelCount: setup.channelCount, bitsPerSample: bits,
                                  blockSize: parameters.blockSize, maximumLPCOrder: parameters.maximumLPCOrder)
        self.level = max(0, min(8, level))
        channelCount = setup.channelCount
        bitsPerSample = bits
        sampleRate = setup.sampleRate
        // The encoder never writes a subframe longer than VERBATIM (it prices VERBATIM and keeps
        // the cheapest), so a frame is at most: the header (16 bytes with the longest frame
        // number, block size and rate codes, and the CRC-8), per channel a subframe header with
        // wasted bits (5 bytes) and every sample verbatim at one bit more than the depth (the
        // side channel), and the CRC-16 after the padding.
        maximumPacketSize = 16 + channelCount * (5 + (encoder.blockSize * (bits + 1) + 7) / 8) + 2
        magicCookie = [0x80, 0, 0, 34] + encoder.streamInfo(minimumFrameSize: 0, maximumFrameSize: 0, totalSamples: 0, md5: [])
    }

    public func encode(_ samples: UnsafePointer<Int32>, frameCount n: Int, into output: UnsafeMutableRawPointer) throws -> Int {
        guard n >= 1 && n <= encoder.blockSize else {
            throw CodecError(.unsupported, "FLAC: a packet of this stream holds 1 to \(encoder.blockSize) frames, not \(n)")
        }
        let lowest = -(Int64(1) << Int64(bitsPerSample - 1)), highest = (Int64(1) << Int64(bitsPerSample - 1)) - 1
        for c in 0..<channelCount {
            let channel = encoder.samples(channel: c)
            var p = samples + c
            for i in 0..<n {
                // Clamped, so a sample outside the declared depth cannot make an undecodable frame.
                channel[i] = min(max(Int64(p.pointee), lowest), highest)
                p += channelCount
            }
        }
        let bytes = encoder.encodeFrame(count: n, frameNumber: frameNumber)
        guard bytes.count <= maximumPacketSize else {
            throw CodecError(.corrupt, "FLAC: a frame of \(bytes.count) bytes exceeds the \(maximumPacketSize)-byte bound")
        }
        output.copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
        frameNumber += 1
        return bytes.count
    }

    /// Starts a new stream: the next packet is frame 0.
    public func reset() { frameNumber = 0 }
}
