// Chained Ogg FLAC at the container layer (OggChain.swift), on links our own writer makes in a
// temporary directory: matching links join into one index (frames summed, the cookie's
// STREAMINFO spanning both with MD5 "not computed"), and read back as the samples written in
// turn, packets spanning pages in any link included; a link at another sample rate, depth or
// channel count ends the file at the link before it with a warning naming the difference; a
// chain cut anywhere in its second link reads the first link whole and never throws; a chain of
// 3,000 tiny links joins whole. The same against ffmpeg-made chains: AVAudioFileOggChainTests.
import Foundation
import Testing
@_spi(Testing) @testable import AudioFileFormats

@Suite struct OggChainTests {
    /// Writes `frames` frames of a tone (period `period` frames, differing per channel) as Ogg
    /// FLAC to a temporary file; returns its bytes and the interleaved little-endian samples.
    /// With `noise`, white noise instead: FLAC frames larger than a page, so packets span pages.
    static func link(frames: Int, rate: Double = 44_100, channels: Int = 2, bits: Int = 16, period: Int, noise: Bool = false) throws -> (file: [UInt8], raw: [UInt8]) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ogg-chain-\(UUID().uuidString).oga").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let description = AudioDataDescription(sampleRate: rate, channelCount: channels, encoding: bits == 16 ? .signed16 : .signed24,
                                               bigEndian: false, validBitsPerSample: bits)
        let writer = try FLACFileWriter(path: path, description: description, container: .ogg)
        var raw: [UInt8] = []
        let amplitude = Double(1 << (bits - 2))
        for i in 0..<frames {
            for c in 0..<channels {
                let v = noise ? Int32.random(in: -(1 << (bits - 1))..<(1 << (bits - 1)))
                              : Int32(amplitude * sin(2 * Double.pi * Double(i) / Double(period + 7 * c)))
                for b in 0..<(bits / 8) { raw.append(UInt8(truncatingIfNeeded: v >> (8 * b))) }
            }
        }
        try raw.withUnsafeBytes { try writer.write(frames: frames, from: $0.baseAddress!, atFrame: 0) }
        try writer.close()
        return ([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))), raw)
    }

    /// The interleaved samples of `bytes` read through PacketFileReader, and its index.
    static func read(_ bytes: [UInt8]) throws -> (index: PacketIndex, raw: [UInt8]) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ogg-chain-\(UUID().uuidString).oga").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let reader = try PacketFileReader(path: path)
        let size = reader.description.channelCount * ((reader.description.validBitsPerSample + 7) / 8)
        var out = [UInt8](repeating: 0, count: Int(reader.frameCount) * size)
        let got = try out.withUnsafeMutableBytes { try reader.read(frames: Int(reader.frameCount), startingAt: 0, into: $0.baseAddress!) }
        #expect(Int64(got) == reader.frameCount)
        return (reader.index, out)
    }

    @Test func matchingLinksJoin() throws {
        let a = try Self.link(frames: 10_001, period: 100), b = try Self.link(frames: 5_555, period: 37)
        let index = try OggPacketReader.packetIndex(bytes: a.file + b.file + a.file)
        #expect(index.validFrameCount == 10_001 + 5_555 + 10_001)
        #expect(index.warnings.isEmpty, "\(index.warnings)")
        // STREAMINFO (cookie bytes 8…41): the chain's total, MD5 zero; the first link's has its own.
        let info = Array(index.magicCookie[8..<42])
        let total = Int(info[13] & 0x0F) << 32 | Int(info[14]) << 24 | Int(info[15]) << 16 | Int(info[16]) << 8 | Int(info[17])
        #expect(total == 10_001 + 5_555 + 10_001)
        #expect(info[18..<34].allSatisfy { $0 == 0 })
        let alone = try OggPacketReader.packetIndex(bytes: a.file)
        #expect(alone.magicCookie[26..<42].contains { $0 != 0 }, "the writer's MD5")
        #expect(try Self.read(a.file + b.file + a.file).raw == a.raw + b.raw + a.raw)
    }

    @Test func packetsSpanningPagesInLaterLinks() throws {
        // 8 channels × 24 bits of noise: ~100 KB frames, each on two or more pages.
        let a = try Self.link(frames: 5_000, channels: 8, bits: 24, period: 100, noise: true)
        let b = try Self.link(frames: 3_000, channels: 8, bits: 24, period: 60)
        let c = try Self.link(frames: 9_000, channels: 8, bits: 24, period: 60, noise: true)
        let chain = a.file + b.file + c.file
        let index = try OggPacketReader.packetIndex(bytes: chain)
        #expect(index.validFrameCount == 17_000 && index.warnings.isEmpty, "\(index.warnings)")
        // Spanning packets in the first and third links, numbered in the joined index.
        let firstOfC = index.packets.firstIndex { $0.offset > Int64(a.file.count + b.file.count) } ?? Int.max
        #expect(index.pieces.keys.contains { $0 < firstOfC } && index.pieces.keys.contains { $0 >= firstOfC })
        for (k, pieces) in index.pieces {
            #expect(pieces.first?.offset == index.packets[k].offset && pieces.reduce(0) { $0 + $1.byteCount } == index.packets[k].byteCount)
        }
        #expect(try Self.read(chain).raw == a.raw + b.raw + c.raw)
    }

    @Test func aLongChainOfTinyLinks() throws {
        // 3,000 links of 10 frames each (an id page, a comment page and one audio page apiece):
        // every link joins, and the open stays linear in the links.
        let a = try Self.link(frames: 10, period: 13)
        let chain = Array([[UInt8]](repeating: a.file, count: 3_000).joined())
        let clock = ContinuousClock(), start = clock.now
        let index = try OggPacketReader.packetIndex(bytes: chain)
        let elapsed = clock.now - start
        print("Ogg chain of 3,000 links (\(chain.count) bytes) indexed in \(elapsed)")
        #expect(index.validFrameCount == 30_000 && index.packets.count == 3_000 && index.warnings.isEmpty, "\(index.warnings.prefix(3))")
        #expect(try Self.read(chain).raw == Array([[UInt8]](repeating: a.raw, count: 3_000).joined()))
    }

    @Test func aLinkInAnotherFormatEndsTheFile() throws {
        let a = try Self.link(frames: 9_000, period: 100)
        for (other, words) in [(try Self.link(frames: 4_000, rate: 48_000, period: 50), "at 48000 Hz where the file is at 44100 Hz"),
                               (try Self.link(frames: 4_000, bits: 24, period: 50), "24-bit where the file is 16-bit"),
                               (try Self.link(frames: 4_000, channels: 1, period: 50), "1-channel where the file is 2-channel")] {
            let chain = a.file + other.file + a.file
            let index = try OggPacketReader.packetIndex(bytes: chain)
            #expect(index.validFrameCount == 9_000)
            #expect(index.warnings.count == 1 && index.warnings[0].contains(words) && index.warnings[0].contains("link 2 at byte \(a.file.count)"),
                    "\(index.warnings)")
            #expect(try Self.read(chain).raw == a.raw)
        }
    }

    @Test func aChainCutInItsSecondLinkReadsTheFirstWhole() throws {
        let a = try Self.link(frames: 9_000, period: 100), b = try Self.link(frames: 30_000, period: 41)
        let chain = a.file + b.file
        var rng = SystemRandomNumberGenerator()
        let cuts = [a.file.count + 1, a.file.count + 27, a.file.count + 78, a.file.count + 100] + (0..<20).map { _ in Int.random(in: (a.file.count + 1)..<chain.count, using: &rng) }
        for cut in cuts {
            let bytes = Array(chain.prefix(cut))
            let index = try OggPacketReader.packetIndex(bytes: bytes)
            #expect(index.validFrameCount >= 9_000 && index.validFrameCount < 39_000, "cut at \(cut)")
            // Cuts inside the second link's identification page (79 bytes) or comment page: a
            // damaged link, not read, and a warning. (A cut between pages — a random one may fall
            // there — leaves a shorter, undamaged second link, which is read without one.)
            if cut <= a.file.count + 100 { #expect(index.warnings.count == 1 && index.validFrameCount == 9_000, "cut at \(cut): \(index.warnings)") }
            let got = try Self.read(bytes).raw
            // The first link whole, then the second's complete frames as written.
            #expect(got == Array((a.raw + b.raw).prefix(got.count)), "cut at \(cut)")
        }
    }
}
