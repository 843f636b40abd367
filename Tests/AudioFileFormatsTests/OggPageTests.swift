// The Ogg page layer on its own: the CRC against an independent definition (bit by bit,
// RFC 3533's polynomial, no reflection), pages built and parsed back, packets spanning pages
// (white noise at 8 channels × 24 bits makes FLAC frames of ~100 KB, more than a page holds,
// and frames whose length is a multiple of 255 need an empty final segment), and the demuxer's
// resynchronisation after garbage between pages.
import Foundation
import Testing
@_spi(Testing) @testable import AudioFileFormats

@Suite struct OggPageTests {
    /// CRC-32/MPEG-2 without the initial all-ones: polynomial 0x04C11DB7 bit by bit, MSB first.
    static func bitwiseCRC(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0
        for b in bytes {
            c ^= UInt32(b) << 24
            for _ in 0..<8 { c = c & 0x8000_0000 != 0 ? (c << 1) ^ 0x04C1_1DB7 : c << 1 }
        }
        return c
    }

    @Test func crcMatchesTheBitwiseDefinition() {
        var rng = SystemRandomNumberGenerator()
        for n in [0, 1, 3, 27, 255, 4000] {
            let bytes = (0..<n).map { _ in UInt8.random(in: 0...255, using: &rng) }
            #expect(bytes.withUnsafeBytes { OggPage.crc(0, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!, n) } == Self.bitwiseCRC(bytes))
        }
        // (Real pages — ffmpeg's — pass the check in AVAudioFileOggTests.)
    }

    @Test func pagesRoundTrip() throws {
        let a = [UInt8](repeating: 7, count: 510), b = [UInt8](repeating: 9, count: 3)
        let header = OggPageHeader(continued: true, granulePosition: 123_456_789_012, serialNumber: 0xDEAD_BEEF, sequenceNumber: 42)
        let page = a.withUnsafeBytes { pa in b.withUnsafeBytes { pb in OggPage.build(header, pieces: [pa, pb], lastPieceEndsPacket: true) } }
        // 510 bytes: two 255 segments and an empty one; 3 bytes: one segment.
        #expect(page.count == 27 + 4 + 513)
        #expect(Array(page[27..<31]) == [255, 255, 0, 3])
        let parsed = try #require(page.withUnsafeBytes { OggPage.header($0) })
        #expect(parsed.header == header && parsed.segmentCount == 4)
        #expect(page.withUnsafeBytes { OggPage.checksum($0) } == parsed.storedCRC)
        let found = try #require(try OggDemuxer.pageAt(0, size: Int64(page.count)) { o, n in Array(page[Int(o)..<min(page.count, Int(o) + n)]) })
        #expect(found.bytes == page)
        var broken = page
        broken[100] ^= 1
        #expect(try OggDemuxer.pageAt(0, size: Int64(broken.count)) { o, n in Array(broken[Int(o)..<min(broken.count, Int(o) + n)]) } == nil)
    }

    @Test func framesLargerThanAPageSpanPagesAndReadBack() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ogg-noise-\(UUID().uuidString).oga").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let channels = 8, frames = 10_000
        let description = AudioDataDescription(sampleRate: 96_000, channelCount: channels, encoding: .signed24, bigEndian: false, validBitsPerSample: 24)
        let writer = try FLACFileWriter(path: path, description: description, container: .ogg)
        var rng = SystemRandomNumberGenerator()
        var samples: [Int32] = []
        var raw: [UInt8] = []
        for _ in 0..<(frames * channels) {
            let v = Int32.random(in: -(1 << 23)..<(1 << 23), using: &rng)
            samples.append(v)
            raw += [UInt8(truncatingIfNeeded: v), UInt8(truncatingIfNeeded: v >> 8), UInt8(truncatingIfNeeded: v >> 16)]
        }
        try raw.withUnsafeBytes { try writer.write(frames: frames, from: $0.baseAddress!, atFrame: 0) }
        try writer.close()

        let index = try OggPacketReader.packetIndex(path: path)
        #expect(index.codec == 0x666C_6163 && index.channelCount == channels && index.bitsPerSample == 24)
        #expect(index.decodedFrameCount == Int64(frames) && index.validFrameCount == Int64(frames))
        #expect(!index.pieces.isEmpty, "a ~100 KB frame must span pages")
        #expect(index.warnings.isEmpty, "\(index.warnings)")
        let reader = try PacketFileReader(path: path)
        var out = [UInt8](repeating: 0, count: frames * channels * 3)
        let got = try out.withUnsafeMutableBytes { try reader.read(frames: frames, startingAt: 0, into: $0.baseAddress!) }
        #expect(got == frames)
        #expect(out == raw)
    }

    @Test func garbageBetweenPagesIsSkipped() throws {
        func page(_ seq: UInt32, _ packet: [UInt8], bos: Bool = false, granule: Int64 = 0) -> [UInt8] {
            packet.withUnsafeBytes { OggPage.build(OggPageHeader(beginsStream: bos, granulePosition: granule, serialNumber: 5, sequenceNumber: seq), pieces: [$0], lastPieceEndsPacket: true) }
        }
        let bytes = page(0, [1, 2, 3], bos: true) + Array("OggS garbage OggS".utf8) + page(1, [4, 5]) + page(2, [6])
        let stream = try OggDemuxer.scan(size: Int64(bytes.count)) { o, n in
            o < Int64(bytes.count) ? Array(bytes[Int(o)..<min(bytes.count, Int(o) + n)]) : []
        }
        #expect(stream.packets.map(\.prefix) == [[1, 2, 3], [4, 5], [6]])
        #expect(stream.warnings.count == 1, "\(stream.warnings)")
    }
}
