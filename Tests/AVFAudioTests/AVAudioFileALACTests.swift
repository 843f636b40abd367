// AVAudioFile on Apple Lossless CAF files, checked against ffmpeg (its own ALAC encoder and
// decoder, independent of ours): files ffmpeg encodes (16- and 24-bit; mono, stereo, 6 and 8
// channels; lengths with a partial last packet, and a file shorter than one packet) read with
// every sample equal to ffmpeg's decoding — whole, in odd chunk sizes and after seeks — with
// Apple's file format (kAudioFormatAppleLossless, the source-depth flag, 4,096 frames per
// packet) and the exact length; files we encode decode in ffmpeg to exactly the samples written,
// within a few percent of ffmpeg's size, and stay readable at every moment of writing. Skips
// visibly without ffmpeg.
import Foundation
import Testing
import AVFoundation
import CoreAudioTypes

@Suite struct AVAudioFileALACTests {
    static let hasFFmpeg: Bool = {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["ffmpeg", "-version"]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        do { try p.run() } catch { return false }
        p.waitUntilExit()
        return p.terminationStatus == 0
    }()

    /// ffmpeg's output channel for each ALAC channel (ALAC order C L R Ls Rs …; ffmpeg reorders
    /// to its layouts' order when it decodes, and from them when it encodes).
    static let ffmpegChannel: [[Int]] = [[0], [0, 1], [2, 0, 1], [2, 0, 1, 3], [2, 0, 1, 3, 4], [2, 0, 1, 4, 5, 3],
                                         [2, 0, 1, 4, 5, 6, 3], [2, 6, 7, 0, 1, 4, 5, 3]]

    @discardableResult
    static func ffmpeg(_ args: [String]) throws -> Int32 {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["ffmpeg", "-hide_banner", "-loglevel", "error", "-y"] + args
        try p.run()
        p.waitUntilExit()
        return p.terminationStatus
    }

    static func directory() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("avfile-alac-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// A WAV of `channels` different signals (tones, noise, a silent stretch), `frames` long.
    static func makeWAV(_ url: URL, channels: Int, frames: Int, rate: Int, bits: Int) throws {
        let exprs = (0..<channels).map { c -> String in
            let f = 220 + 97 * c
            // a tone, noise at a channel-dependent level, and 0.1 s of silence in the middle
            return "(0.5*sin(2*PI*\(f)*t)+\(0.02 * Double(c + 1))*(random(\(c))-0.5))*gt(abs(t-0.6)\\,0.05)"
        }
        let duration = String(format: "%.6f", Double(frames) / Double(rate))
        let status = try ffmpeg(["-f", "lavfi", "-i", "aevalsrc=\(exprs.joined(separator: "|")):s=\(rate):d=\(duration)",
                                 "-c:a", bits == 16 ? "pcm_s16le" : "pcm_s24le", url.path])
        #expect(status == 0)
    }

    /// ffmpeg's decoding of `url` as interleaved Int32 (16-bit as is, 24-bit right-justified).
    static func ffmpegDecode(_ url: URL, bits: Int, dir: URL) throws -> [Int32] {
        let raw = dir.appendingPathComponent(UUID().uuidString + ".raw")
        let status = try ffmpeg(["-i", url.path, "-f", bits == 16 ? "s16le" : "s32le", raw.path])
        #expect(status == 0)
        let data = try Data(contentsOf: raw)
        if bits == 16 { return data.withUnsafeBytes { $0.bindMemory(to: Int16.self).map { Int32($0) } } }
        return data.withUnsafeBytes { $0.bindMemory(to: Int32.self).map { $0 >> 8 } }
    }

    /// Samples from `buffer` as integers of `bits` (exact: Float holds 24 bits).
    static func integers(_ buffer: AVAudioPCMBuffer, channel: Int, bits: Int) -> [Int32] {
        let scale = Float(1 << (bits - 1))
        return (0..<Int(buffer.frameLength)).map { Int32(buffer.floatChannelData![channel][$0] * scale) }
    }

    /// ALAC's channel labels for 3–8 channels (C L R, C L R Cs, C L R Ls Rs, C L R Ls Rs LFE,
    /// C L R Ls Rs Cs LFE, C Lc Rc L R Ls Rs LFE).
    static let alacLabels: [[AudioChannelLabel]] =
        [kAudioChannelLayoutTag_MPEG_3_0_B, kAudioChannelLayoutTag_MPEG_4_0_B, kAudioChannelLayoutTag_MPEG_5_0_D,
         kAudioChannelLayoutTag_MPEG_5_1_D, kAudioChannelLayoutTag_AAC_6_1, kAudioChannelLayoutTag_MPEG_7_1_B].map { channelLabels(forLayoutTag: $0)! }

    /// ffmpeg's channel for each channel of `format`: through ALAC's channel with the same label
    /// (a file whose 'chan' lists ALAC's speakers in another order reads in that order).
    static func ffmpegMap(_ format: AVAudioFormat, channels: Int) -> [Int] {
        let alacOrder = ffmpegChannel[channels - 1]
        guard channels >= 3, let tag = format.channelLayout?.layout.pointee.mChannelLayoutTag,
              let read = channelLabels(forLayoutTag: tag) else { return alacOrder }
        let alac = alacLabels[channels - 3]
        return read.map { label in alac.firstIndex(of: label).map { alacOrder[$0] } ?? -1 }
    }

    /// Counts samples of `buffer` (frames from `start`) that differ from ffmpeg's.
    static func mismatches(_ buffer: AVAudioPCMBuffer, start: Int, expected: [Int32], channels: Int, bits: Int) -> Int {
        let map = ffmpegMap(buffer.format, channels: channels)
        if map.contains(-1) { return Int(buffer.frameLength) * channels }
        var wrong = 0
        for c in 0..<channels {
            let got = integers(buffer, channel: c, bits: bits)
            for i in 0..<got.count where (start + i) * channels >= expected.count || got[i] != expected[(start + i) * channels + map[c]] { wrong += 1 }
        }
        return wrong
    }

    @Test(arguments: [(1, 16, 57_330), (2, 16, 57_330), (2, 24, 50_001), (6, 16, 20_000), (5, 24, 9_000), (2, 16, 1_000), (1, 24, 4_096)])
    func readsFFmpegALACBitExactly(_ channels: Int, _ bits: Int, _ frames: Int) throws {
        guard Self.hasFFmpeg else { print("SKIP ALAC reading (\(channels) ch, \(bits)-bit): ffmpeg is not installed"); return }
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let wav = dir.appendingPathComponent("in.wav"), caf = dir.appendingPathComponent("in.caf")
        try Self.makeWAV(wav, channels: channels, frames: frames, rate: 44_100, bits: bits)
        #expect(try Self.ffmpeg(["-i", wav.path, "-c:a", "alac", "-sample_fmt", bits == 16 ? "s16p" : "s32p", caf.path]) == 0)
        let expected = try Self.ffmpegDecode(caf, bits: bits, dir: dir)
        #expect(expected.count == frames * channels)

        let file = try AVAudioFile(forReading: caf)
        let asbd = file.fileFormat.streamDescription.pointee
        #expect(asbd.mFormatID == kAudioFormatAppleLossless)
        #expect(asbd.mFormatFlags == (bits == 16 ? kAppleLosslessFormatFlag_16BitSourceData : kAppleLosslessFormatFlag_24BitSourceData))
        #expect(asbd.mFramesPerPacket == 4096 && asbd.mBytesPerPacket == 0 && asbd.mChannelsPerFrame == UInt32(channels))
        #expect(file.processingFormat.commonFormat == .pcmFormatFloat32 && file.processingFormat.channelCount == AVAudioChannelCount(channels))
        #expect(file.length == AVAudioFramePosition(frames))
        // ffmpeg's CAF declares its own 5.1 order (MPEG_5_1_A, L R C LFE Ls Rs): read in that order,
        // each channel under its label (`mismatches` matches channels by label).
        if channels == 6 { #expect(file.fileFormat.channelLayout?.layoutTag == kAudioChannelLayoutTag_MPEG_5_1_A) }

        let whole = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: AVAudioFrameCount(frames + 10))!
        try file.read(into: whole)
        #expect(Int(whole.frameLength) == frames)
        #expect(Self.mismatches(whole, start: 0, expected: expected, channels: channels, bits: bits) == 0)

        // Odd chunks from the start.
        file.framePosition = 0
        let chunk = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 1237)!
        var at = 0, wrong = 0
        while at < frames {
            try file.read(into: chunk, frameCount: 1237)
            wrong += Self.mismatches(chunk, start: at, expected: expected, channels: channels, bits: bits)
            at += Int(chunk.frameLength)
        }
        #expect(at == frames && wrong == 0)

        // Seeks: into the middle of packets, to a packet boundary, to the last frames.
        for start in [frames / 3, 4096, frames - 5, 1, frames / 2 + 17].filter({ $0 >= 0 && $0 < frames }) {
            file.framePosition = AVAudioFramePosition(start)
            let piece = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 777)!
            try file.read(into: piece)
            #expect(Int(piece.frameLength) == min(777, frames - start))
            #expect(Self.mismatches(piece, start: start, expected: expected, channels: channels, bits: bits) == 0, "seek to \(start)")
        }
    }

    @Test(arguments: [(2, 16), (1, 24), (6, 16), (2, 24)])
    func writesALACThatFFmpegDecodesBitExactly(_ channels: Int, _ bits: Int) throws {
        guard Self.hasFFmpeg else { print("SKIP ALAC writing (\(channels) ch, \(bits)-bit): ffmpeg is not installed"); return }
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let frames = 70_001
        let wav = dir.appendingPathComponent("in.wav"), ours = dir.appendingPathComponent("ours.caf"), theirs = dir.appendingPathComponent("theirs.caf")
        try Self.makeWAV(wav, channels: channels, frames: frames, rate: 48_000, bits: bits)
        let source = try AVAudioFile(forReading: wav)
        let input = AVAudioPCMBuffer(pcmFormat: source.processingFormat, frameCapacity: AVAudioFrameCount(frames))!
        try source.read(into: input)

        let out = try AVAudioFile(forWriting: ours, settings: [AVFormatIDKey: kAudioFormatAppleLossless, AVSampleRateKey: 48_000,
                                                               AVNumberOfChannelsKey: channels, AVEncoderBitDepthHintKey: bits])
        #expect(out.fileFormat.streamDescription.pointee.mFormatID == kAudioFormatAppleLossless)
        var at = 0
        var checkedMidWrite = false
        for size in [1000, 5000, 333, 20_000, 4096, 100_000] where at < frames {
            let n = min(size, frames - at)
            let piece = AVAudioPCMBuffer(pcmFormat: input.format, frameCapacity: AVAudioFrameCount(n))!
            piece.frameLength = AVAudioFrameCount(n)
            for c in 0..<channels { piece.floatChannelData![c].update(from: input.floatChannelData![c] + at, count: n) }
            try out.write(from: piece)
            at += n
            if at > 30_000 && !checkedMidWrite {
                // The file as a killed writer would leave it: every whole packet readable.
                checkedMidWrite = true
                let copy = dir.appendingPathComponent("copy.caf")
                try FileManager.default.copyItem(at: ours, to: copy)
                let partial = try AVAudioFile(forReading: copy)
                #expect(partial.length == AVAudioFramePosition(at / 4096 * 4096))
                let back = AVAudioPCMBuffer(pcmFormat: partial.processingFormat, frameCapacity: AVAudioFrameCount(max(1, partial.length)))!
                try partial.read(into: back)
                var wrong = 0
                for c in 0..<channels { for i in 0..<Int(back.frameLength) where back.floatChannelData![c][i] != input.floatChannelData![c][i] { wrong += 1 } }
                #expect(wrong == 0)
                let ffmpegCount = try Self.ffmpegDecode(copy, bits: bits, dir: dir).count
                #expect(ffmpegCount == Int(partial.length) * channels, "ffmpeg decoded \(ffmpegCount / channels) frames of the file being written")
            }
        }
        out.close()

        // ffmpeg decodes exactly what was written (our channel c is ALAC channel c).
        let decoded = try Self.ffmpegDecode(ours, bits: bits, dir: dir)
        #expect(decoded.count == frames * channels)
        let map = Self.ffmpegChannel[channels - 1]
        let scale = Float(1 << (bits - 1))
        var wrong = 0
        for c in 0..<channels {
            for i in 0..<min(frames, decoded.count / channels) where Float(decoded[i * channels + map[c]]) / scale != input.floatChannelData![c][i] { wrong += 1 }
        }
        #expect(wrong == 0, "\(wrong) samples differ in ffmpeg's decoding of our file")

        // And we read it back the same.
        let back = try AVAudioFile(forReading: ours)
        #expect(back.length == AVAudioFramePosition(frames))
        let again = AVAudioPCMBuffer(pcmFormat: back.processingFormat, frameCapacity: AVAudioFrameCount(frames))!
        try back.read(into: again)
        var wrongBack = 0
        for c in 0..<channels { for i in 0..<frames where again.floatChannelData![c][i] != input.floatChannelData![c][i] { wrongBack += 1 } }
        #expect(wrongBack == 0)

        // Size: within a few percent of ffmpeg's ALAC of the same audio.
        #expect(try Self.ffmpeg(["-i", wav.path, "-c:a", "alac", "-sample_fmt", bits == 16 ? "s16p" : "s32p", theirs.path]) == 0)
        let ourSize = try FileManager.default.attributesOfItem(atPath: ours.path)[.size] as! Int
        let theirSize = try FileManager.default.attributesOfItem(atPath: theirs.path)[.size] as! Int
        print("ALAC \(channels) ch \(bits)-bit: ours \(ourSize) bytes, ffmpeg \(theirSize) bytes (\(String(format: "%.2f", Double(ourSize) / Double(theirSize))))")
        // (our file carries a 64 KiB reserved packet-table area: compare the audio)
        #expect(Double(ourSize - 65_536) <= Double(theirSize) * 1.03)
    }

    @Test func damagedALACGivesErrorsNotCrashes() throws {
        guard Self.hasFFmpeg else { print("SKIP damaged ALAC: ffmpeg is not installed"); return }
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let wav = dir.appendingPathComponent("in.wav"), caf = dir.appendingPathComponent("in.caf")
        try Self.makeWAV(wav, channels: 2, frames: 30_000, rate: 44_100, bits: 16)
        #expect(try Self.ffmpeg(["-i", wav.path, "-c:a", "alac", caf.path]) == 0)
        let good = try Data(contentsOf: caf)
        let bad = dir.appendingPathComponent("bad.caf")
        let dataStart = good.range(of: Data("data".utf8))!.upperBound + 12
        let kuki = good.range(of: Data("kuki".utf8))!.upperBound + 8
        var rng = SystemRandomNumberGenerator()
        var errors = 0, reads = 0
        for trial in 0..<60 {
            var bytes = good
            switch trial % 3 {
            case 0:   // flip bytes in the packets
                for _ in 0..<8 { let i = Int.random(in: dataStart..<bytes.count, using: &rng); bytes[i] ^= UInt8.random(in: 1...255, using: &rng) }
            case 1:   // damage the cookie
                let i = Int.random(in: kuki..<(kuki + 48), using: &rng); bytes[i] ^= UInt8.random(in: 1...255, using: &rng)
            default:  // cut the file short
                bytes = bytes.prefix(Int.random(in: 1..<bytes.count, using: &rng))
            }
            try bytes.write(to: bad)
            do {
                let file = try AVAudioFile(forReading: bad)
                let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 40_000)!
                try file.read(into: buffer)
                reads += 1
            } catch let error as NSError {
                #expect(!error.localizedDescription.isEmpty)
                errors += 1
            }
        }
        #expect(errors + reads == 60)
        #expect(errors > 0)
    }

    /// CI's settings fuzz slice (2026-11-28) wrote an ALAC CAF declaring 905,969,663 Hz that the
    /// reader then refused (at most 10 MHz): the packet writer now refuses what the reader would,
    /// with an NSError, as the PCM writer does. Whatever it accepts must open for reading.
    @Test func refusesTheRatesTheReaderRefuses() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for rate in [905_969_663.0, 10_000_001] {
            let url = dir.appendingPathComponent("huge.caf")
            let settings: [String: Any] = [AVFormatIDKey: kAudioFormatAppleLossless, AVSampleRateKey: rate, AVNumberOfChannelsKey: 2]
            #expect {
                _ = try AVAudioFile(forWriting: url, settings: settings)
            } throws: { error in
                (error as NSError).localizedDescription.contains("10 MHz")
            }
        }
        let url = dir.appendingPathComponent("top.caf")
        do {
            let file = try AVAudioFile(forWriting: url, settings: [AVFormatIDKey: kAudioFormatAppleLossless,
                                                                   AVSampleRateKey: 10_000_000.0, AVNumberOfChannelsKey: 1])
            let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 100)!
            buffer.frameLength = 100
            try file.write(from: buffer)
        }
        let back = try AVAudioFile(forReading: url)
        #expect(back.fileFormat.sampleRate == 10_000_000)
        #expect(back.length == 100)
    }
}
