// Raw MPEG audio (MP3 from libmp3lame when ffmpeg has it, MP2 from ffmpeg's encoder) and ADTS
// AAC streams: the frame index (AudioFileFormats' MPEGAudioStreamReader) against `ffprobe
// -show_packets` — the same number of packets at the same byte positions with the same sizes (for
// ADTS, ffprobe's packets include the 7-byte header, ours start after it) — and the length after
// the LAME tag's gapless trimming against the samples ffmpeg decodes; AVAudioFile refuses them
// for want of a decoder with kAudioFileUnsupportedDataFormatError naming the codec. Garbage
// before and inside the stream is skipped with a warning. Skips visibly without ffmpeg.
import Foundation
import Testing
import AVFoundation
import AudioFileFormats

@Suite struct AVAudioFileMPEGStreamTests {
    typealias ALAC = AVAudioFileALACTests

    /// (pos, size, duration_ts) of every packet ffprobe lists.
    static func ffprobePackets(_ url: URL) throws -> [(Int64, Int, Int)] {
        let text = try AVAudioFileOggTests.ffprobe(["-show_entries", "packet=pos,size,duration", "-of", "csv=p=0", url.path])
        return text.split(separator: "\n").compactMap { line in
            let f = line.split(separator: ",").map(String.init)
            guard f.count >= 3, let a = Int64(f[2]), let b = Int(f[1]), let c = Int(f[0]) else { return nil }
            return (a, b, c)
        }
    }

    static func decodedFrames(_ url: URL, channels: Int) throws -> Int {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["ffmpeg", "-v", "error", "-i", url.path, "-f", "s16le", "-"]
        let pipe = Pipe()
        p.standardOutput = pipe
        try p.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return data.count / (2 * channels)
    }

    static let hasLAME: Bool = {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["ffmpeg", "-hide_banner", "-encoders"]
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = FileHandle.nullDevice
        guard (try? p.run()) != nil else { return false }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(decoding: data, as: UTF8.self).contains("libmp3lame")
    }()

    @Test(arguments: [("mp3", 2, 44_100, ["-b:a", "128k"]), ("mp3", 1, 22_050, ["-q:a", "4"]), ("mp3", 2, 48_000, ["-q:a", "2"]),
                      ("mp2", 2, 48_000, ["-b:a", "192k"]), ("aac", 2, 44_100, []), ("aac", 1, 16_000, [])])
    func framesAgreeWithFFprobe(_ kind: String, _ channels: Int, _ rate: Int, _ flags: [String]) throws {
        guard ALAC.hasFFmpeg else { print("SKIP MPEG framing (\(kind)): ffmpeg is not installed"); return }
        guard kind != "mp3" || Self.hasLAME else { print("SKIP MPEG framing (mp3): ffmpeg has no libmp3lame (mp2 still runs)"); return }
        let dir = try ALAC.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let wav = dir.appendingPathComponent("in.wav")
        let out = dir.appendingPathComponent("out." + kind)
        try ALAC.makeWAV(wav, channels: channels, frames: rate * 3 + 777, rate: rate, bits: 16)
        let codec = ["mp3": ["-c:a", "libmp3lame"], "mp2": ["-c:a", "mp2"], "aac": ["-c:a", "aac", "-f", "adts"]][kind]!
        // Tags in front, as real files have them.
        let tagged = kind == "mp3" ? ["-id3v2_version", "3", "-metadata", "title=Ogg and friends"] : []
        #expect(try ALAC.ffmpeg(["-i", wav.path] + codec + flags + tagged + [out.path]) == 0)

        let index = try MPEGAudioStreamReader.packetIndex(path: out.path)
        let probe = try Self.ffprobePackets(out)
        #expect(index.packets.count == probe.count && !probe.isEmpty)
        #expect(index.sampleRate == Double(rate) && index.channelCount == channels)
        #expect(index.warnings.isEmpty, "\(index.warnings)")
        let header = kind == "aac" ? 7 : 0
        var disagreements = 0
        for (p, q) in zip(index.packets, probe) where p.offset - Int64(header) != q.0 || p.byteCount + header != q.1 { disagreements += 1 }
        #expect(disagreements == 0, "\(disagreements) packets differ from ffprobe's")
        switch kind {
        case "mp3":
            #expect(index.codec == kAudioFormatMPEGLayer3)
            #expect(index.primingFrames > 529, "a LAME/Lavc tag gives the encoder delay")
            #expect(index.validFrameCount == Int64(try Self.decodedFrames(out, channels: channels)))
        case "mp2":
            #expect(index.codec == kAudioFormatMPEGLayer2)
            #expect(index.validFrameCount == Int64(try Self.decodedFrames(out, channels: channels)))
        default:
            #expect(index.codec == kAudioFormatMPEG4AAC)
            #expect(index.packets.allSatisfy { $0.frameCount == 1024 })
            #expect(index.magicCookie.count == 2 && index.magicCookie[0] >> 3 == 2, "AAC LC's AudioSpecificConfig")
        }
        // Durations: ffprobe's per packet, in the stream's time base, equal ours in samples.
        let base = try AVAudioFileOggTests.ffprobe(["-select_streams", "a:0", "-show_entries", "stream=time_base", "-of", "csv=p=0", out.path])
            .split(separator: "/").compactMap { Int($0) }
        #expect(base.count == 2)
        if base.count == 2 {
            let wrongDurations = zip(index.packets, probe).filter { p, q in p.frameCount * base[1] != q.2 * rate * base[0] }.count
            #expect(wrongDurations == 0, "\(wrongDurations) packet durations differ from ffprobe's (time base \(base))")
        }

        // AVAudioFile: no decoder yet, and it says which codec.
        do {
            _ = try AVAudioFile(forReading: out)
            Issue.record("a \(kind) file opened although no decoder exists")
        } catch let error as NSError {
            #expect(error.code == Int(kAudioFileUnsupportedDataFormatError), "\(error)")
            #expect(error.localizedDescription.contains(kind == "aac" ? "'aac '" : "'.\(kind)'"), "\(error.localizedDescription)")
        }

        // Garbage in front of the first frame and between two frames: skipped, with a warning.
        var bytes = [UInt8](try Data(contentsOf: out))
        let middle = Int(index.packets[index.packets.count / 2].offset) - header
        bytes.insert(contentsOf: [0xFF, 0xFB, 0x00, 0x12, 0x34, 0xFF, 0xF1, 0x99], at: middle)
        let damaged = try MPEGAudioStreamReader.packetIndex(bytes: bytes, name: "damaged")
        #expect(damaged.packets.count == index.packets.count)
        #expect(damaged.warnings.contains { $0.contains("lost sync") }, "\(damaged.warnings)")
        // Random truncations: an index or an error naming the file, never a trap.
        for cut in stride(from: 1, to: bytes.count, by: max(1, bytes.count / 37)) {
            do { _ = try MPEGAudioStreamReader.packetIndex(bytes: Array(bytes.prefix(cut)), name: "cut") } catch let error as AudioFileFormatError {
                #expect(error.message.contains("cut"))
            }
        }
    }

    @Test func freeFormatIsRefusedClearly() throws {
        // Two MPEG-1 Layer III headers with bit-rate index 0 (free format).
        let bytes: [UInt8] = [0xFF, 0xFB, 0x00, 0x44] + [UInt8](repeating: 0, count: 400) + [0xFF, 0xFB, 0x00, 0x44] + [UInt8](repeating: 0, count: 400)
        do {
            _ = try MPEGAudioStreamReader.packetIndex(bytes: bytes, name: "free.mp3")
            Issue.record("a free-format stream was indexed")
        } catch let error as AudioFileFormatError {
            #expect(error.code == AudioFileFormatError.Code.unsupportedDataFormat && error.message.contains("free-format"), "\(error)")
        }
    }
}
