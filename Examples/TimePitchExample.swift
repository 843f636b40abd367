// AVAudioUnitTimePitch: a 440 Hz tone at half speed keeps its pitch and lasts twice as long;
// at normal speed, +700 cents raises it a fifth, to 659.26 Hz.
import AVFoundation

enum TimePitchExample {
    static func run() throws -> [Check] {
        let input = Support.tone(440, seconds: 1)
        let slow = AVAudioUnitTimePitch()
        let slowed = try Support.process(input, through: slow, seconds: 2.3) { slow.rate = 0.5 }
        try Support.save(slowed, "timepitch-half-speed")
        let fifth = AVAudioUnitTimePitch()
        let raised = try Support.process(input, through: fifth, seconds: 1.2) { fifth.pitch = 700 }
        try Support.save(raised, "timepitch-fifth-up")

        let y = slowed.floatChannelData![0]
        let audible = (0..<Int(slowed.frameLength)).filter { abs(y[$0]) > 0.05 }
        let duration = Double((audible.last ?? 0) - (audible.first ?? 0)) / Support.rate
        let f0 = Support.frequency(slowed, 0, 30_000..<80_000)
        let f1 = Support.frequency(raised, 0, 15_000..<40_000)
        let target = 440 * pow(2, 700.0 / 1200)
        return [
            Check("rate 0.5: \(Support.fmt(duration, 3)) s long (2.000)", abs(duration - 2) < 0.05),
            Check("rate 0.5: \(Support.fmt(f0, 2)) Hz (440)", abs(1200 * log2(f0 / 440)) < 1),
            Check("pitch +700 cents: \(Support.fmt(f1, 2)) Hz (\(Support.fmt(target, 2)))", abs(1200 * log2(f1 / target)) < 1),
            Check("latency reported: \(Support.fmt(slow.latency * 1000, 1)) ms", slow.latency > 0),
        ]
    }
}
