// AVAudioUnitDelay: an impulse through a 0.25 s delay with 50 % feedback, half wet (the mix is a
// linear crossfade: output = 0.5 × dry + 0.5 × wet). The dry impulse and the echoes land on
// exact frames (12 000 apart at 48 kHz), each echo half the previous one; with the low-pass at
// Nyquist the echoes are exact copies. The mono effect output enters the stereo main mixer at the
// centre, so each side carries it at 1/√2 (−3 dB), as on Apple's mixer.
import AVFoundation

enum DelayExample {
    static func run() throws -> [Check] {
        let delay = AVAudioUnitDelay()
        let input = Support.buffer(seconds: 0.1) { _, i in i == 1000 ? 1 : 0 }
        let output = try Support.process(input, through: delay, seconds: 0.8) {
            delay.delayTime = 0.25
            delay.feedback = 50
            delay.wetDryMix = 50
            delay.lowPassCutoff = 24_000   // clamps to Nyquist: no filtering
        }
        try Support.save(output, "delay")
        let y = output.floatChannelData![0]
        let dry = Double(y[1000]), echo1 = Double(y[13_000]), echo2 = Double(y[25_000])
        let expectedDry = 0.5 / 2.0.squareRoot()
        var stray = 0.0
        for i in 0..<Int(output.frameLength) where ![1000, 13_000, 25_000, 37_000].contains(i) { stray = max(stray, Double(abs(y[i]))) }
        return [
            Check("dry impulse at frame 1000: \(Support.fmt(dry, 7)) (0.5 × 1/√2)", abs(dry - expectedDry) < 1e-6),
            Check("first echo at frame 13000 (0.25 s later): \(Support.fmt(echo1, 4))", abs(echo1 - dry) < 1e-4),
            Check("second echo at frame 25000, half as loud: \(Support.fmt(echo2 / echo1, 4))", abs(echo2 / echo1 - 0.5) < 1e-4),
            Check("nothing anywhere else (largest stray sample \(Support.fmt(stray, 7)))", stray < 1e-5),
        ]
    }
}
