// The MP4/M4A/MOV parser (AudioFileFormats' MP4PacketReader) on the bytes as a file in memory,
// then every packet of a codec the registry decodes (FLAC and ALAC) through its decoder.
//
// AVAudioFile reads MP4 through this parser and PacketFileReader; the target calls the parser
// directly so that inputs need no file: AudioFileFormats and AudioCodecs are modules of the
// library package that the harness's AVFoundation dependency builds, importable as they are.
//
// Checks beyond "no crash, no hang, no leak, no huge allocation": the parser either returns an
// index or throws an AudioFileFormatError with a sentence naming the file; every packet lies
// inside the input; at most one packet per input byte; priming and remainder never negative and
// never more than the packets hold; a decoder either decodes a packet into at most its capacity
// or throws a CodecError.
import AudioCodecs
import AudioFileFormats

extension FuzzTarget {
    static let mp4 = FuzzTarget(name: "mp4", structure: nil) { parseMP4($0) }
}

func parseMP4(_ bytes: [UInt8]) {
    let index: PacketIndex
    do {
        index = try MP4PacketReader.packetIndex(bytes: bytes, name: "input.m4a")
    } catch let error as AudioFileFormatError {
        guard error.message.contains("input.m4a"), error.message.count > 30 else { fuzzFailure("an error without a readable sentence: \(error)") }
        return
    } catch {
        fuzzFailure("MP4PacketReader threw \(error), not an AudioFileFormatError")
    }
    guard index.packets.count <= bytes.count else { fuzzFailure("\(index.packets.count) packets in a \(bytes.count)-byte file") }
    for (i, p) in index.packets.enumerated() {
        guard p.offset >= 0, p.byteCount >= 0, p.offset + Int64(p.byteCount) <= Int64(bytes.count), p.frameCount >= 0 else {
            fuzzFailure("packet \(i) \(p) lies outside the \(bytes.count)-byte input")
        }
    }
    guard index.primingFrames >= 0, index.remainderFrames >= 0,
          index.primingFrames + index.remainderFrames <= index.decodedFrameCount else {
        fuzzFailure("priming \(index.primingFrames) and remainder \(index.remainderFrames) of \(index.decodedFrameCount) frames")
    }
    guard let decoder = try? AudioCodecRegistry.decoder(for: AudioStreamSetup(
        codec: index.codec, sampleRate: index.sampleRate, channelCount: index.channelCount,
        bitsPerSample: index.bitsPerSample, magicCookie: index.magicCookie)) else { return }
    let capacity = decoder.maximumFramesPerPacket
    let output = UnsafeMutablePointer<Int32>.allocate(capacity: capacity * decoder.channelCount)
    defer { output.deallocate() }
    bytes.withUnsafeBytes { raw in
        for p in index.packets.prefix(64) {
            let packet = UnsafeRawBufferPointer(rebasing: raw[Int(p.offset)..<Int(p.offset) + p.byteCount])
            do {
                let n = try decoder.decode(packet, into: output, frameCapacity: capacity)
                guard n >= 0, n <= capacity else { fuzzFailure("a packet decoded to \(n) frames, capacity \(capacity)") }
            } catch is CodecError {
                decoder.reset()
            } catch {
                fuzzFailure("a decoder threw \(error), not a CodecError")
            }
        }
    }
}
