// AVAudioFile on MP4/M4A files (MP4PacketReader → PacketFileReader → the codec registry), checked
// against ffmpeg's own encoders and decoders: Apple Lossless in .m4a (16- and 24-bit, mono,
// stereo, 6 channels, a partial last packet), FLAC in .mp4, and a fragmented .m4a read with
// every sample equal to ffmpeg's decoding — whole, in odd chunks and after seeks — with Apple's
// file format and the exact length; AAC, which has no decoder yet, is a clear 'fmt?' error.
// Skips visibly without ffmpeg.
import Foundation
import Testing
import AVFoundation

@Suite struct AVAudioFileMP4Tests {
    typealias ALAC = AVAudioFileALACTests

    @Test(arguments: [("alac", 1, 16, 57_330, [String]()), ("alac", 2, 24, 50_001, []), ("alac", 6, 16, 20_000, []),
                      ("flac", 2, 16, 30_000, []), ("flac", 1, 24, 9_999, []),
                      ("alac", 2, 16, 40_000, ["-movflags", "frag_keyframe+empty_moov"])])
    func readsFFmpegMP4BitExactly(_ codec: String, _ channels: Int, _ bits: Int, _ frames: Int, _ flags: [String]) throws {
        guard ALAC.hasFFmpeg else { print("SKIP MP4 reading (\(codec)): ffmpeg is not installed"); return }
        let dir = try ALAC.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let wav = dir.appendingPathComponent("in.wav")
        let out = dir.appendingPathComponent(codec == "alac" ? "in.m4a" : "in.mp4")
        try ALAC.makeWAV(wav, channels: channels, frames: frames, rate: 44_100, bits: bits)
        let format = codec == "alac" ? (bits == 16 ? "s16p" : "s32p") : (bits == 16 ? "s16" : "s32")
        #expect(try ALAC.ffmpeg(["-i", wav.path, "-c:a", codec, "-sample_fmt", format, "-strict", "-2"] + flags + [out.path]) == 0)
        let expected = try ALAC.ffmpegDecode(out, bits: bits, dir: dir)
        #expect(expected.count == frames * channels)
        // ffmpeg's FLAC decoder keeps its own channel order (L R C LFE …); ALAC's is reordered.
        let map = codec == "alac" ? ALAC.ffmpegChannel[channels - 1] : Array(0..<channels)

        let file = try AVAudioFile(forReading: out)
        let asbd = file.fileFormat.streamDescription.pointee
        #expect(asbd.mFormatID == (codec == "alac" ? kAudioFormatAppleLossless : kAudioFormatFLAC))
        #expect(asbd.mFormatFlags == (bits == 16 ? kAppleLosslessFormatFlag_16BitSourceData : kAppleLosslessFormatFlag_24BitSourceData))
        #expect(asbd.mChannelsPerFrame == UInt32(channels) && asbd.mBytesPerPacket == 0)
        #expect(file.length == AVAudioFramePosition(frames))

        func wrong(_ buffer: AVAudioPCMBuffer, _ start: Int) -> Int {
            var count = 0
            for c in 0..<channels {
                let got = ALAC.integers(buffer, channel: c, bits: bits)
                for i in got.indices where got[i] != expected[(start + i) * channels + map[c]] { count += 1 }
            }
            return count
        }
        let whole = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: AVAudioFrameCount(frames + 10))!
        try file.read(into: whole)
        #expect(Int(whole.frameLength) == frames)
        #expect(wrong(whole, 0) == 0)
        file.framePosition = 0
        let chunk = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 1237)!
        var at = 0, bad = 0
        while at < frames {
            try file.read(into: chunk, frameCount: 1237)
            bad += wrong(chunk, at)
            at += Int(chunk.frameLength)
        }
        #expect(at == frames && bad == 0)
        for start in [frames / 3, 4096, frames - 5, 1] where start < frames {
            file.framePosition = AVAudioFramePosition(start)
            let piece = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 777)!
            try file.read(into: piece)
            #expect(Int(piece.frameLength) == min(777, frames - start) && wrong(piece, start) == 0, "seek to \(start)")
        }
    }

    @Test func aacHasNoDecoderYetAndSaysSo() throws {
        guard ALAC.hasFFmpeg else { print("SKIP AAC refusal: ffmpeg is not installed"); return }
        let dir = try ALAC.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let wav = dir.appendingPathComponent("in.wav"), m4a = dir.appendingPathComponent("in.m4a")
        try ALAC.makeWAV(wav, channels: 2, frames: 10_000, rate: 44_100, bits: 16)
        #expect(try ALAC.ffmpeg(["-i", wav.path, "-c:a", "aac", m4a.path]) == 0)
        do {
            _ = try AVAudioFile(forReading: m4a)
            Issue.record("an AAC file opened although no AAC decoder exists")
        } catch let error as NSError {
            #expect(error.code == Int(kAudioFileUnsupportedDataFormatError), "\(error)")
            #expect(error.localizedDescription.contains("aac"), "\(error.localizedDescription)")
        }
    }
}
