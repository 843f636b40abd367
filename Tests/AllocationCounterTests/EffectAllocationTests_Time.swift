// The time effects render allocation-free: AVAudioUnitTimePitch (phase vocoder, FFTs, pitch
// resampler) and AVAudioUnitVarispeed (variable-ratio resampler), with parameter changes arriving
// during the counted cycles through the real-time-safe `scheduleParameterBlock` — some at a
// cycle's first frame, some inside a cycle (which splits it into segments and pulls an upper bound
// of input into the DSP's FIFO).
import Testing
import AVFAudio

@Suite(.serialized) struct EffectAllocationTests_Time {
    /// Player (looping) → `unit` → main mixer in real-time manual rendering; counts the render
    /// block's allocations over `cycles` cycles after warm-up, calling `between(cycle)` (from the
    /// counted thread) before each.
    func count(_ unit: AVAudioUnit, cycles: Int, between: (Int) -> Void) throws -> AllocationCounts {
        let format = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!
        let engine = AVAudioEngine()
        try engine.enableManualRenderingMode(.realtime, format: format, maximumFrameCount: 512)
        let player = AVAudioPlayerNode()
        engine.attach(player)
        engine.attach(unit)
        engine.connect(player, to: unit, format: format)
        engine.connect(unit, to: engine.mainMixerNode, format: format)
        player.scheduleBuffer(EngineAllocationTests.buffer(format, frames: 4800), at: nil, options: .loops)
        try engine.start()
        player.play()
        let render = engine.manualRenderingBlock
        let output = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 512)!
        let list = output.mutableAudioBufferList
        var status = noErr
        for _ in 0..<20 { _ = render(256, list, &status) }
        let counts = countAllocations {
            for i in 0..<cycles {
                between(i)
                _ = render(256, list, &status)
            }
        }
        engine.stop()
        return counts
    }

    @Test func timePitchRendersWithoutAllocating() throws {
        let unit = AVAudioUnitTimePitch()
        unit.rate = 0.5
        unit.pitch = 300
        let schedule = unit.auAudioUnit.scheduleParameterBlock
        let counts = try count(unit, cycles: 300) { i in
            if i == 100 { schedule(AUEventSampleTimeImmediate, 0, AUParameterAddress(kNewTimePitchParam_Rate), 1.7) }
            if i == 150 { schedule(AUEventSampleTimeImmediate + 77, 0, AUParameterAddress(kNewTimePitchParam_Rate), 0.6) }
            if i == 200 { schedule(AUEventSampleTimeImmediate, 0, AUParameterAddress(kNewTimePitchParam_Pitch), -500) }
            if i == 250 { schedule(AUEventSampleTimeImmediate + 130, 0, AUParameterAddress(kNewTimePitchParam_Pitch), 700) }
        }
        #expect(counts == .none, "\(counts)")
    }

    @Test func varispeedRendersWithoutAllocating() throws {
        let unit = AVAudioUnitVarispeed()
        unit.rate = 0.8
        let schedule = unit.auAudioUnit.scheduleParameterBlock
        let counts = try count(unit, cycles: 1000) { i in
            if i % 100 == 50 { schedule(AUEventSampleTimeImmediate, 64, AUParameterAddress(kVarispeedParam_PlaybackRate), i % 200 == 50 ? 3.1 : 0.4) }
            if i % 100 == 80 { schedule(AUEventSampleTimeImmediate + 100, 32, AUParameterAddress(kVarispeedParam_PlaybackRate), i % 200 == 80 ? 2.2 : 0.9) }
        }
        #expect(counts == .none, "\(counts)")
    }
}
