// AVAudioSourceNode: a render block that synthesises a 330 Hz sine (its phase kept in a captured
// variable, as client code does), connected to the main mixer.
import AVFoundation

enum SourceExample {
    static func run() throws -> [Check] {
        let engine = AVAudioEngine()
        var phase = 0.0
        let step = 2 * Double.pi * 330 / Support.rate
        let synth = AVAudioSourceNode(format: Support.mono) { _, _, frameCount, audioBufferList -> OSStatus in
            let buffers = UnsafeMutableAudioBufferListPointer(audioBufferList)
            let samples = buffers[0].mData!.assumingMemoryBound(to: Float.self)
            for i in 0..<Int(frameCount) {
                samples[i] = Float(0.4 * sin(phase))
                phase += step
            }
            return noErr
        }
        engine.attach(synth)
        engine.connect(synth, to: engine.mainMixerNode, format: Support.mono)
        let output = try Support.render(engine, seconds: 1)
        try Support.save(output, "source")
        let f = Support.frequency(output, 0, 0..<48_000)
        let a = Support.amplitude(output, 1, 330, 0..<48_000)
        return [
            Check("frequency \(Support.fmt(f, 3)) Hz (330)", abs(f - 330) < 0.01),
            Check("amplitude \(Support.fmt(a, 4)) on the right channel (0.4 × 1/√2: a centred mono source is −3 dB each side)",
                  abs(a - 0.4 / 2.0.squareRoot()) < 1e-4),
        ]
    }
}
