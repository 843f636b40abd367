import Foundation
import Testing
@_spi(Testing) @testable import AudioFileFormats
import AudioKernels

let allEncodings: [SampleEncoding] = [.unsigned8, .signed8, .signed16, .signed24, .signed32, .float32, .float64, .ulaw, .alaw]
let allContainers: [AudioContainerType] = [.wav, .rf64, .bw64, .aiff, .aifc, .caf, .au]

/// Which container holds which encoding and byte order: the rules the writer promises
/// (written out here independently of the implementation).
func containerAccepts(_ c: AudioContainerType, _ e: SampleEncoding, bigEndian: Bool) -> Bool {
    let multiByte = e.bytesPerSample > 1
    switch c {
    case .wav, .rf64, .bw64: return e != .signed8 && (!multiByte || !bigEndian)
    case .aiff: return [.signed8, .signed16, .signed24, .signed32].contains(e) && (!multiByte || bigEndian)
    case .aifc: return e != .unsigned8 && (!e.isFloat || bigEndian)
    case .caf: return e != .unsigned8
    case .au: return e != .unsigned8 && (!multiByte || bigEndian)
    }
}

@Suite("Write → read round trips")
struct RoundTripTests {
    @Test("every container × encoding × byte order × channels {1,2,6} × rates", arguments: allContainers)
    func roundTrip(container: AudioContainerType) throws {
        let dir = TempDir()
        var random = TestRandom(seed: 0x5EED)
        var written = 0
        for encoding in allEncodings {
            for bigEndian in [false, true] {
                for channels in [1, 2, 6] {
                    for rate in [8000.0, 44100.0, 96000.0] {
                        let desc = AudioDataDescription(sampleRate: rate, channelCount: channels, encoding: encoding,
                                                        bigEndian: bigEndian)
                        let path = dir.path("t-\(encoding.bytesPerSample)-\(written).\(container.preferredFileExtension)")
                        guard containerAccepts(container, encoding, bigEndian: bigEndian) else {
                            let error = expectError(AudioFileFormatError.Code.unsupportedDataFormat, "\(container) \(desc)") {
                                _ = try AudioFileWriter(path: path, container: container, description: desc)
                            }
                            #expect(error?.message.contains(path) == true)
                            continue
                        }
                        // 37 frames in three writes of different sizes (odd counts exercise padding).
                        let frames = [5, 19, 13]
                        let bytes = random.bytes(frames.reduce(0, +) * desc.bytesPerFrame)
                        let writer = try AudioFileWriter(path: path, container: container, description: desc)
                        var offset = 0
                        for n in frames {
                            try bytes.withUnsafeBytes { try writer.write(frames: n, from: $0.baseAddress! + offset) }
                            offset += n * desc.bytesPerFrame
                        }
                        #expect(writer.framesWritten == 37)
                        try writer.close()
                        try checkRead(path: path, container: container, desc: desc, bytes: bytes, frames: 37)
                        written += 1
                    }
                }
            }
        }
        #expect(written > 0)
    }

    func checkRead(path: String, container: AudioContainerType, desc: AudioDataDescription, bytes: [UInt8], frames: Int64,
                   sourceLocation: SourceLocation = #_sourceLocation) throws {
        let reader = try AudioFileReader(path: path)
        defer { reader.close() }
        let what = "\(container) \(desc)"
        #expect(reader.container == container, "\(what)", sourceLocation: sourceLocation)
        #expect(reader.frameCount == frames, "\(what)", sourceLocation: sourceLocation)
        #expect(reader.warnings.isEmpty, "\(what): \(reader.warnings)", sourceLocation: sourceLocation)
        let got = reader.description
        #expect(got.sampleRate == desc.sampleRate, "\(what)", sourceLocation: sourceLocation)
        #expect(got.channelCount == desc.channelCount, "\(what)", sourceLocation: sourceLocation)
        #expect(got.encoding == desc.encoding, "\(what)", sourceLocation: sourceLocation)
        #expect(got.validBitsPerSample == desc.validBitsPerSample, "\(what)", sourceLocation: sourceLocation)
        if desc.encoding.bytesPerSample > 1 {
            #expect(got.bigEndian == desc.bigEndian, "\(what)", sourceLocation: sourceLocation)
        }
        let data = try readAll(reader)
        #expect(data == bytes, "\(what): sample bytes differ", sourceLocation: sourceLocation)
        // The file holds exactly header + data (+ one pad byte for odd WAV/AIFF data).
        let size = Int64(fileBytes(path).count)
        let dataBytes = frames * Int64(desc.bytesPerFrame)
        let pad: Int64 = (container == .caf || container == .au) ? 0 : dataBytes & 1
        #expect(size == reader.dataOffset + dataBytes + pad, "\(what)", sourceLocation: sourceLocation)
    }

    @Test("valid bits below the container size (12 in 16, 20 in 24, 24 in 32) survive",
          arguments: [AudioContainerType.wav, .aiff, .aifc, .caf])
    func validBits(container: AudioContainerType) throws {
        let dir = TempDir()
        var random = TestRandom(seed: 42)
        for (encoding, valid) in [(SampleEncoding.signed16, 12), (.signed24, 20), (.signed32, 24), (.signed8, 5)] {
            let big = container == .aiff || container == .aifc
            guard containerAccepts(container, encoding, bigEndian: big) else { continue }
            let desc = AudioDataDescription(sampleRate: 48000, channelCount: 2, encoding: encoding, bigEndian: big,
                                            validBitsPerSample: valid)
            let path = dir.path("v\(valid).\(container.preferredFileExtension)")
            if (container == .aiff || container == .aifc) && (valid + 7) / 8 != encoding.bytesPerSample {
                // AIFF's sample size implies ceil(bits / 8)-byte containers: 24 bits in 4 bytes cannot be said.
                expectError(AudioFileFormatError.Code.unsupportedDataFormat) {
                    _ = try AudioFileWriter(path: path, container: container, description: desc)
                }
                continue
            }
            let bytes = random.bytes(10 * desc.bytesPerFrame)
            let writer = try AudioFileWriter(path: path, container: container, description: desc)
            try bytes.withUnsafeBytes { try writer.write(frames: 10, from: $0.baseAddress!) }
            try writer.close()
            try checkRead(path: path, container: container, desc: desc, bytes: bytes, frames: 10)
        }
    }

    @Test("WAV: format tags as Apple writes them; channel mask round trips")
    func wavFormatTags() throws {
        let dir = TempDir()
        func fmtTag(_ path: String) -> Int {
            let b = fileBytes(path)
            // JUNK chunk (36 bytes) after 'WAVE', then 'fmt ' + size + tag.
            #expect(Array(b[12..<16]) == Array("JUNK".utf8))
            #expect(Array(b[48..<52]) == Array("fmt ".utf8))
            return Int(b[56]) | Int(b[57]) << 8
        }
        func make(_ desc: AudioDataDescription, _ name: String) throws -> String {
            let path = dir.path(name)
            let w = try AudioFileWriter(path: path, container: .wav, description: desc)
            try w.close()
            return path
        }
        #expect(fmtTag(try make(.init(sampleRate: 44100, channelCount: 2, encoding: .signed16), "a.wav")) == 1)
        #expect(fmtTag(try make(.init(sampleRate: 44100, channelCount: 2, encoding: .signed24), "b.wav")) == 1)
        #expect(fmtTag(try make(.init(sampleRate: 44100, channelCount: 1, encoding: .float32), "c.wav")) == 3)
        #expect(fmtTag(try make(.init(sampleRate: 8000, channelCount: 1, encoding: .ulaw), "d.wav")) == 7)
        #expect(fmtTag(try make(.init(sampleRate: 8000, channelCount: 1, encoding: .alaw), "e.wav")) == 6)
        #expect(fmtTag(try make(.init(sampleRate: 44100, channelCount: 6, encoding: .signed16), "f.wav")) == 0xFFFE)
        #expect(fmtTag(try make(.init(sampleRate: 44100, channelCount: 2, encoding: .signed24, validBitsPerSample: 20), "g.wav")) == 0xFFFE)

        let masked = AudioDataDescription(sampleRate: 48000, channelCount: 6, encoding: .float32, channelMask: 0x3F)
        let path = try make(masked, "h.wav")
        #expect(fmtTag(path) == 0xFFFE)
        let r = try AudioFileReader(path: path)
        #expect(r.description.channelMask == 0x3F)
        #expect(r.description.encoding == .float32)
        #expect(r.frameCount == 0)
        let stereo = try AudioFileReader(path: dir.path("a.wav"))
        #expect(stereo.description.channelMask == nil)
    }

    @Test("CAF: the 'chan' payload round trips byte for byte")
    func cafChannelLayout() throws {
        let dir = TempDir()
        // kAudioChannelLayoutTag_UseChannelDescriptions with two descriptions (L, R).
        var layout = LE(big: true)
        layout.u32(0); layout.u32(0); layout.u32(2)
        for label in [1, 2] { layout.u32(label); layout.u32(0); layout.u32(0); layout.u32(0); layout.u32(0) }
        let desc = AudioDataDescription(sampleRate: 22050, channelCount: 2, encoding: .float32, bigEndian: false,
                                        channelLayoutData: layout.bytes)
        let path = dir.path("chan.caf")
        let w = try AudioFileWriter(path: path, container: .caf, description: desc)
        var samples: [Float] = [0.5, -0.5, 0.25, -0.25]
        try samples.withUnsafeMutableBytes { try w.write(frames: 2, from: $0.baseAddress!) }
        try w.close()
        let r = try AudioFileReader(path: path)
        #expect(r.description.channelLayoutData == layout.bytes)
        #expect(r.frameCount == 2)
        var back = [Float](repeating: 0, count: 4)
        _ = try back.withUnsafeMutableBytes { try r.read(frames: 2, startingAt: 0, into: $0.baseAddress!) }
        #expect(back == samples)
        samples.removeAll()
    }

    @Test("AIFF sample rates survive the 80-bit extended encoding")
    func extendedRates() throws {
        for rate in [1.0, 8000, 11025, 22050, 44100, 48000, 88200, 96000, 176400, 192000, 352800, 384000, 705600, 768000,
                     44100.5, 0.001, 9_999_999.75] {
            #expect(decodeExtended80(encodeExtended80(rate)) == rate)
        }
        // 44100 Hz as every AIFF writer stores it.
        #expect(encodeExtended80(44100) == [0x40, 0x0E, 0xAC, 0x44, 0, 0, 0, 0, 0, 0])
        #expect(decodeExtended80([0x7F, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0]).isNaN)
        #expect(decodeExtended80([0x7F, 0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]) == .infinity)
    }

    @Test("container lookup by file extension")
    func extensions() {
        #expect(AudioContainerType(fileExtension: "WAV") == .wav)
        #expect(AudioContainerType(fileExtension: ".wave") == .wav)
        #expect(AudioContainerType(fileExtension: "rf64") == .rf64)
        #expect(AudioContainerType(fileExtension: "bw64") == .bw64)
        #expect(AudioContainerType(fileExtension: "aif") == .aiff)
        #expect(AudioContainerType(fileExtension: "aiff") == .aiff)
        #expect(AudioContainerType(fileExtension: "aifc") == .aifc)
        #expect(AudioContainerType(fileExtension: "caf") == .caf)
        #expect(AudioContainerType(fileExtension: "au") == .au)
        #expect(AudioContainerType(fileExtension: "snd") == .au)
        #expect(AudioContainerType(fileExtension: "mp3") == nil)
        #expect(AudioContainerType(path: "/tmp/x.y/song.AIFC") == .aifc)
        #expect(AudioContainerType(path: "/tmp/x.wav/noext") == nil)
        #expect(AudioContainerType(path: "/tmp/.wav") == nil)
    }
}
