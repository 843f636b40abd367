// AVAudioUnitReverb and AVAudioUnitDistortion render without touching the heap: counted on the
// rendering thread across thousands of real-time manual rendering cycles after warm-up, with
// sample-accurate parameter events (scheduled from inside the counted region, as a real-time
// client would) and factory presets switching between counted stretches — every preset's
// coefficient and line-length computation runs on the render thread.
import Testing
import AVFAudio

@Suite(.serialized) struct EffectAllocationTests_ReverbDistortion {
    /// An engine in real-time manual rendering: looping player → reverb → distortion → main mixer.
    final class Rig {
        let engine = AVAudioEngine()
        let reverb = AVAudioUnitReverb()
        let distortion = AVAudioUnitDistortion()
        let output: AVAudioPCMBuffer
        let render: AVAudioEngineManualRenderingBlock

        init(format: AVAudioFormat) throws {
            let player = AVAudioPlayerNode()
            engine.attach(player)
            engine.attach(reverb)
            engine.attach(distortion)
            engine.connect(player, to: reverb, format: format)
            engine.connect(reverb, to: distortion, format: format)
            engine.connect(distortion, to: engine.mainMixerNode, format: format)
            try engine.enableManualRenderingMode(.realtime, format: format, maximumFrameCount: 512)
            let frames: AVAudioFrameCount = 4800
            let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: frames)!
            for c in 0 ..< Int(format.channelCount) {
                for i in 0 ..< Int(frames) { buffer.floatChannelData![c][i] = Float(sin(Double(i) * 0.05 + Double(c))) * 0.5 }
            }
            buffer.frameLength = frames
            reverb.wetDryMix = 40
            distortion.loadFactoryPreset(.multiEverythingIsBroken)
            try engine.start()
            player.scheduleBuffer(buffer, at: nil, options: .loops)
            player.play()
            output = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 512)!
            render = engine.manualRenderingBlock
        }

        /// `cycles` render calls of `frames` frames.
        func run(_ cycles: Int, frames: AVAudioFrameCount = 256) {
            var status = noErr
            let list = output.mutableAudioBufferList
            for _ in 0 ..< cycles { _ = render(frames, list, &status) }
        }
    }

    static func add(_ a: inout AllocationCounts, _ b: AllocationCounts) {
        a.allocations += b.allocations
        a.frees += b.frees
        a.bytes += b.bytes
    }

    @Test(arguments: [1, 2])
    func steadyRendering(channels: Int) throws {
        let rig = try Rig(format: AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: AVAudioChannelCount(channels))!)
        rig.run(20)
        let counts = countAllocations { rig.run(2000) }
        rig.engine.stop()
        #expect(counts == .none, "\(counts)")
    }

    @Test func parameterEventsAndPresetsOnTheRenderThread() throws {
        let rig = try Rig(format: AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2)!)
        let scheduleReverb = rig.reverb.auAudioUnit.scheduleParameterBlock
        let scheduleDistortion = rig.distortion.auAudioUnit.scheduleParameterBlock
        rig.run(20)
        var total = AllocationCounts.none
        let reverbPresets = AVAudioUnitReverbPreset.allCases
        let distortionPresets = AVAudioUnitDistortionPreset.allCases
        for round in 0 ..< 44 {
            // Control side, not counted: a new preset for each unit (applied by the render thread
            // at the next cycle, inside the counted stretch below).
            rig.reverb.loadFactoryPreset(reverbPresets[round % reverbPresets.count])
            rig.distortion.loadFactoryPreset(distortionPresets[round % distortionPresets.count])
            let counts = countAllocations {
                for cycle in 0 ..< 50 {
                    // Events inside the next cycle, some ramped: mixes, gains, decay, delay.
                    let offset = AUEventSampleTimeImmediate + AUEventSampleTime(cycle % 200)
                    scheduleReverb(offset, 0, 0, AUValue(20 + cycle % 80))
                    scheduleReverb(offset + 10, 64, 1, AUValue(cycle % 7) - 3)
                    scheduleDistortion(offset, 32, 15, AUValue(30 + cycle % 70))
                    scheduleDistortion(offset + 5, 0, 14, AUValue(cycle % 12) - 6)
                    if cycle % 10 == 0 {
                        scheduleReverb(offset + 3, 0, 4, AUValue(0.5 + Double(cycle) / 20))
                        scheduleDistortion(offset + 7, 0, 0, AUValue(5 + cycle))
                        scheduleDistortion(offset + 9, 0, 10, AUValue(100 + cycle * 10))
                    }
                    rig.run(1)
                }
            }
            Self.add(&total, counts)
        }
        rig.engine.stop()
        #expect(total == .none, "\(total)")
    }
}
