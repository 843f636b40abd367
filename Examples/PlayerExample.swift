// AVAudioPlayerNode: a 440 Hz buffer scheduled to start at 0.5 s, then a 0.1 s 1 kHz buffer
// looping, into the main mixer; offline. The completion handler of the first buffer runs once.
import AVFoundation

enum PlayerExample {
    static func run() throws -> [Check] {
        let engine = AVAudioEngine()
        let player = AVAudioPlayerNode()
        engine.attach(player)
        engine.connect(player, to: engine.mainMixerNode, format: Support.mono)

        let first = Support.tone(440, seconds: 0.5)      // 220 whole cycles
        let loop = Support.tone(1000, seconds: 0.1)      // 100 whole cycles: loops seamlessly
        var completions = 0
        let output = try Support.render(engine, seconds: 2) {
            player.scheduleBuffer(first, at: AVAudioTime(sampleTime: 24_000, atRate: Support.rate), options: [],
                                  completionCallbackType: .dataRendered) { _ in completions += 1 }
            player.scheduleBuffer(loop, at: nil, options: .loops)
            player.play()
        }
        try Support.save(output, "player")

        let silence = Support.rms(output, 0, 0..<24_000)
        let a440 = Support.amplitude(output, 0, 440, 24_000..<48_000)
        let a1k = Support.amplitude(output, 1, 1000, 48_000..<96_000)
        let centre = 0.5 / 2.0.squareRoot()   // a centred mono input gets −3 dB on each side, as on Apple's mixer
        return [
            Check("silent before 0.5 s (RMS \(Support.fmt(Support.dB(silence))) dBFS)", silence == 0),
            Check("440 Hz from 0.5 s at amplitude \(Support.fmt(a440, 4)) (0.5 × 1/√2: a centred mono input is −3 dB each side)",
                  abs(a440 - centre) < 1e-4),
            Check("the 1 kHz loop follows at amplitude \(Support.fmt(a1k, 4))", abs(a1k - centre) < 1e-4),
            Check("the first buffer's completion handler ran \(completions) time(s)", completions == 1),
        ]
    }
}
