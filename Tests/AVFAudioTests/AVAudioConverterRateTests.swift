import Testing
import AVFoundation

@Suite struct AVAudioConverterRateTests {
    let inFormat = AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 44_100, channels: 2, interleaved: true)!
    let outFormat = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!

    func tone(_ n: Int, _ f: Double, rate: Double) -> [Float] {
        (0..<n).map { Float((0.5 * sin(2 * Double.pi * f * Double($0) / rate) * 32768).rounded() / 32768) }
    }

    /// Streams `signal` through a converter in input chunks of `chunk` frames, output calls of
    /// `outCapacity` frames; returns all output (left channel) and the statuses.
    func stream(_ signal: [Float], chunk: Int, outCapacity: Int, configure: (AVAudioConverter) -> Void = { _ in }) throws -> ([Float], [AVAudioConverterOutputStatus]) {
        let converter = try #require(AVAudioConverter(from: inFormat, to: outFormat))
        configure(converter)
        var fed = 0
        var out: [Float] = []
        var statuses: [AVAudioConverterOutputStatus] = []
        let output = try #require(AVAudioPCMBuffer(pcmFormat: outFormat, frameCapacity: AVAudioFrameCount(outCapacity)))
        for _ in 0..<1_000_000 {
            let status = converter.convert(to: output, error: nil) { _, s in
                if fed >= signal.count { s.pointee = .endOfStream; return nil }
                let n = min(chunk, signal.count - fed)
                let b = AVAudioPCMBuffer(pcmFormat: self.inFormat, frameCapacity: AVAudioFrameCount(n))!
                fill(b, [Array(signal[fed..<fed + n]), Array(signal[fed..<fed + n])])
                fed += n
                s.pointee = .haveData
                return b
            }
            statuses.append(status)
            out += (0..<Int(output.frameLength)).map { output.floatChannelData![0][$0] }
            #expect(output.frameLength == 0 || abs(output.floatChannelData![1][0] - output.floatChannelData![0][0]) < 1e-6)
            if status == .endOfStream || status == .error { break }
        }
        return (out, statuses)
    }

    /// The whole stream has exactly round(N × 48000 / 44100) frames and the same samples
    /// whatever the input chunking and output buffer size.
    @Test func exactLengthAndChunkingInvariance() throws {
        let n = 4410
        let signal = tone(n, 1000, rate: 44_100)
        let (reference, statuses) = try stream(signal, chunk: 100_000, outCapacity: 1000)
        #expect(reference.count == 4800)
        #expect(statuses.last == .endOfStream)
        for (chunk, cap) in [(1, 4800), (7, 333), (512, 512)] {
            let (out, _) = try stream(signal, chunk: chunk, outCapacity: cap)
            #expect(out == reference, "chunk \(chunk), output \(cap)")
        }
        // The tone arrives at 1 kHz with its level, aligned with the input (zero delay).
        var worst: Float = 0
        for i in 200..<4600 { worst = max(worst, abs(reference[i] - Float(0.5 * sin(2 * Double.pi * 1000 * Double(i) / 48_000)))) }
        #expect(worst < 2e-4, "deviation from the ideal 48 kHz tone: \(worst)")
    }

    @Test func primeInfoAndPrimeMethods() throws {
        let converter = try #require(AVAudioConverter(from: inFormat, to: outFormat))
        #expect(converter.primeMethod == .normal)
        #expect(converter.primeInfo.leadingFrames > 0 && converter.primeInfo.trailingFrames > 0)
        // .none: no delay compensation, so the stream is longer by the filter's look-ahead.
        let signal = tone(4410, 1000, rate: 44_100)
        let (delayed, _) = try stream(signal, chunk: 441, outCapacity: 1000) { $0.primeMethod = .none }
        let trailing = Double(converter.primeInfo.trailingFrames) * 48_000 / 44_100
        #expect(abs(Double(delayed.count) - (4800 + trailing)) <= 1.5, "delayed length \(delayed.count), trailing \(trailing)")
        let same = try #require(AVAudioConverter(from: outFormat, to: outFormat))
        #expect(same.primeInfo == AVAudioConverterPrimeInfo())
    }

    @Test func misusedBlockIsBoundedAndSimpleConvertRefusesRateChange() throws {
        let converter = try #require(AVAudioConverter(from: inFormat, to: outFormat))
        let input = try #require(AVAudioPCMBuffer(pcmFormat: inFormat, frameCapacity: 441))
        fill(input, [tone(441, 500, rate: 44_100), tone(441, 500, rate: 44_100)])
        let output = try #require(AVAudioPCMBuffer(pcmFormat: outFormat, frameCapacity: 2000))
        let status = converter.convert(to: output, error: nil) { _, s in s.pointee = .haveData; return input }
        #expect(status == .haveData && output.frameLength == 2000)
        #expect(throws: NSError.self) { try converter.convert(to: output, from: input) }
    }

    /// Every quality level and the downsampling direction: a 1 kHz tone comes through at 1 kHz.
    @Test(arguments: [AVAudioQuality.min, .low, .medium, .high, .max])
    func qualityLevels(quality: AVAudioQuality) throws {
        let from = AVAudioFormat(standardFormatWithSampleRate: 96_000, channels: 1)!
        let to = AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 1)!
        let converter = try #require(AVAudioConverter(from: from, to: to))
        converter.sampleRateConverterQuality = quality.rawValue
        if quality == .max { converter.sampleRateConverterAlgorithm = AVSampleRateConverterAlgorithm_Mastering }
        let input = try #require(AVAudioPCMBuffer(pcmFormat: from, frameCapacity: 9600))
        for i in 0..<9600 { input.floatChannelData![0][i] = Float(0.5 * sin(2 * Double.pi * 1000 * Double(i) / 96_000)) }
        input.frameLength = 9600
        let output = try #require(AVAudioPCMBuffer(pcmFormat: to, frameCapacity: 5000))
        var given = false
        var total: [Float] = []
        while true {
            let status = converter.convert(to: output, error: nil) { _, s in
                if given { s.pointee = .endOfStream; return nil }
                given = true
                s.pointee = .haveData
                return input
            }
            total += (0..<Int(output.frameLength)).map { output.floatChannelData![0][$0] }
            if status == .endOfStream { break }
        }
        #expect(total.count == 4410)
        var worst: Float = 0
        for i in 300..<4100 { worst = max(worst, abs(total[i] - Float(0.5 * sin(2 * Double.pi * 1000 * Double(i) / 44_100)))) }
        #expect(worst < 1e-3, "\(quality): deviation \(worst)")
    }
}
