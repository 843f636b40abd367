// AVAudioUnitSampler renders allocation-free inside the engine: 32 voices sounding (and more
// started, released, stolen and bent inside the counted region), heap calls counted on the
// rendering thread over a thousand real-time manual-rendering cycles.
import Testing
import AVFAudio

@Suite(.serialized) struct SamplerAllocationTests {
    @Test func thirtyTwoVoicesAllocateNothing() throws {
        let format = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!
        let engine = AVAudioEngine()
        try engine.enableManualRenderingMode(.realtime, format: format, maximumFrameCount: 512)
        let sampler = AVAudioUnitSampler()
        engine.attach(sampler)
        engine.connect(sampler, to: engine.mainMixerNode, format: format)
        try engine.start()
        let render = engine.manualRenderingBlock
        let output = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 512)!
        let list = output.mutableAudioBufferList
        var status = noErr
        let schedule = sampler.auAudioUnit.scheduleMIDIEventBlock!
        func send(_ bytes: (UInt8, UInt8, UInt8), at offset: Int) {
            var b = bytes
            withUnsafeBytes(of: &b) { schedule(AUEventSampleTimeImmediate + AUEventSampleTime(offset), 0, 3, $0.baseAddress!.assumingMemoryBound(to: UInt8.self)) }
        }
        for k in 0..<32 { send((0x90 | UInt8(k % 4), UInt8(40 + k), UInt8(60 + k)), at: k * 7) }
        for _ in 0..<20 { _ = render(256, list, &status) }
        var peak: Float = 0
        let counts = countAllocations {
            for cycle in 0..<1000 {
                if cycle % 10 == 0 { send((0x90 | UInt8(cycle % 16), UInt8(72 + cycle % 24), 100), at: cycle % 256) }
                if cycle % 10 == 5 { send((0x80 | UInt8((cycle - 5) % 16), UInt8(72 + (cycle - 5) % 24), 0), at: 3) }
                if cycle % 7 == 0 { send((0xE0, 0, UInt8(cycle % 128)), at: 100) }
                if cycle % 13 == 0 { send((0xB0, 7, UInt8(cycle % 128)), at: 17) }
                _ = render(256, list, &status)
                peak = max(peak, abs(output.floatChannelData![0][0]))
            }
        }
        engine.stop()
        #expect(status == noErr)
        #expect(peak > 0.01)   // the voices were sounding
        #expect(counts == .none, "\(counts)")
    }
}
