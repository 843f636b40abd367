import Testing
import Foundation
import AVFoundation

/// Bad input to AVAudioConverter.
///
/// What it rests on: Apple documents `init?(from:to:)` as failable and says nothing of which
/// formats fail; the probe quoted in Sources/AVFAudio/Types/AVAudioErrors.swift measured
/// NSOSStatusErrorDomain errors from `convert(to:from:)` for a rate change (-50) and an output
/// buffer of the wrong format ('fmt?'). Where Apple raises an exception (an output buffer smaller
/// than the input) this project throws — the safe choice, documented there.
@Suite struct BadInputConverterTests {
    static let stereo48 = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!
    static let fmt = 1718449215           // 'fmt?' kAudioConverterErr_FormatNotSupported

    static func buffer(_ format: AVAudioFormat, _ frames: AVAudioFrameCount, length: AVAudioFrameCount? = nil) -> AVAudioPCMBuffer {
        let b = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: frames)!
        b.frameLength = length ?? frames
        return b
    }

    static func expectError(code: Int, _ text: String, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) {
        BadInput.expectError(domain: NSOSStatusErrorDomain, code: code, text, sourceLocation: sourceLocation, body)
    }

    /// Compressed or otherwise non-PCM formats: nil.
    @Test func nonPCMFormatsGiveNil() {
        let aac = AVAudioFormat(settings: [AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: 44_100, AVNumberOfChannelsKey: 2])!
        #expect(AVAudioConverter(from: aac, to: Self.stereo48) == nil)
        #expect(AVAudioConverter(from: Self.stereo48, to: aac) == nil)
    }

    /// Rate ratios no resampler can be designed for in bounded time and memory (a filter's length
    /// grows with the ratio: 1 GHz → 1 Hz would need about a billion taps): nil. Ratios up to
    /// 384:1 either way work (1 kHz ↔ 384 kHz, the range an engine connection carries).
    @Test func absurdRateRatiosGiveNil() {
        let slow = AVAudioFormat(standardFormatWithSampleRate: 1, channels: 2)!
        let fast = AVAudioFormat(standardFormatWithSampleRate: 1e9, channels: 2)!
        #expect(AVAudioConverter(from: fast, to: slow) == nil)
        #expect(AVAudioConverter(from: slow, to: fast) == nil)
        #expect(AVAudioConverter(from: fast, to: Self.stereo48) == nil)
        let at1k = AVAudioFormat(standardFormatWithSampleRate: 1_000, channels: 2)!
        #expect(AVAudioConverter(from: AVAudioFormat(standardFormatWithSampleRate: 385_000, channels: 2)!, to: at1k) == nil)
        #expect(AVAudioConverter(from: at1k, to: AVAudioFormat(standardFormatWithSampleRate: 385_000, channels: 2)!) == nil)
        #expect(AVAudioConverter(from: AVAudioFormat(standardFormatWithSampleRate: 384_000, channels: 2)!, to: at1k) != nil)
        #expect(AVAudioConverter(from: AVAudioFormat(standardFormatWithSampleRate: 1e300, channels: 2)!, to: Self.stereo48) == nil)
        // Extreme but absurd only in size: 1 GHz to 1 GHz converts no rate.
        #expect(AVAudioConverter(from: fast, to: fast) != nil)
    }

    /// The widest ratios allowed (384:1 either way) convert in bounded time: about 4 s of CPU in
    /// a debug build for 384 kHz → 1 kHz, most of it designing the filter (measured; 1024:1 took
    /// 10 s and 4096:1 25 s, which is why the limit is 384:1).
    @Test(arguments: [(384_000.0, 1_000.0), (1_000, 384_000)])
    func wideRatioInsideTheLimitConverts(rates: (Double, Double)) throws {
        let from = AVAudioFormat(standardFormatWithSampleRate: rates.0, channels: 1)!
        let to = AVAudioFormat(standardFormatWithSampleRate: rates.1, channels: 1)!
        let converter = try #require(AVAudioConverter(from: from, to: to))
        let input = Self.buffer(from, 8192)
        let output = Self.buffer(to, 1000, length: 0)
        var fed = false
        let start = Date()
        var error: NSError?
        _ = converter.convert(to: output, error: &error) { _, status in
            if fed { status.pointee = .endOfStream; return nil }
            fed = true
            status.pointee = .haveData
            return input
        }
        #expect(error == nil)
        #expect(output.frameLength > 0)
        let seconds = Date().timeIntervalSince(start)
        #expect(seconds < 60, "\(rates): \(seconds) s")
    }

    @Test func mismatchedBuffersThrow() {
        let converter = AVAudioConverter(from: Self.stereo48, to: AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 48_000, channels: 2, interleaved: true)!)!
        let mono = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 1)!
        // Input of the wrong channel count.
        Self.expectError(code: Self.fmt, "does not match the converter's input format") {
            try converter.convert(to: Self.buffer(converter.outputFormat, 64), from: Self.buffer(mono, 64))
        }
        // Output of the wrong format.
        Self.expectError(code: Self.fmt, "does not match the converter's output format") {
            try converter.convert(to: Self.buffer(Self.stereo48, 64), from: Self.buffer(Self.stereo48, 64))
        }
        // Output smaller than the input (Apple raises an exception; we throw).
        Self.expectError(code: Int(kAudioConverterErr_InvalidOutputSize), "the output buffer holds 10 frames but the input has 64") {
            try converter.convert(to: Self.buffer(converter.outputFormat, 10), from: Self.buffer(Self.stereo48, 64))
        }
        // A rate change through the one-shot call: -50, as Apple.
        let rate = AVAudioConverter(from: Self.stereo48, to: AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2)!)!
        Self.expectError(code: -50, "cannot change the sample rate") {
            try rate.convert(to: Self.buffer(rate.outputFormat, 64), from: Self.buffer(Self.stereo48, 64))
        }
    }

    /// The streaming call with an input block that hands over buffers of the wrong format: an
    /// error through the NSError pointer and `.error`, never a trap or a read past a buffer.
    @Test func streamingInputOfTheWrongFormatReportsAnError() {
        let to = AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2)!
        let converter = AVAudioConverter(from: Self.stereo48, to: to)!
        let wrong = Self.buffer(AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 1)!, 512)
        var error: NSError?
        let status = converter.convert(to: Self.buffer(to, 512, length: 0), error: &error) { _, status in
            status.pointee = .haveData
            return wrong
        }
        #expect(status == .error)
        #expect(error?.domain == NSOSStatusErrorDomain)
        #expect(error?.localizedDescription.isEmpty == false)
    }
}
