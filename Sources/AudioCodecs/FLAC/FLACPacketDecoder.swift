// FLAC as a packet codec: one packet = one FLAC frame, as containers that index FLAC's frames
// store it (MP4's `fLaC` sample entry, CAF, Ogg). The setup comes from the magic cookie — the
// stream's metadata blocks, STREAMINFO first (MP4's `dfLa` payload), with or without the "fLaC"
// marker in front — and decoding is FLACFrameDecoder's, through its public API only.
//
// FLAC frames are independent (no state crosses a frame boundary), so any packet can start a
// decode and `reset()` has nothing to forget.

/// Decodes FLAC frames stored one per packet.
public final class FLACPacketDecoder: AudioPacketDecoder {
    public let channelCount: Int
    public let bitsPerSample: Int
    public let sampleRate: Double
    public let maximumFramesPerPacket: Int
    /// The stream's STREAMINFO, as the cookie gives it.
    public let info: FLACStreamInfo
    private let frames: FLACFrameDecoder

    /// Throws CodecError when the cookie holds no valid STREAMINFO or disagrees with the container.
    public init(setup: AudioStreamSetup) throws {
        let marker: [UInt8] = [0x66, 0x4C, 0x61, 0x43]
        let stream = setup.magicCookie.starts(with: marker) ? setup.magicCookie : marker + setup.magicCookie
        guard stream.count > 4 else {
            throw CodecError(.corrupt, "FLAC: the stream has no magic cookie; its STREAMINFO metadata block is needed to decode it")
        }
        info = try stream.withUnsafeBytes { try FLACStreamHeader.parse($0).info }
        guard setup.channelCount == 0 || setup.channelCount == info.channelCount else {
            throw CodecError(.corrupt, "FLAC: the container says \(setup.channelCount) channels but STREAMINFO says \(info.channelCount)")
        }
        channelCount = info.channelCount
        bitsPerSample = info.bitsPerSample
        sampleRate = Double(info.sampleRate)
        // A frame may declare up to 65,535 samples whatever STREAMINFO's maximum says; decode()
        // refuses one larger than the caller's capacity rather than trusting the maximum.
        maximumFramesPerPacket = max(info.maximumBlockSize, 16)
        frames = FLACFrameDecoder(info: info)
    }

    public func decode(_ packet: UnsafeRawBufferPointer, into output: UnsafeMutablePointer<Int32>, frameCapacity: Int) throws -> Int {
        guard packet.count > 0 else { throw CodecError(.truncated, "FLAC: an empty packet holds no frame") }
        let header = try frames.frameHeader(packet, at: 0)
        guard header.channelCount == channelCount else {
            throw CodecError(.corrupt, "FLAC: a frame has \(header.channelCount) channels in a \(channelCount)-channel stream")
        }
        guard header.blockSize <= frameCapacity else {
            throw CodecError(.corrupt, "FLAC: a frame of \(header.blockSize) samples does not fit the \(frameCapacity)-frame buffer (STREAMINFO's largest block is \(info.maximumBlockSize))")
        }
        let decoded = try frames.decodeFrame(packet, at: 0).header
        let n = decoded.blockSize
        for c in 0..<channelCount {
            let source = frames.samples(channel: c)
            var out = output + c
            for i in 0..<n {
                out.pointee = Int32(truncatingIfNeeded: source[i])
                out += channelCount
            }
        }
        return n
    }

    public func reset() {}
}
