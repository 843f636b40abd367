// The raw MPEG audio and ADTS frame scanner (AudioFileFormats' MPEGAudioStreamReader) on the
// bytes as a file in memory: ID3v2 skipping, frame headers, sync with verification of the next
// header and resynchronisation, Xing/Info/LAME and VBRI tags, ADTS headers.
//
// Checks beyond "no crash, no hang, no leak, no huge allocation": the reader either returns an
// index or throws an AudioFileFormatError with a sentence naming the file; every packet lies
// inside the input and packets do not overlap (frames are laid end to end); at most one packet
// per 7 input bytes (no frame is shorter); priming and remainder never negative nor more than the
// packets hold.
import AudioFileFormats

extension FuzzTarget {
    static let mpeg = FuzzTarget(name: "mpeg", structure: nil) { parseMPEG($0) }
}

func parseMPEG(_ bytes: [UInt8]) {
    let index: PacketIndex
    do {
        index = try MPEGAudioStreamReader.packetIndex(bytes: bytes, name: "input.mp3")
    } catch let error as AudioFileFormatError {
        guard error.message.contains("input.mp3"), error.message.count > 30 else { fuzzFailure("an error without a readable sentence: \(error)") }
        return
    } catch {
        fuzzFailure("MPEGAudioStreamReader threw \(error), not an AudioFileFormatError")
    }
    guard index.packets.count <= bytes.count / 7 + 1 else { fuzzFailure("\(index.packets.count) packets in a \(bytes.count)-byte file") }
    var previousEnd: Int64 = 0
    for (i, p) in index.packets.enumerated() {
        guard p.offset >= previousEnd, p.byteCount >= 0, p.offset + Int64(p.byteCount) <= Int64(bytes.count), p.frameCount > 0 else {
            fuzzFailure("packet \(i) \(p) lies outside the \(bytes.count)-byte input or overlaps the one before")
        }
        previousEnd = p.offset + Int64(p.byteCount)
    }
    guard index.primingFrames >= 0, index.remainderFrames >= 0,
          index.primingFrames + index.remainderFrames <= index.decodedFrameCount else {
        fuzzFailure("priming \(index.primingFrames) and remainder \(index.remainderFrames) of \(index.decodedFrameCount) frames")
    }
}
