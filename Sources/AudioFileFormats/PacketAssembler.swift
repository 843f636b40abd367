// The packet writers' (CAF, MP4) shared front half: frames in, whole packets out.
//
// AVAudioFile hands a packet writer raw interleaved integers in any chunk sizes; a codec encodes
// whole packets (`framesPerPacket` frames; only the stream's last may be shorter). The assembler
// converts the frames to the encoder's right-justified Int32 samples (PacketSampleLoading.swift),
// holds them until a packet is complete, encodes it, and hands the bytes to the writer, which
// stores them and keeps its own index (CAF's packet table, MP4's sample tables) current.

import AudioCodecs

final class PacketAssembler {
    let path: String
    let encoder: AudioPacketEncoder
    /// Frames accepted so far, including those buffered for the next packet.
    private(set) var framesWritten: Int64 = 0
    /// Frames waiting for the next packet.
    private(set) var buffered = 0
    private let channels: Int
    private let containerBytes: Int
    private let validBits: Int
    private let pending: UnsafeMutablePointer<Int32>
    private var packetBuffer: [UInt8]
    /// The codec's channel order, when it differs from the writer's: the encoder's channel `s`
    /// is the written frames' channel `channelOrder[s]` (ALAC's fixed order against a layout in
    /// another order; AVAudioFile+ALACChannelOrder.swift). Nil: as written.
    var channelOrder: [Int]? {
        didSet { frameScratch = [Int32](repeating: 0, count: channels) }
    }
    private var frameScratch: [Int32] = []

    init(path: String, encoder: AudioPacketEncoder, description: AudioDataDescription) {
        self.path = path
        self.encoder = encoder
        channels = description.channelCount
        containerBytes = description.encoding.bytesPerSample
        validBits = description.validBitsPerSample
        pending = .allocate(capacity: encoder.framesPerPacket * description.channelCount)
        packetBuffer = [UInt8](repeating: 0, count: encoder.maximumPacketSize)
    }

    deinit { pending.deallocate() }

    /// Appends `frames` interleaved frames written at `frame` (packets are only ever appended),
    /// calling `store` with each packet they complete: its bytes and its frame count.
    func append(frames: Int, from buffer: UnsafeRawPointer, atFrame frame: Int64, closed: Bool,
                store: (UnsafeRawBufferPointer, Int) throws -> Void) throws {
        guard !closed else {
            throw AudioFileFormatError(code: Code.notOpen, message: "cannot write to \(quoted(path)): the file has been closed")
        }
        guard frame == framesWritten else {
            throw AudioFileFormatError(code: Code.operationNotSupported, message:
                "cannot write at frame \(frame) of \(quoted(path)): compressed packets are written only at the end (frame \(framesWritten))")
        }
        guard frames >= 0 else {
            throw AudioFileFormatError(code: Code.position, message: "cannot write \(frames) frames to \(quoted(path)): the count is negative")
        }
        let per = encoder.framesPerPacket
        var done = 0
        while done < frames {
            if buffered == per { try flush(store: store) }
            let take = min(frames - done, per - buffered)
            loadPacketSamples(buffer + done * channels * containerBytes, count: take * channels, containerBytes: containerBytes,
                              validBits: validBits, into: pending + buffered * channels)
            buffered += take
            done += take
            framesWritten += Int64(take)
            if buffered == per { try flush(store: store) }
        }
    }

    /// Encodes the buffered frames, if any, as a packet (at the end of the stream, the short last
    /// one) and calls `store` with it.
    func flush(store: (UnsafeRawBufferPointer, Int) throws -> Void) throws {
        guard buffered > 0 else { return }
        if let order = channelOrder, order.count == channels {
            frameScratch.withUnsafeMutableBufferPointer { row in
                for i in 0..<buffered {
                    let frame = pending + i * channels
                    for c in 0..<channels { row[c] = frame[c] }
                    for s in 0..<channels { frame[s] = row[order[s]] }
                }
            }
        }
        let size: Int
        do {
            size = try packetBuffer.withUnsafeMutableBytes { try encoder.encode(pending, frameCount: buffered, into: $0.baseAddress!) }
        } catch let error as CodecError {
            throw AudioFileFormatError(code: Code.unspecified, message: "cannot write \(quoted(path)): \(error.message)")
        }
        try packetBuffer.withUnsafeBytes { try store(UnsafeRawBufferPointer(rebasing: $0[..<size]), buffered) }
        buffered = 0
    }
}
