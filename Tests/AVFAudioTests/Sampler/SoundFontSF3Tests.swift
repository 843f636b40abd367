// SF3 SoundFonts (Ogg Vorbis samples; SoundFont+SF3.swift). A bank made here from an oggenc
// stream: the decoded points equal libvorbisfile's 16-bit decoding (oggdec) to within one step,
// the loop points land relative to the decoded sample, and AVAudioUnitSampler plays it as it
// plays the same points stored uncompressed. Streams cut out of a real bank Debian ships
// (MuseScore_General_Lite.sf3, musescore-general-soundfont-small) decode to ffmpeg's samples
// and to oggdec's length. Loading that whole bank (107 million points; 110 s in a debug build,
// so only with AVAUDIO_SF3_FULL=1): 311 presets, no warnings, a note sounds. Skips visibly
// without oggenc/oggdec, ffmpeg or the bank.
import Foundation
import Testing
import AVFoundation
import SoundBanks

@Suite struct SoundFontSF3Tests {
    static let path = "/usr/share/sounds/sf3/MuseScore_General_Lite.sf3"
    typealias Vorbis = AVAudioFileOggVorbisTests

    /// oggdec's (libvorbisfile's) 16-bit decoding of `ogg`, first channel.
    static func oggdec(_ ogg: URL, dir: URL, channels: Int = 1) throws -> [Int16] {
        let raw = dir.appendingPathComponent(UUID().uuidString + ".raw")
        #expect(try Vorbis.run("oggdec", ["-Q", "-R", "-o", raw.path, ogg.path]) == 0)
        let data = try Data(contentsOf: raw)
        let all = data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        return stride(from: 0, to: all.count, by: channels).map { all[$0] }
    }

    /// The parsed bank's only sample's points.
    static func points(_ font: SoundFont) -> [Int16] {
        guard case .int16(let pool) = font.pool, let h = font.sampleHeaders.first else { return [] }
        return Array(pool[h.start..<h.end])
    }

    @Test func compressedSampleDecodesAsLibvorbisAndPlays() throws {
        guard Vorbis.hasOggenc, AVAudioFileALACTests.hasFFmpeg else { print("SKIP SF3: oggenc (vorbis-tools) or ffmpeg is not installed"); return }
        let dir = try AVAudioFileALACTests.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let wav = dir.appendingPathComponent("tone.wav"), ogg = dir.appendingPathComponent("tone.ogg")
        // 440 Hz for 1 s at 44.1 kHz: the sample's root key is 69.
        #expect(try AVAudioFileALACTests.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=1", "-c:a", "pcm_s16le", wav.path]) == 0)
        #expect(try Vorbis.run("oggenc", ["-Q", "-q", "4", "-o", ogg.path, wav.path]) == 0)
        let reference = try Self.oggdec(ogg, dir: dir)
        #expect(reference.count == 44_100)

        var sf3 = SoundFontBuilder(samples: [])
        sf3.compressed = [UInt8](try Data(contentsOf: ogg))
        sf3.sampleRate = 44_100
        sf3.loop = (11_025, 11_025 + 100 * 220)   // whole periods of 440 Hz at 44.1 kHz: 100.227 points… close enough for level
        sf3.instrumentGenerators = [(Gen.sampleModes, 1)]
        let font = try SoundFont.parse(sf3.bytes())
        #expect(font.warnings.isEmpty)
        let ours = Self.points(font)
        #expect(ours.count == reference.count)
        var worst = 0
        for i in 0..<min(ours.count, reference.count) { worst = max(worst, abs(Int(ours[i]) - Int(reference[i]))) }
        print("SF3: decoded sample against oggdec: largest difference \(worst) 16-bit steps")
        #expect(worst <= 1)
        let h = font.sampleHeaders[0]
        #expect(h.loopStart - h.start == 11_025 && h.loopEnd - h.start == 11_025 + 22_000)

        // Played as the same points stored uncompressed.
        var sf2 = SoundFontBuilder(samples: ours)
        sf2.sampleRate = 44_100
        sf2.loop = sf3.loop
        sf2.instrumentGenerators = sf3.instrumentGenerators
        func render(_ b: SoundFontBuilder) throws -> [Float] {
            let url = try b.write()
            defer { try? FileManager.default.removeItem(at: url) }
            let sampler = AVAudioUnitSampler()
            try sampler.loadSoundBankInstrument(at: url, program: 0, bankMSB: UInt8(kAUSampler_DefaultMelodicBankMSB), bankLSB: 0)
            return try renderSampler(sampler, events: [(0, [0x90, 69, 100]), (30_000, [0x80, 69, 0])], frames: 48_000).left
        }
        let a = try render(sf3), b = try render(sf2)
        #expect(rmsDB(a[2_000...]) > -40)
        #expect(a == b)
    }

    /// (start, end, loopStart, loopEnd, rate) of each `shdr` record and the `smpl` chunk's data
    /// offset, read straight from the file.
    static func rawHeaders(_ bytes: [UInt8]) -> (smpl: Int, headers: [(Int, Int, Int, Int, Int)])? {
        func u32(_ o: Int) -> Int { Int(bytes[o]) | Int(bytes[o + 1]) << 8 | Int(bytes[o + 2]) << 16 | Int(bytes[o + 3]) << 24 }
        func find(_ id: String, last: Bool) -> Int? {
            let tag = Array(id.utf8)
            var o = last ? bytes.count - 8 : 12
            while o >= 12 && o <= bytes.count - 8 {
                if bytes[o] == tag[0] && bytes[o + 1] == tag[1] && bytes[o + 2] == tag[2] && bytes[o + 3] == tag[3] { return o }
                o += last ? -1 : 1
            }
            return nil
        }
        guard let smpl = find("smpl", last: false), let shdr = find("shdr", last: true) else { return nil }
        let headers = (0..<(u32(shdr + 4) / 46)).map { k -> (Int, Int, Int, Int, Int) in
            let o = shdr + 8 + 46 * k
            return (u32(o + 20), u32(o + 24), u32(o + 28), u32(o + 32), u32(o + 36))
        }
        return (smpl + 8, headers)
    }

    @Test func museScoreGeneralStreamsDecodeAsReferenceDecoders() throws {
        guard FileManager.default.fileExists(atPath: Self.path) else { print("SKIP SF3: \(Self.path) is not installed (musescore-general-soundfont-small)"); return }
        guard Vorbis.hasOggenc, AVAudioFileALACTests.hasFFmpeg else { print("SKIP SF3: oggdec (vorbis-tools) or ffmpeg is not installed"); return }
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.path)))
        guard let raw = Self.rawHeaders(bytes) else { Issue.record("no smpl/shdr in the bank"); return }
        let dir = try AVAudioFileALACTests.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for k in [0, raw.headers.count / 2, raw.headers.count - 2] {
            let (s, e, ls, le, rate) = raw.headers[k]
            let stream = Array(bytes[(raw.smpl + s)..<(raw.smpl + e)])
            let ogg = dir.appendingPathComponent("s\(k).ogg")
            try Data(stream).write(to: ogg)
            var b = SoundFontBuilder(samples: [])
            b.compressed = stream
            b.sampleRate = UInt32(rate)
            b.loop = (ls, le)
            let font = try SoundFont.parse(b.bytes())
            let ours = Self.points(font)
            let length = try Self.oggdec(ogg, dir: dir).count
            let expected = try Vorbis.ffmpegFloats(ogg, dir: dir)
            #expect(ours.count == length, "sample \(k): \(ours.count) points, oggdec \(length)")
            var worst = 0
            for i in 0..<min(ours.count, expected.count) {
                worst = max(worst, abs(Int(ours[i]) - max(-32_768, min(32_767, Int((expected[i] * 32_768).rounded())))))
            }
            #expect(worst <= 1, "sample \(k): off by \(worst) 16-bit steps from ffmpeg")
            #expect(font.sampleHeaders[0].loopEnd - font.sampleHeaders[0].start == le)
        }
    }

    @Test func museScoreGeneralLoadsWholeAndPlays() throws {
        guard ProcessInfo.processInfo.environment["AVAUDIO_SF3_FULL"] != nil else {
            print("SKIP SF3 whole-bank load: set AVAUDIO_SF3_FULL=1 (decodes 107 million points; 110 s in a debug build)"); return
        }
        guard FileManager.default.fileExists(atPath: Self.path) else { print("SKIP SF3: \(Self.path) is not installed (musescore-general-soundfont-small)"); return }
        let clock = ContinuousClock()
        let start = clock.now
        let font = try SoundFont.parse([UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.path))))
        print("SF3: \(Self.path) parsed in \(clock.now - start): \(font.presets.count) presets, \(font.sampleHeaders.count) samples, \(font.pool.count) points")
        #expect(font.warnings.isEmpty, "\(font.warnings.prefix(3))")
        #expect(font.presets.count > 100 && !font.regions.isEmpty)
        let sampler = AVAudioUnitSampler()
        try sampler.loadSoundBankInstrument(at: URL(fileURLWithPath: Self.path), program: 0, bankMSB: UInt8(kAUSampler_DefaultMelodicBankMSB), bankLSB: 0)
        let out = try renderSampler(sampler, events: [(0, [0x90, 60, 100])], frames: 24_000)
        print("SF3: middle C on program 0: \(rmsDB(out.left[2_000...])) dB RMS")
        #expect(rmsDB(out.left[2_000...]) > -40)
    }
}
