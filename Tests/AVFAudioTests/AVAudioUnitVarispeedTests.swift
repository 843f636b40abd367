// AVAudioUnitVarispeed through the engine: rate changes pitch and duration together, nothing
// aliases when speeding up, rate changes glide without clicks, parameters are Apple's.
import Testing
import AVFoundation

@Suite struct AVAudioUnitVarispeedTests {
    typealias T = TimeEffectTesting

    @Test func parametersAreApplesAUVarispeed() throws {
        let unit = AVAudioUnitVarispeed()
        #expect(unit.audioComponentDescription.componentType == kAudioUnitType_FormatConverter)
        #expect(unit.audioComponentDescription.componentSubType == kAudioUnitSubType_Varispeed)
        #expect(unit.rate == 1)
        #expect(unit.latency == 0)
        let tree = try #require(unit.auAudioUnit.parameterTree)
        let rate = try #require(tree.parameter(withAddress: AUParameterAddress(kVarispeedParam_PlaybackRate)))
        let cents = try #require(tree.parameter(withAddress: AUParameterAddress(kVarispeedParam_PlaybackCents)))
        #expect(kVarispeedParam_PlaybackRate == 0 && kVarispeedParam_PlaybackCents == 1)
        #expect(rate.minValue == 0.25 && rate.maxValue == 4 && rate.value == 1)
        #expect(cents.minValue == -2400 && cents.maxValue == 2400 && cents.value == 0)
        unit.rate = 2
        #expect(rate.value == 2 && abs(cents.value - 1200) < 1e-3)
        cents.value = -1200
        #expect(abs(unit.rate - 0.5) < 1e-6)
        unit.rate = 10
        #expect(unit.rate == 4)
    }

    @Test(arguments: [(2.0, 880.0), (0.5, 220.0)])
    func rateChangesPitchAndDuration(_ rate: Double, _ expected: Double) throws {
        let unit = AVAudioUnitVarispeed()
        unit.rate = Float(rate)
        let seconds = 1.0
        let y = try T.render(unit, [T.sine(440, seconds: seconds)], frames: Int((seconds / rate + 0.2) * T.rate))[0]
        let (first, last) = T.span(y)
        #expect(abs(Double(last + 1 - first) / T.rate - seconds / rate) < 0.002, "audible for \(Double(last - first) / T.rate) s")
        #expect(first < 10, "varispeed has no latency (first sound at \(first))")
        let mid = (first + last) / 2, half = Int(0.2 * T.rate)
        let stats = T.toneStats(y[(mid - half)..<(mid + half)], expected: expected)
        #expect(abs(stats.centsError) < 1, "pitch off by \(stats.centsError) cents")
        #expect(stats.thdnDB < -90, "THD+N \(stats.thdnDB) dB")
    }

    /// At rate 2 a 15 kHz tone would land at 30 kHz, above the 24 kHz Nyquist frequency: it must
    /// vanish, not fold back to 18 kHz. A 9 kHz tone lands at 18 kHz untouched.
    @Test func speedingUpDoesNotAlias() throws {
        func level(_ frequency: Double) throws -> Double {
            let unit = AVAudioUnitVarispeed()
            unit.rate = 2
            let y = try T.render(unit, [T.sine(frequency, seconds: 0.5)], frames: Int(0.25 * T.rate))[0]
            var e = 0.0
            for i in 2000..<10_000 { e += Double(y[i]) * Double(y[i]) }
            return 10 * log10(max(e / 8000, 1e-30) / 0.125)   // re a 0.5-amplitude sine
        }
        let inBand = try level(9000), aliased = try level(15_000)
        #expect(abs(inBand) < 0.1, "18 kHz output at \(inBand) dB")
        #expect(aliased < -100, "a 30 kHz image folded back at \(aliased) dB")
    }

    /// A rate change while playing glides: no step in the waveform or its slope.
    @Test func rateChangesGlideWithoutClicks() throws {
        let unit = AVAudioUnitVarispeed()
        let y = try T.render(unit, [T.sine(440, seconds: 2)], frames: Int(1.2 * T.rate), chunk: 480) { done in
            if done == 14_400 { unit.rate = 2 }
            if done == 33_600 { unit.rate = 0.7 }
        }[0]
        // the second difference of a 0.5-amplitude sine at up to 880 Hz stays below 0.5 (2 pi 880/48k)^2 = 0.0066
        var worst: Float = 0
        for i in 2..<y.count - 100 { worst = max(worst, abs(y[i] - 2 * y[i - 1] + y[i - 2])) }
        #expect(worst < 0.008, "second difference reaches \(worst)")
        // and the pitch did change
        let late = T.toneStats(y[40_000..<56_000], expected: 440 * 0.7)
        #expect(abs(late.centsError) < 1)
    }

    /// A rate change scheduled at output sample T through `scheduleParameterBlock` (one-frame
    /// ramp) takes effect at T exactly: on a linear ramp input (slope s per frame), the output's
    /// slope is s up to frame T and 2s from frame T + 1 on. The same samples come out however
    /// the rendering is chunked (1, 37, 512, 4096 frames per call; maximumFrameCount 512 or 4096).
    @Test func scheduledRateChangeTakesEffectAtItsSample() throws {
        let T = 7_777, frames = 12_000, slope: Float = 1e-5
        let ramp = (0..<40_000).map { Float($0) * slope }
        func run(chunk: Int, maximumFrames: Int = 4096) throws -> [Float] {
            let unit = AVAudioUnitVarispeed()
            return try TimeEffectTesting.render(unit, [ramp], frames: frames, chunk: chunk, maximumFrames: maximumFrames) { done in
                if done == 0 { unit.auAudioUnit.scheduleParameterBlock(AUEventSampleTime(T), 1, AUParameterAddress(kVarispeedParam_PlaybackRate), 2) }
            }[0]
        }
        let y = try run(chunk: 4096)
        var worstBefore: Float = 0, worstAfter: Float = 0
        for t in 200...T { worstBefore = max(worstBefore, abs((y[t] - y[t - 1]) - slope)) }
        for t in (T + 1)..<(frames - 200) { worstAfter = max(worstAfter, abs((y[t] - y[t - 1]) - 2 * slope)) }
        #expect(worstBefore < slope / 100, "slope before T off by \(worstBefore / slope) of itself")
        #expect(worstAfter < slope / 100, "slope after T off by \(worstAfter / slope) of itself")
        for (chunk, maximumFrames) in [(1, 4096), (37, 4096), (512, 512)] {
            let other = try run(chunk: chunk, maximumFrames: maximumFrames)
            let same = other == y
            #expect(same, "chunk \(chunk), maximumFrameCount \(maximumFrames): first difference at \(other.indices.first { other[$0] != y[$0] } ?? -1)")
        }
    }

    /// Dense automation — a rate change every 700 frames (0.3 … 3.7, with and without ramps) —
    /// renders identically at 37 and 4096 frames per call: the input pulled for each cycle
    /// always covers what its segments consume.
    @Test func denseAutomationIsIndependentOfChunking() throws {
        let frames = 24_000
        let input = TimeEffectTesting.sine(330, seconds: 2.5)
        func run(chunk: Int) throws -> [Float] {
            let unit = AVAudioUnitVarispeed()
            return try TimeEffectTesting.render(unit, [input], frames: frames, chunk: chunk) { done in
                guard done == 0 else { return }
                for k in 1..<34 {
                    let rate = AUValue(0.3 + 3.4 * Double((k * 7) % 11) / 10)
                    unit.auAudioUnit.scheduleParameterBlock(AUEventSampleTime(700 * k), AUAudioFrameCount(k % 3 == 0 ? 0 : 64 * k),
                                                            AUParameterAddress(kVarispeedParam_PlaybackRate), rate)
                }
            }[0]
        }
        let a = try run(chunk: 4096), b = try run(chunk: 37)
        let same = a == b
        #expect(same, "first difference at \(a.indices.first { a[$0] != b[$0] } ?? -1)")
        #expect(a[frames - 100 ..< frames].contains { $0 != 0 }, "still playing at the end")
    }

    /// Manual rendering enabled a second time restarts the engine's timeline at 0: an event at
    /// frame 300 of the new timeline lands on frame 300, even in the first cycle (the unit is told
    /// where each cycle starts before it resolves its events).
    @Test func eventsResolveOnARestartedTimeline() throws {
        let slope: Float = 1e-5
        let engine = AVAudioEngine()
        let player = AVAudioPlayerNode(), unit = AVAudioUnitVarispeed()
        engine.attach(player)
        engine.attach(unit)
        let format = Offline.standard(48_000, 1)
        engine.connect(player, to: unit, format: format)
        engine.connect(unit, to: engine.mainMixerNode, format: format)
        let out = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 512)!
        func session(frames: Int, schedule: Bool) throws -> [Float] {
            try engine.enableManualRenderingMode(.offline, format: format, maximumFrameCount: 512)
            try engine.start()
            player.scheduleBuffer(Offline.buffer([(0..<20_000).map { Float($0) * slope }]), at: nil)
            player.play()
            if schedule { unit.auAudioUnit.scheduleParameterBlock(300, 1, AUParameterAddress(kVarispeedParam_PlaybackRate), 2) }
            var y: [Float] = []
            while y.count < frames {
                #expect(try engine.renderOffline(512, to: out) == .success)
                y += UnsafeBufferPointer(start: out.floatChannelData![0], count: 512)
            }
            player.stop()
            engine.stop()
            engine.disableManualRenderingMode()
            return y
        }
        _ = try session(frames: 10_240, schedule: false)
        let y = try session(frames: 2_048, schedule: true)
        let before = (100...300).map { abs((y[$0] - y[$0 - 1]) - slope) }.max()!
        let after = (301..<1_800).map { abs((y[$0] - y[$0 - 1]) - 2 * slope) }.max()!
        #expect(before < slope / 100, "slope before frame 300 off by \(before / slope)")
        #expect(after < slope / 100, "slope after frame 300 off by \(after / slope)")
    }

    @Test func bypassPassesTheInputThrough() throws {
        let unit = AVAudioUnitVarispeed()
        unit.rate = 3
        unit.bypass = true
        let x = T.sine(1000, seconds: 0.2)
        let y = try T.render(unit, [x], frames: x.count)[0]
        #expect(y == x)
    }

    @Test func createdFromItsComponentDescription() throws {
        let d = AudioComponentDescription(componentType: kAudioUnitType_FormatConverter, componentSubType: kAudioUnitSubType_Varispeed,
                                          componentManufacturer: kAudioUnitManufacturer_Apple, componentFlags: 0, componentFlagsMask: 0)
        let unit = AVAudioUnitTimeEffect(audioComponentDescription: d)
        unit.auAudioUnit.parameterTree?.parameter(withAddress: AUParameterAddress(kVarispeedParam_PlaybackCents))?.value = 1200
        let y = try T.render(unit, [T.sine(440, seconds: 1)], frames: Int(0.7 * T.rate))[0]
        let (first, last) = T.span(y)
        #expect(abs(Double(last - first) / T.rate - 0.5) < 0.01)
    }
}
