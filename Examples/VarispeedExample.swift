// AVAudioUnitVarispeed: rate 2 plays a 1 s, 440 Hz tone in 0.5 s, an octave up (880 Hz).
import AVFoundation

enum VarispeedExample {
    static func run() throws -> [Check] {
        let varispeed = AVAudioUnitVarispeed()
        let output = try Support.process(Support.tone(440, seconds: 1), through: varispeed, seconds: 0.8) { varispeed.rate = 2 }
        try Support.save(output, "varispeed")
        let y = output.floatChannelData![0]
        let audible = (0..<Int(output.frameLength)).filter { abs(y[$0]) > 0.05 }
        let duration = Double((audible.last ?? 0) - (audible.first ?? 0)) / Support.rate
        let f = Support.frequency(output, 0, 2_000..<22_000)
        return [
            Check("\(Support.fmt(duration, 3)) s long (0.500)", abs(duration - 0.5) < 0.005),
            Check("\(Support.fmt(f, 2)) Hz (880)", abs(1200 * log2(f / 880)) < 1),
        ]
    }
}
