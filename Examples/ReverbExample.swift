// AVAudioUnitReverb: an impulse through the large-hall preset, fully wet. The decay time, by
// Schroeder backward integration (T20: the −5 … −25 dB slope of the energy decay, extrapolated
// to 60 dB), is the preset's documented 2.38 s within 10 %.
import AVFoundation

enum ReverbExample {
    static func run() throws -> [Check] {
        let reverb = AVAudioUnitReverb()
        let input = Support.buffer(seconds: 0.05) { _, i in i == 0 ? 1 : 0 }
        let output = try Support.process(input, through: reverb, seconds: 4) {
            reverb.loadFactoryPreset(.largeHall)
            reverb.wetDryMix = 100
        }
        try Support.save(output, "reverb")
        let y = output.floatChannelData![0]
        let n = Int(output.frameLength)
        var edc = [Double](repeating: 0, count: n + 1)
        for i in stride(from: n - 1, through: 0, by: -1) { edc[i] = edc[i + 1] + Double(y[i]) * Double(y[i]) }
        let total = edc[0]
        func firstBelow(_ dB: Double) -> Int { edc.firstIndex { 10 * log10(max($0 / total, 1e-30)) <= dB } ?? n }
        let t5 = firstBelow(-5), t25 = firstBelow(-25)
        let t20 = Double(t25 - t5) / Support.rate * 3
        let left = Support.rms(output, 0, 4_800..<96_000), right = Support.rms(output, 1, 4_800..<96_000)
        return [
            Check("T20 decay time \(Support.fmt(t20)) s (largeHall: 2.38 s)", abs(t20 / 2.38 - 1) < 0.1),
            Check("both channels carry the tail (L/R RMS ratio \(Support.fmt(left / right)))", abs(Support.dB(left / right)) < 3),
        ]
    }
}
