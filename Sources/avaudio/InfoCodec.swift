// What `avaudio info` adds for a compressed file: the codec, its source depth and packet size, the
// average bit rate, the compression against PCM of the source depth, and for FLAC the stream
// header's facts (block and frame size bounds, MD5, seek points, the metadata blocks present).
import Foundation
import AVFoundation
import AudioCodecs

struct CodecReport: Encodable {
    struct FLACDetails: Encodable {
        var minimumBlockSize: Int
        var maximumBlockSize: Int
        var minimumFrameSize: Int
        var maximumFrameSize: Int
        /// The STREAMINFO MD5 of the decoded audio, hex; nil when the encoder left it unset (zeros).
        var md5: String?
        /// Points in the SEEKTABLE (placeholders excluded), 0 without one.
        var seekPoints: Int
        /// The metadata blocks, in file order ("STREAMINFO", "VORBIS_COMMENT", …).
        var metadata: [String]
    }

    var name: String
    var sourceBitDepth: Int?
    var framesPerPacket: Int
    /// Average over the whole file (container included), in bits per second.
    var bitRate: Double
    /// The file's size over PCM of the source depth (or 16 bits when none is stated).
    var sizeRatio: Double
    var flac: FLACDetails?

    /// The report for a compressed file, nil for linear PCM and G.711.
    init?(facts: FormatFacts, frames: Int64, fileSize: Int64?, url: URL) {
        guard ![kAudioFormatLinearPCM, kAudioFormatULaw, kAudioFormatALaw].contains(facts.formatID) else { return nil }
        switch facts.formatID {
        case kAudioFormatFLAC: name = "FLAC"
        case kAudioFormatAppleLossless: name = "Apple Lossless"
        case kAudioFormatMPEG4AAC: name = "AAC"
        case kAudioFormatMPEGLayer3: name = "MP3"
        case kAudioFormatOpus: name = "Opus"
        default: name = fourCC(facts.formatID)
        }
        let lossless = facts.formatID == kAudioFormatFLAC || facts.formatID == kAudioFormatAppleLossless
        sourceBitDepth = lossless ? [1: 16, 2: 20, 3: 24, 4: 32][Int(facts.formatFlags)] : nil
        framesPerPacket = facts.framesPerPacket
        let seconds = facts.sampleRate > 0 ? Double(frames) / facts.sampleRate : 0
        let bytes = Double(fileSize ?? 0)
        bitRate = seconds > 0 ? bytes * 8 / seconds : 0
        let pcmBytes = Double(frames) * Double(facts.channels) * Double(sourceBitDepth ?? 16) / 8
        sizeRatio = pcmBytes > 0 ? bytes / pcmBytes : 0
        if facts.formatID == kAudioFormatFLAC { flac = CodecReport.flacDetails(url) }
    }

    /// Reads the FLAC stream header (at most 16 MB: a large embedded picture fits).
    static func flacDetails(_ url: URL) -> FLACDetails? {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return nil }
        defer { try? handle.close() }
        var bytes = Data()
        var want = 65_536
        while true {
            guard let more = try? handle.read(upToCount: want - bytes.count) else { return nil }
            bytes.append(more)
            let parsed = bytes.withUnsafeBytes { try? FLACStreamHeader.parse($0) }
            if let parsed {
                let names = [0: "STREAMINFO", 1: "PADDING", 2: "APPLICATION", 3: "SEEKTABLE", 4: "VORBIS_COMMENT", 5: "CUESHEET", 6: "PICTURE"]
                var points = 0
                for block in parsed.blocks where block.type == 3 {
                    // 18-byte points; a sample number of all ones marks a placeholder.
                    for k in 0..<(block.length / 18) {
                        let at = block.offset + k * 18
                        if bytes[at..<(at + 8)].contains(where: { $0 != 0xFF }) { points += 1 }
                    }
                }
                let md5 = parsed.info.md5.allSatisfy { $0 == 0 } ? nil : parsed.info.md5.map { String(format: "%02x", $0) }.joined()
                return FLACDetails(minimumBlockSize: parsed.info.minimumBlockSize, maximumBlockSize: parsed.info.maximumBlockSize,
                                   minimumFrameSize: parsed.info.minimumFrameSize, maximumFrameSize: parsed.info.maximumFrameSize,
                                   md5: md5, seekPoints: points, metadata: parsed.blocks.map { names[$0.type] ?? "type \($0.type)" })
            }
            guard more.count > 0, want < 16 << 20 else { return nil }
            want *= 4
        }
    }

    /// Text lines for the report.
    var lines: [(String, String)] {
        var out: [(String, String)] = [
            ("Codec", name + (sourceBitDepth.map { ", from \($0)-bit source" } ?? "") + ", \(framesPerPacket) frames/packet"),
            ("Bit rate", String(format: "%.1f kbit/s (average)", bitRate / 1000)),
            ("Compression", String(format: "%.1f %% of %d-bit PCM (%.2f:1)", sizeRatio * 100, sourceBitDepth ?? 16, sizeRatio > 0 ? 1 / sizeRatio : 0)),
        ]
        if let flac {
            out.append(("FLAC blocks", "\(flac.minimumBlockSize)–\(flac.maximumBlockSize) frames; frames \(flac.minimumFrameSize)–\(flac.maximumFrameSize) bytes (0: unknown)"))
            out.append(("Seek table", flac.seekPoints == 0 ? "none" : "\(flac.seekPoints) points"))
            out.append(("MD5", flac.md5 ?? "not set"))
            out.append(("Metadata", flac.metadata.joined(separator: ", ")))
        }
        return out
    }
}
