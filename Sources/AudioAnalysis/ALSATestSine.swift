// A test signal shared by the device test suites (AVFAudioTests, AllocationCounterTests).
import Foundation

/// The capture PCMs' input: a 1 kHz sine at amplitude 0.5, left, and its negative, right, as raw
/// interleaved Float32 at `sampleRate`, 20 s (the `file` plugin's `infile`; at its end the capture
/// returns no more frames).
public enum ALSATestSine {
    public static let frequency = 1_000.0
    public static let amplitude: Float = 0.5
    public static let seconds = 20.0
    public static func write(to url: URL, sampleRate: Double) {
        let frames = Int(sampleRate * seconds)
        if (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) == frames * 8 { return }
        var samples = [Float](repeating: 0, count: 2 * frames)
        for i in 0..<frames {
            // (the phase reduced in Double, so the 20 s stay exact)
            let cycles = Double(i) * frequency / sampleRate
            let s = amplitude * Float(sin(2 * Double.pi * (cycles - cycles.rounded(.down))))
            samples[2 * i] = s
            samples[2 * i + 1] = -s
        }
        let data = samples.withUnsafeBytes { Data($0) }
        try? data.write(to: url, options: .atomic)
    }
}
