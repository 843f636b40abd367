// Chained Ogg FLAC (RFC 3533 §4: links one after another, `cat a.oga b.oga`) through AVAudioFile,
// against ffmpeg's decoding of the same chain, which is each link's samples in turn (checked
// here too, against ffmpeg's decoding of the links one by one). Chains of 2 and 3 links made by
// ffmpeg — with distinct serial numbers, and with `-fflags +bitexact`, which gives every link
// serial 0 — read as one file: `length` is the sum of the links', one read, reads in odd chunk
// sizes and reads after seeks to frames around and inside the 2nd and 3rd links equal ffmpeg's
// samples. A link at another sample rate, or in Vorbis, ends the file at the link before it
// (ffmpeg resamples the first and stops at the second; we stop at both, since AVAudioFile's
// format is fixed; OggChain.swift). Our own writer's files concatenated read the same way.
// Skips visibly without ffmpeg.
import Foundation
import Testing
import AVFoundation

@Suite struct AVAudioFileOggChainTests {
    typealias ALAC = AVAudioFileALACTests
    typealias Ogg = AVAudioFileOggTests

    /// An Ogg FLAC link of `frames` frames at `rate`, a tone of `frequency` Hz per channel (plus
    /// 31 Hz per channel) with a little noise, so that links and channels differ everywhere.
    static func makeLink(_ url: URL, frequency: Int, frames: Int, rate: Int = 44_100, channels: Int, bits: Int, bitexact: Bool = false) throws {
        let exprs = (0..<channels).map { c in "0.4*sin(2*PI*\(frequency + 31 * c)*t)+0.03*(random(\(c + frequency))-0.5)" }
        let duration = String(format: "%.6f", Double(frames) / Double(rate))
        let status = try ALAC.ffmpeg(["-f", "lavfi", "-i", "aevalsrc=\(exprs.joined(separator: "|")):s=\(rate):d=\(duration)",
                                      "-c:a", "flac", "-sample_fmt", bits == 16 ? "s16" : "s32"] + (bitexact ? ["-fflags", "+bitexact"] : [])
                                      + ["-f", "ogg", url.path])
        #expect(status == 0)
    }

    /// The files at `parts` concatenated into `out` (a chain).
    static func concatenate(_ parts: [URL], into out: URL) throws {
        var bytes = Data()
        for part in parts { bytes += try Data(contentsOf: part) }
        try bytes.write(to: out)
    }

    /// Checks `url` reads as `expected` (interleaved, ffmpeg's): length, one read, chunked reads
    /// in each of `chunks`, and 777-frame reads after seeks to each of `seeks`.
    static func checkReads(_ url: URL, _ expected: [Int32], channels: Int, bits: Int, chunks: [Int], seeks: [Int]) throws {
        let frames = expected.count / channels
        let file = try AVAudioFile(forReading: url)
        #expect(file.fileFormat.streamDescription.pointee.mFormatID == kAudioFormatFLAC)
        #expect(Int(file.fileFormat.channelCount) == channels)
        #expect(file.length == AVAudioFramePosition(frames))

        let whole = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: AVAudioFrameCount(frames + 100))!
        try file.read(into: whole)
        #expect(Int(whole.frameLength) == frames)
        #expect(Ogg.wrong(whole, 0, expected, channels: channels, bits: bits) == 0)

        for size in chunks {
            file.framePosition = 0
            let chunk = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: AVAudioFrameCount(size))!
            var at = 0, bad = 0
            while at < frames {
                try file.read(into: chunk, frameCount: AVAudioFrameCount(size))
                guard chunk.frameLength > 0 else { break }
                bad += Ogg.wrong(chunk, at, expected, channels: channels, bits: bits)
                at += Int(chunk.frameLength)
            }
            #expect(at == frames && bad == 0, "chunks of \(size): \(at) frames, \(bad) wrong")
        }

        for start in seeks where start >= 0 && start < frames {
            file.framePosition = AVAudioFramePosition(start)
            let piece = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 777)!
            try file.read(into: piece)
            #expect(Int(piece.frameLength) == min(777, frames - start), "seek to \(start)")
            #expect(Ogg.wrong(piece, start, expected, channels: channels, bits: bits) == 0, "seek to \(start)")
        }
    }

    /// Seek targets: each link boundary and its neighbours, and random frames in every link.
    static func seeks(_ lengths: [Int]) -> [Int] {
        var rng = SystemRandomNumberGenerator()
        var out = [0, 1]
        var start = 0
        for length in lengths {
            out += [start - 1, start, start + 1, start + 4607, start + 4608] + (0..<6).map { _ in start + Int.random(in: 0..<length, using: &rng) }
            start += length
        }
        return out + [start - 1, start - 776, start - 778]
    }

    @Test(arguments: [([30_001, 12_345], 2, 16, false), ([20_000, 9_999, 17_777], 2, 16, false),
                      ([10_007, 4_608, 25_000], 1, 24, true), ([5_000, 70_000], 6, 16, true)])
    func ffmpegChainReadsAsOneFile(_ lengths: [Int], _ channels: Int, _ bits: Int, _ bitexact: Bool) throws {
        let label = "\(lengths.count)-link Ogg FLAC chain (\(channels) ch, \(bits)-bit\(bitexact ? ", serials all 0" : ""))"
        guard ALAC.hasFFmpeg else { print("SKIP \(label): ffmpeg is not installed"); return }
        let dir = try ALAC.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var links: [URL] = [], separately: [Int32] = []
        for (k, frames) in lengths.enumerated() {
            let link = dir.appendingPathComponent("link\(k).oga")
            try Self.makeLink(link, frequency: 200 + 150 * k, frames: frames, channels: channels, bits: bits, bitexact: bitexact)
            let decoded = try ALAC.ffmpegDecode(link, bits: bits, dir: dir)
            #expect(decoded.count == frames * channels, "link \(k)")
            separately += decoded
            links.append(link)
        }
        let chain = dir.appendingPathComponent("chain.oga")
        try Self.concatenate(links, into: chain)
        let expected = try ALAC.ffmpegDecode(chain, bits: bits, dir: dir)
        // ffmpeg's decoding of the chain is its links' decodings in turn.
        #expect(expected == separately, "\(label)")
        try Self.checkReads(chain, expected, channels: channels, bits: bits, chunks: [1237, 333, 4609], seeks: Self.seeks(lengths))
    }

    @Test func linkAtAnotherSampleRateEndsTheFile() throws {
        guard ALAC.hasFFmpeg else { print("SKIP Ogg chain with a sample-rate change: ffmpeg is not installed"); return }
        let dir = try ALAC.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let first = dir.appendingPathComponent("first.oga"), other = dir.appendingPathComponent("48k.oga")
        let third = dir.appendingPathComponent("third.oga")
        try Self.makeLink(first, frequency: 300, frames: 23_456, channels: 2, bits: 16)
        try Self.makeLink(other, frequency: 500, frames: 12_000, rate: 48_000, channels: 2, bits: 16)
        try Self.makeLink(third, frequency: 700, frames: 8_000, channels: 2, bits: 16)
        let expected = try ALAC.ffmpegDecode(first, bits: 16, dir: dir)
        let chain = dir.appendingPathComponent("chain.oga")
        // The matching third link after the mismatching second is not read either.
        try Self.concatenate([first, other, third], into: chain)
        try Self.checkReads(chain, expected, channels: 2, bits: 16, chunks: [1001], seeks: [0, 23_455, 20_000])
        let file = try AVAudioFile(forReading: chain)
        #expect(file.fileFormat.sampleRate == 44_100 && file.length == 23_456)
        file.framePosition = file.length
        let after = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 100)!
        // Reading at the end: Apple's AVAudioFile gives no frames or throws; neither traps.
        do { try file.read(into: after); #expect(after.frameLength == 0) } catch {}
    }

    @Test func vorbisLinkEndsTheFile() throws {
        guard ALAC.hasFFmpeg else { print("SKIP Ogg chain with a Vorbis link: ffmpeg is not installed"); return }
        let dir = try ALAC.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let first = dir.appendingPathComponent("first.oga"), vorbis = dir.appendingPathComponent("v.ogg")
        try Self.makeLink(first, frequency: 300, frames: 15_000, channels: 2, bits: 16)
        guard try ALAC.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=500:sample_rate=44100:duration=0.5", "-ac", "2", "-c:a", "libvorbis", vorbis.path]) == 0 else {
            print("SKIP Ogg chain with a Vorbis link: this ffmpeg has no Vorbis encoder"); return
        }
        let expected = try ALAC.ffmpegDecode(first, bits: 16, dir: dir)
        let chain = dir.appendingPathComponent("chain.oga")
        try Self.concatenate([first, vorbis], into: chain)
        try Self.checkReads(chain, expected, channels: 2, bits: 16, chunks: [999], seeks: [14_999, 7_000])
    }

    @Test func ourOwnFilesConcatenatedReadAsOneFile() throws {
        guard ALAC.hasFFmpeg else { print("SKIP chain of our Ogg FLAC files: ffmpeg is not installed"); return }
        let dir = try ALAC.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let wavA = dir.appendingPathComponent("a.wav"), wavB = dir.appendingPathComponent("b.wav")
        let a = dir.appendingPathComponent("a.oga"), b = dir.appendingPathComponent("b.oga")
        try ALAC.makeWAV(wavA, channels: 2, frames: 30_001, rate: 44_100, bits: 16)
        // B: another signal (A's, 1,000 frames in), so that a seek landing in the wrong link shows.
        #expect(try ALAC.ffmpeg(["-i", wavA.path, "-af", "atrim=start_sample=1000,volume=0.7", "-c:a", "pcm_s16le", wavB.path]) == 0)
        try Ogg.writeOgg(from: wavA, to: a, bits: 16, chunk: 4_099)
        try Ogg.writeOgg(from: wavB, to: b, bits: 16, chunk: 777)
        let expectedA = try ALAC.ffmpegDecode(wavA, bits: 16, dir: dir), expectedB = try ALAC.ffmpegDecode(wavB, bits: 16, dir: dir)
        let chain = dir.appendingPathComponent("chain.oga")
        // A, B, A: two writer runs (distinct serials) and the same file twice (the same serial).
        try Self.concatenate([a, b, a], into: chain)
        let expected = expectedA + expectedB + expectedA
        #expect(try ALAC.ffmpegDecode(chain, bits: 16, dir: dir) == expected)
        let lengths = [expectedA.count / 2, expectedB.count / 2, expectedA.count / 2]
        try Self.checkReads(chain, expected, channels: 2, bits: 16, chunks: [1237, 65_537], seeks: Self.seeks(lengths))
    }
}
