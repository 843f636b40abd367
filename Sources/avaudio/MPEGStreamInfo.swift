// `avaudio info` for raw MPEG audio (`.mp3`, `.mp2`) and ADTS AAC (`.aac`) streams, which have no
// decoder yet: what the frame index says — codec, rate, channels, frames (with the LAME tag's
// priming and remainder trimmed), duration and average bit rate — instead of levels.
import AudioFileFormats
import AudioCodecs
import Foundation

struct MPEGStreamReport: Encodable {
    var file: String
    var codec: String
    var formatID: String
    var sampleRate: Double
    var channels: Int
    var packets: Int
    var primingFrames: Int64
    var remainderFrames: Int64
    var frames: Int64
    var duration: Double
    var bitRate: Double
    var warnings: [String]

    /// True when the file starts like an MPEG audio or ADTS stream (ID3v2 tag or frame sync).
    static func isStream(path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        return MPEGAudioStreamReader.sniff([UInt8](handle.readData(ofLength: 4)))
    }

    init(path: String) throws {
        let index = try MPEGAudioStreamReader.packetIndex(path: path)
        file = path
        formatID = AudioCodecRegistry.fourCharacterName(index.codec)
        switch index.codec {
        case 0x6161_6320: codec = "AAC (ADTS), object type \(Int(index.magicCookie.first ?? 0) >> 3)"
        case 0x2E6D_7031: codec = "MPEG Layer I"
        case 0x2E6D_7032: codec = "MPEG Layer II"
        default: codec = "MPEG Layer III (MP3)"
        }
        sampleRate = index.sampleRate
        channels = index.channelCount
        packets = index.packets.count
        primingFrames = index.primingFrames
        remainderFrames = index.remainderFrames
        frames = index.validFrameCount
        duration = Double(frames) / index.sampleRate
        let bytes = index.packets.reduce(0) { $0 + $1.byteCount }
        let decoded = Double(index.decodedFrameCount) / index.sampleRate
        bitRate = decoded > 0 ? Double(bytes) * 8 / decoded : 0
        warnings = index.warnings
    }

    var text: String {
        var lines = ["File:           \(file)",
                     "Codec:          \(codec) (\(formatID)), no decoder yet",
                     "Data format:    \(channels) ch, \(Int(sampleRate)) Hz",
                     "Packets:        \(packets) frames of audio",
                     "Length:         \(frames) frames (priming \(primingFrames), remainder \(remainderFrames))",
                     String(format: "Duration:       %.6f s", duration),
                     String(format: "Bit rate:       %.1f kbit/s (average)", bitRate / 1000)]
        lines += warnings.map { "Warning:        \($0)" }
        return lines.joined(separator: "\n")
    }

    func jsonLine() throws -> String {
        String(decoding: try JSONEncoder().encode(self), as: UTF8.self)
    }
}
