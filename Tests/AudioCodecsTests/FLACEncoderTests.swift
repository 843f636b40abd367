// The FLAC encoder's choices, seen through the decoder (which was verified against libFLAC and
// ffmpeg): each kind of signal must be coded with the tool meant for it — constant subframes
// for silence and DC, LPC for tones, verbatim or escaped partitions for full-scale noise, wasted
// bits for samples with empty low bits, side channels for correlated stereo — and every frame must
// decode to exactly its input. Frame numbers past 127 (multi-byte coded numbers), block sizes
// without a code (8- and 16-bit explicit sizes) and rates without a code are covered too.
// (ffmpeg's view of the same streams: AVFAudioTests/AVAudioFileFLACWritingTests.)
import Foundation
import Testing
import AudioCodecs

@Suite struct FLACEncoderTests {
    /// Encodes `channels` (equal lengths) frame by frame, decodes each frame, and returns the
    /// decoder's statistics; records an issue on any mismatch.
    @discardableResult
    static func roundTrip(_ channels: [[Int64]], bits: Int, rate: Int = 44100, blockSize: Int = 4096,
                          firstFrame: Int64 = 0) throws -> FLACFrameDecoder.Statistics {
        let encoder = try FLACEncoder(sampleRate: rate, channelCount: channels.count, bitsPerSample: bits, blockSize: blockSize)
        let info = FLACStreamInfo(minimumBlockSize: blockSize, maximumBlockSize: blockSize, minimumFrameSize: 0, maximumFrameSize: 0,
                                  sampleRate: rate, channelCount: channels.count, bitsPerSample: bits, totalSamples: nil, md5: [])
        let decoder = FLACFrameDecoder(info: info)
        let total = channels[0].count
        var at = 0, number = firstFrame
        while at < total {
            let n = min(blockSize, total - at)
            for c in channels.indices {
                for i in 0..<n { encoder.samples(channel: c)[i] = channels[c][at + i] }
            }
            let frame = encoder.encodeFrame(count: n, frameNumber: number)
            let (header, length) = try decoder.decodeFrame(frame, at: 0)
            #expect(length == frame.count)
            #expect(header.blockSize == n && header.number == number && header.sampleRate == rate && header.bitsPerSample == bits)
            var wrong = 0
            for c in channels.indices {
                for i in 0..<n where decoder.samples(channel: c)[i] != channels[c][at + i] { wrong += 1 }
            }
            #expect(wrong == 0, "frame \(number): \(wrong) samples differ")
            at += n
            number += 1
        }
        return decoder.statistics
    }

    static func noise(_ count: Int, bits: Int, seed: UInt64) -> [Int64] {
        var s = seed | 1
        return (0..<count).map { _ in
            s = s &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int64(bitPattern: s) >> (64 - bits)
        }
    }

    static func tone(_ count: Int, amplitude: Double, period: Double, phase: Double = 0) -> [Int64] {
        (0..<count).map { Int64((amplitude * sin(2 * .pi * Double($0) / period + phase)).rounded()) }
    }

    @Test func silenceAndDCAreConstantSubframes() throws {
        let stats = try Self.roundTrip([[Int64](repeating: 0, count: 10000), [Int64](repeating: -1234, count: 10000)], bits: 16)
        #expect(stats.constant == 6 && stats.verbatim == 0 && stats.lpc == 0 && stats.fixed == 0)
    }

    @Test func tonesUseLinearPrediction() throws {
        // High tones, where the fixed polynomial predictors amplify rather than cancel (a slow
        // pure tone is left to FIXED order 4: its residual is already the rounding noise).
        let x = zip(Self.tone(20000, amplitude: 12000, period: 5.3), Self.tone(20000, amplitude: 8000, period: 11.7, phase: 1))
            .map { $0 + $1 }
        let stats = try Self.roundTrip([zip(x, Self.noise(20000, bits: 3, seed: 2)).map { $0 + $1 }], bits: 16)
        #expect(stats.lpc >= 4, "\(stats)")
        #expect(stats.largestLPCOrder <= 8)
    }

    @Test func fullScaleNoiseStaysNearVerbatimSize() throws {
        for bits in [8, 16, 24, 32] {
            let stats = try Self.roundTrip([Self.noise(9000, bits: bits, seed: 3), Self.noise(9000, bits: bits, seed: 4)], bits: bits)
            #expect(stats.verbatim + stats.escapedPartitions + stats.fixed > 0, "\(bits)-bit: \(stats)")
        }
    }

    @Test func emptyLowBitsAreWastedBits() throws {
        let x = Self.noise(8192, bits: 12, seed: 9).map { $0 << 4 }
        let stats = try Self.roundTrip([x], bits: 16)
        #expect(stats.wastedBits == 2)
    }

    @Test func correlatedStereoUsesASideChannel() throws {
        let left = Self.tone(16384, amplitude: 12000, period: 201.7)
        let right = zip(left, Self.noise(16384, bits: 4, seed: 5)).map { $0 + $1 }
        let stats = try Self.roundTrip([left, right], bits: 16)
        #expect(stats.assignments[8] + stats.assignments[9] + stats.assignments[10] == 4, "\(stats.assignments)")
        // Extremes: 24- and 32-bit full-scale opposite channels (side channels of 25 and 33 bits).
        for bits in [24, 32] {
            let top = (Int64(1) << (bits - 1)) - 1
            let a = Self.tone(5000, amplitude: Double(top), period: 50)
            try Self.roundTrip([a, a.map { -$0 - 1 }], bits: bits)
        }
    }

    @Test func headersWithoutCodes() throws {
        // Block sizes coded in 8 and 16 bits (the last frames), a rate coded in Hz, one in tens
        // of Hz, one only in STREAMINFO, frame numbers needing 2…6 bytes.
        try Self.roundTrip([Self.tone(4096 + 100, amplitude: 1000, period: 33)], bits: 16, rate: 12345)
        try Self.roundTrip([Self.tone(4096 + 1000, amplitude: 1000, period: 33)], bits: 20, rate: 100_000)
        try Self.roundTrip([Self.tone(4096 + 1000, amplitude: 1000, period: 33)], bits: 12, rate: 100_001)
        try Self.roundTrip([Self.tone(300, amplitude: 100, period: 10)], bits: 17, rate: 22050, blockSize: 192)
        for first: Int64 in [127, 128, 2047, 2048, 65535, 65536, 0x1F_FFFF, 0x20_0000, 0x3FF_FFFF, 0x400_0000, 0x7FFF_FFFE] {
            try Self.roundTrip([Self.tone(8192, amplitude: 1000, period: 40)], bits: 16, firstFrame: first)
        }
    }

    @Test func refusesWhatFLACCannotDescribe() {
        #expect(throws: CodecError.self) { try FLACEncoder(sampleRate: 48000, channelCount: 9, bitsPerSample: 16) }
        #expect(throws: CodecError.self) { try FLACEncoder(sampleRate: 48000, channelCount: 2, bitsPerSample: 33) }
        #expect(throws: CodecError.self) { try FLACEncoder(sampleRate: 1 << 20, channelCount: 2, bitsPerSample: 16) }
        #expect(throws: CodecError.self) { try FLACEncoder(sampleRate: 48000, channelCount: 2, bitsPerSample: 16, blockSize: 15) }
    }
}
