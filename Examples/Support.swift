// What the examples share: an offline engine, test signals, measurements, a place for files.
import AVFoundation
import AudioAnalysis   // the measurements the tests and benchmarks use too

/// One verified statement, printed by main.swift.
struct Check {
    var text: String
    var passed: Bool
    init(_ text: String, _ passed: Bool) {
        self.text = text
        self.passed = passed
    }
}

enum Support {
    static let rate = 48_000.0
    static let stereo = AVAudioFormat(standardFormatWithSampleRate: rate, channels: 2)!
    static let mono = AVAudioFormat(standardFormatWithSampleRate: rate, channels: 1)!

    /// Where examples write their output (one directory per run).
    static let directory: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("avaudio-examples-\(getpid())")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    /// A buffer of `seconds` of `channels` channels, each sample from `value(channel, frame)`.
    static func buffer(seconds: Double, channels: AVAudioChannelCount = 1, rate: Double = rate,
                       _ value: (Int, Int) -> Float) -> AVAudioPCMBuffer {
        let format = AVAudioFormat(standardFormatWithSampleRate: rate, channels: channels)!
        let frames = AVAudioFrameCount(seconds * rate)
        let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: frames)!
        buffer.frameLength = frames
        for c in 0..<Int(channels) {
            for i in 0..<Int(frames) { buffer.floatChannelData![c][i] = value(c, i) }
        }
        return buffer
    }

    /// A sine buffer.
    static func tone(_ frequency: Double, seconds: Double, amplitude: Float = 0.5, rate: Double = rate) -> AVAudioPCMBuffer {
        buffer(seconds: seconds, rate: rate) { _, i in amplitude * Float(sin(2 * Double.pi * frequency * Double(i) / rate)) }
    }

    /// Puts `engine` in offline manual rendering (`format`), starts it, runs `beforeRendering`,
    /// renders `seconds` and returns the result. The engine is stopped afterwards.
    static func render(_ engine: AVAudioEngine, seconds: Double, format: AVAudioFormat = stereo,
                       beforeRendering: () -> Void = {}) throws -> AVAudioPCMBuffer {
        try engine.enableManualRenderingMode(.offline, format: format, maximumFrameCount: 4096)
        try engine.start()
        beforeRendering()
        let total = AVAudioFrameCount(seconds * format.sampleRate)
        let result = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: total)!
        let chunk = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 4096)!
        while result.frameLength < total {
            let n = min(4096, total - result.frameLength)
            guard try engine.renderOffline(n, to: chunk) == .success else { throw ExampleError("renderOffline did not succeed") }
            for c in 0..<Int(format.channelCount) {
                (result.floatChannelData![c] + Int(result.frameLength)).update(from: chunk.floatChannelData![c], count: Int(n))
            }
            result.frameLength += n
        }
        engine.stop()
        return result
    }

    /// Writes `buffer` to `name`.wav in `directory` and returns the path.
    @discardableResult
    static func save(_ buffer: AVAudioPCMBuffer, _ name: String) throws -> String {
        let url = directory.appendingPathComponent("\(name).wav")
        let file = try AVAudioFile(forWriting: url, settings: buffer.format.settings)
        try file.write(from: buffer)
        print("   wrote \(url.path)")
        return url.path
    }

    /// Frames `range` of `channel` (an array view for the AudioAnalysis measurements).
    static func samples(_ b: AVAudioPCMBuffer, _ channel: Int, _ range: Range<Int>) -> UnsafeBufferPointer<Float> {
        UnsafeBufferPointer(start: b.floatChannelData![channel] + range.lowerBound, count: range.count)
    }

    /// Amplitude of `frequency` in `channel` over frames `range` (one DFT bin: use windows
    /// holding whole cycles).
    static func amplitude(_ b: AVAudioPCMBuffer, _ channel: Int, _ frequency: Double, _ range: Range<Int>) -> Double {
        Levels.amplitude(samples(b, channel, range), frequency: frequency, sampleRate: b.format.sampleRate)
    }

    /// RMS of `channel` over `range`.
    static func rms(_ b: AVAudioPCMBuffer, _ channel: Int, _ range: Range<Int>) -> Double {
        Levels.rms(samples(b, channel, range))
    }

    static func dB(_ x: Double) -> Double { Levels.dB(x) }

    /// Frequency of the strongest tone in `range`, from rising zero crossings (interpolated).
    static func frequency(_ b: AVAudioPCMBuffer, _ channel: Int, _ range: Range<Int>) -> Double {
        Levels.zeroCrossingFrequency(samples(b, channel, range), sampleRate: b.format.sampleRate)
    }

    static func fmt(_ x: Double, _ digits: Int = 2) -> String { String(format: "%.\(digits)f", x) }
}

struct ExampleError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
