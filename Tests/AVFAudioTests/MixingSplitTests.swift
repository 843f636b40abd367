// Splitting with mixing settings, as the WWDC 2015 "What's New in Core Audio" slides show it and
// AVAudioMixing.h documents it: a player split to a mixer's bus 0 directly and to an effect that
// feeds the same mixer's bus 1. Source node properties "apply to all existing mixer connections
// when set" and "to new mixer connections" — through effects too ("effect nodes cannot talk to
// their downstream mixer": the mixer input's settings come from the source upstream);
// `destination(forMixer:bus:)` vends the settings of one mixer input; per-connection settings
// "are not preserved upon disconnection"; a later source property "will override the
// corresponding property value of all individual mixer connections".
import Testing
import AVFoundation

@Suite struct MixingSplitTests {
    /// The slides' graph: player → [mixer bus 0, effect] and effect → mixer bus 1; mixer → main
    /// mixer. The player loops a constant 0.5 (mono), the effect is bypassed (passes its input
    /// exactly), so each output channel is the sum of the two paths' gains × 0.5, a path's gain
    /// being its volume × the mono pan law (1/√2 at the centre, 1 and 0 at the ends:
    /// `Offline.monoPan`, Apple's equal-power law for mono inputs).
    final class Rig {
        let engine = AVAudioEngine()
        let player = AVAudioPlayerNode()
        let effect = AVAudioUnitEQ(numberOfBands: 1)
        let mixer = AVAudioMixerNode()
        let mono = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 1)!
        let stereo = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!

        init() throws {
            [player, effect, mixer].forEach(engine.attach)
            effect.bypass = true
            engine.connect(mixer, to: engine.mainMixerNode, format: stereo)
            engine.connect(player, to: [AVAudioConnectionPoint(node: mixer, bus: 0), AVAudioConnectionPoint(node: effect, bus: 0)],
                           fromBus: 0, format: mono)
            engine.connect(effect, to: mixer, fromBus: 0, toBus: 1, format: mono)
            try engine.enableManualRenderingMode(.offline, format: stereo, maximumFrameCount: 512)
            try engine.start()
            let buffer = AVAudioPCMBuffer(pcmFormat: mono, frameCapacity: 480)!
            for i in 0..<480 { buffer.floatChannelData![0][i] = 0.5 }
            buffer.frameLength = 480
            player.scheduleBuffer(buffer, at: nil, options: .loops)
            player.play()
        }

        /// Renders 2,048 frames (past any gain ramp) and returns the last frame (left, right).
        func level() throws -> (left: Float, right: Float) {
            let out = try Offline.render(engine, total: 2048, chunk: 512)
            return (out[0].last!, out[1].last!)
        }
    }

    static func near(_ a: (left: Float, right: Float), _ left: Float, _ right: Float) -> Bool {
        abs(a.left - left) < 1e-5 && abs(a.right - right) < 1e-5
    }

    @Test func theSlidesSequence() throws {
        let rig = try Rig()
        let (player, mixer, engine) = (rig.player, rig.mixer, rig.engine)
        let c = Offline.centre
        var level = try rig.level()
        #expect(Self.near(level, 2 * 0.5 * c, 2 * 0.5 * c), "both paths at unity volume, centred: \(level)")

        // "set player's global mixing setting": both paths, the one through the effect too.
        player.volume = 0.5
        level = try rig.level()
        #expect(Self.near(level, 2 * 0.25 * c, 2 * 0.25 * c), "player.volume = 0.5 on both paths: \(level)")

        // "override mixing settings of mixer bus0" and "of mixer bus1" (bus 1 is reached through the effect).
        let destination0 = try #require(player.destination(forMixer: mixer, bus: 0))
        let destination1 = try #require(player.destination(forMixer: mixer, bus: 1))
        #expect(destination0.volume == 0.5)     // derived from the player until overridden
        #expect(destination1.connectionPoint.node === mixer && destination1.connectionPoint.bus == 1)
        #expect(destination1.destination(forMixer: mixer, bus: 1) === destination1)
        #expect(destination1.destination(forMixer: mixer, bus: 0) == nil)
        #expect(player.destination(forMixer: mixer, bus: 2) == nil)
        #expect(player.destination(forMixer: engine.mainMixerNode, bus: 0) == nil)   // fed by `mixer`, its own source
        destination0.volume = 0.8
        destination0.pan = -1
        destination1.volume = 0.2
        destination1.pan = 1
        #expect(player.volume == 0.5)           // "will not reflect at the source node level"
        level = try rig.level()
        #expect(Self.near(level, 0.8 * 0.5, 0.2 * 0.5), "bus 0 left at 0.8, bus 1 right at 0.2: \(level)")

        // "disconnect mixer bus1 input, corresponding mixing settings are lost".
        engine.disconnectNodeInput(mixer, bus: 1)
        #expect(player.destination(forMixer: mixer, bus: 1) == nil)
        level = try rig.level()
        #expect(Self.near(level, 0.4, 0), "\(level)")

        // "make a new connection, player's global mixing settings take effect".
        engine.connect(rig.effect, to: mixer, fromBus: 0, toBus: 1, format: rig.mono)
        let renewed = try #require(player.destination(forMixer: mixer, bus: 1))
        #expect(renewed.volume == 0.5 && renewed.pan == 0)
        level = try rig.level()
        #expect(Self.near(level, 0.4 + 0.25 * c, 0.25 * c), "\(level)")

        // A source property set later overrides that property on every connection (pan stays).
        player.volume = 1
        #expect(player.destination(forMixer: mixer, bus: 0)?.volume == 1)
        #expect(player.destination(forMixer: mixer, bus: 0)?.pan == -1)
        level = try rig.level()
        #expect(Self.near(level, 0.5 + 0.5 * c, 0.5 * c), "\(level)")
    }

    /// Every property of a destination is derived from the source node until set on it; setting
    /// it there does not reach the source; setting the source's property later overrides it.
    @Test func destinationPropertiesDeriveFromTheSource() throws {
        let rig = try Rig()
        let (player, mixer) = (rig.player, rig.mixer)
        player.position = AVAudio3DPoint(x: 1, y: 2, z: 3)
        player.reverbBlend = 0.25
        player.renderingAlgorithm = .HRTF
        let destination = try #require(player.destination(forMixer: mixer, bus: 1))
        #expect(destination.position == AVAudio3DPoint(x: 1, y: 2, z: 3))
        #expect(destination.reverbBlend == 0.25)
        #expect(destination.renderingAlgorithm == .HRTF)
        #expect(destination.rate == 1 && destination.obstruction == 0)
        destination.position = AVAudio3DPoint(x: -1, y: 0, z: 0)
        destination.reverbBlend = 0.75
        #expect(player.position == AVAudio3DPoint(x: 1, y: 2, z: 3))
        #expect(player.reverbBlend == 0.25)
        player.position = AVAudio3DPoint(x: 0, y: 0, z: 5)
        #expect(destination.position == AVAudio3DPoint(x: 0, y: 0, z: 5))
        #expect(destination.reverbBlend == 0.75)   // only the property set on the source is overridden
    }

    /// Connecting the player to the effect after the effect feeds the mixer (the other order)
    /// still brings the player's settings to that mixer input.
    @Test func settingsReachAMixerInputConnectedBeforeItsSource() throws {
        let engine = AVAudioEngine()
        let player = AVAudioPlayerNode(), effect = AVAudioUnitEQ(numberOfBands: 1)
        [player, effect].forEach(engine.attach)
        effect.bypass = true
        let mono = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 1)!
        player.volume = 0.25
        player.pan = 1
        engine.connect(effect, to: engine.mainMixerNode, format: mono)
        #expect(player.destination(forMixer: engine.mainMixerNode, bus: 0) == nil)
        engine.connect(player, to: effect, format: mono)
        #expect(player.destination(forMixer: engine.mainMixerNode, bus: 0)?.volume == 0.25)
        try engine.enableManualRenderingMode(.offline, format: AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!,
                                             maximumFrameCount: 512)
        try engine.start()
        let buffer = AVAudioPCMBuffer(pcmFormat: mono, frameCapacity: 512)!
        for i in 0..<512 { buffer.floatChannelData![0][i] = 1 }
        buffer.frameLength = 512
        player.scheduleBuffer(buffer, at: nil, options: .loops)
        player.play()
        let out = try Offline.render(engine, total: 2048, chunk: 512)
        #expect(abs(out[0].last! - 0) < 1e-6 && abs(out[1].last! - 0.25) < 1e-6, "\(out[0].last!) \(out[1].last!)")
    }
}
