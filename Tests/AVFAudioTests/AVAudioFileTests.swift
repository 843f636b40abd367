import Testing
import AVFoundation

/// A deterministic test signal: a different sine per channel, amplitude 0.5.
func makeSignal(frames: Int, channels: Int, rate: Double = 48_000) -> [[Float]] {
    (0..<channels).map { c in
        let f = 220.0 * Double(c + 1) + 17
        return (0..<frames).map { Float(0.5 * sin(2 * Double.pi * f * Double($0) / rate)) }
    }
}

func temporaryURL(_ name: String) -> URL {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("avfaudio-tests-\(getpid())", isDirectory: true)
    try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir.appendingPathComponent(name)
}

func standardBuffer(_ signal: [[Float]], rate: Double = 48_000) -> AVAudioPCMBuffer {
    let format = AVAudioFormat(standardFormatWithSampleRate: rate, channels: AVAudioChannelCount(signal.count))!
    let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(signal[0].count))!
    for (c, samples) in signal.enumerated() {
        for (i, x) in samples.enumerated() { buffer.floatChannelData![c][i] = x }
    }
    buffer.frameLength = AVAudioFrameCount(signal[0].count)
    return buffer
}

/// One LSB of each storage, the round-trip bound for quantising formats.
func tolerance(bits: Int, float: Bool) -> Float {
    float ? 0 : 1.0 / Float(1 << (bits - 1))
}

@Suite struct AVAudioFileRoundTripTests {
    struct Case: CustomStringConvertible, Sendable {
        var ext: String
        var bits: Int
        var float: Bool
        var bigEndian: Bool
        var description: String { "\(ext) \(bits)-bit \(float ? "float" : "int")\(bigEndian ? " BE" : "")" }
    }

    static let cases: [Case] = [
        Case(ext: "wav", bits: 8, float: false, bigEndian: false), Case(ext: "wav", bits: 16, float: false, bigEndian: false),
        Case(ext: "wav", bits: 24, float: false, bigEndian: false), Case(ext: "wav", bits: 32, float: false, bigEndian: false),
        Case(ext: "wav", bits: 32, float: true, bigEndian: false), Case(ext: "wav", bits: 64, float: true, bigEndian: false),
        Case(ext: "aif", bits: 8, float: false, bigEndian: true), Case(ext: "aif", bits: 16, float: false, bigEndian: true),
        Case(ext: "aif", bits: 24, float: false, bigEndian: true), Case(ext: "aif", bits: 32, float: false, bigEndian: true),
        Case(ext: "aifc", bits: 16, float: false, bigEndian: false), Case(ext: "aifc", bits: 16, float: false, bigEndian: true),
        Case(ext: "aifc", bits: 32, float: true, bigEndian: true), Case(ext: "aifc", bits: 64, float: true, bigEndian: true),
        Case(ext: "caf", bits: 16, float: false, bigEndian: false), Case(ext: "caf", bits: 24, float: false, bigEndian: true),
        Case(ext: "caf", bits: 32, float: false, bigEndian: false), Case(ext: "caf", bits: 32, float: true, bigEndian: false),
        Case(ext: "caf", bits: 64, float: true, bigEndian: true),
    ]

    /// Writes a signal in every container × format × channel count, reads it back in every
    /// processing format, and checks length, formats and samples to one LSB.
    @Test(arguments: cases)
    func roundTrip(c: Case) throws {
        for channels in [1, 2, 6] {
            let frames = 777
            let signal = makeSignal(frames: frames, channels: channels)
            let url = temporaryURL("rt-\(c.ext)-\(c.bits)-\(c.float)-\(c.bigEndian)-\(channels).\(c.ext)")
            var settings: [String: Any] = [AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: 48_000,
                                           AVNumberOfChannelsKey: channels, AVLinearPCMBitDepthKey: c.bits,
                                           AVLinearPCMIsFloatKey: c.float, AVLinearPCMIsBigEndianKey: c.bigEndian]
            if channels == 6 {
                let layout = AVAudioChannelLayout(layoutTag: kAudioChannelLayoutTag_MPEG_5_1_A)!
                settings[AVChannelLayoutKey] = withExtendedLifetime(layout) {
                    Data(bytes: layout.layout, count: MemoryLayout<AudioChannelLayout>.size)
                }
            }
            do {
                let file = try AVAudioFile(forWriting: url, settings: settings)
                #expect(file.processingFormat.isStandard)
                // Write in two pieces to exercise appending.
                let whole = standardBuffer(signal)
                let first = standardBuffer(signal.map { Array($0[0..<300]) })
                let second = standardBuffer(signal.map { Array($0[300...]) })
                _ = whole
                try file.write(from: first)
                try file.write(from: second)
                #expect(file.length == AVAudioFramePosition(frames))
                #expect(file.framePosition == AVAudioFramePosition(frames))
                file.close()
                #expect(!file.isOpen)
            }
            for (common, interleaved) in [(AVAudioCommonFormat.pcmFormatFloat32, false), (.pcmFormatFloat64, true),
                                          (.pcmFormatInt32, false), (.pcmFormatInt16, true)] {
                let file = try AVAudioFile(forReading: url, commonFormat: common, interleaved: interleaved)
                #expect(file.length == AVAudioFramePosition(frames))
                #expect(file.fileFormat.sampleRate == 48_000 && file.fileFormat.channelCount == AVAudioChannelCount(channels))
                #expect(Int(file.fileFormat.streamDescription.pointee.mBitsPerChannel) == c.bits)
                #expect((file.fileFormat.streamDescription.pointee.mFormatFlags & kAudioFormatFlagIsFloat != 0) == c.float)
                #expect(file.processingFormat.commonFormat == common && file.processingFormat.isInterleaved == (interleaved && channels > 1 || interleaved))
                if channels == 6 {
                    // WAV (channel mask) and CAF ('chan' chunk) store the layout; AIFF has no place for it.
                    let expected = c.ext == "wav" || c.ext == "caf" ? kAudioChannelLayoutTag_MPEG_5_1_A : kAudioChannelLayoutTag_DiscreteInOrder | 6
                    #expect(file.processingFormat.channelLayout?.layoutTag == expected)
                }
                let buffer = try #require(AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 1000))
                try file.read(into: buffer)
                #expect(buffer.frameLength == AVAudioFrameCount(frames))
                // Compare through a float view of whatever the processing type is.
                let processingLSB: Float = common == .pcmFormatInt16 ? 1.0 / 32768 : (common == .pcmFormatInt32 ? 1.0 / 2147483648 : 0)
                let bound = max(tolerance(bits: c.bits, float: c.float), processingLSB) * 1.0001
                var worst: Float = 0
                for ch in 0..<channels {
                    for i in 0..<frames {
                        worst = max(worst, abs(sample(buffer, ch, i) - signal[ch][i]))
                    }
                }
                #expect(worst <= bound, "\(c) \(channels) ch read as \(common) interleaved=\(interleaved): max error \(worst) > \(bound)")
                // At the end: a read gives zero frames, no error.
                try file.read(into: buffer)
                #expect(buffer.frameLength == 0)
            }
        }
    }

    @Test func framePositionSeeks() throws {
        let url = temporaryURL("seek.wav")
        let signal = makeSignal(frames: 1000, channels: 2)
        let out = try AVAudioFile(forWriting: url, settings: [AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: 48_000,
                                                               AVNumberOfChannelsKey: 2, AVLinearPCMBitDepthKey: 32, AVLinearPCMIsFloatKey: true])
        try out.write(from: standardBuffer(signal))
        out.close()
        let file = try AVAudioFile(forReading: url)
        file.framePosition = 900
        let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 512)!
        try file.read(into: buffer)
        #expect(buffer.frameLength == 100)
        #expect(buffer.floatChannelData![1][0] == signal[1][900])
        file.framePosition = 10
        try file.read(into: buffer, frameCount: 5)
        #expect(buffer.frameLength == 5 && file.framePosition == 15)
        #expect(buffer.floatChannelData![0][4] == signal[0][14])
    }

    /// Seeking back while writing overwrites frames; writing past the end extends the file.
    @Test(arguments: ["wav", "caf", "aif"])
    func overwriteWhileWriting(ext: String) throws {
        let url = temporaryURL("overwrite.\(ext)")
        let a = makeSignal(frames: 100, channels: 2)
        let b = a.map { $0.map { -$0 } }
        do {
            let file = try AVAudioFile(forWriting: url, settings: [AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: 48_000,
                                                                    AVNumberOfChannelsKey: 2, AVLinearPCMBitDepthKey: 32, AVLinearPCMIsFloatKey: true])
            try file.write(from: standardBuffer(a))
            file.framePosition = 60
            #expect(file.framePosition == 60)
            try file.write(from: standardBuffer(b))          // frames 60..<160: 40 overwritten, 60 appended
            #expect(file.length == 160 && file.framePosition == 160)
            file.framePosition = 10_000
            #expect(file.framePosition == 160)
        }
        let file = try AVAudioFile(forReading: url)
        #expect(file.length == 160)
        let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 160)!
        try file.read(into: buffer)
        #expect(buffer.floatChannelData![0][59] == a[0][59])
        #expect(buffer.floatChannelData![0][60] == b[0][0])
        #expect(buffer.floatChannelData![1][159] == b[1][99])
    }

    /// G.711 files read back within the quantisation step of the law (about 1/16 of the value
    /// for large samples, and one 14-bit step near zero).
    @Test(arguments: [("wav", kAudioFormatULaw), ("aifc", kAudioFormatALaw), ("caf", kAudioFormatULaw), ("caf", kAudioFormatALaw)])
    func g711RoundTrip(ext: String, formatID: AudioFormatID) throws {
        let url = temporaryURL("g711-\(formatID).\(ext)")
        let signal = makeSignal(frames: 400, channels: 1, rate: 8000)
        do {
            let file = try AVAudioFile(forWriting: url, settings: [AVFormatIDKey: formatID, AVSampleRateKey: 8000, AVNumberOfChannelsKey: 1])
            try file.write(from: standardBuffer(signal, rate: 8000))
        }
        let file = try AVAudioFile(forReading: url)
        #expect(file.fileFormat.streamDescription.pointee.mFormatID == formatID)
        let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 400)!
        try file.read(into: buffer)
        #expect(buffer.frameLength == 400)
        for i in 0..<400 {
            let x = signal[0][i], y = buffer.floatChannelData![0][i]
            #expect(abs(x - y) <= abs(x) / 16 + 1.0 / 4096)
        }
    }
}

/// Reads a sample of any common processing format as Float.
func sample(_ b: AVAudioPCMBuffer, _ channel: Int, _ frame: Int) -> Float {
    let f = b.format
    let index = f.isInterleaved ? frame * Int(f.channelCount) + channel : frame
    let c = f.isInterleaved ? 0 : channel
    switch f.commonFormat {
    case .pcmFormatFloat32: return b.floatChannelData![c][index]
    case .pcmFormatInt16: return Float(b.int16ChannelData![c][index]) / 32768
    case .pcmFormatInt32: return Float(Double(b.int32ChannelData![c][index]) / 2147483648)
    case .pcmFormatFloat64:
        let abl = UnsafeMutableAudioBufferListPointer(b.mutableAudioBufferList)
        return Float(abl[c].mData!.assumingMemoryBound(to: Double.self)[index])
    default: return .nan
    }
}

@Suite struct AVAudioFileSafetyTests {
    /// A file being written is readable at any moment with everything written so far: the
    /// header is rewritten after every write, as if the writer had been killed there.
    @Test(arguments: ["wav", "aif", "aifc", "caf"])
    func headerIsValidWhileWriting(ext: String) throws {
        let url = temporaryURL("live.\(ext)")
        let writer = try AVAudioFile(forWriting: url, settings: [AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: 44_100,
                                                                  AVNumberOfChannelsKey: 2, AVLinearPCMBitDepthKey: 16])
        let signal = makeSignal(frames: 500, channels: 2, rate: 44_100)
        try writer.write(from: standardBuffer(signal, rate: 44_100))
        let reader1 = try AVAudioFile(forReading: url)
        #expect(reader1.length == 500)
        try writer.write(from: standardBuffer(signal, rate: 44_100))
        let reader2 = try AVAudioFile(forReading: url)
        #expect(reader2.length == 1000)
        let buffer = AVAudioPCMBuffer(pcmFormat: reader2.processingFormat, frameCapacity: 1000)!
        try reader2.read(into: buffer)
        #expect(abs(buffer.floatChannelData![1][999] - signal[1][499]) <= 1.0 / 32768)
        writer.close()
        #expect(try AVAudioFile(forReading: url).length == 1000)
    }

    /// Apple reports a missing file as com.apple.coreaudio.avfaudio 2003334207 ('wht?') from
    /// ExtAudioFileOpenURL (sources in Sources/AVFAudio/Types/AVAudioErrors.swift).
    @Test func missingFileThrowsApplesUnspecifiedError() {
        let url = URL(fileURLWithPath: "/nonexistent/dir/missing.wav")
        do {
            _ = try AVAudioFile(forReading: url)
            Issue.record("expected an error")
        } catch let error as NSError {
            #expect(error.domain == "com.apple.coreaudio.avfaudio")
            #expect(error.code == Int(kAudioFileUnspecifiedError))
            #expect((error.userInfo["failed call"] as? String)?.hasPrefix("ExtAudioFileOpenURL(") == true)
            #expect(error.localizedDescription.contains("missing.wav"))
        }
    }

    @Test func garbageFilesThrowWithoutTrapping() throws {
        let cases: [(String, [UInt8])] = [
            ("empty.wav", []),
            ("random.wav", (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 2654435761 >> 7) }),
            ("truncated.wav", Array("RIFF\u{24}\0\0\0WAVEfmt ".utf8)),
            ("zero-channels.wav", wavHeader(channels: 0, rate: 44_100, bits: 16, dataBytes: 8) + [UInt8](repeating: 0, count: 8)),
            ("zero-rate.wav", wavHeader(channels: 2, rate: 0, bits: 16, dataBytes: 8) + [UInt8](repeating: 0, count: 8)),
            ("bits-zero.wav", wavHeader(channels: 2, rate: 44_100, bits: 0, dataBytes: 8) + [UInt8](repeating: 0, count: 8)),
        ]
        for (name, bytes) in cases {
            let url = temporaryURL(name)
            try Data(bytes).write(to: url)
            do {
                _ = try AVAudioFile(forReading: url)
                Issue.record("\(name): expected an error")
            } catch let error as NSError {
                #expect(error.domain == "com.apple.coreaudio.avfaudio", "\(name)")
                #expect(error.localizedDescription.contains(name), "\(name): \(error.localizedDescription)")
            }
        }
    }

    /// A data chunk that claims more bytes than the file holds: read what is there.
    @Test func dataChunkLongerThanFileReadsWhatIsPresent() throws {
        let url = temporaryURL("short-data.wav")
        let pcm: [UInt8] = (0..<40).map { UInt8($0) }   // 10 stereo 16-bit frames
        try Data(wavHeader(channels: 2, rate: 8000, bits: 16, dataBytes: 4000) + pcm).write(to: url)
        let file = try AVAudioFile(forReading: url, commonFormat: .pcmFormatInt16, interleaved: true)
        #expect(file.length == 10)
        let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 100)!
        try file.read(into: buffer)
        #expect(buffer.frameLength == 10)
        #expect(buffer.int16ChannelData![0][1] == Int16(bitPattern: 0x0302))
    }

    @Test func writingErrorsAreClear() throws {
        #expect(throws: NSError.self) {
            _ = try AVAudioFile(forWriting: temporaryURL("x.unknownext"), settings: [AVSampleRateKey: 44_100, AVNumberOfChannelsKey: 1])
        }
        #expect(throws: NSError.self) {
            _ = try AVAudioFile(forWriting: temporaryURL("x.wav"), settings: [AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: 44_100, AVNumberOfChannelsKey: 1])
        }
        #expect(throws: NSError.self) {
            _ = try AVAudioFile(forWriting: URL(fileURLWithPath: "/nonexistent/dir/x.wav"), settings: [AVSampleRateKey: 44_100, AVNumberOfChannelsKey: 1])
        }
        // A buffer in the wrong format throws instead of trapping.
        let file = try AVAudioFile(forWriting: temporaryURL("fmt.wav"), settings: [AVSampleRateKey: 44_100, AVNumberOfChannelsKey: 2])
        let mono = AVAudioPCMBuffer(pcmFormat: AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 1)!, frameCapacity: 4)!
        #expect(throws: NSError.self) { try file.write(from: mono) }
        file.close()
        let stereo = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 4)!
        #expect(throws: NSError.self) { try file.write(from: stereo) }
    }

    @Test func fileTypeKeyOverridesExtension() throws {
        let url = temporaryURL("typed.dat")
        do {
            let file = try AVAudioFile(forWriting: url, settings: [AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: 22_050,
                                                                    AVNumberOfChannelsKey: 1, AVAudioFileTypeKey: kAudioFileAIFFType])
            try file.write(from: standardBuffer(makeSignal(frames: 10, channels: 1, rate: 22_050), rate: 22_050))
        }
        let bytes = try Data(contentsOf: url)
        #expect(String(decoding: bytes[8..<12], as: UTF8.self) == "AIFF")
        let file = try AVAudioFile(forReading: url)
        #expect(file.length == 10 && file.fileFormat.sampleRate == 22_050)
        #expect(file.fileFormat.streamDescription.pointee.mFormatFlags & kAudioFormatFlagIsBigEndian != 0)
    }
}

/// A canonical 44-byte WAV header with arbitrary (possibly absurd) fields.
func wavHeader(channels: UInt16, rate: UInt32, bits: UInt16, dataBytes: UInt32) -> [UInt8] {
    func le32(_ v: UInt32) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)] }
    func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    let blockAlign = UInt16(truncatingIfNeeded: Int(channels) * Int(bits) / 8)
    return Array("RIFF".utf8) + le32(36 + dataBytes) + Array("WAVEfmt ".utf8) + le32(16) + le16(1) + le16(channels)
        + le32(rate) + le32(rate &* UInt32(blockAlign)) + le16(blockAlign) + le16(bits) + Array("data".utf8) + le32(dataBytes)
}
