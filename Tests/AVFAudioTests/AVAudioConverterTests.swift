import Testing
import AVFoundation

/// Fills a buffer of any common format from per-channel Float values (exactly representable ones).
func fill(_ buffer: AVAudioPCMBuffer, _ signal: [[Float]]) {
    let f = buffer.format
    let frames = signal[0].count
    for c in 0..<Int(f.channelCount) {
        for i in 0..<frames {
            let index = f.isInterleaved ? i * Int(f.channelCount) + c : i
            let ch = f.isInterleaved ? 0 : c
            let x = signal[c][i]
            switch f.commonFormat {
            case .pcmFormatFloat32: buffer.floatChannelData![ch][index] = x
            case .pcmFormatInt16: buffer.int16ChannelData![ch][index] = Int16(x * 32768)
            case .pcmFormatInt32: buffer.int32ChannelData![ch][index] = Int32(Double(x) * 2147483648)
            case .pcmFormatFloat64:
                UnsafeMutableAudioBufferListPointer(buffer.mutableAudioBufferList)[ch].mData!.assumingMemoryBound(to: Double.self)[index] = Double(x)
            default: break
            }
        }
    }
    buffer.frameLength = AVAudioFrameCount(frames)
}

/// A signal of multiples of 2^-15, exact in every common format.
func exactSignal(frames: Int, channels: Int) -> [[Float]] {
    (0..<channels).map { c -> [Float] in
        (0..<frames).map { i -> Float in
            let code: Int = (i * 37 + c * 1001) % 65536 - 32768
            return Float(code) / 32768
        }
    }
}

@Suite struct AVAudioConverterPCMTests {
    static let formats: [(AVAudioCommonFormat, Bool)] = [
        (.pcmFormatFloat32, false), (.pcmFormatFloat32, true), (.pcmFormatFloat64, false), (.pcmFormatFloat64, true),
        (.pcmFormatInt16, false), (.pcmFormatInt16, true), (.pcmFormatInt32, false), (.pcmFormatInt32, true),
    ]

    /// Every pair of common formats and interleavings, for 1, 2 and 5 channels: exact values
    /// survive (the signal is 16-bit exact), and the lengths match.
    @Test func everyFormatPairIsExactOnSixteenBitSignals() throws {
        for channels: AVAudioChannelCount in [1, 2, 5] {
            let signal = exactSignal(frames: 300, channels: Int(channels))
            for (inCommon, inInterleaved) in Self.formats {
                let inFormat = try #require(AVAudioFormat(commonFormat: inCommon, sampleRate: 44_100, channels: channels, interleaved: inInterleaved))
                let input = try #require(AVAudioPCMBuffer(pcmFormat: inFormat, frameCapacity: 300))
                fill(input, signal)
                for (outCommon, outInterleaved) in Self.formats {
                    let outFormat = try #require(AVAudioFormat(commonFormat: outCommon, sampleRate: 44_100, channels: channels, interleaved: outInterleaved))
                    let converter = try #require(AVAudioConverter(from: inFormat, to: outFormat))
                    let output = try #require(AVAudioPCMBuffer(pcmFormat: outFormat, frameCapacity: 300))
                    try converter.convert(to: output, from: input)
                    #expect(output.frameLength == 300)
                    var worst: Float = 0
                    for c in 0..<Int(channels) { for i in 0..<300 { worst = max(worst, abs(sample(output, c, i) - signal[c][i])) } }
                    #expect(worst == 0, "\(inFormat) → \(outFormat): max error \(worst)")
                }
            }
        }
    }

    @Test func floatToIntRoundsAndClips() throws {
        let inFormat = try #require(AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 1))
        let outFormat = try #require(AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 48_000, channels: 1, interleaved: true))
        let input = try #require(AVAudioPCMBuffer(pcmFormat: inFormat, frameCapacity: 6))
        fill(input, [[1.0, -1.0, 1.5, -1.5, 0.5 / 32768 * 3, .nan]])
        let output = try #require(AVAudioPCMBuffer(pcmFormat: outFormat, frameCapacity: 6))
        try AVAudioConverter(from: inFormat, to: outFormat)!.convert(to: output, from: input)
        let s = output.int16ChannelData![0]
        #expect(s[0] == 32767 && s[1] == -32768 && s[2] == 32767 && s[3] == -32768)
        #expect(s[4] == 2)   // 1.5 LSB rounds to even
        #expect(s[5] == 0)   // NaN → 0
    }

    @Test func monoToStereoCopiesAndStereoToMonoKeepsLeft() throws {
        let mono = try #require(AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 1))
        let stereo = try #require(AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2))
        let m = try #require(AVAudioPCMBuffer(pcmFormat: mono, frameCapacity: 4))
        fill(m, [[0.1, 0.2, 0.3, 0.4]])
        let s = try #require(AVAudioPCMBuffer(pcmFormat: stereo, frameCapacity: 4))
        try AVAudioConverter(from: mono, to: stereo)!.convert(to: s, from: m)
        #expect((0..<4).allSatisfy { s.floatChannelData![0][$0] == m.floatChannelData![0][$0] && s.floatChannelData![1][$0] == m.floatChannelData![0][$0] })

        fill(s, [[0.5, 0.5, 0.5, 0.5], [0.25, 0.25, 0.25, 0.25]])
        let remap = try #require(AVAudioConverter(from: stereo, to: mono))
        try remap.convert(to: m, from: s)
        #expect(m.floatChannelData![0][0] == 0.5)
        let mix = try #require(AVAudioConverter(from: stereo, to: mono))
        mix.downmix = true
        try mix.convert(to: m, from: s)
        #expect(m.floatChannelData![0][0] == 0.375)
    }

    /// 5.1 (L R C LFE Ls Rs) to stereo with downmix: L' = L + 0.7071 C + 0.7071 Ls (ITU-R BS.775).
    @Test func surroundDownmixUsesITUCoefficients() throws {
        let surround = AVAudioFormat(standardFormatWithSampleRate: 48_000, channelLayout: AVAudioChannelLayout(layoutTag: kAudioChannelLayoutTag_MPEG_5_1_A)!)
        let stereo = try #require(AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2))
        let input = try #require(AVAudioPCMBuffer(pcmFormat: surround, frameCapacity: 1))
        fill(input, [[0.1], [0.2], [0.3], [0.9], [0.05], [0.07]])
        let output = try #require(AVAudioPCMBuffer(pcmFormat: stereo, frameCapacity: 1))
        let converter = try #require(AVAudioConverter(from: surround, to: stereo))
        converter.downmix = true
        try converter.convert(to: output, from: input)
        let k: Float = 0.70710677
        #expect(abs(output.floatChannelData![0][0] - (0.1 + k * 0.3 + k * 0.05)) < 1e-6)
        #expect(abs(output.floatChannelData![1][0] - (0.2 + k * 0.3 + k * 0.07)) < 1e-6)
        // Remap (no downmix) keeps L and R only.
        let remap = try #require(AVAudioConverter(from: surround, to: stereo))
        try remap.convert(to: output, from: input)
        #expect(output.floatChannelData![0][0] == 0.1 && output.floatChannelData![1][0] == 0.2)
    }

    @Test func channelMapOverrides() throws {
        let three = try #require(AVAudioFormat(commonFormat: .pcmFormatFloat32, sampleRate: 8000, channels: 3, interleaved: false))
        let stereo = try #require(AVAudioFormat(standardFormatWithSampleRate: 8000, channels: 2))
        let input = try #require(AVAudioPCMBuffer(pcmFormat: three, frameCapacity: 1))
        fill(input, [[0.1], [0.2], [0.3]])
        let output = try #require(AVAudioPCMBuffer(pcmFormat: stereo, frameCapacity: 1))
        let converter = try #require(AVAudioConverter(from: three, to: stereo))
        converter.channelMap = [2, -1]
        try converter.convert(to: output, from: input)
        #expect(output.floatChannelData![0][0] == 0.3 && output.floatChannelData![1][0] == 0)
    }

    /// TPDF dither: quantising a constant between two codes gives the right mean, with errors
    /// spread over ±1.5 LSB; without dither every sample is the same code.
    @Test func ditherIsTPDF() throws {
        let inFormat = try #require(AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 1))
        let outFormat = try #require(AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 48_000, channels: 1, interleaved: false))
        let n = 20_000
        let input = try #require(AVAudioPCMBuffer(pcmFormat: inFormat, frameCapacity: AVAudioFrameCount(n)))
        let value: Float = 100.3 / 32768
        fill(input, [Array(repeating: value, count: n)])
        let output = try #require(AVAudioPCMBuffer(pcmFormat: outFormat, frameCapacity: AVAudioFrameCount(n)))
        let plain = try #require(AVAudioConverter(from: inFormat, to: outFormat))
        try plain.convert(to: output, from: input)
        #expect((0..<n).allSatisfy { output.int16ChannelData![0][$0] == 100 })
        let dithered = try #require(AVAudioConverter(from: inFormat, to: outFormat))
        dithered.dither = true
        try dithered.convert(to: output, from: input)
        let codes = (0..<n).map { Double(output.int16ChannelData![0][$0]) }
        let mean = codes.reduce(0, +) / Double(n)
        let variance = codes.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(n)
        #expect(abs(mean - 100.3) < 0.02)
        // TPDF ±1 LSB has variance 1/6; rounding adds about 1/12: expect roughly 0.25.
        #expect(variance > 0.15 && variance < 0.35)
        #expect(codes.allSatisfy { $0 >= 99 && $0 <= 102 })
    }

    @Test func errorsInsteadOfTraps() throws {
        let a = try #require(AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2))
        let b = try #require(AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 48_000, channels: 2, interleaved: true))
        let converter = try #require(AVAudioConverter(from: a, to: b))
        let input = try #require(AVAudioPCMBuffer(pcmFormat: a, frameCapacity: 100))
        input.frameLength = 100
        let small = try #require(AVAudioPCMBuffer(pcmFormat: b, frameCapacity: 10))
        #expect(throws: NSError.self) { try converter.convert(to: small, from: input) }
        let wrong = try #require(AVAudioPCMBuffer(pcmFormat: a, frameCapacity: 100))
        #expect(throws: NSError.self) { try converter.convert(to: wrong, from: input) }
        let aac = try #require(AVAudioFormat(settings: [AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: 48_000, AVNumberOfChannelsKey: 2]))
        #expect(AVAudioConverter(from: a, to: aac) == nil)
        #expect(converter.maximumOutputPacketSize == 4)
        #expect(converter.availableEncodeBitRates == nil)
    }
}

@Suite struct AVAudioConverterStreamingTests {
    let inFormat = AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 44_100, channels: 2, interleaved: true)!
    let outFormat = AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2)!

    /// Feeds `total` frames in chunks of `chunk` and collects everything, with an output buffer
    /// of `outCapacity` frames per call.
    func run(total: Int, chunk: Int, outCapacity: Int) throws -> (samples: [[Float]], statuses: [AVAudioConverterOutputStatus]) {
        let converter = try #require(AVAudioConverter(from: inFormat, to: outFormat))
        let signal = exactSignal(frames: total, channels: 2)
        var fed = 0
        var collected: [[Float]] = [[], []]
        var statuses: [AVAudioConverterOutputStatus] = []
        let output = try #require(AVAudioPCMBuffer(pcmFormat: outFormat, frameCapacity: AVAudioFrameCount(outCapacity)))
        for _ in 0..<100_000 {
            var error: NSError?
            let status = converter.convert(to: output, error: &error) { _, outStatus in
                if fed >= total { outStatus.pointee = .endOfStream; return nil }
                let n = min(chunk, total - fed)
                let b = AVAudioPCMBuffer(pcmFormat: self.inFormat, frameCapacity: AVAudioFrameCount(n))!
                fill(b, signal.map { Array($0[fed..<fed + n]) })
                fed += n
                outStatus.pointee = .haveData
                return b
            }
            statuses.append(status)
            #expect(error == nil)
            for c in 0..<2 { collected[c] += (0..<Int(output.frameLength)).map { output.floatChannelData![c][$0] } }
            if status == .endOfStream || status == .error { break }
        }
        #expect(collected[0] == signal[0] && collected[1] == signal[1])
        return (collected, statuses)
    }

    @Test(arguments: [1, 7, 512, 100_000]) func chunkingDoesNotChangeOutput(chunk: Int) throws {
        let r = try run(total: 3000, chunk: chunk, outCapacity: 1024)
        #expect(r.statuses.last == .endOfStream)
        #expect(r.statuses.dropLast().allSatisfy { $0 == .haveData })
    }

    @Test func noDataNowReturnsInputRanDryWithWhatWasProduced() throws {
        let converter = try #require(AVAudioConverter(from: inFormat, to: outFormat))
        let input = try #require(AVAudioPCMBuffer(pcmFormat: inFormat, frameCapacity: 300))
        fill(input, exactSignal(frames: 300, channels: 2))
        let output = try #require(AVAudioPCMBuffer(pcmFormat: outFormat, frameCapacity: 1000))
        var gave = false
        let status = converter.convert(to: output, error: nil) { _, s in
            if gave { s.pointee = .noDataNow; return nil }
            gave = true
            s.pointee = .haveData
            return input
        }
        #expect(status == .inputRanDry)
        #expect(output.frameLength == 300)
        // Later input continues the stream; end of stream comes after the last frames.
        var calls = 0
        let s2 = converter.convert(to: output, error: nil) { _, s in
            calls += 1
            if calls == 1 { s.pointee = .haveData; return input }
            s.pointee = .endOfStream
            return nil
        }
        #expect(s2 == .haveData && output.frameLength == 300)
        #expect(converter.convert(to: output, error: nil) { _, _ in Issue.record("block called after end of stream"); return nil } == .endOfStream)
        #expect(output.frameLength == 0)
        converter.reset()
        let s3 = converter.convert(to: output, error: nil) { _, s in s.pointee = .haveData; return input }
        #expect(s3 == .haveData && output.frameLength == 1000)
    }

    /// A block that always returns the same buffer with .haveData (a common client mistake)
    /// must not hang: each call ends when the output is full.
    @Test func alwaysHaveDataDoesNotHang() throws {
        let converter = try #require(AVAudioConverter(from: inFormat, to: outFormat))
        let input = try #require(AVAudioPCMBuffer(pcmFormat: inFormat, frameCapacity: 256))
        fill(input, exactSignal(frames: 256, channels: 2))
        let output = try #require(AVAudioPCMBuffer(pcmFormat: outFormat, frameCapacity: 1000))
        var calls = 0
        let status = converter.convert(to: output, error: nil) { _, s in calls += 1; s.pointee = .haveData; return input }
        #expect(status == .haveData && output.frameLength == 1000 && calls == 4)
    }

    @Test func wrongInputFormatIsAnError() throws {
        let converter = try #require(AVAudioConverter(from: inFormat, to: outFormat))
        let wrong = try #require(AVAudioPCMBuffer(pcmFormat: outFormat, frameCapacity: 10))
        wrong.frameLength = 10
        let output = try #require(AVAudioPCMBuffer(pcmFormat: outFormat, frameCapacity: 10))
        var error: NSError?
        let status = converter.convert(to: output, error: &error) { _, s in s.pointee = .haveData; return wrong }
        #expect(status == .error)
        #expect(error?.localizedDescription.contains("does not match") == true)
    }
}
