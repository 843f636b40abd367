// The mixer's pan law, and what it rests on.
//
// Mono inputs into a stereo mixer: equal power, 1/√2 (−3 dB) on each side at the centre. The
// centre value is Apple's, measured on Apple's engine (iOS 18.2 simulator) by a public probe
// program: a mono player at amplitude 1.0 through the main mixer rendered 0.7071 on the stereo
// output, 0.5 rendered 0.3536, and 0.25 DC through the input node 0.1768. The curve between the
// centre and the ends (cos/sin, constant power) is the standard equal-power law through those
// points; Apple does not publish it. Stereo inputs: unity at the centre and a balance law — this
// project's choice, for which no Apple measurement is public. Sources: AVAudioMixerNode.swift.
import Foundation
import Testing
import AVFoundation

@Suite struct AVAudioMixerPanLawTests {
    /// Renders `frames` frames of a constant `signal` (one value per input channel) through a
    /// player at `pan` into the stereo main mixer; returns the (left, right) output levels.
    func levels(channels: AVAudioChannelCount, signal: [Float], pan: Float, volume: Float = 1) throws -> (Float, Float) {
        let engine = AVAudioEngine()
        let player = AVAudioPlayerNode()
        engine.attach(player)
        engine.connect(player, to: engine.mainMixerNode, format: Offline.standard(48_000, channels))
        try engine.enableManualRenderingMode(.offline, format: Offline.standard(48_000, 2), maximumFrameCount: 256)
        try engine.start()
        player.pan = pan
        player.volume = volume
        player.scheduleBuffer(Offline.buffer(signal.map { [Float](repeating: $0, count: 256) }))
        player.play()
        let out = try Offline.render(engine, total: 256, chunk: 256)
        return (out[0][100], out[1][100])
    }

    /// Apple's measured value: a centred mono input reaches each side at 1/√2, identically.
    @Test func centredMonoInputIsMinusThreeDecibelsOnEachSide() throws {
        let (left, right) = try levels(channels: 1, signal: [1], pan: 0)
        #expect(abs(left - 0.70710677) < 1e-6)
        #expect(left == right)
        let (half, _) = try levels(channels: 1, signal: [0.5], pan: 0)
        #expect(abs(half - 0.35355338) < 1e-6)   // Apple: 0.5 → 0.3536
    }

    /// Equal power: the ends are unity on one side and silence on the other, and L² + R² stays 1.
    @Test func monoPanKeepsConstantPower() throws {
        let (l1, r1) = try levels(channels: 1, signal: [1], pan: -1)
        #expect(abs(l1 - 1) < 1e-6 && r1 == 0)
        let (l2, r2) = try levels(channels: 1, signal: [1], pan: 1)
        #expect(l2 == 0 && abs(r2 - 1) < 1e-6)
        for pan: Float in [-0.75, -0.3, 0.2, 0.6, 0.9] {
            let (l, r) = try levels(channels: 1, signal: [1], pan: pan, volume: 0.8)
            #expect(abs((l * l + r * r) - 0.64) < 1e-5, "pan \(pan): \(l), \(r)")
            #expect(abs(l - 0.8 * cos((1 + pan) * Float.pi / 4)) < 1e-6)
        }
    }

    /// Stereo inputs pass at unity at the centre and pan as a balance (this project's choice).
    @Test func stereoInputsBalance() throws {
        let (l0, r0) = try levels(channels: 2, signal: [0.5, 0.25], pan: 0)
        #expect(l0 == 0.5 && r0 == 0.25)
        let (l1, r1) = try levels(channels: 2, signal: [0.5, 0.25], pan: -0.5)
        #expect(l1 == 0.5 && abs(r1 - 0.125) < 1e-7)
        let (l2, r2) = try levels(channels: 2, signal: [0.5, 0.25], pan: 1)
        #expect(l2 == 0 && r2 == 0.25)
    }
}
