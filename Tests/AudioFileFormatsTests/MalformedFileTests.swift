import Foundation
import Testing
@testable import AudioFileFormats
import AudioKernels

private typealias C = AudioFileFormatError.Code

@Suite("Malformed files give clear errors, never traps")
struct MalformedFileTests {
    let dir = TempDir()

    /// Writes `bytes` and expects opening them to fail with `code`; returns the message.
    @discardableResult
    func open(_ name: String, _ bytes: [UInt8], _ code: Int32, sourceLocation: SourceLocation = #_sourceLocation) -> String {
        let path = dir.write(name, bytes)
        let error = expectError(code, "\(name)", sourceLocation: sourceLocation) { _ = try AudioFileReader(path: path) }
        if let error {
            #expect(error.message.contains(path), "the message names the file: \(error.message)", sourceLocation: sourceLocation)
        }
        return error?.message ?? ""
    }

    /// Writes `bytes` and expects them to open; returns the reader.
    func opens(_ name: String, _ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) throws -> AudioFileReader {
        try AudioFileReader(path: dir.write(name, bytes))
    }

    /// As Apple's AudioFile maps open(2) errors (AudioFileTranslateErrno): a missing file and a
    /// directory are both 'wht?'.
    @Test func missingFileAndDirectory() {
        expectError(C.unspecified) { _ = try AudioFileReader(path: dir.path("nope.wav")) }
        expectError(C.unspecified) { _ = try AudioFileReader(path: dir.url.path) }
    }

    @Test func emptyAndRandomBytes() {
        let empty = open("empty.wav", [], C.invalidFile)
        #expect(empty.contains("empty"))
        var random = TestRandom(seed: 1)
        let junk = open("x.wav", Array("ABCD".utf8) + random.bytes(100), C.unsupportedFileType)
        #expect(junk.contains("is not a WAV file: it starts with 'ABCD' instead of 'RIFF'"), "\(junk)")
        let noExt = open("noext", [0, 1, 2, 3, 4, 5, 6, 7, 8], C.unsupportedFileType)
        #expect(noExt.contains("bytes 00 01 02 03"), "\(noExt)")
        open("tiny", [0x52], C.unsupportedFileType)
        open("avi.wav", Array("RIFF\u{0}\u{0}\u{0}\u{0}AVI LIST".utf8), C.unsupportedFileType)
        open("form.aiff", Array("FORM\u{0}\u{0}\u{0}\u{0}8SVX".utf8), C.unsupportedFileType)
    }

    @Test func truncatedHeaders() {
        open("t1.wav", Array("RIFF\u{1}\u{0}".utf8), C.invalidFile)
        open("t2.aiff", Array("FORM\u{0}".utf8), C.invalidFile)
        open("t3.caf", Array("caff\u{0}".utf8), C.invalidFile)
        open("t4.au", Array(".snd\u{0}\u{0}\u{0}\u{18}".utf8), C.invalidFile)
        let full = makeWAV(data: [1, 2, 3, 4])
        for cut in [12, 20, 30, 36, 40, 43] {
            open("cut\(cut).wav", Array(full.prefix(cut)), C.invalidFile)
        }
        let aiff = makeAIFF(frames: 2, data: [1, 2, 3, 4])
        for cut in [12, 20, 30, 40] {
            open("cut\(cut).aiff", Array(aiff.prefix(cut)), C.invalidFile)
        }
    }

    @Test func wavStructure() throws {
        // fmt present, no data chunk; data without fmt.
        var w = LE()
        w.s("RIFF"); w.u32(28); w.s("WAVE"); w.s("fmt "); w.u32(16); w.u16(1); w.u16(1); w.u32(8000); w.u32(16000); w.u16(2); w.u16(16)
        #expect(open("nodata.wav", w.bytes, C.invalidFile).contains("no 'data' chunk"))
        var d = LE()
        d.s("RIFF"); d.u32(12); d.s("WAVE"); d.s("data"); d.u32(4); d.u32(0)
        #expect(open("nofmt.wav", d.bytes, C.invalidFile).contains("no 'fmt ' chunk"))
        // fmt chunk too short.
        open("shortfmt.wav", makeWAV(fmtSizeOverride: 10), C.invalidChunk)
        // Extensible header too short for its fields.
        open("shortext.wav", makeWAV(tag: 0xFFFE, fmtExtra: [0, 0]), C.invalidChunk)
        // Extensible with an unknown sub-format GUID.
        var ext = LE()
        ext.u16(22); ext.u16(16); ext.u32(0); ext.u32(0x12345678); ext.raw([UInt8](repeating: 7, count: 12))
        open("guid.wav", makeWAV(tag: 0xFFFE, fmtExtra: ext.bytes), C.unsupportedDataFormat)
        // Compressed formats this module does not decode.
        #expect(open("adpcm.wav", makeWAV(tag: 2, bits: 4), C.unsupportedDataFormat).contains("ADPCM"))
        open("mp3.wav", makeWAV(tag: 0x55, blockAlign: 1, bits: 0), C.unsupportedDataFormat)
        // Odd float sizes, µ-law with 16 bits.
        open("f24.wav", makeWAV(tag: 3, bits: 24), C.unsupportedDataFormat)
        open("u16.wav", makeWAV(tag: 7, bits: 16), C.unsupportedDataFormat)
        // Inconsistent block alignment (scipy's "-inconsistent" file has the same flaw).
        open("align.wav", makeWAV(channels: 3, blockAlign: 4, bits: 24), C.invalidFile)
        open("align2.wav", makeWAV(channels: 2, blockAlign: 2, bits: 16), C.invalidFile)
        // Valid bits above the container.
        var vb = LE()
        vb.u16(22); vb.u16(24); vb.u32(0); vb.u32(1); vb.u16(0); vb.u16(0x10); vb.raw(waveSubformatGUIDTail)
        open("valid.wav", makeWAV(tag: 0xFFFE, bits: 16, fmtExtra: vb.bytes), C.invalidFile)
    }

    @Test func absurdFormatValues() {
        open("ch0.wav", makeWAV(channels: 0, blockAlign: 0), C.invalidFile)
        open("ch2000.wav", makeWAV(channels: 2000, blockAlign: 4000), C.unsupportedDataFormat)
        open("rate0.wav", makeWAV(rate: 0), C.invalidFile)
        open("rate20M.wav", makeWAV(rate: 20_000_000), C.unsupportedDataFormat)
        open("bits0.wav", makeWAV(blockAlign: 2, bits: 0), C.invalidFile)
        let wide = open("bits64.wav", makeWAV(channels: 1, bits: 64), C.unsupportedDataFormat)
        #expect(wide.contains("wider than 32 bits"))

        open("ch0.aiff", makeAIFF(channels: 0), C.invalidFile)
        open("chneg.aiff", makeAIFF(channels: -1), C.invalidFile)
        open("ch5000.aiff", makeAIFF(channels: 5000), C.unsupportedDataFormat)
        open("nan.aiff", makeAIFF(rate: [0x7F, 0xFF, 0xC0, 0, 0, 0, 0, 0, 0, 0]), C.invalidFile)
        open("inf.aiff", makeAIFF(rate: [0x7F, 0xFE, 0xFF, 0, 0, 0, 0, 0, 0, 0]), C.invalidFile)
        open("neg.aiff", makeAIFF(rate: encodeExtended80(-44100)), C.invalidFile)
        open("zero.aiff", makeAIFF(rate: [UInt8](repeating: 0, count: 10)), C.invalidFile)
        open("huge.aiff", makeAIFF(rate: encodeExtended80(1e9)), C.unsupportedDataFormat)
        open("bits0.aiff", makeAIFF(bits: 0), C.invalidFile)
        open("bits40.aiff", makeAIFF(bits: 40), C.unsupportedDataFormat)

        open("nan.caf", makeCAF(rate: .nan), C.invalidFile)
        open("neg.caf", makeCAF(rate: -8000), C.invalidFile)
        open("zero.caf", makeCAF(rate: 0), C.invalidFile)
        open("ch0.caf", makeCAF(channels: 0), C.invalidFile)
        open("ch9999.caf", makeCAF(bytesPerPacket: 2 * 9999, channels: 9999), C.unsupportedDataFormat)
        open("bits0.caf", makeCAF(bits: 0), C.invalidFile)
        open("bits99.caf", makeCAF(bits: 99), C.invalidFile)
        open("bpp3.caf", makeCAF(bytesPerPacket: 3, channels: 2), C.invalidFile)
        open("bpp0.caf", makeCAF(bytesPerPacket: 0), C.invalidFile)
        open("float3.caf", makeCAF(flags: 1, bytesPerPacket: 3, bits: 24), C.unsupportedDataFormat)
        open("int8b.caf", makeCAF(bytesPerPacket: 8, bits: 64), C.unsupportedDataFormat)
        open("fpp.caf", makeCAF(framesPerPacket: 4), C.unsupportedDataFormat)

        open("ch0.au", makeAU(channels: 0), C.invalidFile)
        open("rate0.au", makeAU(rate: 0), C.invalidFile)
        open("ch4000.au", makeAU(channels: 4000), C.unsupportedDataFormat)
    }

    @Test func aiffStructure() throws {
        open("nocomm.aiff", Array("FORM\u{0}\u{0}\u{0}\u{4}AIFF".utf8), C.invalidFile)
        open("shortcomm.aiff", makeAIFF(commSizeOverride: 10), C.invalidChunk)
        open("shortcomm.aifc", makeAIFF(compression: "NONE", commSizeOverride: 18), C.invalidChunk)
        open("nossnd.aiff", makeAIFF(frames: 10, includeSSND: false), C.invalidFile)
        let empty = try opens("emptyok.aiff", makeAIFF(frames: 0, includeSSND: false))
        #expect(empty.frameCount == 0)
        #expect(open("ima4.aifc", makeAIFF(compression: "ima4"), C.unsupportedDataFormat).contains("'ima4'"))
        // SSND whose offset points past its own end.
        var bad = makeAIFF(frames: 1, data: [1, 2])
        let ssnd = bad.count - 2 - 16
        bad[ssnd + 8 + 3] = 200
        open("ssndoff.aiff", bad, C.invalidChunk)
        // SSND block offset is honoured.
        let shifted = try opens("shift.aiff", makeAIFF(frames: 2, data: [1, 2, 3, 4], ssndOffset: 6))
        #expect(shifted.frameCount == 2)
        #expect(try readAll(shifted) == [1, 2, 3, 4])
        // AIFF-C µ-law with the decoded size (16) in COMM, as some writers store it.
        let ulaw = try opens("u.aifc", makeAIFF(frames: 3, bits: 16, compression: "ulaw", data: [0xFF, 0x7F, 0x00]))
        #expect(ulaw.description.encoding == .ulaw)
        #expect(ulaw.frameCount == 3)
        // sowt, twos, fl64, raw.
        #expect(try opens("s.aifc", makeAIFF(frames: 1, bits: 16, compression: "sowt", data: [1, 0])).description.bigEndian == false)
        #expect(try opens("t.aifc", makeAIFF(frames: 1, bits: 16, compression: "twos", data: [0, 1])).description.bigEndian == true)
        #expect(try opens("d.aifc", makeAIFF(frames: 1, bits: 64, compression: "FL64", data: [UInt8](repeating: 0, count: 8))).description.encoding == .float64)
        #expect(try opens("r.aifc", makeAIFF(frames: 1, bits: 8, compression: "raw ", data: [128])).description.encoding == .unsigned8)
    }

    @Test func cafStructure() throws {
        open("v2.caf", makeCAF(version: 2), C.unsupportedDataFormat)
        open("shortdesc.caf", makeCAF(descSize: 20), C.invalidChunk)
        #expect(open("aac.caf", makeCAF(format: "aac "), C.unsupportedDataFormat).contains("'aac '"))
        open("negdata.caf", makeCAF(dataSize: -5), C.invalidChunk)
        open("data2.caf", makeCAF(dataSize: 2), C.invalidChunk)
        open("datafirst.caf", makeCAF(dataFirst: true), C.invalidFile)
        var nodata = LE(big: true)
        nodata.raw(Array(makeCAF().prefix(8 + 44)))
        open("nodata.caf", nodata.bytes, C.invalidFile)
        open("nodesc.caf", Array("caff".utf8) + [0, 1, 0, 0] + Array("data".utf8) + [UInt8](repeating: 0xFF, count: 8), C.invalidFile)
        // A huge 'chan' chunk is refused rather than allocated.
        var chan = LE(big: true)
        chan.s("chan"); chan.u64(1 << 40)
        open("hugechan.caf", makeCAF(extraChunks: chan.bytes), C.invalidChunk)
        // A negative size on an ordinary chunk.
        var free = LE(big: true)
        free.s("free"); free.u64(UInt64(bitPattern: -7))
        open("negfree.caf", makeCAF(extraChunks: free.bytes), C.invalidChunk)
        // An unknown chunk with Int64.max size ends the walk without a trap → no data chunk.
        var huge = LE(big: true)
        huge.s("free"); huge.u64(UInt64(Int64.max))
        open("hugefree.caf", makeCAF(extraChunks: huge.bytes), C.invalidFile)
        // Size 0 (a writer killed before finishing) and -1 read to the end of the file.
        let zero = try opens("zero.caf", makeCAF(dataSize: 0, data: [0, 1, 0, 2, 0, 3]))
        #expect(zero.frameCount == 3)
        #expect(!zero.warnings.isEmpty)
        let minus = try opens("minus.caf", makeCAF(dataSize: -1, data: [0, 1, 0, 2, 0, 3, 9]))
        #expect(minus.frameCount == 3)
        #expect(minus.warnings.isEmpty)
    }

    @Test func auStructure() throws {
        open("off8.au", makeAU(offset: 8), C.invalidFile)
        var past = makeAU(offset: 24, data: [1, 2])
        past[7] = 200 // data offset 200 > file size
        #expect(open("past.au", past, C.invalidFile).contains("truncated"))
        #expect(open("g721.au", makeAU(encoding: 23), C.unsupportedDataFormat).contains("23"))
        let unknown = try opens("unk.au", makeAU(size: 0xFFFF_FFFF, data: [0, 1, 0, 2, 0]))
        #expect(unknown.frameCount == 2)
        // The little-endian DEC variant.
        var dec = LE(big: false)
        dec.s("dns."); dec.u32(24); dec.u32(4); dec.u32(3); dec.u32(8000); dec.u32(1); dec.raw([1, 0, 2, 0])
        let r = try opens("dec.au", dec.bytes)
        #expect(r.description.bigEndian == false)
        #expect(r.frameCount == 2)
    }

    @Test("data longer than the file: read what is present, with a warning naming both sizes")
    func dataLongerThanFile() throws {
        let bytes = makeWAV(dataSize: 1_000_000, data: [UInt8](repeating: 5, count: 400))
        let r = try opens("long.wav", bytes)
        #expect(r.frameCount == 200)
        #expect(r.warnings.first == "the data chunk claims 1000000 bytes but only 400 follow; reading the 400 present")
        #expect(try readAll(r) == [UInt8](repeating: 5, count: 400))

        let aiff = try opens("long.aiff", makeAIFF(frames: 1000, data: [UInt8](repeating: 1, count: 10)))
        #expect(aiff.frameCount == 5)
        #expect(!aiff.warnings.isEmpty)
        let au = try opens("long.au", makeAU(size: 5000, data: [1, 2, 3, 4]))
        #expect(au.frameCount == 2)
        #expect(!au.warnings.isEmpty)
    }

    @Test("WAV data sizes left by a killed writer: 0 or 0xFFFFFFFF read to the end of the file")
    func killedWriterSizes() throws {
        let data = [UInt8](repeating: 1, count: 64)
        let ff = try opens("ff.wav", makeWAV(dataSize: 0xFFFF_FFFF, data: data))
        #expect(ff.frameCount == 32)
        let zero = try opens("zero.wav", makeWAV(dataSize: 0, data: data, riffSize: 36))
        #expect(zero.frameCount == 32)
        #expect(!zero.warnings.isEmpty)
        let zeroRiff = try opens("zeroriff.wav", makeWAV(dataSize: 0, data: data, riffSize: 0))
        #expect(zeroRiff.frameCount == 32)
        // A genuinely empty data chunk followed by a LIST chunk the RIFF size accounts for.
        var list = LE()
        list.s("LIST"); list.u32(4); list.s("INFO")
        let emptyWithList = try opens("emptylist.wav", makeWAV(dataSize: 0, data: list.bytes, riffSize: 36 + 12))
        #expect(emptyWithList.frameCount == 0)
    }

    @Test("RIFF details: odd chunks padded (or not), unknown chunks skipped, RIFX, hostile sizes")
    func riffDetails() throws {
        // An odd-sized unknown chunk before fmt, with and without its pad byte.
        for padded in [true, false] {
            var w = LE()
            w.s("RIFF"); w.u32(0); w.s("WAVE")
            w.s("odd "); w.u32(3); w.raw([1, 2, 3]); if padded { w.raw([0]) }
            w.s("fmt "); w.u32(16); w.u16(1); w.u16(1); w.u32(8000); w.u32(16000); w.u16(2); w.u16(16)
            w.s("data"); w.u32(4); w.raw([1, 0, 2, 0])
            let r = try opens("odd\(padded).wav", w.bytes)
            #expect(r.frameCount == 2)
        }
        // RIFX: big-endian fields and samples.
        let rifx = try opens("be.wav", makeWAV(data: [0, 1, 0, 2], magic: "RIFX"))
        #expect(rifx.description.bigEndian)
        #expect(rifx.container == .wav)
        // An unknown chunk claiming 0xFFFFFFFF bytes before fmt: the walk ends, no trap.
        var w = LE()
        w.s("RIFF"); w.u32(0); w.s("WAVE"); w.s("junk"); w.u32(0xFFFF_FFFF)
        open("hugejunk.wav", w.bytes, C.invalidFile)
        // RF64 with an absurd ds64 data size: clamped to what is present.
        var rf = LE()
        rf.s("RF64"); rf.u32(0xFFFF_FFFF); rf.s("WAVE")
        rf.s("ds64"); rf.u32(28); rf.u64(.max); rf.u64(.max); rf.u64(.max); rf.u32(0xFFFF_FFFF)
        rf.s("fmt "); rf.u32(16); rf.u16(1); rf.u16(2); rf.u32(8000); rf.u32(32000); rf.u16(4); rf.u16(16)
        rf.s("data"); rf.u32(0xFFFF_FFFF); rf.raw([UInt8](repeating: 2, count: 12))
        let r = try opens("hostile.rf64", rf.bytes)
        #expect(r.container == .rf64)
        #expect(r.frameCount == 3)
        // ds64 too short.
        var short = LE()
        short.s("RF64"); short.u32(0xFFFF_FFFF); short.s("WAVE"); short.s("ds64"); short.u32(8); short.u64(0)
        open("shortds64.wav", short.bytes, C.invalidChunk)
        // Thousands of empty chunks: the walk is bounded and fails cleanly.
        var many = LE()
        many.s("RIFF"); many.u32(0); many.s("WAVE")
        for _ in 0..<20_000 { many.s("pad "); many.u32(0) }
        open("many.wav", many.bytes, C.invalidFile)
    }

    @Test("mutated valid files never trap: they open and read, or throw AudioFileFormatError")
    func fuzz() throws {
        var random = TestRandom(seed: 0xF022)
        var seeds: [(String, [UInt8])] = []
        for (container, desc) in StreamingTests.cases {
            let path = dir.path("seed.\(container.preferredFileExtension)")
            let w = try AudioFileWriter(path: path, container: container, description: desc)
            let data = random.bytes(9 * desc.bytesPerFrame)
            try data.withUnsafeBytes { try w.write(frames: 9, from: $0.baseAddress!) }
            try w.close()
            seeds.append((container.preferredFileExtension, fileBytes(path)))
        }
        var opened = 0, refused = 0
        for round in 0..<1500 {
            let (ext, seed) = seeds[round % seeds.count]
            var bytes = seed
            let headerEnd = min(bytes.count, 120)
            for _ in 0..<random.int(1..<6) {
                let i = random.int(0..<headerEnd)
                switch random.int(0..<4) {
                case 0: bytes[i] = UInt8(truncatingIfNeeded: random.next())
                case 1: bytes[i] = 0xFF
                case 2: bytes[i] = 0
                default: bytes[i] ^= 0x80
                }
            }
            if random.int(0..<8) == 0 { bytes = Array(bytes.prefix(random.int(0..<bytes.count))) }
            let path = dir.write("fuzz.\(ext)", bytes)
            do {
                let r = try AudioFileReader(path: path)
                #expect(r.frameCount >= 0)
                // The frames reported are present (a data offset past the end means zero frames).
                #expect(r.frameCount == 0 || r.dataOffset + r.frameCount * Int64(r.description.bytesPerFrame) <= Int64(bytes.count))
                let all = try readAll(r)
                #expect(all.count == Int(r.frameCount) * r.description.bytesPerFrame)
                opened += 1
            } catch let error as AudioFileFormatError {
                #expect(error.message.contains(path))
                refused += 1
            }
        }
        #expect(opened > 0 && refused > 0)
    }
}
