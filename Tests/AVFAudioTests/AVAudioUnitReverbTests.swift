// AVAudioUnitReverb: Apple's API (presets, wetDryMix, the Reverb2 parameter tree), and the
// acoustics of every preset measured on impulse responses rendered through the engine:
// RT60 by Schroeder backward integration, echo density, spectral smoothness of the tail and
// left/right decorrelation. (Debug builds are slow: the impulse responses here are 1.5 s at
// 44.1 kHz; `avaudio-bench fx-reverb` measures long ones in release.)
import Testing
import AVFoundation
import AudioAnalysis

/// Measurements on impulse responses and spectra, shared by the reverb and distortion tests.
enum RDMetrics {
    /// Renders `input` (one array per channel) through `effect` (player → effect → main mixer,
    /// offline), `extra` frames past its end.
    static func render(_ effect: AVAudioNode, input: [[Float]], rate: Double = 48_000, extra: Int = 0,
                       maximumFrames: Int = 512, chunk: Int = 512,
                       whileRendering: ((AVAudioEngine) -> Void)? = nil) throws -> [[Float]] {
        let engine = AVAudioEngine()
        let player = AVAudioPlayerNode()
        engine.attach(player)
        engine.attach(effect)
        let format = Offline.standard(rate, AVAudioChannelCount(input.count))
        engine.connect(player, to: effect, format: format)
        engine.connect(effect, to: engine.mainMixerNode, format: format)
        try engine.enableManualRenderingMode(.offline, format: format, maximumFrameCount: AVAudioFrameCount(maximumFrames))
        try engine.start()
        player.scheduleBuffer(Offline.buffer(input, rate: rate))
        player.play()
        whileRendering?(engine)
        let out = try Offline.render(engine, total: input[0].count + extra, chunk: chunk)
        engine.stop()
        return out
    }

    static func impulse(_ n: Int, channels: Int = 2) -> [[Float]] {
        var x = [Float](repeating: 0, count: n)
        x[0] = 1
        return Array(repeating: x, count: channels)
    }

    /// Deterministic noise in −1 … 1.
    static func noise(_ n: Int, seed: UInt64 = 7) -> [Float] {
        var s = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        return (0 ..< n).map { _ in
            s ^= s << 13; s ^= s >> 7; s ^= s << 17
            return Float(Double(s >> 11) / Double(1 << 53) * 2 - 1)
        }
    }

}

@Suite struct AVAudioUnitReverbTests {
    static let rate = 44_100.0

    /// The impulse response (wet only) of a preset, `seconds` long.
    static func impulseResponse(_ preset: AVAudioUnitReverbPreset, seconds: Double = 1.5, rate: Double = rate) throws -> [[Float]] {
        let reverb = AVAudioUnitReverb()
        reverb.loadFactoryPreset(preset)
        reverb.wetDryMix = 100
        return try RDMetrics.render(reverb, input: RDMetrics.impulse(Int(seconds * rate)), rate: rate, maximumFrames: 4096, chunk: 4096)
    }

    @Test func presetsHaveApplesNamesAndValues() {
        let expected: [(AVAudioUnitReverbPreset, Int)] = [
            (.smallRoom, 0), (.mediumRoom, 1), (.largeRoom, 2), (.mediumHall, 3), (.largeHall, 4), (.plate, 5),
            (.mediumChamber, 6), (.largeChamber, 7), (.cathedral, 8), (.largeRoom2, 9), (.mediumHall2, 10),
            (.mediumHall3, 11), (.largeHall2, 12)]
        #expect(AVAudioUnitReverbPreset.allCases.count == 13)
        for (preset, raw) in expected {
            #expect(preset.rawValue == raw)
            #expect(AVAudioUnitReverbPreset(rawValue: raw) == preset)
        }
    }

    @Test func parameterTreeIsReverb2() throws {
        let reverb = AVAudioUnitReverb()
        let tree = try #require(reverb.auAudioUnit.parameterTree)
        let expected: [(AUParameterAddress, String, AUValue, AUValue)] = [
            (0, "dryWetMix", 0, 100), (1, "gain", -20, 20), (2, "minDelayTime", 0.0001, 1), (3, "maxDelayTime", 0.0001, 1),
            (4, "decayTimeAt0Hz", 0.001, 20), (5, "decayTimeAtNyquist", 0.001, 20), (6, "randomizeReflections", 1, 1000)]
        #expect(tree.allParameters.count == expected.count)
        for (address, identifier, lo, hi) in expected {
            let p = try #require(tree.parameter(withAddress: address))
            #expect(p.identifier == identifier)
            #expect(p.minValue == lo && p.maxValue == hi)
        }
        // Defaults: fully wet, the medium hall.
        #expect(reverb.wetDryMix == 100)
        #expect(tree.parameter(withAddress: 4)?.value == 1.9)   // the medium hall's decay at 0 Hz
        #expect(reverb.audioComponentDescription.componentSubType == kAudioUnitSubType_Reverb2)
        #expect(reverb.latency == 0)
        // wetDryMix is parameter 0, clamped to its range.
        reverb.wetDryMix = 30
        #expect(tree.parameter(withAddress: 0)?.value == 30)
        reverb.wetDryMix = 250
        #expect(reverb.wetDryMix == 100)
        // A preset sets the room parameters and keeps the mix.
        reverb.wetDryMix = 40
        reverb.loadFactoryPreset(.cathedral)
        #expect(reverb.wetDryMix == 40)
        #expect(tree.parameter(withAddress: 4)?.value == 5.5)
        #expect(tree.parameter(withAddress: 3)?.value == 0.13)
        // The generic effect initializer makes the same unit.
        let generic = AVAudioUnitEffect(audioComponentDescription: AudioComponentDescription(
            componentType: kAudioUnitType_Effect, componentSubType: kAudioUnitSubType_Reverb2,
            componentManufacturer: kAudioUnitManufacturer_Apple, componentFlags: 0, componentFlagsMask: 0))
        #expect(generic.auAudioUnit.parameterTree?.allParameters.count == 7)
    }

    /// Every preset's decay, measured: rooms shorter than halls, the cathedral longest, and each
    /// within 15 % of the table in AVAudioUnitReverbPreset's documentation (measured at 48 kHz
    /// on 6 s responses in release; here 1.5 s at 44.1 kHz with the truncation correction).
    @Test func presetDecayTimesFollowTheirNames() throws {
        var t20: [AVAudioUnitReverbPreset: Double] = [:]
        let documented: [AVAudioUnitReverbPreset: Double] = [
            .smallRoom: 0.40, .mediumRoom: 0.63, .largeRoom: 0.94, .largeRoom2: 1.22, .mediumChamber: 1.15,
            .largeChamber: 1.57, .mediumHall: 1.63, .mediumHall2: 1.82, .mediumHall3: 1.97, .largeHall: 2.38,
            .largeHall2: 2.82, .plate: 1.50, .cathedral: 4.70]
        for preset in AVAudioUnitReverbPreset.allCases {
            let ir = try Self.impulseResponse(preset)
            let t = try #require(ReverbMetrics.rt60(ir[0], rate: Self.rate, from: -5, to: -25), "\(preset)")
            t20[preset] = t
            let reference = documented[preset]!
            #expect(abs(t - reference) / reference < 0.15, "\(preset): T20 \(t) s, documented \(reference) s")
        }
        #expect(t20[.smallRoom]! < t20[.mediumRoom]!)
        #expect(t20[.mediumRoom]! < t20[.largeRoom]!)
        #expect(t20[.largeRoom]! < t20[.largeRoom2]!)
        #expect(t20[.largeRoom2]! < t20[.mediumHall]!)
        #expect(t20[.mediumHall]! < t20[.largeHall]!)
        #expect(t20[.mediumChamber]! < t20[.largeChamber]!)
        #expect(t20[.largeHall]! < t20[.largeHall2]!)
        for preset in AVAudioUnitReverbPreset.allCases where preset != .cathedral {
            #expect(t20[preset]! < t20[.cathedral]!, "\(preset) is not shorter than the cathedral")
        }
    }

    /// No metallic ringing: the tail is as dense as noise soon after the onset, its spectrum has
    /// no isolated peaks, and left and right are decorrelated.
    @Test(arguments: [AVAudioUnitReverbPreset.smallRoom, .mediumHall, .plate, .cathedral])
    func tailIsDenseSmoothAndDecorrelated(_ preset: AVAudioUnitReverbPreset) throws {
        let ir = try Self.impulseResponse(preset, seconds: 1.0)
        let ned = ReverbMetrics.echoDensity(ir[0], rate: Self.rate)
        // From 30 ms after the onset to 300 ms: noise-like on average, never sparse.
        let window = ned[30 ..< 300]
        let mean = window.reduce(0, +) / Double(window.count)
        #expect(mean > 0.9, "\(preset): mean echo density \(mean) over 30…300 ms")
        #expect(window.min()! > 0.6, "\(preset): echo density falls to \(window.min()!)")
        // Tail spectrum 100…600 ms after the onset.
        let onset = ir[0].firstIndex { abs($0) > 1e-7 }!
        let tail = Array(ir[0][(onset + Int(0.1 * Self.rate)) ..< (onset + Int(0.6 * Self.rate))])
        let rough = ReverbMetrics.spectralRoughness(tail, rate: Self.rate)
        #expect(rough.std < 3, "\(preset): smoothed tail spectrum deviates \(rough.std) dB (rms) from its trend")
        #expect(rough.max < 9, "\(preset): largest spectral peak \(rough.max) dB")
        // Left/right correlation of the tail (50 ms on).
        let c = ReverbMetrics.correlation(ir[0][Int(0.05 * Self.rate)...], ir[1][Int(0.05 * Self.rate)...])
        #expect(abs(c) < 0.3, "\(preset): interchannel correlation \(c)")
    }

    /// A wetDryMix change scheduled at sample T takes effect exactly at T: before it the output
    /// is the dry input bit for bit (mix 0), from T on it is the fully wet output of a reverb
    /// that had mix 100 all along (the network runs whatever the mix).
    @Test func scheduledWetDryMixSwitchesAtTheExactSample() throws {
        let n = 6000, T: AUEventSampleTime = 2345
        let input = [RDMetrics.noise(n, seed: 1), RDMetrics.noise(n, seed: 2)]
        let wet = AVAudioUnitReverb()
        wet.loadFactoryPreset(.smallRoom)
        wet.wetDryMix = 100
        let reference = try RDMetrics.render(wet, input: input, maximumFrames: 1024, chunk: 1024)
        let switched = AVAudioUnitReverb()
        switched.loadFactoryPreset(.smallRoom)
        switched.wetDryMix = 0
        let out = try RDMetrics.render(switched, input: input, maximumFrames: 1024, chunk: 1024) { _ in
            switched.auAudioUnit.scheduleParameterBlock(T, 0, 0, 100)
        }
        let t = Int(T)
        #expect(Array(out[0][..<t]) == Array(input[0][..<t]))
        #expect(Array(out[1][..<t]) == Array(input[1][..<t]))
        #expect(Array(out[0][t...]) == Array(reference[0][t...]))
        #expect(Array(out[1][t...]) == Array(reference[1][t...]))
        #expect(out[0][t] != input[0][t])
        #expect(switched.wetDryMix == 100)
    }

    /// The output does not depend on how the frames are split into render calls.
    @Test func outputDoesNotDependOnChunking() throws {
        let input = [RDMetrics.noise(3000, seed: 3), RDMetrics.noise(3000, seed: 4)]
        func run(_ maximum: Int, _ chunk: Int) throws -> [[Float]] {
            let r = AVAudioUnitReverb()
            r.loadFactoryPreset(.plate)
            r.wetDryMix = 70
            return try RDMetrics.render(r, input: input, maximumFrames: maximum, chunk: chunk)
        }
        let reference = try run(4096, 4096)
        for (maximum, chunk) in [(1, 1), (37, 37), (512, 300)] {
            #expect(try run(maximum, chunk) == reference, "maximumFrameCount \(maximum), chunk \(chunk)")
        }
    }

    /// Mono and more than two channels render, each channel with its own dry signal.
    @Test func monoAndMultichannel() throws {
        let mono = AVAudioUnitReverb()
        mono.wetDryMix = 50
        let m = try RDMetrics.render(mono, input: [RDMetrics.noise(2000)], maximumFrames: 512)
        #expect(m.count == 1)
        #expect(m[0].contains { $0 != 0 })
        // At mix 0 every channel is its own input, exactly.
        let dry = AVAudioUnitReverb()
        dry.wetDryMix = 0
        let layout = AVAudioChannelLayout(layoutTag: kAudioChannelLayoutTag_MPEG_5_1_A)!
        let engine = AVAudioEngine()
        let player = AVAudioPlayerNode()
        engine.attach(player)
        engine.attach(dry)
        let format = AVAudioFormat(standardFormatWithSampleRate: 48_000, channelLayout: layout)
        engine.connect(player, to: dry, format: format)
        engine.connect(dry, to: engine.mainMixerNode, format: format)
        try engine.enableManualRenderingMode(.offline, format: format, maximumFrameCount: 512)
        try engine.start()
        let signal = (0 ..< 6).map { RDMetrics.noise(1000, seed: UInt64(10 + $0)) }
        let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 1000)!
        for c in 0 ..< 6 { for i in 0 ..< 1000 { buffer.floatChannelData![c][i] = signal[c][i] } }
        buffer.frameLength = 1000
        player.scheduleBuffer(buffer)
        player.play()
        let out = try Offline.render(engine, total: 1000, chunk: 512)
        for c in 0 ..< 6 { #expect(out[c] == signal[c], "channel \(c)") }
    }
}
