// FLAC in Ogg (`.oga`/`.ogg`) through AVAudioFile, checked against ffmpeg both ways: ffmpeg's
// Ogg FLAC files (16/24-bit, 1/2/6 channels, short and long) read bit-exactly against ffmpeg's
// own decoding — whole, in odd chunks and after random seeks — with the exact length; our Ogg
// FLAC files decode bit-exactly in ffmpeg, which counts exactly the samples written; a copy taken
// while the writer is still open reads (in ours and in ffmpeg) up to its last complete page; and
// damage — a corrupted page, a truncated page, a corrupted header, random truncations and byte
// flips — gives either a readable file with the damaged page skipped or an NSError, never a trap.
// Skips visibly without ffmpeg.
import Foundation
import Testing
import AVFoundation

@Suite struct AVAudioFileOggTests {
    typealias ALAC = AVAudioFileALACTests

    /// Mismatching samples of `buffer` against ffmpeg's interleaved decoding from frame `start`
    /// (FLAC keeps ffmpeg's channel order).
    static func wrong(_ buffer: AVAudioPCMBuffer, _ start: Int, _ expected: [Int32], channels: Int, bits: Int) -> Int {
        var count = 0
        for c in 0..<channels {
            let got = ALAC.integers(buffer, channel: c, bits: bits)
            for i in got.indices where (start + i) * channels + c >= expected.count || got[i] != expected[(start + i) * channels + c] { count += 1 }
        }
        return count
    }

    static func ffprobe(_ args: [String]) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["ffprobe", "-v", "error"] + args
        let pipe = Pipe()
        p.standardOutput = pipe
        try p.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(arguments: [(1, 16, 57_330), (2, 16, 1_000), (2, 24, 50_001), (6, 16, 20_000), (2, 16, 661_500)])
    func readsFFmpegOggFLACBitExactly(_ channels: Int, _ bits: Int, _ frames: Int) throws {
        guard ALAC.hasFFmpeg else { print("SKIP Ogg FLAC reading (\(channels) ch, \(bits)-bit): ffmpeg is not installed"); return }
        let dir = try ALAC.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let wav = dir.appendingPathComponent("in.wav"), oga = dir.appendingPathComponent("in.oga")
        try ALAC.makeWAV(wav, channels: channels, frames: frames, rate: 44_100, bits: bits)
        #expect(try ALAC.ffmpeg(["-i", wav.path, "-c:a", "flac", "-sample_fmt", bits == 16 ? "s16" : "s32", "-f", "ogg", oga.path]) == 0)
        let expected = try ALAC.ffmpegDecode(oga, bits: bits, dir: dir)
        #expect(expected.count == frames * channels)

        let file = try AVAudioFile(forReading: oga)
        let asbd = file.fileFormat.streamDescription.pointee
        #expect(asbd.mFormatID == kAudioFormatFLAC)
        #expect(asbd.mChannelsPerFrame == UInt32(channels) && file.fileFormat.sampleRate == 44_100)
        #expect(file.length == AVAudioFramePosition(frames))

        let whole = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: AVAudioFrameCount(frames + 10))!
        try file.read(into: whole)
        #expect(Int(whole.frameLength) == frames)
        #expect(Self.wrong(whole, 0, expected, channels: channels, bits: bits) == 0)

        file.framePosition = 0
        let chunk = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 1237)!
        var at = 0, bad = 0
        while at < frames {
            try file.read(into: chunk, frameCount: 1237)
            bad += Self.wrong(chunk, at, expected, channels: channels, bits: bits)
            at += Int(chunk.frameLength)
        }
        #expect(at == frames && bad == 0)

        var rng = SystemRandomNumberGenerator()
        let starts = [0, 1, 4095, 4096, frames - 1] + (0..<12).map { _ in Int.random(in: 0..<frames, using: &rng) }
        for start in starts where start >= 0 && start < frames {
            file.framePosition = AVAudioFramePosition(start)
            let piece = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 777)!
            try file.read(into: piece)
            #expect(Int(piece.frameLength) == min(777, frames - start), "seek to \(start)")
            #expect(Self.wrong(piece, start, expected, channels: channels, bits: bits) == 0, "seek to \(start)")
        }
    }

    /// Writes `frames` frames of the WAV at `wav` to `out` in chunks of `chunk` frames through
    /// AVAudioFile; `during` runs after each write with the frames written so far.
    static func writeOgg(from wav: URL, to out: URL, bits: Int, chunk: Int, during: (Int) throws -> Void = { _ in }) throws {
        let source = try AVAudioFile(forReading: wav)
        let channels = Int(source.fileFormat.channelCount)
        let writer = try AVAudioFile(forWriting: out, settings: [AVFormatIDKey: kAudioFormatFLAC, AVSampleRateKey: 44_100,
                                                                 AVNumberOfChannelsKey: channels, AVEncoderBitDepthHintKey: bits])
        #expect(writer.fileFormat.streamDescription.pointee.mFormatID == kAudioFormatFLAC)
        let buffer = AVAudioPCMBuffer(pcmFormat: source.processingFormat, frameCapacity: AVAudioFrameCount(chunk))!
        var done = 0
        while source.framePosition < source.length {
            try source.read(into: buffer, frameCount: AVAudioFrameCount(chunk))
            try writer.write(from: buffer)
            done += Int(buffer.frameLength)
            try during(done)
        }
        writer.close()
    }

    @Test(arguments: [(1, 16, 30_001, 1_000), (2, 16, 100_000, 4_099), (2, 24, 44_100, 777), (6, 16, 20_000, 5_000), (2, 16, 1, 1)])
    func writtenOggFLACDecodesBitExactlyInFFmpeg(_ channels: Int, _ bits: Int, _ frames: Int, _ chunk: Int) throws {
        guard ALAC.hasFFmpeg else { print("SKIP Ogg FLAC writing (\(channels) ch, \(bits)-bit): ffmpeg is not installed"); return }
        let dir = try ALAC.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let wav = dir.appendingPathComponent("in.wav"), oga = dir.appendingPathComponent("out.oga")
        try ALAC.makeWAV(wav, channels: channels, frames: frames, rate: 44_100, bits: bits)
        try Self.writeOgg(from: wav, to: oga, bits: bits, chunk: chunk)
        let expected = try ALAC.ffmpegDecode(wav, bits: bits, dir: dir)
        let decoded = try ALAC.ffmpegDecode(oga, bits: bits, dir: dir)
        #expect(decoded.count == frames * channels)
        #expect(decoded == expected)
        // ffprobe's duration in samples comes from the last page's granule position.
        #expect(try Self.ffprobe(["-show_entries", "stream=duration_ts", "-of", "csv=p=0", oga.path]) == "\(frames)")
        #expect(try Self.ffprobe(["-show_entries", "stream=codec_name", "-of", "csv=p=0", oga.path]) == "flac")
        // The page structure: BOS first page of exactly 79 bytes, EOS on the last.
        let bytes = [UInt8](try Data(contentsOf: oga))
        #expect(bytes.count > 79 && bytes[5] == 2 && Array(bytes[79..<83]) == Array("OggS".utf8))
        var at = 0, lastFlags: UInt8 = 0, pages = 0
        while at + 27 <= bytes.count {
            let segments = Int(bytes[at + 26])
            lastFlags = bytes[at + 5]
            at += 27 + segments + bytes[(at + 27)..<(at + 27 + segments)].reduce(0) { $0 + Int($1) }
            pages += 1
        }
        #expect(at == bytes.count && lastFlags & 4 != 0, "\(pages) pages, last flags \(lastFlags)")
        // And ours reads it back the same.
        let file = try AVAudioFile(forReading: oga)
        #expect(file.length == AVAudioFramePosition(frames))
        let all = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: AVAudioFrameCount(frames))!
        try file.read(into: all)
        #expect(Self.wrong(all, 0, expected, channels: channels, bits: bits) == 0)
    }

    @Test func copyTakenMidWriteOpens() throws {
        guard ALAC.hasFFmpeg else { print("SKIP Ogg FLAC mid-write copy: ffmpeg is not installed"); return }
        let dir = try ALAC.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let wav = dir.appendingPathComponent("in.wav"), oga = dir.appendingPathComponent("out.ogg")
        try ALAC.makeWAV(wav, channels: 2, frames: 60_000, rate: 44_100, bits: 16)
        let expected = try ALAC.ffmpegDecode(wav, bits: 16, dir: dir)
        var copies = 0
        try Self.writeOgg(from: wav, to: oga, bits: 16, chunk: 10_000) { written in
            guard written == 30_000 else { return }
            let copy = dir.appendingPathComponent("copy.ogg")
            try FileManager.default.copyItem(at: oga, to: copy)
            copies += 1
            // Every complete 4,096-sample frame written so far is on disk.
            let complete = written / 4096 * 4096
            let file = try AVAudioFile(forReading: copy)
            #expect(file.length == AVAudioFramePosition(complete))
            let all = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: AVAudioFrameCount(complete))!
            try file.read(into: all)
            #expect(Int(all.frameLength) == complete && Self.wrong(all, 0, expected, channels: 2, bits: 16) == 0)
            let decoded = try ALAC.ffmpegDecode(copy, bits: 16, dir: dir)
            #expect(decoded.count == complete * 2 && decoded == Array(expected[0..<(complete * 2)]))
            // Torn last page (a writer killed mid-write): the pages before it still read.
            let bytes = try Data(contentsOf: copy)
            let torn = dir.appendingPathComponent("torn.ogg")
            try bytes.prefix(bytes.count - 100).write(to: torn)
            let cut = try AVAudioFile(forReading: torn)
            #expect(cut.length > 0 && cut.length < AVAudioFramePosition(complete))
            let some = AVAudioPCMBuffer(pcmFormat: cut.processingFormat, frameCapacity: AVAudioFrameCount(complete))!
            try cut.read(into: some)
            #expect(Int(some.frameLength) == Int(cut.length) && Self.wrong(some, 0, expected, channels: 2, bits: 16) == 0)
        }
        #expect(copies == 1)
    }

    @Test func damagedPagesAreSkippedOrRefusedNeverTrap() throws {
        guard ALAC.hasFFmpeg else { print("SKIP Ogg FLAC damage: ffmpeg is not installed"); return }
        let dir = try ALAC.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let wav = dir.appendingPathComponent("in.wav"), oga = dir.appendingPathComponent("in.oga")
        try ALAC.makeWAV(wav, channels: 2, frames: 100_000, rate: 44_100, bits: 16)
        #expect(try ALAC.ffmpeg(["-i", wav.path, "-c:a", "flac", "-f", "ogg", "-page_duration", "100000", oga.path]) == 0)
        let expected = try ALAC.ffmpegDecode(oga, bits: 16, dir: dir)
        let original = [UInt8](try Data(contentsOf: oga))
        var pageStarts: [Int] = []
        var at = 0
        while at + 27 <= original.count {
            pageStarts.append(at)
            let n = Int(original[at + 26])
            at += 27 + n + original[(at + 27)..<(at + 27 + n)].reduce(0) { $0 + Int($1) }
        }
        #expect(pageStarts.count >= 6, "\(pageStarts.count) pages")
        let damaged = dir.appendingPathComponent("damaged.oga")

        // A flipped byte inside an audio page: its CRC fails, the page is skipped, the rest reads.
        var bytes = original
        let victim = pageStarts[pageStarts.count / 2]
        bytes[victim + 200] ^= 0x5A
        try Data(bytes).write(to: damaged)
        let file = try AVAudioFile(forReading: damaged)
        #expect(file.length > 0 && file.length < 100_000)
        let all = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 100_000)!
        try file.read(into: all)
        #expect(Int(all.frameLength) == Int(file.length))
        // The frames before the damaged page are exactly ffmpeg's.
        let head = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 4096)!
        file.framePosition = 0
        try file.read(into: head)
        #expect(Self.wrong(head, 0, expected, channels: 2, bits: 16) == 0)

        // A damaged identification page: no stream begins, a clear NSError.
        bytes = original
        bytes[40] ^= 0xFF
        try Data(bytes).write(to: damaged)
        do {
            _ = try AVAudioFile(forReading: damaged)
            Issue.record("a file whose first page is damaged opened")
        } catch let error as NSError {
            #expect(error.localizedDescription.contains("Ogg"), "\(error.localizedDescription)")
        }

        // Random truncations and byte flips: opens and reads, or throws; never traps.
        var rng = SystemRandomNumberGenerator()
        var opened = 0, refused = 0
        for trial in 0..<60 {
            bytes = original
            if trial % 2 == 0 {
                bytes.removeLast(Int.random(in: 1..<bytes.count, using: &rng))
            } else {
                for _ in 0..<Int.random(in: 1...8, using: &rng) { bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng) }
            }
            try Data(bytes).write(to: damaged)
            do {
                let f = try AVAudioFile(forReading: damaged)
                #expect(f.length <= 100_000)
                let b = AVAudioPCMBuffer(pcmFormat: f.processingFormat, frameCapacity: 100_000)!
                do { try f.read(into: b) } catch let error as NSError {
                    // A damaged frame inside a page whose CRC still holds fails the read that needs it.
                    #expect(error.localizedDescription.contains("damaged.oga"), "\(error.localizedDescription)")
                }
                opened += 1
            } catch let error as NSError {
                #expect(error.localizedDescription.contains("damaged.oga"), "\(error.localizedDescription)")
                refused += 1
            }
        }
        // Reaching here at all is the point (no trap); most damage leaves the headers intact.
        #expect(opened + refused == 60 && opened > 0, "opened \(opened), refused \(refused)")

        // Cut inside the identification page: nothing to read, a clear NSError.
        try Data(original.prefix(50)).write(to: damaged)
        do {
            _ = try AVAudioFile(forReading: damaged)
            Issue.record("a file cut inside its first page opened")
        } catch let error as NSError {
            #expect(error.localizedDescription.contains("damaged.oga"), "\(error.localizedDescription)")
        }
    }

    @Test func otherOggCodecsAreRefusedByName() throws {
        guard ALAC.hasFFmpeg else { print("SKIP Ogg Opus refusal: ffmpeg is not installed"); return }
        let dir = try ALAC.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let wav = dir.appendingPathComponent("in.wav"), ogg = dir.appendingPathComponent("in.ogg")
        try ALAC.makeWAV(wav, channels: 2, frames: 48_000, rate: 48_000, bits: 16)
        guard try ALAC.ffmpeg(["-i", wav.path, "-c:a", "libopus", ogg.path]) == 0 else {
            print("SKIP Ogg Opus refusal: this ffmpeg has no Opus encoder"); return
        }
        do {
            _ = try AVAudioFile(forReading: ogg)
            Issue.record("an Ogg Opus file opened although no Opus decoder exists")
        } catch let error as NSError {
            #expect(error.code == Int(kAudioFileUnsupportedDataFormatError), "\(error)")
            #expect(error.localizedDescription.contains("Opus"), "\(error.localizedDescription)")
        }
    }
}
