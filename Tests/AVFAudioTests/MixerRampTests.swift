// Volume, pan and output-volume changes glide over 10 ms (480 frames at 48 kHz) instead of
// stepping, so they never click; the glide is counted in frames, so offline output is the same
// whatever the chunk sizes. (Apple does not document AVAudioMixerNode's smoothing; the 10 ms
// linear ramp is this implementation's choice, and these tests check it, not Apple.)
import Foundation
import Testing
import AVFoundation

struct MixerRampTests {
    static let format = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!

    /// A player looping DC 0.5 into the main mixer, rendered offline in `chunk`-frame calls;
    /// `change` runs once the engine has rendered `changeAt` frames (a multiple of `chunk`).
    static func render(total: Int, chunk: Int, changeAt: Int, _ change: (AVAudioEngine, AVAudioPlayerNode) -> Void) throws -> [[Float]] {
        let engine = AVAudioEngine()
        let player = AVAudioPlayerNode()
        engine.attach(player)
        engine.connect(player, to: engine.mainMixerNode, format: format)
        try engine.enableManualRenderingMode(.offline, format: format, maximumFrameCount: 4096)
        let dc = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 1000)!
        dc.frameLength = 1000
        for c in 0..<2 { for i in 0..<1000 { dc.floatChannelData![c][i] = 0.5 } }
        try engine.start()
        player.scheduleBuffer(dc, at: nil, options: .loops)
        player.play()
        var out: [[Float]] = [[], []]
        let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(chunk))!
        while out[0].count < total {
            if out[0].count == changeAt { change(engine, player) }
            _ = try engine.renderOffline(AVAudioFrameCount(chunk), to: buffer)
            for c in 0..<2 { out[c] += UnsafeBufferPointer(start: buffer.floatChannelData![c], count: chunk) }
        }
        engine.stop()
        return out
    }

    @Test func volumeChangeRampsOverTenMilliseconds() throws {
        let out = try Self.render(total: 9600, chunk: 480, changeAt: 4800) { _, player in player.volume = 0 }
        #expect(out[0][0..<4800].allSatisfy { $0 == 0.5 }, "the initial volume applies at once")
        // Frame 4800 + k: gain 1 − k/480 (linear), then 0.
        for k in 0..<480 {
            #expect(abs(out[0][4800 + k] - 0.5 * (1 - Float(k) / 480)) < 1e-6, "frame \(4800 + k)")
        }
        #expect(out[0][5280...].allSatisfy { $0 == 0 })
        // No step larger than one ramp increment anywhere: no click.
        let steps = zip(out[0].dropFirst(), out[0]).map { abs($0 - $1) }
        #expect(steps.max()! <= 0.5 / 480 + 1e-6)
    }

    @Test func panAndOutputVolumeRampToo() throws {
        let out = try Self.render(total: 9600, chunk: 480, changeAt: 4800) { engine, player in
            player.pan = 1                       // left gain 1 → 0, right stays 1
            engine.mainMixerNode.outputVolume = 0.5
        }
        #expect(abs(out[0][4800 + 240] - 0.5 * 0.5 * 0.75) < 1e-6)   // left: pan ramp ½ × output ramp ¾
        #expect(abs(out[1][4800 + 240] - 0.5 * 1 * 0.75) < 1e-6)
        #expect(out[0][5280...].allSatisfy { $0 == 0 })
        #expect(out[1][5280...].allSatisfy { abs($0 - 0.25) < 1e-7 })
    }

    /// The same change at the same frame gives the same samples with 100- and 480-frame chunks
    /// (the change lands between calls: frame 4800 is a boundary of both).
    @Test func rampsDoNotDependOnChunkSizes() throws {
        let a = try Self.render(total: 9600, chunk: 100, changeAt: 4800) { _, player in player.volume = 0.2; player.pan = -0.3 }
        let b = try Self.render(total: 9600, chunk: 480, changeAt: 4800) { _, player in player.volume = 0.2; player.pan = -0.3 }
        #expect(a == b)
    }
}
