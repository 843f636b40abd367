// Rendering a buffer through one effect: player → effect → main mixer, offline.
import AVFoundation

extension Support {
    /// Plays `input` once through `effect` (connected in `input`'s format) and renders `seconds`.
    static func process(_ input: AVAudioPCMBuffer, through effect: AVAudioNode, seconds: Double,
                        configure: () -> Void = {}) throws -> AVAudioPCMBuffer {
        let engine = AVAudioEngine()
        let player = AVAudioPlayerNode()
        engine.attach(player)
        engine.attach(effect)
        engine.connect(player, to: effect, format: input.format)
        engine.connect(effect, to: engine.mainMixerNode, format: input.format)
        configure()   // after connecting: frequency limits follow the connected sample rate
        return try render(engine, seconds: seconds) {
            player.scheduleBuffer(input, at: nil)
            player.play()
        }
    }
}
