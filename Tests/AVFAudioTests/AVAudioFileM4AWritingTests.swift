// AVAudioFile writing MPEG-4 audio (.m4a/.mp4) with Apple Lossless and FLAC packets, checked
// against ffmpeg (its own MP4 demuxer and ALAC/FLAC decoders, independent of ours): files written
// in varied chunk sizes (1 frame to more than a packet, ending in a short packet) decode in ffmpeg
// to exactly the integers written, ffprobe reports the exact frame count as the stream's duration
// in its timescale, and our reader returns the same samples with Apple's file format. A file
// copied while still being written (before close) opens in ffmpeg and in our reader holding
// every packet completed so far. Settings Apple refuses (linear PCM into MPEG-4) and ones this
// library cannot write are clear errors. Skips the ffmpeg checks visibly without ffmpeg.
import Foundation
import Testing
import AVFoundation

@Suite struct AVAudioFileM4AWritingTests {
    typealias Tools = AVAudioFileFLACWritingTests

    static func settings(_ codec: AudioFormatID, rate: Double = 48000, channels: Int, bits: Int) -> [String: Any] {
        [AVFormatIDKey: codec, AVSampleRateKey: rate, AVNumberOfChannelsKey: channels, AVEncoderBitDepthHintKey: bits]
    }

    /// Writes `samples` (interleaved integers of `bits`) through Float32 buffers in `chunks`-sized
    /// writes (cycling); returns the still-open file when `keepOpen`.
    @discardableResult
    static func write(_ samples: [Int32], settings: [String: Any], channels: Int, bits: Int, to url: URL, chunks: [Int],
                      keepOpen: Bool = false) throws -> AVAudioFile {
        let frames = samples.count / channels
        let file = try AVAudioFile(forWriting: url, settings: settings)
        var at = 0, k = 0
        while at < frames {
            let n = min(chunks[k % chunks.count], frames - at)
            k += 1
            let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: AVAudioFrameCount(max(n, 1)))!
            buffer.frameLength = AVAudioFrameCount(n)
            for i in 0..<n {
                for c in 0..<channels { buffer.floatChannelData![c][i] = Float(samples[(at + i) * channels + c]) / Float(1 << (bits - 1)) }
            }
            try file.write(from: buffer)
            at += n
        }
        if !keepOpen { file.close() }
        return file
    }

    /// ffmpeg's decode put back in our channel order (ALAC's 3+ channel files come out of
    /// ffmpeg in its layouts' order: AVAudioFileALACTests.ffmpegChannel).
    static func ffmpegSamples(_ url: URL, codec: AudioFormatID, channels: Int, bits: Int) -> [Int32]? {
        guard let decoded = Tools.readFFmpeg(url, bits: bits) else { return nil }
        let theirs = decoded.samples
        #expect(decoded.errors.isEmpty, "ffmpeg says \(decoded.errors)")
        guard codec == kAudioFormatAppleLossless, channels > 2 else { return theirs }
        let map = AVAudioFileALACTests.ffmpegChannel[channels - 1]
        var out = [Int32](repeating: 0, count: theirs.count)
        for i in 0..<(theirs.count / channels) { for c in 0..<channels { out[i * channels + c] = theirs[i * channels + map[c]] } }
        return out
    }

    /// ffprobe's stream duration in its timescale (the sample rate: frames).
    static func ffprobeDurationTS(_ url: URL) -> Int? {
        guard let r = Tools.run(["ffprobe", "-v", "error", "-select_streams", "a:0", "-show_entries", "stream=duration_ts",
                                 "-of", "default=nw=1:nk=1", url.path]), r.status == 0 else { return nil }
        return Int(String(decoding: r.out, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test(arguments: [
        (kAudioFormatAppleLossless, 16, 1), (kAudioFormatAppleLossless, 16, 2), (kAudioFormatAppleLossless, 16, 6),
        (kAudioFormatAppleLossless, 24, 1), (kAudioFormatAppleLossless, 24, 2), (kAudioFormatAppleLossless, 24, 6),
        (kAudioFormatFLAC, 16, 1), (kAudioFormatFLAC, 16, 2), (kAudioFormatFLAC, 24, 2),
    ])
    func writtenFilesDecodeExactlyInFFmpegAndOurs(codec: AudioFormatID, bits: Int, channels: Int) throws {
        let dir = try Tools.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let frames = 5 * 4096 + 1234
        let samples = Tools.signal(.mixed, frames: frames, channels: channels, bits: bits, seed: UInt64(bits * 10 + channels))
        let label = "\(codec == kAudioFormatFLAC ? "FLAC" : "ALAC") \(bits)-bit \(channels) ch"
        let url = dir.appendingPathComponent(codec == kAudioFormatFLAC ? "t.mp4" : "t.m4a")
        try Self.write(samples, settings: Self.settings(codec, channels: channels, bits: bits), channels: channels, bits: bits,
                       to: url, chunks: [1, 4095, 777, 10_000, 4096])
        // Ours: Apple's file format, the exact length, the same samples.
        let file = try AVAudioFile(forReading: url)
        #expect(file.fileFormat.streamDescription.pointee.mFormatID == codec, "\(label)")
        #expect(file.fileFormat.streamDescription.pointee.mFramesPerPacket == 4096, "\(label)")
        #expect(file.length == AVAudioFramePosition(frames), "\(label)")
        file.close()
        let ours = try Tools.readOurs(url, bits: bits) == samples
        #expect(ours, "\(label): our reader")
        // The brand says which container.
        let head = [UInt8](try Data(contentsOf: url).prefix(12))
        #expect(String(decoding: head[8..<12], as: UTF8.self) == (codec == kAudioFormatFLAC ? "isom" : "M4A "), "\(label)")

        guard Tools.hasFFmpeg else { print("SKIP ffmpeg checks of \(label) in MP4: ffmpeg is not installed"); return }
        let theirs = try #require(Self.ffmpegSamples(url, codec: codec, channels: channels, bits: bits), "\(label): ffmpeg could not decode")
        #expect(theirs.count == samples.count, "\(label): ffmpeg decodes \(theirs.count) samples of \(samples.count)")
        let same = theirs == samples
        #expect(same, "\(label): \(zip(theirs, samples).filter { $0 != $1 }.count) samples differ in ffmpeg's decode")
        #expect(Self.ffprobeDurationTS(url) == frames, "\(label): ffprobe's duration")
    }

    /// A sawtooth whose wrap-arounds leave a residual of +32,768 right after a run of zeros: the
    /// one coding Apple's ALAC decoder and ffmpeg's read differently (see
    /// ALACEncoder.codeResiduals). ffmpeg rejected such packets before the encoder avoided it.
    @Test func aSawtoothFFmpegOnceRejectedDecodesExactly() throws {
        guard Tools.hasFFmpeg else { print("SKIP the ALAC sawtooth check: ffmpeg is not installed"); return }
        let dir = try Tools.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let frames = 10 * 4096
        var samples = [Int32](repeating: 0, count: frames * 2)
        for i in 0..<frames { for c in 0..<2 { samples[i * 2 + c] = Int32((Float((i * 7 + c * 13) % 2000 - 1000) / 2000 * 32768).rounded()) } }
        let url = dir.appendingPathComponent("saw.m4a")
        try Self.write(samples, settings: Self.settings(kAudioFormatAppleLossless, channels: 2, bits: 16), channels: 2, bits: 16, to: url, chunks: [2048])
        let theirs = try #require(Self.ffmpegSamples(url, codec: kAudioFormatAppleLossless, channels: 2, bits: 16))
        let same = theirs == samples   // (a Bool: a failure message of two 80,000-sample arrays helps nobody)
        #expect(same, "ffmpeg decodes \(theirs.count / 2) frames of \(frames), \(zip(theirs, samples).filter { $0 != $1 }.count) differ")
    }

    @Test func aFileCopiedMidWriteHoldsEveryCompletedPacket() throws {
        let dir = try Tools.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        for codec in [kAudioFormatAppleLossless, kAudioFormatFLAC] {
            let frames = 7 * 4096 + 300
            let samples = Tools.signal(.music, frames: frames, channels: 2, bits: 16)
            let url = dir.appendingPathComponent("open-\(codec).m4a")
            let file = try Self.write(samples, settings: Self.settings(codec, rate: 44100, channels: 2, bits: 16), channels: 2, bits: 16,
                                      to: url, chunks: [3000], keepOpen: true)
            #expect(file.length == AVAudioFramePosition(frames))
            let copy = dir.appendingPathComponent("copy-\(codec).m4a")
            try FileManager.default.copyItem(at: url, to: copy)
            file.close()
            let listed = frames / 4096 * 4096          // the last 300 + … frames wait in the encoder
            let ours = try Tools.readOurs(copy, bits: 16)
            #expect(ours == Array(samples[0..<(listed * 2)]), "codec \(codec): our reader on the copy reads \(ours.count / 2) frames")
            if Tools.hasFFmpeg {
                let theirs = try #require(Self.ffmpegSamples(copy, codec: codec, channels: 2, bits: 16))
                #expect(theirs == Array(samples[0..<(listed * 2)]), "codec \(codec): ffmpeg on the copy decodes \(theirs.count / 2) frames")
            } else {
                print("SKIP ffmpeg check of a copied open M4A: ffmpeg is not installed")
            }
            // The closed file has everything.
            #expect(try Tools.readOurs(url, bits: 16) == samples)
        }
    }

    @Test func theContainerComesFromTheFileTypeKeyOrTheExtension() throws {
        let dir = try Tools.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let samples = Tools.signal(.sines, frames: 5000, channels: 2, bits: 16)
        // AVAudioFileTypeKey wins over the extension.
        var s = Self.settings(kAudioFormatAppleLossless, channels: 2, bits: 16)
        s[AVAudioFileTypeKey] = kAudioFileM4AType
        let keyed = dir.appendingPathComponent("keyed.caf")
        try Self.write(samples, settings: s, channels: 2, bits: 16, to: keyed, chunks: [5000])
        #expect(String(decoding: [UInt8](try Data(contentsOf: keyed))[4..<12], as: UTF8.self) == "ftypM4A ")
        #expect(try Tools.readOurs(keyed, bits: 16) == samples)
        // .mp4 with ALAC: the 'isom' brand; CAF ALAC still CAF.
        let mp4 = dir.appendingPathComponent("a.mp4")
        try Self.write(samples, settings: Self.settings(kAudioFormatAppleLossless, channels: 2, bits: 16), channels: 2, bits: 16, to: mp4, chunks: [5000])
        #expect(String(decoding: [UInt8](try Data(contentsOf: mp4))[4..<12], as: UTF8.self) == "ftypisom")
        let caf = dir.appendingPathComponent("a.caf")
        try Self.write(samples, settings: Self.settings(kAudioFormatAppleLossless, channels: 2, bits: 16), channels: 2, bits: 16, to: caf, chunks: [5000])
        #expect(String(decoding: [UInt8](try Data(contentsOf: caf))[0..<4], as: UTF8.self) == "caff")
        // length and framePosition while writing, as for CAF ALAC.
        let open = try AVAudioFile(forWriting: dir.appendingPathComponent("pos.m4a"), settings: Self.settings(kAudioFormatAppleLossless, channels: 2, bits: 16))
        let buffer = AVAudioPCMBuffer(pcmFormat: open.processingFormat, frameCapacity: 1000)!
        buffer.frameLength = 1000
        try open.write(from: buffer)
        #expect(open.length == 1000)
        #expect(open.framePosition == 1000)
        open.close()
    }

    @Test func formatsMPEG4FilesDoNotHoldAreClearErrors() throws {
        let dir = try Tools.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        func refusal(_ name: String, _ settings: [String: Any]) -> NSError? {
            do {
                _ = try AVAudioFile(forWriting: dir.appendingPathComponent(name), settings: settings)
                return nil
            } catch { return error as NSError }
        }
        // Linear PCM into .m4a: Apple refuses it too.
        let pcm = refusal("pcm.m4a", [AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: 44100, AVNumberOfChannelsKey: 2, AVLinearPCMBitDepthKey: 16])
        #expect(pcm?.code == Int(kAudioFileUnsupportedDataFormatError))
        #expect(pcm?.localizedDescription.contains("Apple Lossless") == true, "\(pcm?.localizedDescription ?? "")")
        // AAC: not encoded by this library yet.
        let aac = refusal("aac.m4a", [AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: 44100, AVNumberOfChannelsKey: 2])
        #expect(aac?.code == Int(kAudioFileUnsupportedDataFormatError))
        // A fractional rate has no MP4 timescale; a depth ALAC lacks; too many channels.
        #expect(refusal("frac.m4a", Self.settings(kAudioFormatAppleLossless, rate: 44100.5, channels: 2, bits: 16))?.code == Int(kAudioFileUnsupportedDataFormatError))
        #expect(refusal("bits.m4a", Self.settings(kAudioFormatAppleLossless, channels: 2, bits: 12))?.code == Int(kAudioFileUnsupportedDataFormatError))
        #expect(refusal("ch.m4a", Self.settings(kAudioFormatFLAC, channels: 9, bits: 16))?.code == Int(kAudioFileUnsupportedDataFormatError))
        // A directory that does not exist: an error, no trap.
        #expect((try? AVAudioFile(forWriting: dir.appendingPathComponent("no/such/dir/x.m4a"), settings: Self.settings(kAudioFormatFLAC, channels: 2, bits: 16))) == nil)
    }
}
