// The Vorbis decoder's parts against the specification's arithmetic (float32_unpack,
// lookup1_values, the Huffman codeword assignment of section 3.2.1 on the spec's own example),
// the cookie's Xiph lacing, and hostile input: every prefix of a real stream and streams with
// random bytes changed decode or throw a CodecError, never trap. The decoder's output against
// ffmpeg's is in AVFAudioTests' AVAudioFileOggVorbisTests.
import Foundation
import Testing
@testable import AudioCodecs

@Suite struct VorbisTests {
    @Test func float32UnpackFollowsTheSpecification() {
        // value = ±mantissa · 2^(exponent − 788), exponent in bits 21–30, sign in bit 31
        #expect(vorbisFloat32Unpack(0) == 0)
        #expect(vorbisFloat32Unpack(788 << 21 | 1) == 1)
        #expect(vorbisFloat32Unpack(0x8000_0000 | 788 << 21 | 3) == -3)
        #expect(vorbisFloat32Unpack(768 << 21 | 1 << 20) == 1)        // 2^20 · 2^-20
        #expect(vorbisFloat32Unpack(800 << 21 | 5) == 5 * 4096)
    }

    @Test func lookup1ValuesIsTheLargestRoot() {
        #expect(vorbisLookup1Values(entries: 81, dimensions: 4) == 3)
        #expect(vorbisLookup1Values(entries: 80, dimensions: 4) == 2)
        #expect(vorbisLookup1Values(entries: 100, dimensions: 2) == 10)
        #expect(vorbisLookup1Values(entries: 99, dimensions: 2) == 9)
        #expect(vorbisLookup1Values(entries: 1, dimensions: 1) == 1)
        #expect(vorbisLookup1Values(entries: 1 << 24 - 1, dimensions: 1) == 1 << 24 - 1)
    }

    /// Packs `fields` (value, bits) LSB-first, as Vorbis does.
    static func pack(_ fields: [(UInt32, Int)]) -> [UInt8] {
        var out: [UInt8] = [], bit = 0
        for (value, bits) in fields {
            for i in 0..<bits {
                if bit % 8 == 0 { out.append(0) }
                if value >> UInt32(i) & 1 != 0 { out[out.count - 1] |= 1 << UInt8(bit % 8) }
                bit += 1
            }
        }
        return out + [0, 0, 0, 0]
    }

    @Test func codewordsAreAssignedAsTheSpecificationsExample() throws {
        // Section 3.2.1's example: lengths 2 4 4 4 4 2 3 3 give codewords
        // 00 0100 0101 0110 0111 10 110 111.
        let lengths: [UInt32] = [2, 4, 4, 4, 4, 2, 3, 3]
        var fields: [(UInt32, Int)] = [(0x564342, 24), (1, 16), (UInt32(lengths.count), 24), (0, 1), (0, 1)]
        fields += lengths.map { ($0 - 1, 5) }
        fields.append((0, 4))   // no lookup
        let header = Self.pack(fields)
        let book = try header.withUnsafeBytes { raw -> VorbisCodebook in
            var r = VorbisBitReader(raw)
            return try VorbisCodebook(&r)
        }
        let codewords = ["00", "0100", "0101", "0110", "0111", "10", "110", "111"]
        for (entry, word) in codewords.enumerated() {
            // A codeword is read one bit at a time, its first bit first.
            let bits = Self.pack(word.map { ($0 == "1" ? 1 : 0, 1) })
            let decoded = bits.withUnsafeBytes { raw -> Int in
                var r = VorbisBitReader(raw)
                return book.decode(&r)
            }
            #expect(decoded == entry, "codeword \(word)")
        }
        // An over-full tree is refused.
        let bad = Self.pack([(0x564342, 24), (1, 16), (3, 24), (0, 1), (0, 1), (0, 5), (0, 5), (0, 5), (0, 4)])
        #expect(throws: CodecError.self) { try bad.withUnsafeBytes { raw in var r = VorbisBitReader(raw); _ = try VorbisCodebook(&r) } }
    }

    /// A setup header of 256 ordered codebooks, each claiming 2²² entries in a few dozen bits (a
    /// complete tree of 22-bit codewords): refused once its codebooks together pass the bound,
    /// instead of allocating gigabytes from 3 KB.
    @Test func setupHeaderCodebooksAreBoundedTogether() throws {
        var fields: [(UInt32, Int)] = [(255, 8)]
        for _ in 0..<256 {
            fields += [(0x564342, 24), (1, 16), (1 << 22, 24), (1, 1), (21, 5), (1 << 22, 23), (0, 4)]
        }
        let packet = [5] + Array("vorbis".utf8) + Self.pack(fields)
        #expect(packet.count < 3_200)
        do {
            _ = try packet.withUnsafeBytes { try VorbisSetup($0, channels: 1) }
            Issue.record("a setup header claiming 256 × 2²² codebook entries was accepted")
        } catch let error as CodecError {
            #expect("\(error)".contains("more than this decoder allows"), "\(error)")
        }
    }

    @Test func cookieLacingRoundTrips() {
        let headers: [[UInt8]] = [[UInt8](repeating: 1, count: 30), [UInt8](repeating: 3, count: 600), [UInt8](repeating: 5, count: 4000)]
        let cookie = VorbisCookie.make(headers)
        #expect(Array(cookie.prefix(6)) == [2, 30, 255, 255, 90, 1])
        #expect(VorbisCookie.split(cookie) == headers)
        #expect(VorbisCookie.split([2, 255]) == nil)
        #expect(VorbisCookie.split([1, 0]) == nil)
    }

    @Test func badIdentificationHeadersAreErrors() {
        var id: [UInt8] = [1] + Array("vorbis".utf8) + [0, 0, 0, 0, 2] + [0x44, 0xAC, 0, 0] + [UInt8](repeating: 0, count: 12) + [0xB8, 1]
        #expect((try? id.withUnsafeBytes { try VorbisIdentification($0) })?.longBlock == 2048)
        for (at, value) in [(11, UInt8(0)), (28, UInt8(0xB5)), (28, UInt8(0x8B)), (28, UInt8(0xFE)), (29, UInt8(0)), (7, UInt8(1))] {
            var bad = id
            bad[at] = value
            #expect(throws: CodecError.self, "byte \(at) = \(value)") { try bad.withUnsafeBytes { _ = try VorbisIdentification($0) } }
        }
        id.removeLast(5)
        #expect(throws: CodecError.self) { try id.withUnsafeBytes { _ = try VorbisIdentification($0) } }
    }

    /// An oggenc stream of `seconds` of a tone, or nil without oggenc.
    static func stream(seconds: Double) throws -> [UInt8]? {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/oggenc"), FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg") else { return nil }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vorbis-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let wav = dir.appendingPathComponent("t.wav").path, ogg = dir.appendingPathComponent("t.ogg").path
        for (tool, args) in [("/usr/bin/ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=frequency=330:sample_rate=22050:duration=\(seconds)", "-ac", "2", wav]),
                             ("/usr/bin/oggenc", ["-Q", "-q", "2", "-o", ogg, wav])] {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: tool)
            p.arguments = args
            try p.run()
            p.waitUntilExit()
        }
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: ogg)))
    }

    @Test func damagedStreamsDecodeOrThrowNeverTrap() throws {
        guard let good = try Self.stream(seconds: 0.5) else { print("SKIP Vorbis damage: oggenc or ffmpeg is not installed"); return }
        let whole = try good.withUnsafeBytes { try VorbisOggMemoryStream.decode($0) }
        #expect(whole.channels.count == 2 && whole.channels[0].count == 11_025 && whole.sampleRate == 22_050)
        // Every prefix (in steps): the headers cut anywhere, the audio cut anywhere.
        for n in stride(from: 0, to: good.count, by: 7) {
            do {
                let r = try good.prefix(n).withUnsafeBytes { try VorbisOggMemoryStream.decode($0) }
                #expect(r.channels[0].count <= 11_025)
            } catch is CodecError {}
        }
        // Random bytes changed after the first page (the Ogg framing of the memory stream takes
        // no CRC, so the damage reaches the setup header and the audio packets).
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            var bad = good
            for _ in 0..<Int.random(in: 1...8, using: &rng) {
                bad[Int.random(in: 58..<bad.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            }
            do {
                let r = try bad.withUnsafeBytes { try VorbisOggMemoryStream.decode($0, maximumFrames: 1 << 20) }
                #expect(r.channels.allSatisfy { $0.count <= 1 << 20 })
            } catch is CodecError {}
        }
    }
}
