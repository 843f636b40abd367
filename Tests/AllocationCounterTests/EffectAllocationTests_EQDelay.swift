// AVAudioUnitEQ and AVAudioUnitDelay render allocation-free: heap calls counted on the rendering
// thread over a thousand real-time manual-rendering cycles, with parameter changes arriving
// during the counted cycles (gliding EQ coefficients, delay-time glides, type and bypass
// crossfades) — `process` and `setParameter` both run inside the count.
import Testing
import AVFAudio

@Suite(.serialized) struct EffectAllocationTests_EQDelay {
    /// Builds player (looping) → effects → main mixer in real-time manual rendering, warms up,
    /// schedules `events` to land during the counted cycles, then counts.
    func countRenderAllocations(frames: AVAudioFrameCount = 256, cycles: Int = 1000,
                                effects: [AVAudioUnit], events: (AVAudioUnit, AUEventSampleTime) -> Void) throws -> AllocationCounts {
        let format = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!
        let engine = AVAudioEngine()
        try engine.enableManualRenderingMode(.realtime, format: format, maximumFrameCount: 512)
        let player = AVAudioPlayerNode()
        engine.attach(player)
        var previous: AVAudioNode = player
        for e in effects {
            engine.attach(e)
            engine.connect(previous, to: e, format: format)
            previous = e
        }
        engine.connect(previous, to: engine.mainMixerNode, format: format)
        let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 4800)!
        for c in 0 ..< 2 { for i in 0 ..< 4800 { buffer.floatChannelData![c][i] = Float((i * 37 + c * 11) % 200) / 200 - 0.5 } }
        buffer.frameLength = 4800
        player.scheduleBuffer(buffer, at: nil, options: .loops)
        try engine.start()
        player.play()
        let render = engine.manualRenderingBlock
        let output = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 512)!
        let list = output.mutableAudioBufferList
        var status = noErr
        for _ in 0 ..< 20 { _ = render(frames, list, &status) }
        let start = engine.manualRenderingSampleTime
        for e in effects { events(e, start) }
        let counts = countAllocations {
            for _ in 0 ..< cycles { _ = render(frames, list, &status) }
        }
        engine.stop()
        return counts
    }

    @Test func tenBandEQWithGlidingParameters() throws {
        let eq = AVAudioUnitEQ(numberOfBands: 10)
        let types: [AVAudioUnitEQFilterType] = [.lowShelf, .parametric, .parametric, .bandStop, .resonantLowPass,
                                                .parametric, .highPass, .bandPass, .resonantHighShelf, .highShelf]
        for (i, b) in eq.bands.enumerated() {
            b.filterType = types[i]
            b.frequency = Float(60 * (i + 1) * (i + 1))
            b.gain = Float(i % 3) * 3 - 3
            b.bandwidth = 0.7
            b.bypass = false
        }
        eq.globalGain = -3
        let counts = try countRenderAllocations(effects: [eq]) { unit, start in
            let schedule = unit.auAudioUnit.scheduleParameterBlock
            for k in 0 ..< 250 {
                let t = start + AUEventSampleTime(k * 1000)
                let band = AUParameterAddress(k % 10)
                switch k % 5 {
                case 0: schedule(t, 0, 4000 + band, Float(k % 24) - 12)                  // gain glide
                case 1: schedule(t, 300, 3000 + band, Float(100 + 37 * k % 8000))        // frequency glide
                case 2: schedule(t, 0, 5000 + band, Float(k % 7) * 0.5 + 0.1)            // bandwidth glide
                case 3: schedule(t, 0, 2000 + band, Float(k % 11))                       // type crossfade
                default: schedule(t, 0, 1000 + band, Float(k / 5 % 2))                   // bypass crossfade
                }
                if k % 7 == 0 { schedule(t, 64, 0, Float(k % 12) - 6) }                  // global gain
            }
        }
        #expect(counts == .none, "\(counts)")
    }

    @Test func delayWithGlidingParameters() throws {
        let delay = AVAudioUnitDelay()
        delay.delayTime = 0.3
        delay.feedback = 60
        delay.wetDryMix = 40
        delay.lowPassCutoff = 5000
        let counts = try countRenderAllocations(effects: [delay]) { unit, start in
            let schedule = unit.auAudioUnit.scheduleParameterBlock
            for k in 0 ..< 250 {
                let t = start + AUEventSampleTime(k * 1000)
                switch k % 4 {
                case 0: schedule(t, 0, 1, Float(k % 20) * 0.0137 + 0.001)               // delay time (fractional) glide
                case 1: schedule(t, 0, 2, Float(k % 200) - 100)                         // feedback
                case 2: schedule(t, 1, 0, Float(k % 100))                               // wet/dry jump
                default: schedule(t, 200, 3, Float(50 + 97 * k % 20000))                // low-pass cutoff
                }
            }
        }
        #expect(counts == .none, "\(counts)")
    }

    @Test func eqIntoDelayStatic() throws {
        let eq = AVAudioUnitEQ(numberOfBands: 4)
        for b in eq.bands { b.bypass = false; b.gain = 4 }
        let delay = AVAudioUnitDelay()
        let counts = try countRenderAllocations(effects: [eq, delay]) { _, _ in }
        #expect(counts == .none, "\(counts)")
    }
}
