// AVAudioMixerNode: three mono players with their own volume and pan (AVAudioMixing). A mono
// input is panned with equal power, as Apple's mixer does: left gain cos((1 + pan)·π/4), right
// gain cos((1 − pan)·π/4) — 1/√2 (−3 dB) on each side at the centre.
import AVFoundation

enum MixerExample {
    static func run() throws -> [Check] {
        let engine = AVAudioEngine()
        let voices: [(frequency: Double, volume: Float, pan: Float)] = [(300, 1, -1), (500, 0.5, 0), (700, 0.25, 0.5)]
        var players: [AVAudioPlayerNode] = []
        for v in voices {
            let player = AVAudioPlayerNode()
            engine.attach(player)
            engine.connect(player, to: engine.mainMixerNode, format: Support.mono)
            player.volume = v.volume
            player.pan = v.pan
            players.append(player)
        }
        let output = try Support.render(engine, seconds: 1) {
            for (player, v) in zip(players, voices) {
                player.scheduleBuffer(Support.tone(v.frequency, seconds: 1), at: nil)
                player.play()
            }
        }
        try Support.save(output, "mixer")

        var checks: [Check] = []
        for v in voices {
            for (channel, side) in [(0, "left"), (1, "right")] {
                let law = max(0, cos((1 + (channel == 0 ? v.pan : -v.pan)) * Float.pi / 4))
                let expected = 0.5 * Double(v.volume * law)
                let measured = Support.amplitude(output, channel, v.frequency, 0..<48_000)
                checks.append(Check("\(Int(v.frequency)) Hz (volume \(v.volume), pan \(v.pan)) \(side): \(Support.fmt(measured, 4)), expected \(Support.fmt(expected, 4))",
                                    abs(measured - expected) < 1e-4))
            }
        }
        return checks
    }
}
