// AVAudioConverter, PCM to PCM, with formats, settings and a buffer derived from the input.
//
// The input decodes into: an input and an output format (common format, interleaving, a sample
// rate from a table of usual and odd rates or any rate up to 1 MHz, 1–64 channels, sometimes a
// channel layout), the converter's settings (quality, algorithm, prime method, downmix, dither,
// a channel map with in-range and out-of-range entries), a frame count and the samples (any bit
// patterns: NaN, infinities, denormals, full-scale integers).
//
// Checks: no crash, no hang, no leak. `convert(to:from:)` either converts every frame or throws;
// the streaming `convert(to:error:withInputFrom:)` ends with .endOfStream within a bounded number
// of calls once the input is exhausted, and produces about rate-ratio × input frames. Only the
// programmer errors Apple documents as such are avoided (buffers always match the formats).
import AVFoundation

extension FuzzTarget {
    static let converter = FuzzTarget(name: "converter", structure: nil) { fuzzConverter($0) }
}

let converterRates: [Double] = [
    8_000, 11_025, 16_000, 22_050, 32_000, 44_100, 48_000, 88_200, 96_000, 176_400, 192_000, 384_000,
    1, 2, 3, 7, 100, 999, 44_099, 44_101, 47_999.5, 768_000, 1_000_000,
]

func converterFormat(_ r: inout ByteReader) -> AVAudioFormat? {
    let common = r.pick([AVAudioCommonFormat.pcmFormatFloat32, .pcmFormatFloat64, .pcmFormatInt16, .pcmFormatInt32])
    let interleaved = r.bool()
    let rawRate = r.u32()
    let rate = rawRate & 0x8000_0000 != 0 ? Double(rawRate & 0xF_FFFF) + 1 : converterRates[Int(rawRate) % converterRates.count]
    let channels = AVAudioChannelCount(r.u8() & 0x3F) + 1
    if r.u8() & 3 == 0 {
        let tags: [AudioChannelLayoutTag] = [
            kAudioChannelLayoutTag_Mono, kAudioChannelLayoutTag_Stereo, kAudioChannelLayoutTag_Quadraphonic,
            kAudioChannelLayoutTag_MPEG_5_1_A, kAudioChannelLayoutTag_MPEG_5_1_D, kAudioChannelLayoutTag_MPEG_7_1_C,
            kAudioChannelLayoutTag_AudioUnit_5_0, kAudioChannelLayoutTag_Ambisonic_B_Format,
            kAudioChannelLayoutTag_DiscreteInOrder | channels, kAudioChannelLayoutTag_Unknown | channels,
        ]
        if let layout = AVAudioChannelLayout(layoutTag: r.pick(tags)) {
            return AVAudioFormat(commonFormat: common, sampleRate: rate, interleaved: interleaved, channelLayout: layout)
        }
    }
    return AVAudioFormat(commonFormat: common, sampleRate: rate, channels: channels, interleaved: interleaved)
}

/// Fills `buffer` (frameLength frames) with the reader's bytes as raw samples.
func fill(_ buffer: AVAudioPCMBuffer, _ r: inout ByteReader) {
    let frames = Int(buffer.frameLength)
    let channels = Int(buffer.format.channelCount)
    let buffers = UnsafeMutableAudioBufferListPointer(buffer.mutableAudioBufferList)
    let special: [Float] = [.nan, .infinity, -.infinity, 1, -1, 0, 1e30, -1e30, .leastNonzeroMagnitude, 0.5]
    let seed = r.bytes(64)
    guard !seed.isEmpty else { return }
    var i = 0
    func next() -> UInt8 { defer { i += 1 }; return seed[i % seed.count] }
    for b in buffers {
        guard let data = b.mData else { continue }
        let count = Int(b.mDataByteSize)
        switch buffer.format.commonFormat {
        case .pcmFormatFloat32:
            let p = data.assumingMemoryBound(to: Float.self)
            for k in 0..<count / 4 { let v = next(); p[k] = v < 20 ? special[Int(v) % special.count] : Float(Int8(bitPattern: v)) / 128 }
        case .pcmFormatFloat64:
            let p = data.assumingMemoryBound(to: Double.self)
            for k in 0..<count / 8 { let v = next(); p[k] = v < 20 ? Double(special[Int(v) % special.count]) : Double(Int8(bitPattern: v)) / 128 }
        default:
            let p = data.assumingMemoryBound(to: UInt8.self)
            for k in 0..<count { p[k] = next() }
        }
    }
    _ = (frames, channels)
}

func fuzzConverter(_ bytes: [UInt8]) {
    var r = ByteReader(bytes)
    guard let from = converterFormat(&r), let to = converterFormat(&r) else { return }
    // Rate ratios beyond 100:1 either way are left out. Designing their resampler once took
    // seconds (finding of 2026-11-25, inputs in Fuzz/findings/converter-fixed-*: 282055 Hz → 3 Hz
    // over 10 s); the design is now bounded (FixedRatioEngine's bisected kernel search,
    // PolyphaseStage's table; ResamplerExtremeRatioTests). What stays is work that grows with the
    // ratio by design: the converter's filter tail is a fixed number of *output* samples, so
    // flushing a 94,018:1 stream runs 12.5 million input frames of zeros through a kernel of
    // hundreds of thousands of taps, and this harness's coverage instrumentation in that inner
    // loop makes it ~20 s per input. The harness's time goes to many inputs instead.
    guard max(from.sampleRate / to.sampleRate, to.sampleRate / from.sampleRate) <= 100 else { return }
    guard let converter = AVAudioConverter(from: from, to: to) else { return }
    converter.sampleRateConverterQuality = r.pick([AVAudioQuality.min.rawValue, AVAudioQuality.low.rawValue,
                                                   AVAudioQuality.medium.rawValue, AVAudioQuality.high.rawValue,
                                                   AVAudioQuality.max.rawValue, -5, 1_000])
    converter.sampleRateConverterAlgorithm = r.pick([AVSampleRateConverterAlgorithm_Normal, AVSampleRateConverterAlgorithm_Mastering,
                                                     AVSampleRateConverterAlgorithm_MinimumPhase, "unknown"])
    converter.primeMethod = r.pick([AVAudioConverterPrimeMethod.pre, .normal, .none])
    let flags = r.u8()
    converter.downmix = flags & 1 != 0
    converter.dither = flags & 2 != 0
    if flags & 4 != 0 {
        converter.channelMap = (0..<Int(to.channelCount)).map { _ in
            NSNumber(value: Int(Int8(bitPattern: r.u8())) % (Int(from.channelCount) + 2))
        }
    }
    let frames = AVAudioFrameCount(r.u16() % 4_200)
    guard let input = AVAudioPCMBuffer(pcmFormat: from, frameCapacity: max(1, frames)) else {
        fuzzFailure("no \(frames)-frame buffer in \(from)")
    }
    input.frameLength = frames
    fill(input, &r)

    if from.sampleRate == to.sampleRate, flags & 8 == 0 {
        guard let output = AVAudioPCMBuffer(pcmFormat: to, frameCapacity: max(1, frames)) else { fuzzFailure("no output buffer in \(to)") }
        do {
            try converter.convert(to: output, from: input)
            guard output.frameLength == frames else { fuzzFailure("convert(to:from:) delivered \(output.frameLength) of \(frames) frames") }
        } catch {
            expectReadableError(error, "AVAudioConverter.convert(to:from:)")
        }
        return
    }

    // Streaming: the input in pieces of up to `piece` frames, then the end of the stream.
    let ratio = to.sampleRate / from.sampleRate
    let expected = Double(frames) * ratio
    // Skip what would take millions of output frames (a 1 Hz → 1 MHz conversion of 4000 frames):
    // the harness's time goes to many inputs, not one long one.
    guard expected < 2_000_000 else { return }
    let capacity = AVAudioFrameCount(1 + Int(r.u16() % 8_192))
    guard let output = AVAudioPCMBuffer(pcmFormat: to, frameCapacity: capacity) else { fuzzFailure("no output buffer in \(to)") }
    let piece = Int(max(1, r.u16() % 5_000))
    var offered = 0
    var produced = 0
    var calls = 0
    // Enough calls for the expected frames plus the filter's tail (one frame per call when the
    // output holds one frame).
    let tailAllowance = 70_000
    let callLimit = (Int(expected) + tailAllowance) / Int(capacity) + 64
    while true {
        calls += 1
        guard calls <= callLimit else {
            fuzzFailure("\(from) → \(to): no end of stream after \(calls) calls (\(produced) frames out of \(frames) in, expected about \(Int(expected)))")
        }
        var error: NSError?
        let status = converter.convert(to: output, error: &error) { asked, status in
            guard offered < Int(frames) else {
                status.pointee = .endOfStream
                return nil
            }
            let n = min(piece, Int(frames) - offered, Int(max(1, asked)))
            guard let chunk = AVAudioPCMBuffer(pcmFormat: from, frameCapacity: AVAudioFrameCount(n)) else { return nil }
            chunk.frameLength = AVAudioFrameCount(n)
            // Copy the frames [offered, offered + n) of the input.
            let src = UnsafeMutableAudioBufferListPointer(input.mutableAudioBufferList)
            let dst = UnsafeMutableAudioBufferListPointer(chunk.mutableAudioBufferList)
            let bytesPerFrame = Int(from.streamDescription.pointee.mBytesPerFrame)
            for (s, d) in zip(src, dst) {
                memcpy(d.mData!, s.mData! + offered * bytesPerFrame, n * bytesPerFrame)
            }
            offered += n
            status.pointee = .haveData
            return chunk
        }
        switch status {
        case .haveData:
            guard output.frameLength > 0 else { fuzzFailure("convert returned .haveData with no frames") }
            produced += Int(output.frameLength)
        case .inputRanDry:
            produced += Int(output.frameLength)
        case .endOfStream:
            // About ratio × input frames: the filter's delay is compensated (normal priming) or
            // adds at most the filter's length; allow generously for odd ratios.
            if produced > Int(expected) + tailAllowance {
                fuzzFailure("\(from) → \(to): \(produced) frames out of \(frames) in (expected about \(Int(expected)))")
            }
            return
        case .error:
            fuzzFailure("convert(to:error:withInputFrom:) failed with matching buffers: \(String(describing: error))")
        @unknown default:
            fuzzFailure("unknown status \(status.rawValue)")
        }
    }
}
