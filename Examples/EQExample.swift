// AVAudioUnitEQ: band 0 a +9 dB parametric peak at 1 kHz (half an octave wide), band 1 a
// second-order Butterworth high-pass at 200 Hz. Three tones measure the response: 1 kHz rises
// by 9 dB; 50 Hz, two octaves below the high-pass corner, falls by 10·log10(1 + 4⁴) = 24.1 dB;
// 5 kHz passes.
import AVFoundation

enum EQExample {
    static func run() throws -> [Check] {
        let eq = AVAudioUnitEQ(numberOfBands: 2)
        let input = Support.buffer(seconds: 1.5) { _, i in
            let t = Double(i) / Support.rate
            return Float(0.1 * (sin(2 * .pi * 50 * t) + sin(2 * .pi * 1000 * t) + sin(2 * .pi * 5000 * t)))
        }
        let output = try Support.process(input, through: eq, seconds: 1.5) {
            let peak = eq.bands[0], highPass = eq.bands[1]
            peak.filterType = .parametric
            peak.frequency = 1000
            peak.bandwidth = 0.5
            peak.gain = 9
            peak.bypass = false
            highPass.filterType = .highPass
            highPass.frequency = 200
            highPass.bypass = false
        }
        try Support.save(output, "eq")
        let window = 24_000..<72_000   // 1 s after the filters settle
        // The input's 0.1 amplitude reaches each side of the stereo mixer at 1/√2 (a centred mono input).
        func gain(_ f: Double) -> Double { Support.dB(Support.amplitude(output, 0, f, window) / (0.1 / 2.0.squareRoot())) }
        let g1k = gain(1000), g50 = gain(50), g5k = gain(5000)
        let expected50 = -10 * log10(1 + pow(200.0 / 50, 4))
        return [
            Check("1 kHz: \(Support.fmt(g1k, 3)) dB (+9)", abs(g1k - 9) < 0.05),
            Check("50 Hz: \(Support.fmt(g50, 2)) dB (\(Support.fmt(expected50, 2)), the high-pass two octaves down)", abs(g50 - expected50) < 0.3),
            Check("5 kHz: \(Support.fmt(g5k, 2)) dB (≈ 0)", abs(g5k) < 0.3),
        ]
    }
}
