// installTap: a tap on the main mixer measures each 0.1 s buffer's RMS while the engine renders
// a 0.25-amplitude tone offline (taps deliver before renderOffline returns).
import AVFoundation

enum TapExample {
    static func run() throws -> [Check] {
        let engine = AVAudioEngine()
        let player = AVAudioPlayerNode()
        engine.attach(player)
        engine.connect(player, to: engine.mainMixerNode, format: Support.mono)
        var levels: [Double] = []
        var times: [AVAudioFramePosition] = []
        engine.mainMixerNode.installTap(onBus: 0, bufferSize: 4800, format: nil) { buffer, when in
            levels.append(Support.rms(buffer, 0, 0..<Int(buffer.frameLength)))
            times.append(when.sampleTime)
        }
        _ = try Support.render(engine, seconds: 1) {
            player.scheduleBuffer(Support.tone(250, seconds: 0.2, amplitude: 0.25), at: nil, options: .loops)
            player.play()
        }
        let expected = 0.25 / 2.0.squareRoot() / 2.0.squareRoot()   // RMS of the tone, −3 dB for a centred mono input
        let consecutive = times == (0..<10).map { AVAudioFramePosition($0 * 4800) }
        return [
            Check("\(levels.count) tap buffers of 4800 frames (10)", levels.count == 10),
            Check("consecutive sample times 0, 4800, … (\(times.prefix(3).map(String.init).joined(separator: ", ")), …)", consecutive),
            Check("every buffer's RMS within 0.001 dB of \(Support.fmt(expected, 5))",
                  levels.allSatisfy { abs(Support.dB($0) - Support.dB(expected)) < 0.001 }),
        ]
    }
}
