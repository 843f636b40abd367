import Foundation
import Testing
@_spi(Testing) @testable import AudioFileFormats
import AudioKernels

@Suite("Headers stay valid while writing")
struct StreamingTests {
    static let cases: [(AudioContainerType, AudioDataDescription)] = [
        (.wav, .init(sampleRate: 44100, channelCount: 2, encoding: .signed16)),
        (.wav, .init(sampleRate: 48000, channelCount: 6, encoding: .float32)),
        (.wav, .init(sampleRate: 8000, channelCount: 1, encoding: .unsigned8)),
        (.rf64, .init(sampleRate: 44100, channelCount: 1, encoding: .signed24)),
        (.bw64, .init(sampleRate: 44100, channelCount: 2, encoding: .float64)),
        (.aiff, .init(sampleRate: 44100, channelCount: 2, encoding: .signed24, bigEndian: true)),
        (.aiff, .init(sampleRate: 11025, channelCount: 1, encoding: .signed8, bigEndian: true)),
        (.aifc, .init(sampleRate: 44100, channelCount: 2, encoding: .float32, bigEndian: true)),
        (.aifc, .init(sampleRate: 8000, channelCount: 1, encoding: .ulaw, bigEndian: true)),
        (.caf, .init(sampleRate: 44100, channelCount: 2, encoding: .signed16, bigEndian: true)),
        (.caf, .init(sampleRate: 96000, channelCount: 6, encoding: .float32, bigEndian: false)),
        (.au, .init(sampleRate: 8000, channelCount: 1, encoding: .alaw, bigEndian: true)),
        (.au, .init(sampleRate: 22050, channelCount: 2, encoding: .signed16, bigEndian: true)),
    ]

    @Test("a reader opened before close() sees every frame written so far", arguments: 0..<cases.count)
    func readWhileWriting(index: Int) throws {
        let (container, desc) = Self.cases[index]
        let dir = TempDir()
        let path = dir.path("live.\(container.preferredFileExtension)")
        var random = TestRandom(seed: UInt64(index + 7))
        let writer = try AudioFileWriter(path: path, container: container, description: desc)

        // Zero frames: already a valid, empty file.
        let empty = try AudioFileReader(path: path)
        #expect(empty.frameCount == 0)
        #expect(empty.container == container)

        var all: [UInt8] = []
        for chunk in [7, 1, 30, 3] {
            let bytes = random.bytes(chunk * desc.bytesPerFrame)
            try bytes.withUnsafeBytes { try writer.write(frames: chunk, from: $0.baseAddress!) }
            all += bytes
            // Without closing: as if the process had been killed right here.
            let reader = try AudioFileReader(path: path)
            #expect(reader.frameCount == Int64(all.count / desc.bytesPerFrame), "\(container) \(desc)")
            #expect(reader.warnings.isEmpty, "\(reader.warnings)")
            #expect(try readAll(reader) == all)
            #expect(reader.description.encoding == desc.encoding)
            #expect(reader.description.sampleRate == desc.sampleRate)
        }
        try writer.close()
        let reader = try AudioFileReader(path: path)
        #expect(reader.frameCount == Int64(all.count / desc.bytesPerFrame))
        #expect(try readAll(reader) == all)
        #expect(reader.warnings.isEmpty)
    }

    @Test("CAF keeps its data size current after every write (never -1, which libsndfile and sox refuse)")
    func cafSizeField() throws {
        let dir = TempDir()
        let path = dir.path("s.caf")
        let desc = AudioDataDescription(sampleRate: 44100, channelCount: 1, encoding: .signed16, bigEndian: true)
        let w = try AudioFileWriter(path: path, container: .caf, description: desc)
        let samples = [UInt8](repeating: 1, count: 20)
        try samples.withUnsafeBytes { try w.write(frames: 10, from: $0.baseAddress!) }
        let dataHeader = Int(w.dataOffset) - 16 // 'data', Int64 size, UInt32 edit count
        var b = fileBytes(path)
        #expect(Array(b[dataHeader..<dataHeader + 4]) == Array("data".utf8))
        #expect(Array(b[dataHeader + 4..<dataHeader + 12]) == [0, 0, 0, 0, 0, 0, 0, 24])
        try samples.withUnsafeBytes { try w.write(frames: 10, from: $0.baseAddress!) }
        b = fileBytes(path)
        #expect(Array(b[dataHeader + 4..<dataHeader + 12]) == [0, 0, 0, 0, 0, 0, 0, 44])
        try w.close()
        b = fileBytes(path)
        #expect(Array(b[dataHeader + 4..<dataHeader + 12]) == [0, 0, 0, 0, 0, 0, 0, 44])
    }

    @Test("WAV turns into RF64 in place when the data passes the (lowered) 4 GiB limit")
    func rf64Switch() throws {
        let dir = TempDir()
        let path = dir.path("big.wav")
        let desc = AudioDataDescription(sampleRate: 44100, channelCount: 2, encoding: .float32)
        let w = try AudioFileWriter(path: path, container: .wav, description: desc)
        w.sizeLimit32 = 1000
        var random = TestRandom(seed: 64)
        var all: [UInt8] = []
        var sawSwitch = false
        for round in 0..<6 {
            let bytes = random.bytes(50 * desc.bytesPerFrame) // 400 bytes per write
            try bytes.withUnsafeBytes { try w.write(frames: 50, from: $0.baseAddress!) }
            all += bytes
            let b = fileBytes(path)
            let riffSize = w.dataOffset - 8 + Int64(all.count)
            if riffSize <= 1000 {
                #expect(Array(b[0..<4]) == Array("RIFF".utf8), "round \(round)")
                #expect(Array(b[12..<16]) == Array("JUNK".utf8))
                #expect(w.container == .wav)
            } else {
                sawSwitch = true
                #expect(w.container == .rf64)
                #expect(Array(b[0..<4]) == Array("RF64".utf8), "round \(round)")
                #expect(Array(b[4..<8]) == [0xFF, 0xFF, 0xFF, 0xFF])
                #expect(Array(b[12..<16]) == Array("ds64".utf8))
                let ds = Bytes(b, bigEndian: false)
                #expect(ds.u32(16) == 28)
                #expect(ds.u64(20) == UInt64(riffSize))
                #expect(ds.u64(28) == UInt64(all.count))
                #expect(ds.u64(36) == UInt64(all.count / desc.bytesPerFrame))
                let dataSizeField = Int(w.dataOffset) - 4
                #expect(ds.u32(dataSizeField) == 0xFFFF_FFFF)
            }
            let r = try AudioFileReader(path: path)
            #expect(r.container == (riffSize <= 1000 ? .wav : .rf64))
            #expect(r.frameCount == Int64(all.count / desc.bytesPerFrame))
            #expect(try readAll(r) == all)
            #expect(r.warnings.isEmpty)
        }
        #expect(sawSwitch)
        try w.close()
        let r = try AudioFileReader(path: path)
        #expect(r.container == .rf64)
        #expect(try readAll(r) == all)
        // The fact chunk's 32-bit sample count defers to ds64.
        let b = fileBytes(path)
        let fact = Int(w.dataOffset) - 8 - 12
        #expect(Array(b[fact..<fact + 4]) == Array("fact".utf8))
        #expect(Bytes(b, bigEndian: false).u32(fact + 8) == 0xFFFF_FFFF)
    }

    @Test("RF64 switch with an odd-sized 8-bit data chunk pads at close")
    func rf64OddPad() throws {
        let dir = TempDir()
        let path = dir.path("odd.wav")
        let desc = AudioDataDescription(sampleRate: 8000, channelCount: 1, encoding: .unsigned8)
        let w = try AudioFileWriter(path: path, container: .wav, description: desc)
        w.sizeLimit32 = 200
        let bytes = (0..<301).map { UInt8(truncatingIfNeeded: $0) }
        try bytes.withUnsafeBytes { try w.write(frames: 301, from: $0.baseAddress!) }
        try w.close()
        let b = fileBytes(path)
        #expect(b.count == Int(w.dataOffset) + 302)
        #expect(Bytes(b, bigEndian: false).u64(20) == UInt64(b.count - 8))
        let r = try AudioFileReader(path: path)
        #expect(r.container == .rf64)
        #expect(try readAll(r) == bytes)
    }

    @Test("AIFF refuses to grow past 4 GiB ('off?') and leaves a valid file")
    func aiffLimit() throws {
        let dir = TempDir()
        let path = dir.path("big.aiff")
        let desc = AudioDataDescription(sampleRate: 44100, channelCount: 1, encoding: .signed16, bigEndian: true)
        let w = try AudioFileWriter(path: path, container: .aiff, description: desc)
        w.sizeLimit32 = 500
        let bytes = [UInt8](repeating: 3, count: 400)
        try bytes.withUnsafeBytes { try w.write(frames: 200, from: $0.baseAddress!) }
        let error = expectError(AudioFileFormatError.Code.doesNotAllow64BitDataSize) {
            try bytes.withUnsafeBytes { try w.write(frames: 200, from: $0.baseAddress!) }
        }
        #expect(error?.message.contains("CAF") == true)
        #expect(w.framesWritten == 200)
        try w.close()
        let r = try AudioFileReader(path: path)
        #expect(r.frameCount == 200)
    }

    @Test("AU marks its size unknown past the 32-bit limit; readers read to the end")
    func auUnknownSize() throws {
        let dir = TempDir()
        let path = dir.path("big.au")
        let desc = AudioDataDescription(sampleRate: 8000, channelCount: 1, encoding: .signed16, bigEndian: true)
        let w = try AudioFileWriter(path: path, container: .au, description: desc)
        w.sizeLimit32 = 100
        let bytes = (0..<300).map { UInt8(truncatingIfNeeded: $0 * 7) }
        try bytes.withUnsafeBytes { try w.write(frames: 150, from: $0.baseAddress!) }
        try w.close()
        #expect(Bytes(fileBytes(path), bigEndian: true).u32(8) == 0xFFFF_FFFF)
        let r = try AudioFileReader(path: path)
        #expect(r.frameCount == 150)
        #expect(try readAll(r) == bytes)
    }

    @Test("a writer killed mid-frame: the partial frame is ignored, whole frames are kept")
    func partialTrailingFrame() throws {
        let dir = TempDir()
        for container in [AudioContainerType.caf, .wav, .au] {
            let path = dir.path("p.\(container.preferredFileExtension)")
            let desc = AudioDataDescription(sampleRate: 8000, channelCount: 2, encoding: .signed16,
                                            bigEndian: container == .au)
            let w = try AudioFileWriter(path: path, container: container, description: desc)
            let bytes = [UInt8](repeating: 9, count: 40)
            try bytes.withUnsafeBytes { try w.write(frames: 10, from: $0.baseAddress!) }
            // Simulate the kill: append 3 stray bytes behind the writer's back, never close.
            let h = FileHandle(forWritingAtPath: path)!
            h.seekToEndOfFile(); h.write(Data([1, 2, 3])); h.closeFile()
            let r = try AudioFileReader(path: path)
            #expect(r.frameCount == 10, "\(container)")
            #expect(try readAll(r) == bytes)
        }
    }

    @Test("reads clamp at the end, reject negative positions, and fail after close")
    func readEdges() throws {
        let dir = TempDir()
        let path = dir.path("e.wav")
        let desc = AudioDataDescription(sampleRate: 8000, channelCount: 1, encoding: .signed16)
        let w = try AudioFileWriter(path: path, container: .wav, description: desc)
        let samples: [Int16] = [1, 2, 3, 4, 5]
        try samples.withUnsafeBytes { try w.write(frames: 5, from: $0.baseAddress!) }
        try w.close()
        try w.close() // twice is fine
        expectError(AudioFileFormatError.Code.notOpen) {
            try samples.withUnsafeBytes { try w.write(frames: 1, from: $0.baseAddress!) }
        }

        let r = try AudioFileReader(path: path)
        var out = [Int16](repeating: 0, count: 10)
        #expect(try out.withUnsafeMutableBytes { try r.read(frames: 10, startingAt: 3, into: $0.baseAddress!) } == 2)
        #expect(out[0] == 4 && out[1] == 5)
        #expect(try out.withUnsafeMutableBytes { try r.read(frames: 10, startingAt: 5, into: $0.baseAddress!) } == 0)
        #expect(try out.withUnsafeMutableBytes { try r.read(frames: 10, startingAt: 1 << 62, into: $0.baseAddress!) } == 0)
        #expect(try out.withUnsafeMutableBytes { try r.read(frames: 0, startingAt: 0, into: $0.baseAddress!) } == 0)
        expectError(AudioFileFormatError.Code.position) {
            _ = try out.withUnsafeMutableBytes { try r.read(frames: 1, startingAt: -1, into: $0.baseAddress!) }
        }
        expectError(AudioFileFormatError.Code.position) {
            _ = try out.withUnsafeMutableBytes { try r.read(frames: -1, startingAt: 0, into: $0.baseAddress!) }
        }
        r.close()
        r.close()
        expectError(AudioFileFormatError.Code.notOpen) {
            _ = try out.withUnsafeMutableBytes { try r.read(frames: 1, startingAt: 0, into: $0.baseAddress!) }
        }
    }

    @Test("writer argument errors: bad descriptions ('fmt?'), missing directory ('wht?'), negative counts (-40)")
    func writerErrors() throws {
        let dir = TempDir()
        let p = dir.path("x.wav")
        let bad: [AudioDataDescription] = [
            .init(sampleRate: 44100, channelCount: 0, encoding: .signed16),
            .init(sampleRate: 44100, channelCount: 1025, encoding: .signed16),
            .init(sampleRate: 0, channelCount: 1, encoding: .signed16),
            .init(sampleRate: -44100, channelCount: 1, encoding: .signed16),
            .init(sampleRate: .nan, channelCount: 1, encoding: .signed16),
            .init(sampleRate: .infinity, channelCount: 1, encoding: .signed16),
            .init(sampleRate: 20_000_000, channelCount: 1, encoding: .signed16),
            .init(sampleRate: 44100, channelCount: 1, encoding: .signed16, validBitsPerSample: 0),
            .init(sampleRate: 44100, channelCount: 1, encoding: .signed16, validBitsPerSample: 17),
            .init(sampleRate: 44100.5, channelCount: 1, encoding: .signed16),
        ]
        for d in bad {
            for c in [AudioContainerType.wav, .caf] where !(c == .caf && d.sampleRate == 44100.5) {
                let error = expectError(AudioFileFormatError.Code.unsupportedDataFormat, "\(c) \(d)") {
                    _ = try AudioFileWriter(path: p, container: c, description: d)
                }
                #expect(error?.message.contains(p) == true)
            }
        }
        #expect(!FileManager.default.fileExists(atPath: p), "a refused format must not create the file")
        // Float in plain AIFF: the message points to AIFF-C.
        let aiffFloat = expectError(AudioFileFormatError.Code.unsupportedDataFormat) {
            _ = try AudioFileWriter(path: dir.path("f.aiff"), container: .aiff,
                                    description: .init(sampleRate: 44100, channelCount: 1, encoding: .float32, bigEndian: true))
        }
        #expect(aiffFloat?.message.contains("AIFF-C") == true)
        expectError(AudioFileFormatError.Code.unspecified) {  // ENOENT → 'wht?', as Apple's AudioFile maps it
            _ = try AudioFileWriter(path: dir.path("no/such/dir/x.wav"), container: .wav,
                                    description: .init(sampleRate: 44100, channelCount: 1, encoding: .signed16))
        }
        let w = try AudioFileWriter(path: p, container: .wav, description: .init(sampleRate: 8000, channelCount: 1, encoding: .signed16))
        expectError(AudioFileFormatError.Code.position) {
            try [UInt8](repeating: 0, count: 2).withUnsafeBytes { try w.write(frames: -1, from: $0.baseAddress!) }
        }
        expectError(AudioFileFormatError.Code.doesNotAllow64BitDataSize) {
            try [UInt8](repeating: 0, count: 2).withUnsafeBytes { try w.write(frames: Int.max, from: $0.baseAddress!) }
        }
        #expect(w.framesWritten == 0)
        try w.close()
    }
}
