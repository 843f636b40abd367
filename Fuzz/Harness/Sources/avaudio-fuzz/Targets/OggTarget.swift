// The Ogg demuxer and the FLAC-in-Ogg and Vorbis mappings (AudioFileFormats' OggPacketReader) on the bytes as a
// file in memory, then the first packets through the codec's decoder, gathered from their pieces as
// PacketFileReader gathers them.
//
// Checks beyond "no crash, no hang, no leak, no huge allocation": the reader either returns an
// index or throws an AudioFileFormatError with a sentence naming the file; every packet and every
// piece of a packet spanning pages lies inside the input, and a packet's pieces add up to its
// size; at most one packet per input byte; the remainder never negative nor more than the
// packets hold; a decoder either decodes a packet into at most its capacity or throws a CodecError.
import AudioCodecs
import AudioFileFormats

extension FuzzTarget {
    static let ogg = FuzzTarget(name: "ogg", structure: nil) { parseOgg($0) }
}

func parseOgg(_ bytes: [UInt8]) {
    let index: PacketIndex
    do {
        index = try OggPacketReader.packetIndex(bytes: bytes, name: "input.oga")
    } catch let error as AudioFileFormatError {
        guard error.message.contains("input.oga"), error.message.count > 30 else { fuzzFailure("an error without a readable sentence: \(error)") }
        return
    } catch {
        fuzzFailure("OggPacketReader threw \(error), not an AudioFileFormatError")
    }
    guard index.packets.count <= bytes.count else { fuzzFailure("\(index.packets.count) packets in a \(bytes.count)-byte file") }
    func inside(_ p: StoredPacket) -> Bool { p.offset >= 0 && p.byteCount >= 0 && p.offset + Int64(p.byteCount) <= Int64(bytes.count) }
    for (i, p) in index.packets.enumerated() {
        guard p.frameCount >= 0, p.byteCount >= 0 else { fuzzFailure("packet \(i) is \(p)") }
        if let pieces = index.pieces[i] {
            guard pieces.allSatisfy(inside), pieces.reduce(0, { $0 + $1.byteCount }) == p.byteCount else {
                fuzzFailure("packet \(i) \(p) has pieces \(pieces) outside the \(bytes.count)-byte input or not adding up")
            }
        } else if !inside(p) {
            fuzzFailure("packet \(i) \(p) lies outside the \(bytes.count)-byte input")
        }
    }
    // Priming: Vorbis's first granule may start the stream inside its first packets.
    guard index.primingFrames >= 0, index.remainderFrames >= 0, index.primingFrames + index.remainderFrames <= index.decodedFrameCount else {
        fuzzFailure("priming \(index.primingFrames) and remainder \(index.remainderFrames) of \(index.decodedFrameCount) frames")
    }
    guard let decoder = try? AudioCodecRegistry.decoder(for: AudioStreamSetup(
        codec: index.codec, sampleRate: index.sampleRate, channelCount: index.channelCount,
        bitsPerSample: index.bitsPerSample, magicCookie: index.magicCookie)) else { return }
    let capacity = decoder.maximumFramesPerPacket
    let output = UnsafeMutablePointer<Int32>.allocate(capacity: capacity * decoder.channelCount)
    defer { output.deallocate() }
    for (i, p) in index.packets.prefix(64).enumerated() {
        let packet = (index.pieces[i] ?? [p]).flatMap { bytes[Int($0.offset)..<Int($0.offset) + $0.byteCount] }
        do {
            let n = try packet.withUnsafeBytes { try decoder.decode($0, into: output, frameCapacity: capacity) }
            guard n >= 0, n <= capacity else { fuzzFailure("a packet decoded to \(n) frames, capacity \(capacity)") }
        } catch is CodecError {
            decoder.reset()
        } catch {
            fuzzFailure("a decoder threw \(error), not a CodecError")
        }
    }
}
