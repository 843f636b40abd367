// MP4PacketFileWriter below AVAudioFile: the reserve-overflow path (a 1 KiB reserve outgrown
// after a few hundred packets: during writing the file keeps listing the packets of before the
// overflow, and `close()` moves the complete moov after the data, which MP4PacketReader and
// ffmpeg then read whole, bit-exactly), the two moov slots alternating, the instant inside a
// publish when both slots hold a moov (MP4PacketReader and ffmpeg take the first), and the chunk-offset
// table switching to co64 past 4 GiB (checked on the box builder's output, parsed by
// MP4PacketReader's sample-table code). Skips the ffmpeg check visibly without ffmpeg.
import Foundation
import Testing
@testable import AudioFileFormats
import AudioCodecs

@Suite struct MP4PacketFileWriterTests {
    /// Deterministic 16-bit stereo: a tone plus a little noise, as little-endian bytes.
    static func pcm(frames: Int, seed: UInt64 = 7) -> (bytes: [UInt8], samples: [Int16]) {
        var state = seed
        var samples = [Int16](repeating: 0, count: frames * 2)
        for i in 0..<frames {
            for c in 0..<2 {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let noise = Double(Int64(bitPattern: state) >> 53) / 1024
                samples[2 * i + c] = Int16(clamping: Int((sin(Double(i) * 0.031 * Double(c + 1)) * 12_000 + noise * 300).rounded()))
            }
        }
        let bytes = samples.withUnsafeBytes { Array($0) }
        return (bytes, samples)
    }

    static func writer(_ path: String, reserve: Int) throws -> MP4PacketFileWriter {
        let d = AudioDataDescription(sampleRate: 44100, channelCount: 2, encoding: .signed16, bigEndian: false, validBitsPerSample: 16)
        let encoder = try AudioCodecRegistry.encoder(for: AudioStreamSetup(codec: 0x616C_6163, sampleRate: 44100, channelCount: 2, bitsPerSample: 16))
        return try MP4PacketFileWriter(path: path, codec: 0x616C_6163, encoder: encoder, description: d, m4a: true, reservedBytes: reserve)
    }

    @Test func theReserveOverflowKeepsTheFileValidAndCloseListsEverything() throws {
        let dir = TempDir()
        let path = dir.path("overflow.m4a")
        let frames = 300 * 4096 + 1000
        let (bytes, samples) = Self.pcm(frames: frames)
        let w = try Self.writer(path, reserve: 1024)
        #expect(w.reservedBytes == 1024)
        var at = 0
        var listedAtOverflow: Int?
        while at < frames {
            let n = min(4096 * 3 + 17, frames - at)
            try bytes.withUnsafeBytes { try w.write(frames: n, from: $0.baseAddress! + at * 4, atFrame: Int64(at)) }
            at += n
            // Valid at every moment: the file on disk opens and lists whole packets only.
            let index = try MP4PacketReader.packetIndex(path: path)
            #expect(Int64(index.validFrameCount) == w.framesEncoded)
            #expect(index.validFrameCount % 4096 == 0)
            if w.overflowed {
                listedAtOverflow = listedAtOverflow ?? Int(index.validFrameCount)
                #expect(Int(index.validFrameCount) == listedAtOverflow, "the listing stops growing once the reserve is full")
            } else {
                #expect(Int(index.validFrameCount) == at / 4096 * 4096)
            }
        }
        #expect(w.overflowed)
        #expect((listedAtOverflow ?? 0) > 0 && (listedAtOverflow ?? 0) < frames)
        try w.close()
        let index = try MP4PacketReader.packetIndex(path: path)
        #expect(index.validFrameCount == Int64(frames))
        #expect(index.packets.count == 301)
        #expect(index.packets.last?.frameCount == 1000)
        // The moov now follows the data; the reserved slots are free boxes.
        let file = fileBytes(path)
        let top = try mp4Children(file, 0..<file.count, parent: "file").map(\.plainName)
        #expect(top == ["ftyp", "free", "free", "free", "mdat", "moov"], "\(top)")

        guard Self.hasFFmpeg else { print("SKIP ffmpeg check of the overflowed M4A: ffmpeg is not installed"); return }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["ffmpeg", "-v", "error", "-i", path, "-f", "s16le", "-"]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let decoded = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        let theirs = decoded.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        #expect(theirs == samples, "ffmpeg decodes \(theirs.count) samples of \(samples.count)")
    }

    @Test func theMoovAlternatesBetweenTheTwoSlots() throws {
        let dir = TempDir()
        let path = dir.path("slots.m4a")
        let (bytes, _) = Self.pcm(frames: 3 * 4096)
        let w = try Self.writer(path, reserve: 4096)
        var firstTypes: [String] = []
        for k in 0..<3 {
            try bytes.withUnsafeBytes { try w.write(frames: 4096, from: $0.baseAddress! + k * 4096 * 4, atFrame: Int64(k * 4096)) }
            let file = fileBytes(path)
            let top = try mp4Children(file, 0..<file.count, parent: "file")
            #expect(top.filter { $0.plainName == "moov" }.count == 1)
            firstTypes.append(top[1].plainName)
        }
        // Slot A held the empty moov; the first write's moov goes to slot B, the next to A…
        #expect(firstTypes == ["free", "moov", "free"])
        try w.close()
        #expect(try MP4PacketReader.packetIndex(path: path).validFrameCount == 3 * 4096)
    }

    /// The moment inside a publish when both slots hold a `moov` (the new one's header written,
    /// the old one not yet freed): readers must take the first, whichever it is, and both are
    /// complete. Made by hand — a 5-packet moov spliced into slot A of a 10-packet file whose
    /// moov sits in slot B — since a kill lands there too rarely to test by killing.
    @Test func withTwoMoovsReadersTakeTheFirst() throws {
        let dir = TempDir()
        let (bytes, samples) = Self.pcm(frames: 10 * 4096)
        for (name, packets) in [("p10.m4a", 10), ("p5.m4a", 5)] {
            let w = try Self.writer(dir.path(name), reserve: 4096)
            try bytes.withUnsafeBytes { try w.write(frames: packets * 4096, from: $0.baseAddress!, atFrame: 0) }
            try w.close()
        }
        var full = fileBytes(dir.path("p10.m4a"))
        let part = fileBytes(dir.path("p5.m4a"))
        let slotA = 28, slotB = 28 + 4096                 // after the 28-byte M4A ftyp
        func liveMoov(_ file: [UInt8]) throws -> [UInt8] {
            let top = try mp4Children(file, 0..<file.count, parent: "file")
            let box = try #require(top.first { $0.plainName == "moov" })
            return Array(file[box.start..<box.payload.upperBound])
        }
        func place(_ moov: [UInt8], at slot: Int) {
            var free = ByteWriter(bigEndian: true)
            free.u32(UInt32(4096 - moov.count)); free.fourCC("free")
            full.replaceSubrange(slot..<(slot + moov.count + 8), with: moov + free.bytes)
        }
        let long = try liveMoov(full), short = try liveMoov(part)
        place(long, at: slotB)
        place(short, at: slotA)
        let spliced = dir.write("two.m4a", full)
        #expect(try mp4Children(full, 0..<full.count, parent: "file").filter { $0.plainName == "moov" }.count == 2)
        #expect(try MP4PacketReader.packetIndex(path: spliced).validFrameCount == 5 * 4096)

        guard Self.hasFFmpeg else { print("SKIP ffmpeg check of a file with two moovs: ffmpeg is not installed"); return }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["ffmpeg", "-v", "error", "-i", spliced, "-f", "s16le", "-"]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let decoded = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let theirs = decoded.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        #expect(theirs == Array(samples[0..<(5 * 4096 * 2)]), "ffmpeg decodes \(theirs.count / 2) frames")
    }

    @Test func chunkOffsetsPast4GiBUseCo64() throws {
        let track = MP4TrackDescription(sampleEntryType: "alac", sampleEntryChildren: MP4MovieBuilder.alacEntryChildren(cookie: [UInt8](repeating: 0, count: 24))!,
                                        sampleRate: 44100, channelCount: 2, bitsPerSample: 16)
        let sizes = [UInt32](repeating: 1_000_000, count: 40)
        let frames = [UInt32](repeating: 4096, count: 40)
        func offsets(_ start: Int64) throws -> (box: String, values: [UInt64]) {
            let moov = MP4MovieBuilder.movie(track, packetSizes: sizes, packetFrames: frames, dataStart: start, packetsPerChunk: 16)
            let outer = try mp4Children(moov, 0..<moov.count, parent: "file")[0]
            let stbl = try #require(try mp4Find(moov, outer.payload, ["trak", "mdia", "minf", "stbl"], parent: "moov"))
            let table = try #require(try mp4Children(moov, stbl.payload, parent: "stbl").first { $0.plainName == "stco" || $0.plainName == "co64" })
            var c = MP4Cursor(moov, table.payload, box: table.name)
            _ = try c.versionAndFlags()
            let n = try c.u32()
            return (table.plainName, try (0..<n).map { _ in table.plainName == "co64" ? try c.u64() : UInt64(try c.u32()) })
        }
        let small = try offsets(1000)
        #expect(small.box == "stco")
        #expect(small.values == [1000, 16_001_000, 32_001_000])
        let big = try offsets(Int64(UInt32.max) - 20_000_000)
        #expect(big.box == "co64", "the third chunk starts past 4 GiB")
        let s = UInt64(UInt32.max) - 20_000_000
        #expect(big.values == [s, s + 16_000_000, s + 32_000_000])
    }

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
}

extension MP4Box {
    /// The type as four plain characters (`name` is quoted for messages).
    var plainName: String { String(decoding: withUnsafeBytes(of: type.bigEndian) { Array($0) }, as: UTF8.self) }
}
