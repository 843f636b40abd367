// The MP4 parser against ffmpeg/ffprobe: files ffmpeg writes (ALAC and AAC in .m4a, FLAC in .mp4,
// fragmented MP4, QuickTime .mov), each packet's position, size and duration compared with
// `ffprobe -show_packets`, priming and length with ffprobe's first packet time and stream
// duration; FLAC-in-MP4 decoded through the codec registry bit-exactly against `ffmpeg -f s16le`.
// A co64 file and an iTunSMPB tag are made by hand from an ffmpeg file (ffmpeg writes co64 only
// past 4 GiB and never writes iTunSMPB). Hostile inputs (cut short, lying sizes and counts) must
// throw, never trap. Skips visibly without ffmpeg.
import Foundation
import Testing
@testable import AudioFileFormats
import AudioCodecs

@Suite struct MP4PacketReaderTests {
    static let hasFFmpeg: Bool = {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["ffprobe", "-version"]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        do { try p.run() } catch { return false }
        p.waitUntilExit()
        return p.terminationStatus == 0
    }()

    /// Runs a tool; returns its standard output.
    @discardableResult
    static func run(_ args: [String]) throws -> Data {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = args
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw CodecError(.corrupt, "\(args.joined(separator: " ")) failed") }
        return data
    }

    /// A 1.3 s stereo signal (two tones and a little noise) encoded by ffmpeg with `codec` into `name`.
    static func make(_ dir: TempDir, _ name: String, _ codec: [String], rate: Int = 44_100) throws -> String {
        let path = dir.path(name)
        try run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i",
                 "aevalsrc=0.5*sin(440*2*PI*t)+0.01*random(0)|0.3*sin(661*2*PI*t)-0.01*random(1):s=\(rate):d=1.3",
                 "-c:a"] + codec + [path])
        return path
    }

    struct ProbedPacket: Equatable { var pos: Int64; var size: Int; var duration: Int; var pts: Int64 }

    static func probe(_ path: String) throws -> (packets: [ProbedPacket], durationTS: Int64) {
        let packets = try JSONSerialization.jsonObject(with: run(["ffprobe", "-v", "error", "-show_packets", "-select_streams", "a", "-of", "json", path])) as! [String: Any]
        let streams = try JSONSerialization.jsonObject(with: run(["ffprobe", "-v", "error", "-show_streams", "-select_streams", "a", "-of", "json", path])) as! [String: Any]
        let list = (packets["packets"] as! [[String: Any]]).map {
            ProbedPacket(pos: Int64($0["pos"] as! String)!, size: Int($0["size"] as! String)!, duration: ($0["duration"] as? Int) ?? -1, pts: Int64(($0["pts"] as? Int) ?? 0))
        }
        let stream = (streams["streams"] as! [[String: Any]])[0]
        let durationTS = Int64(stream["duration_ts"] as! Int)
        // ffprobe shows no duration for a fragmented file's packets ("N/A"): take the distance to
        // the next packet's time, and for the last the stream's end.
        var filled = list
        for i in filled.indices where filled[i].duration < 0 {
            filled[i].duration = Int((i + 1 < filled.count ? filled[i + 1].pts : durationTS) - filled[i].pts)
        }
        return (filled, durationTS)
    }

    /// Every packet's position, size and duration as ffprobe reports them; priming as the first
    /// packet's negative time, length as the stream's duration. `lastPacketPadded`: AAC's last
    /// packet is stored with its full 1024 frames and the padding as remainder (see MP4PacketReader).
    func checkAgainstFFprobe(_ path: String, codec: String, lastPacketPadded: Bool = false) throws -> PacketIndex {
        let index = try MP4PacketReader.packetIndex(path: path)
        let probed = try Self.probe(path)
        #expect(AudioCodecRegistry.fourCharacterName(index.codec) == codec)
        #expect(index.packets.count == probed.packets.count)
        for (i, (ours, theirs)) in zip(index.packets, probed.packets).enumerated() {
            let padded = lastPacketPadded && i == index.packets.count - 1
            #expect(ours.offset == theirs.pos && ours.byteCount == theirs.size, "packet \(i) of \(path)")
            #expect(padded ? ours.frameCount >= theirs.duration : ours.frameCount == theirs.duration, "packet \(i) of \(path): \(ours.frameCount) frames, ffprobe \(theirs.duration)")
        }
        #expect(index.primingFrames == -min(0, probed.packets.first?.pts ?? 0))
        #expect(index.validFrameCount == probed.durationTS - index.primingFrames || index.validFrameCount == probed.durationTS)
        #expect(index.warnings.isEmpty, "\(index.warnings)")
        return index
    }

    @Test func alacM4AMatchesFFprobe() throws {
        guard Self.hasFFmpeg else { print("SKIP MP4 tests: ffmpeg/ffprobe is not installed"); return }
        let dir = TempDir()
        let index = try checkAgainstFFprobe(Self.make(dir, "a.m4a", ["alac", "-sample_fmt", "s16p"]), codec: "'alac'")
        #expect(index.sampleRate == 44_100 && index.channelCount == 2 && index.bitsPerSample == 16)
        #expect(index.magicCookie.count == 24)
        #expect(index.validFrameCount == 57_330 && index.primingFrames == 0 && index.remainderFrames == 0)
        // 24-bit at 96 kHz: the rate and depth come from the ALACSpecificConfig.
        let hi = try checkAgainstFFprobe(Self.make(dir, "hi.m4a", ["alac", "-sample_fmt", "s32p"], rate: 96_000), codec: "'alac'")
        #expect(hi.sampleRate == 96_000 && hi.bitsPerSample == 24 && hi.validFrameCount == 124_800)
    }

    @Test func aacM4AMatchesFFprobeWithPrimingFromTheEditList() throws {
        guard Self.hasFFmpeg else { print("SKIP MP4 tests: ffmpeg/ffprobe is not installed"); return }
        let dir = TempDir()
        let index = try checkAgainstFFprobe(Self.make(dir, "c.m4a", ["aac"]), codec: "'aac '", lastPacketPadded: true)
        #expect(index.primingFrames == 1024)
        #expect(index.validFrameCount == 57_330)
        #expect(index.packets.allSatisfy { $0.frameCount == 1024 })
        #expect(index.remainderFrames == Int64(index.packets.count) * 1024 - 1024 - 57_330)
        #expect(Array(index.magicCookie.prefix(2)) == [0x12, 0x10])   // AudioSpecificConfig: AAC LC, 44.1 kHz, stereo
    }

    @Test func flacMP4MatchesFFprobeAndDecodesBitExactly() throws {
        guard Self.hasFFmpeg else { print("SKIP MP4 tests: ffmpeg/ffprobe is not installed"); return }
        let dir = TempDir()
        for (name, flags) in [("f.mp4", ["flac", "-sample_fmt", "s16", "-strict", "-2"]), ("ff.mp4", ["flac", "-sample_fmt", "s16", "-strict", "-2", "-movflags", "frag_keyframe+empty_moov"])] {
            let path = try Self.make(dir, name, flags)
            let index = try checkAgainstFFprobe(path, codec: "'flac'")
            #expect(index.bitsPerSample == 16 && index.channelCount == 2 && index.validFrameCount == 57_330)
            let decoder = try AudioCodecRegistry.decoder(for: AudioStreamSetup(codec: index.codec, sampleRate: index.sampleRate, channelCount: index.channelCount,
                                                                               bitsPerSample: index.bitsPerSample, magicCookie: index.magicCookie))
            #expect(AudioCodecRegistry.entry(for: 0x666C_6163)?.name == "FLAC")
            let file = fileBytes(path)
            var samples: [Int32] = []
            var block = [Int32](repeating: 0, count: decoder.maximumFramesPerPacket * decoder.channelCount)
            for packet in index.packets {
                let n = try file.withUnsafeBytes { raw in
                    try block.withUnsafeMutableBufferPointer {
                        try decoder.decode(UnsafeRawBufferPointer(rebasing: raw[Int(packet.offset)..<Int(packet.offset) + packet.byteCount]),
                                           into: $0.baseAddress!, frameCapacity: decoder.maximumFramesPerPacket)
                    }
                }
                #expect(n == packet.frameCount)
                samples += block[0..<n * decoder.channelCount]
            }
            let reference = try Self.run(["ffmpeg", "-v", "error", "-i", path, "-f", "s16le", "-"])
            let expected = reference.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)).map { Int32(Int16(littleEndian: $0)) } }
            let trimmed = Array(samples[Int(index.primingFrames) * 2..<Int(index.primingFrames + index.validFrameCount) * 2])
            #expect(trimmed.count == expected.count)
            let same = trimmed == expected   // (a Bool: Testing's diff of two 100,000-element arrays is very slow)
            #expect(same, "\(name): decoded samples differ from ffmpeg's")
        }
    }

    @Test func fragmentedAndQuickTimeFilesMatchFFprobe() throws {
        guard Self.hasFFmpeg else { print("SKIP MP4 tests: ffmpeg/ffprobe is not installed"); return }
        let dir = TempDir()
        // ffmpeg's fragmented AAC has no edit list: no priming is stated (ffprobe's first packet is at 0).
        let fragmented = try checkAgainstFFprobe(Self.make(dir, "fr.mp4", ["aac", "-movflags", "frag_keyframe+empty_moov"]), codec: "'aac '", lastPacketPadded: true)
        #expect(fragmented.primingFrames == 0)
        let fragmentedALAC = try checkAgainstFFprobe(Self.make(dir, "fa.m4a", ["alac", "-movflags", "frag_keyframe+empty_moov+default_base_moof"]), codec: "'alac'")
        #expect(fragmentedALAC.validFrameCount == 57_330)
        let mov = try checkAgainstFFprobe(Self.make(dir, "q.mov", ["alac"]), codec: "'alac'")
        #expect(mov.validFrameCount == 57_330)
    }

    @Test func opusMP4MatchesFFprobeWithPreSkipAsPriming() throws {
        guard Self.hasFFmpeg else { print("SKIP MP4 tests: ffmpeg/ffprobe is not installed"); return }
        let dir = TempDir()
        let path: String
        do { path = try Self.make(dir, "o.mp4", ["libopus"], rate: 48_000) } catch {
            print("SKIP Opus-in-MP4 case: this ffmpeg has no libopus encoder"); return
        }
        let index = try checkAgainstFFprobe(path, codec: "'opus'")
        // The dOps box: version 0, 2 channels, PreSkip 312 (big-endian), as the edit list's media_time.
        #expect(Array(index.magicCookie.prefix(4)) == [0, 2, 0x01, 0x38])
        #expect(index.sampleRate == 48_000 && index.primingFrames == 312 && index.validFrameCount == 62_400)
    }

    // MARK: hand-made variants

    /// A box: size, type, payload.
    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        let size = UInt32(8 + payload.count)
        return [UInt8(size >> 24), UInt8(size >> 16 & 255), UInt8(size >> 8 & 255), UInt8(size & 255)] + Array(type.utf8) + payload
    }
    static func be(_ v: UInt64, _ n: Int) -> [UInt8] { (0..<n).map { UInt8(truncatingIfNeeded: v >> UInt64(8 * (n - 1 - $0))) } }

    /// Rewrites the box tree of `file` from byte `start` (the moov, at the end of an ffmpeg file),
    /// replacing each box for which `replace` returns bytes and recomputing container sizes.
    static func rewrite(_ bytes: [UInt8], _ range: Range<Int>, _ replace: (String, [UInt8]) -> [UInt8]?) -> [UInt8] {
        let containers: Set<String> = ["moov", "trak", "mdia", "minf", "stbl", "udta", "edts"]
        var out: [UInt8] = []
        var offset = range.lowerBound
        while offset + 8 <= range.upperBound {
            let size = Int(be32(bytes, offset))
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            let whole = Array(bytes[offset..<offset + size])
            if let new = replace(type, whole) {
                out += new
            } else if containers.contains(type) {
                out += box(type, rewrite(bytes, offset + 8..<offset + size, replace))
            } else {
                out += whole
            }
            offset += size
        }
        return out
    }
    static func be32(_ b: [UInt8], _ at: Int) -> UInt32 { b[at..<at + 4].reduce(0) { $0 << 8 | UInt32($1) } }

    /// ffmpeg's ALAC file with its moov (which follows the mdat, so no offset moves) rewritten.
    static func edited(_ dir: TempDir, _ replace: @escaping (String, [UInt8]) -> [UInt8]?) throws -> (original: [UInt8], edited: [UInt8]) {
        let original = fileBytes(try make(dir, "a.m4a", ["alac"]))
        var moov = 0
        while String(decoding: original[moov + 4..<moov + 8], as: UTF8.self) != "moov" { moov += Int(be32(original, moov)) }
        return (original, Array(original[..<moov]) + rewrite(original, moov..<original.count, replace))
    }

    @Test func co64GivesTheSamePackets() throws {
        guard Self.hasFFmpeg else { print("SKIP MP4 tests: ffmpeg/ffprobe is not installed"); return }
        let dir = TempDir()
        let (original, edited) = try Self.edited(dir) { type, whole in
            guard type == "stco" else { return nil }
            let count = Int(Self.be32(whole, 12))
            var payload = Array(whole[8..<16])
            for i in 0..<count { payload += Self.be(UInt64(Self.be32(whole, 16 + 4 * i)), 8) }
            return Self.box("co64", payload)
        }
        #expect(edited.count > original.count)
        let a = try MP4PacketReader.packetIndex(bytes: original), b = try MP4PacketReader.packetIndex(bytes: edited)
        #expect(a.packets == b.packets && a.packets.count == 14)
        #expect(b.validFrameCount == 57_330)
    }

    @Test func stz2GivesTheSamePackets() throws {
        guard Self.hasFFmpeg else { print("SKIP MP4 tests: ffmpeg/ffprobe is not installed"); return }
        let dir = TempDir()
        // 16-bit fields: ALAC packets of a quiet 8 kHz mono tone are well under 65,536 bytes.
        let original = fileBytes(try Self.make(dir, "s.m4a", ["alac", "-ac", "1", "-ar", "8000"]))
        var moov = 0
        while String(decoding: original[moov + 4..<moov + 8], as: UTF8.self) != "moov" { moov += Int(Self.be32(original, moov)) }
        let edited = Array(original[..<moov]) + Self.rewrite(original, moov..<original.count) { type, whole in
            guard type == "stsz" else { return nil }
            let count = Int(Self.be32(whole, 16))
            var payload: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 16] + Self.be(UInt64(count), 4)
            for i in 0..<count { payload += Self.be(UInt64(Self.be32(whole, 20 + 4 * i)), 2) }
            return Self.box("stz2", payload)
        }
        let a = try MP4PacketReader.packetIndex(bytes: original), b = try MP4PacketReader.packetIndex(bytes: edited)
        #expect(a.packets == b.packets && a.packets.count > 2)
    }

    @Test func flacPacketDecoderRefusesWhatItCannotDecode() throws {
        let setup = { (cookie: [UInt8], channels: Int) in AudioStreamSetup(codec: 0x666C_6163, sampleRate: 44_100, channelCount: channels, magicCookie: cookie) }
        #expect(throws: CodecError.self) { try AudioCodecRegistry.decoder(for: setup([], 2)) }
        #expect(throws: CodecError.self) { try AudioCodecRegistry.decoder(for: setup([0x80, 0, 0, 10, 1, 2], 2)) }
        guard Self.hasFFmpeg else { print("SKIP MP4 tests: ffmpeg/ffprobe is not installed"); return }
        let dir = TempDir()
        let path = try Self.make(dir, "f.mp4", ["flac", "-sample_fmt", "s16", "-strict", "-2"])
        let index = try MP4PacketReader.packetIndex(path: path)
        #expect(throws: CodecError.self) { try AudioCodecRegistry.decoder(for: setup(index.magicCookie, 3)) }
        let decoder = try AudioCodecRegistry.decoder(for: setup(index.magicCookie, 2))
        let file = fileBytes(path)
        var out = [Int32](repeating: 0, count: 2 * decoder.maximumFramesPerPacket)
        let first = index.packets[0]
        for (bytes, capacity) in [(Array(file[Int(first.offset)..<Int(first.offset) + first.byteCount - 1]), decoder.maximumFramesPerPacket),   // cut short
                                  (Array(file[Int(first.offset)..<Int(first.offset) + first.byteCount]), 100),                                // too small a buffer
                                  ([UInt8](), decoder.maximumFramesPerPacket)] {
            #expect(throws: CodecError.self) {
                try bytes.withUnsafeBytes { raw in try out.withUnsafeMutableBufferPointer { try decoder.decode(raw, into: $0.baseAddress!, frameCapacity: capacity) } }
            }
        }
    }

    @Test func iTunSMPBDecidesPrimingAndRemainder() throws {
        guard Self.hasFFmpeg else { print("SKIP MP4 tests: ffmpeg/ffprobe is not installed"); return }
        let dir = TempDir()
        // 2112 priming frames, 500 valid ones less than the packets hold after them.
        let text = " 00000000 00000840 000001F4 \(String(57_330 - 2112 - 500, radix: 16, uppercase: true)) 00000000"
        let tag = Self.box("----", Self.box("mean", [0, 0, 0, 0] + Array("com.apple.iTunes".utf8)) + Self.box("name", [0, 0, 0, 0] + Array("iTunSMPB".utf8))
                           + Self.box("data", [0, 0, 0, 1, 0, 0, 0, 0] + Array(text.utf8)))
        let meta = Self.box("meta", [0, 0, 0, 0] + Self.box("hdlr", [UInt8](repeating: 0, count: 8) + Array("mdirappl".utf8) + [UInt8](repeating: 0, count: 9))
                            + Self.box("ilst", tag))
        let (_, edited) = try Self.edited(dir) { type, _ in type == "udta" ? Self.box("udta", meta) : nil }
        let index = try MP4PacketReader.packetIndex(bytes: edited)
        #expect(index.primingFrames == 2112 && index.remainderFrames == 500)
        #expect(index.validFrameCount == 57_330 - 2112 - 500)
    }

    // MARK: hostile input

    /// Either a PacketIndex whose packets lie inside the file, or a thrown AudioFileFormatError with a sentence.
    static func survives(_ bytes: [UInt8]) -> Bool {
        do {
            let index = try MP4PacketReader.packetIndex(bytes: bytes, name: "hostile.m4a")
            return index.packets.allSatisfy { $0.offset >= 0 && $0.offset + Int64($0.byteCount) <= Int64(bytes.count) }
                && index.packets.count <= bytes.count && index.primingFrames >= 0 && index.remainderFrames >= 0
        } catch let error as AudioFileFormatError {
            return error.message.contains("hostile.m4a") && error.message.count > 30
        } catch {
            return false
        }
    }

    @Test func hostileInputThrowsNeverTraps() throws {
        guard Self.hasFFmpeg else { print("SKIP MP4 tests: ffmpeg/ffprobe is not installed"); return }
        let dir = TempDir()
        let files = [fileBytes(try Self.make(dir, "a.m4a", ["alac", "-sample_fmt", "s16p"])), fileBytes(try Self.make(dir, "fr.mp4", ["aac", "-movflags", "frag_keyframe+empty_moov"]))]
        for file in files {
            // Cut short everywhere (every 7th byte).
            for cut in stride(from: 0, to: file.count, by: 7) { #expect(Self.survives(Array(file[..<cut])), "cut at \(cut)") }
            // Every 32-bit field set to boundary values, one at a time (sizes, counts, offsets, durations).
            // (The boxes lie in the first 1,400 and last 1,000 bytes of both files; the rest is mdat payload.)
            var random = TestRandom(seed: UInt64(file.count))
            for at in stride(from: 0, to: file.count - 4, by: 1) where (at < 1_400 || at >= file.count - 1_000) && (at % 4 == 0 || random.next() % 8 == 0) {
                for value: UInt32 in [0, 1, 7, 8, 0x7FFF_FFFF, 0xFFFF_FFFF] {
                    var damaged = file
                    damaged.replaceSubrange(at..<at + 4, with: Self.be(UInt64(value), 4))
                    #expect(Self.survives(damaged), "value \(value) at byte \(at)")
                }
            }
        }
        // An stsz claiming 2^32 − 1 packets of constant size in a tiny file must not allocate for them.
        let (_, huge) = try Self.edited(dir) { type, whole in
            type == "stsz" ? Self.box("stsz", [0, 0, 0, 0] + Self.be(100, 4) + Self.be(0xFFFF_FFFF, 4)) : nil
        }
        #expect(throws: AudioFileFormatError.self) { try MP4PacketReader.packetIndex(bytes: huge) }
        // A moov claiming more bytes than the file has.
        var lying = files[0]
        var moov = 0
        while String(decoding: lying[moov + 4..<moov + 8], as: UTF8.self) != "moov" { moov += Int(Self.be32(lying, moov)) }
        lying.replaceSubrange(moov..<moov + 4, with: Self.be(0xFFFF_FFF0, 4))
        #expect(throws: AudioFileFormatError.self) { try MP4PacketReader.packetIndex(bytes: lying) }
        // Not MP4 at all, and a file of nothing but an mdat.
        #expect(!MP4PacketReader.sniff(Array("RIFF\0\0\0\0WAVE".utf8)))
        #expect(MP4PacketReader.sniff(files[0]))
        #expect(throws: AudioFileFormatError.self) { try MP4PacketReader.packetIndex(bytes: Self.box("mdat", [1, 2, 3])) }
    }
}
