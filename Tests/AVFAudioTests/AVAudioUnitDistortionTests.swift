// AVAudioUnitDistortion: Apple's API (presets, preGain, wetDryMix, the AUDistortion parameter
// tree), the latency it reports, aliasing of the oversampled waveshaper, distinct and
// deterministic presets, and sample-accurate parameter scheduling.
import Testing
import AVFoundation
import AudioAnalysis

@Suite struct AVAudioUnitDistortionTests {
    static let rate = 48_000.0
    static let latencyFrames = 30

    static func sine(_ frequency: Double, amplitude: Float, frames: Int, rate: Double = rate) -> [Float] {
        (0 ..< frames).map { amplitude * Float(sin(2 * Double.pi * frequency * Double($0) / rate)) }
    }

    static func spectrum(_ x: ArraySlice<Float>, rate: Double = rate) -> (power: [Double], df: Double) {
        Spectrum.blackmanHarris(x, sampleRate: rate)
    }

    static func aliasAndTHD(_ y: ArraySlice<Float>, fundamental f0: Double) -> (aliasDB: Double, aliasHz: Double, thd: Double) {
        DistortionMetrics.aliasAndTHD(y, sampleRate: rate, fundamental: f0)
    }

    static func distortion(_ preset: AVAudioUnitDistortionPreset? = nil, mix: Float = 100) -> AVAudioUnitDistortion {
        let d = AVAudioUnitDistortion()
        if let preset { d.loadFactoryPreset(preset) }
        d.wetDryMix = mix
        return d
    }

    /// Sets a parameter by its address.
    static func set(_ d: AVAudioUnitDistortion, _ address: AUParameterAddress, _ value: AUValue) {
        d.auAudioUnit.parameterTree!.parameter(withAddress: address)!.value = value
    }

    /// A distortion that is linear (all stages off, the clipper driven at −40 dB): the
    /// oversampling filters alone.
    static func linearDistortion() -> AVAudioUnitDistortion {
        let d = distortion(.multiDecimated1)
        for (a, v) in [(2, 0), (5, 0), (9, 0), (13, 0), (100, 10), (101, 20_000)] as [(AUParameterAddress, AUValue)] { set(d, a, v) }
        d.preGain = -40
        return d
    }

    @Test func presetsHaveApplesNamesAndValues() {
        let expected: [(AVAudioUnitDistortionPreset, Int)] = [
            (.drumsBitBrush, 0), (.drumsBufferBeats, 1), (.drumsLoFi, 2), (.multiBrokenSpeaker, 3),
            (.multiCellphoneConcert, 4), (.multiDecimated1, 5), (.multiDecimated2, 6), (.multiDecimated3, 7),
            (.multiDecimated4, 8), (.multiDistortedFunk, 9), (.multiDistortedCubed, 10), (.multiDistortedSquared, 11),
            (.multiEcho1, 12), (.multiEcho2, 13), (.multiEchoTight1, 14), (.multiEchoTight2, 15),
            (.multiEverythingIsBroken, 16), (.speechAlienChatter, 17), (.speechCosmicInterference, 18),
            (.speechGoldenPi, 19), (.speechRadioTower, 20), (.speechWaves, 21)]
        #expect(AVAudioUnitDistortionPreset.allCases.count == 22)
        for (preset, raw) in expected {
            #expect(preset.rawValue == raw)
            #expect(AVAudioUnitDistortionPreset(rawValue: raw) == preset)
        }
    }

    @Test func parameterTreeIsAUDistortion() throws {
        let d = AVAudioUnitDistortion()
        let tree = try #require(d.auAudioUnit.parameterTree)
        let expected: [(AUParameterAddress, String, AUValue, AUValue)] = [
            (0, "delay", 0.1, 500), (1, "decay", 0.1, 50), (2, "delayMix", 0, 100), (3, "decimation", 0, 100),
            (4, "rounding", 0, 100), (5, "decimationMix", 0, 100), (6, "linearTerm", 0, 1), (7, "squaredTerm", 0, 20),
            (8, "cubicTerm", 0, 20), (9, "polynomialMix", 0, 100), (10, "ringModFreq1", 0.5, 8000),
            (11, "ringModFreq2", 0.5, 8000), (12, "ringModBalance", 0, 100), (13, "ringModMix", 0, 100),
            (14, "softClipGain", -80, 20), (15, "finalMix", 0, 100), (100, "lowCut", 10, 20_000), (101, "highCut", 10, 20_000)]
        #expect(tree.allParameters.count == expected.count)
        for (address, identifier, lo, hi) in expected {
            let p = try #require(tree.parameter(withAddress: address))
            #expect(p.identifier == identifier)
            #expect(p.minValue == lo && p.maxValue == hi)
        }
        // Apple's defaults for the two properties.
        #expect(d.preGain == -6)
        #expect(d.wetDryMix == 50)
        #expect(d.audioComponentDescription.componentSubType == kAudioUnitSubType_Distortion)
        d.preGain = 12
        #expect(tree.parameter(withAddress: 14)?.value == 12)
        d.preGain = 99
        #expect(d.preGain == 20)
        d.wetDryMix = 30
        #expect(tree.parameter(withAddress: 15)?.value == 30)
        // Presets set the chain (including the pre-gain) and keep the mix.
        d.loadFactoryPreset(.multiDistortedCubed)
        #expect(d.wetDryMix == 30)
        #expect(tree.parameter(withAddress: 8)?.value == 16)
        #expect(d.preGain == 6)
        let generic = AVAudioUnitEffect(audioComponentDescription: AudioComponentDescription(
            componentType: kAudioUnitType_Effect, componentSubType: kAudioUnitSubType_Distortion,
            componentManufacturer: kAudioUnitManufacturer_Apple, componentFlags: 0, componentFlagsMask: 0))
        #expect(generic.auAudioUnit.parameterTree?.allParameters.count == 18)
    }

    /// The unit reports the oversampling filters' delay, and its impulse response (in the
    /// linear range) is centred exactly there: a symmetric, linear-phase pulse.
    @Test func latencyIsReportedAndExact() throws {
        let d = Self.linearDistortion()
        var x = [Float](repeating: 0, count: 400)
        x[100] = 1
        let y = try RDMetrics.render(d, input: [x, x], maximumFrames: 256, chunk: 256)
        #expect(abs(d.latency - Double(Self.latencyFrames) / Self.rate) < 1e-12)
        #expect(abs(d.auAudioUnit.latency - d.latency) < 1e-12)
        let peak = y[0].indices.max { abs(y[0][$0]) < abs(y[0][$1]) }!
        #expect(peak == 100 + Self.latencyFrames)
        let top = abs(y[0][peak])
        #expect(abs(top / 0.01 - 1) < 0.2, "gain at the peak \(top / 0.01)")
        for k in 1 ... 30 { #expect(abs(y[0][peak - k] - y[0][peak + k]) < 2e-3 * top, "asymmetry at ±\(k)") }
        #expect(y[1] == y[0])
        // At 50 % the dry signal is delayed by the same amount: the two add up in phase.
        let half = Self.linearDistortion()
        half.wetDryMix = 50
        let z = try RDMetrics.render(half, input: [x, x], maximumFrames: 256, chunk: 256)
        #expect(abs(z[0][peak] - (0.5 + 0.5 * y[0][peak])) < 1e-6)
        #expect(abs(z[0][100]) < 1e-6)
    }

    /// The heavy waveshaper (multiDistortedCubed: +6 dB into 16·x³ and the soft clip) on a
    /// −6 dBFS 5 kHz sine: heavily distorted, yet nothing folds back above −60 dB.
    @Test func heavyWaveshaperDoesNotAlias() throws {
        let n = 48_000
        let x = Self.sine(5000, amplitude: 0.5, frames: n)
        let y = try RDMetrics.render(Self.distortion(.multiDistortedCubed), input: [x], maximumFrames: 4096, chunk: 4096)
        let r = Self.aliasAndTHD(y[0][8192...], fundamental: 5000)
        #expect(r.thd > 15, "THD \(r.thd) %: not a heavy distortion")
        #expect(r.aliasDB < -60, "alias at \(r.aliasHz) Hz: \(r.aliasDB) dB re the fundamental")
        // The pre-gain at its maximum (+20 dB into the clipper) too.
        let drive = Self.distortion(.multiDecimated1)
        for (a, v) in [(5, 0), (13, 0), (9, 0)] as [(AUParameterAddress, AUValue)] { Self.set(drive, a, v) }
        drive.preGain = 20
        let z = try RDMetrics.render(drive, input: [x], maximumFrames: 4096, chunk: 4096)
        let q = Self.aliasAndTHD(z[0][8192...], fundamental: 5000)
        #expect(q.thd > 15, "THD \(q.thd) %")
        #expect(q.aliasDB < -60, "alias at \(q.aliasHz) Hz: \(q.aliasDB) dB re the fundamental")
    }

    /// Every preset changes the same input in its own way: a spectrogram distance (1/3-octave
    /// levels in six 85 ms frames, dB) between any two presets' outputs is large; and rendering
    /// twice gives identical samples.
    @Test func presetsAreDistinctAndDeterministic() throws {
        let n = 24_576
        // A 100 ms burst (a 220 Hz chord with harmonics and a little noise), then silence, so
        // echoes and tails show in the later frames.
        let noise = RDMetrics.noise(n, seed: 5)
        let burst: [Float] = (0 ..< n).map { i in
            guard i < 4800 else { return 0 }
            let t = Double(i) / Self.rate
            var v = 0.0
            for (f, a) in [(220.0, 0.25), (277.2, 0.15), (329.6, 0.15), (660.0, 0.08), (1320.0, 0.05)] { v += a * sin(2 * .pi * f * t) }
            return Float(v) + 0.05 * noise[i]
        }
        func features(_ y: [Float]) -> [Double] {
            var f: [Double] = []
            for frame in 0 ..< 6 {
                let seg = y[(frame * 4096) ..< ((frame + 1) * 4096)]
                let (p, df) = Self.spectrum(seg)
                var lo = 63.0
                while lo < 16_000 {
                    let hi = lo * pow(2, 1.0 / 3)
                    let e = p[Int(lo / df) ..< Int(hi / df)].reduce(0, +)
                    f.append(max(10 * log10(e + 1e-30), -40))   // floor: −40 dB re a full-scale bin
                    lo = hi
                }
            }
            return f
        }
        var all: [(AVAudioUnitDistortionPreset, [Double])] = []
        for preset in AVAudioUnitDistortionPreset.allCases {
            let y = try RDMetrics.render(Self.distortion(preset), input: [burst], maximumFrames: 4096, chunk: 4096)
            #expect(y[0].allSatisfy { $0.isFinite }, "\(preset)")
            let again = try RDMetrics.render(Self.distortion(preset), input: [burst], maximumFrames: 1024, chunk: 1000)
            #expect(again[0] == y[0], "\(preset) is not deterministic")
            all.append((preset, features(y[0])))
        }
        let dry = features(burst)
        for (preset, f) in all {
            let d = (zip(f, dry).map { ($0 - $1) * ($0 - $1) }.reduce(0, +) / Double(f.count)).squareRoot()
            #expect(d > 3, "\(preset) is too close to the dry input: \(d) dB")
        }
        for i in all.indices {
            for j in all.indices where j > i {
                let (a, fa) = all[i], (b, fb) = all[j]
                let d = (zip(fa, fb).map { ($0 - $1) * ($0 - $1) }.reduce(0, +) / Double(fa.count)).squareRoot()
                #expect(d > 2, "\(a) and \(b) are too alike: \(d) dB")
            }
        }
    }

    /// A wetDryMix change scheduled at sample T takes effect exactly at T: before it the output
    /// is the input delayed by the latency, bit for bit (mix 0); from T on it is the output of a
    /// unit that had mix 100 all along.
    @Test func scheduledWetDryMixSwitchesAtTheExactSample() throws {
        let n = 5000, T: AUEventSampleTime = 1777
        let input = [RDMetrics.noise(n, seed: 8).map { $0 * 0.5 }, RDMetrics.noise(n, seed: 9).map { $0 * 0.5 }]
        let reference = try RDMetrics.render(Self.distortion(.multiEverythingIsBroken, mix: 100), input: input,
                                             maximumFrames: 1024, chunk: 1024)
        let switched = Self.distortion(.multiEverythingIsBroken, mix: 0)
        let out = try RDMetrics.render(switched, input: input, maximumFrames: 1024, chunk: 1024) { _ in
            switched.auAudioUnit.scheduleParameterBlock(T, 0, 15, 100)
        }
        let t = Int(T), l = Self.latencyFrames
        for c in 0 ..< 2 {
            #expect(out[c][..<l].allSatisfy { $0 == 0 })
            #expect(Array(out[c][l ..< t]) == Array(input[c][..<(t - l)]))
            #expect(Array(out[c][t...]) == Array(reference[c][t...]))
        }
        #expect(out[0][t] != input[0][t - l])
    }

    /// A preGain change scheduled at sample T: the output before T is that of the unchanged
    /// unit, bit for bit (the filters are causal: input at T reaches the output from T on), and
    /// once the filters have settled the output is that of a unit at the new gain.
    @Test func scheduledPreGainTakesEffectAtTheExactSample() throws {
        let n = 4000, T: AUEventSampleTime = 1500
        let x = Self.sine(440, amplitude: 0.5, frames: n)
        let before = try RDMetrics.render(Self.distortion(.multiDistortedCubed), input: [x], maximumFrames: 512, chunk: 512)
        let lower = Self.distortion(.multiDistortedCubed)
        lower.preGain = -20
        let after = try RDMetrics.render(lower, input: [x], maximumFrames: 512, chunk: 512)
        let d = Self.distortion(.multiDistortedCubed)
        let out = try RDMetrics.render(d, input: [x], maximumFrames: 512, chunk: 512) { _ in
            d.auAudioUnit.scheduleParameterBlock(T, 0, 14, -20)
        }
        let t = Int(T)
        #expect(Array(out[0][..<t]) == Array(before[0][..<t]))
        #expect(out[0][t + 2 * Self.latencyFrames] != before[0][t + 2 * Self.latencyFrames])
        // Settled: equal to the unit that had −20 dB all along, to rounding.
        let settled = (t + 2000) ..< n
        #expect(settled.allSatisfy { abs(out[0][$0] - after[0][$0]) < 1e-5 })
        #expect(d.preGain == -20)
    }

    /// The output does not depend on how the frames are split into render calls.
    @Test func outputDoesNotDependOnChunking() throws {
        let input = [RDMetrics.noise(3000, seed: 3).map { $0 * 0.6 }, Self.sine(300, amplitude: 0.5, frames: 3000)]
        func run(_ maximum: Int, _ chunk: Int) throws -> [[Float]] {
            try RDMetrics.render(Self.distortion(.multiEverythingIsBroken, mix: 80), input: input, maximumFrames: maximum, chunk: chunk)
        }
        let reference = try run(4096, 4096)
        for (maximum, chunk) in [(1, 1), (37, 37), (512, 300)] {
            #expect(try run(maximum, chunk) == reference, "maximumFrameCount \(maximum), chunk \(chunk)")
        }
    }
}
