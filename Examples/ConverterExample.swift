// AVAudioConverter: 1 s of 44.1 kHz 16-bit interleaved stereo to 48 kHz Float32 mono, pulled
// through the input block. A stereo-to-mono converter keeps the left channel (as Apple's does
// unless `downmix` is set); the length comes out exact: 48 000 frames.
import AVFoundation

enum ConverterExample {
    static func run() throws -> [Check] {
        let inFormat = AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 44_100, channels: 2, interleaved: true)!
        let outFormat = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 1)!
        let input = AVAudioPCMBuffer(pcmFormat: inFormat, frameCapacity: 44_100)!
        input.frameLength = 44_100
        let samples = input.int16ChannelData![0]   // interleaved: L R L R …
        for i in 0..<44_100 {
            samples[2 * i] = Int16((16_384 * sin(2 * Double.pi * 1000 * Double(i) / 44_100)).rounded())   // left: 1 kHz, −6 dBFS
            samples[2 * i + 1] = 0                                                                        // right: silence
        }
        guard let converter = AVAudioConverter(from: inFormat, to: outFormat) else { throw ExampleError("no converter") }
        converter.sampleRateConverterQuality = AVAudioQuality.max.rawValue
        let output = AVAudioPCMBuffer(pcmFormat: outFormat, frameCapacity: 50_000)!
        var supplied = false
        var error: NSError?
        let status = converter.convert(to: output, error: &error) { _, inputStatus in
            if supplied {
                inputStatus.pointee = .endOfStream
                return nil
            }
            supplied = true
            inputStatus.pointee = .haveData
            return input
        }
        try Support.save(output, "converter")
        let a = Support.amplitude(output, 0, 1000, 2_400..<45_600)
        let f = Support.frequency(output, 0, 2_400..<45_600)
        return [
            Check("status \(status.rawValue) (.haveData = 0), error \(error.map { "\($0)" } ?? "none")", status == .haveData && error == nil),
            Check("\(output.frameLength) frames (48000)", output.frameLength == 48_000),
            Check("1 kHz at \(Support.fmt(f, 3)) Hz", abs(f - 1000) < 0.01),
            Check("amplitude \(Support.fmt(a, 5)) (16384/32768 = 0.5, the left channel)", abs(a - 0.5) < 1e-3),
        ]
    }
}
