// AVAudioUnitEQ through the public API, rendered offline: each filter type's magnitude response
// against an independent Float64 evaluation of its analog prototype (bilinear-transformed, i.e.
// evaluated at s = j·tan(ω/2)/tan(ω0/2)), bypasses, global gain, clamping, smoothness under
// parameter changes, sample-exact scheduling, and the Float64 accuracy of a 10-band cascade.
// Also AVAudioUnitComponentManager's catalogue.
import Foundation
import Testing
import AVFAudio
import AudioAnalysis

/// A complex number, just enough to evaluate transfer functions.
struct EQDelayComplex {
    var re: Double, im: Double
    init(_ re: Double, _ im: Double = 0) { self.re = re; self.im = im }
    static func + (a: EQDelayComplex, b: EQDelayComplex) -> EQDelayComplex { EQDelayComplex(a.re + b.re, a.im + b.im) }
    static func * (a: EQDelayComplex, b: EQDelayComplex) -> EQDelayComplex { EQDelayComplex(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re) }
    static func * (a: Double, b: EQDelayComplex) -> EQDelayComplex { EQDelayComplex(a * b.re, a * b.im) }
    static func / (a: EQDelayComplex, b: EQDelayComplex) -> EQDelayComplex {
        let d = b.re * b.re + b.im * b.im
        return EQDelayComplex((a.re * b.re + a.im * b.im) / d, (a.im * b.re - a.re * b.im) / d)
    }
    var magnitude: Double { (re * re + im * im).squareRoot() }
}

enum EQDelayTest {
    /// Renders `signal` (one array per channel, played by a player) through `effect` into the
    /// main mixer, offline, `total` frames in `chunk`-frame calls. `during` runs after start.
    static func render(_ effect: AVAudioNode, _ signal: [[Float]], rate: Double = 48_000, total: Int? = nil, chunk: Int = 512,
                       during: ((AVAudioEngine) -> Void)? = nil, eachChunk: ((Int) -> Void)? = nil) throws -> [[Float]] {
        let engine = AVAudioEngine()
        let player = AVAudioPlayerNode()
        engine.attach(player)
        engine.attach(effect)
        let format = Offline.standard(rate, AVAudioChannelCount(signal.count))
        engine.connect(player, to: effect, format: format)
        engine.connect(effect, to: engine.mainMixerNode, format: format)
        try engine.enableManualRenderingMode(.offline, format: Offline.standard(rate, AVAudioChannelCount(signal.count)), maximumFrameCount: 4096)
        try engine.start()
        player.scheduleBuffer(Offline.buffer(signal, rate: rate))
        player.play()
        during?(engine)
        let n = total ?? signal[0].count
        if let eachChunk {
            var out = Array(repeating: [Float](), count: signal.count)
            var done = 0
            while done < n {
                eachChunk(done)
                let part = try Offline.render(engine, total: min(chunk, n - done), chunk: chunk)
                for c in 0 ..< out.count { out[c] += part[c] }
                done += min(chunk, n - done)
            }
            return out
        }
        return try Offline.render(engine, total: n, chunk: chunk)
    }

    static func impulse(_ n: Int, at: Int = 0, channels: Int = 2) -> [[Float]] {
        var x = [Float](repeating: 0, count: n)
        x[at] = 1
        return Array(repeating: x, count: channels)
    }

    static func dtftMagnitude(_ h: ArraySlice<Float>, frequency f: Double, rate: Double) -> Double {
        Spectrum.dtftMagnitude(h, frequency: f, sampleRate: rate)
    }

    /// 20 Hz … 20 kHz, logarithmically spaced.
    static func logFrequencies(_ count: Int) -> [Double] {
        (0 ..< count).map { 20 * pow(1000, Double($0) / Double(count - 1)) }
    }

    static func db(_ x: Double) -> Double { 20 * log10(x) }

    /// Deterministic white noise in ±amplitude.
    static func noise(_ n: Int, seed: UInt64, amplitude: Float = 0.5) -> [Float] {
        var s = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        return (0 ..< n).map { _ in
            s ^= s << 13; s ^= s >> 7; s ^= s << 17
            return (Float(s >> 40) / Float(1 << 24) * 2 - 1) * amplitude
        }
    }

    static func sine(_ n: Int, frequency: Double, rate: Double, amplitude: Double = 0.5) -> [Float] {
        (0 ..< n).map { Float(amplitude * sin(2 * Double.pi * frequency * Double($0) / rate)) }
    }
}

@Suite struct AVAudioUnitEQTests {
    /// The analytic response of a cookbook filter: its analog prototype at s = j·tan(ω/2)/tan(ω0/2).
    static func analytic(_ type: AVAudioUnitEQFilterType, f0: Double, gain: Double, bandwidth: Double, rate: Double, f: Double) -> Double {
        let w0 = 2 * Double.pi * f0 / rate, w = 2 * Double.pi * f / rate
        let s = EQDelayComplex(0, tan(w / 2) / tan(w0 / 2))
        let s2 = s * s
        let A = pow(10, gain / 40)
        let qBW = 1 / (2 * sinh(log(2) / 2 * bandwidth * w0 / sin(w0)))
        let qButterworth = 1 / 2.squareRoot()
        let one = EQDelayComplex(1)
        func lp(_ q: Double) -> EQDelayComplex { one / (s2 + (1 / q) * s + one) }
        func hp(_ q: Double) -> EQDelayComplex { s2 / (s2 + (1 / q) * s + one) }
        func lowShelf(_ q: Double) -> EQDelayComplex { A * ((s2 + (A.squareRoot() / q) * s + EQDelayComplex(A)) / (A * s2 + (A.squareRoot() / q) * s + one)) }
        func highShelf(_ q: Double) -> EQDelayComplex { A * ((A * s2 + (A.squareRoot() / q) * s + one) / (s2 + (A.squareRoot() / q) * s + EQDelayComplex(A))) }
        let h: EQDelayComplex
        switch type {
        case .parametric: h = (s2 + (A / qBW) * s + one) / (s2 + (1 / (A * qBW)) * s + one)
        case .lowPass: h = lp(qButterworth)
        case .highPass: h = hp(qButterworth)
        case .resonantLowPass: h = lp(qBW)
        case .resonantHighPass: h = hp(qBW)
        case .bandPass: h = ((1 / qBW) * s) / (s2 + (1 / qBW) * s + one)
        case .bandStop: h = (s2 + one) / (s2 + (1 / qBW) * s + one)
        case .lowShelf: h = lowShelf(qButterworth)
        case .highShelf: h = highShelf(qButterworth)
        case .resonantLowShelf: h = lowShelf(qBW)
        case .resonantHighShelf: h = highShelf(qBW)
        }
        return h.magnitude
    }

    struct Case: CustomStringConvertible {
        let type: AVAudioUnitEQFilterType
        let frequency: Float, gain: Float, bandwidth: Float
        var description: String { "\(type) \(frequency) Hz \(gain) dB \(bandwidth) oct" }
    }

    static let cases: [Case] = [
        Case(type: .parametric, frequency: 1000, gain: 9, bandwidth: 1),
        Case(type: .parametric, frequency: 100, gain: -12, bandwidth: 0.3),
        Case(type: .lowPass, frequency: 2000, gain: 0, bandwidth: 0.5),
        Case(type: .highPass, frequency: 200, gain: 0, bandwidth: 0.5),
        Case(type: .resonantLowPass, frequency: 1500, gain: 0, bandwidth: 0.4),
        Case(type: .resonantHighPass, frequency: 300, gain: 0, bandwidth: 0.5),
        Case(type: .bandPass, frequency: 1000, gain: 0, bandwidth: 1.5),
        Case(type: .bandStop, frequency: 3000, gain: 0, bandwidth: 0.8),
        Case(type: .lowShelf, frequency: 80, gain: 6, bandwidth: 0.5),
        Case(type: .highShelf, frequency: 8000, gain: -9, bandwidth: 0.5),
        Case(type: .resonantLowShelf, frequency: 300, gain: 8, bandwidth: 0.7),
        Case(type: .resonantHighShelf, frequency: 5000, gain: -6, bandwidth: 1.2),
    ]

    /// Every filter type's impulse response, transformed at 61 frequencies over 20 Hz … 20 kHz,
    /// matches the analytic magnitude within 0.1 dB (where the response is above −80 dB).
    @Test(arguments: [44_100.0, 48_000.0])
    func everyFilterTypeMatchesItsAnalyticResponse(rate: Double) throws {
        let n = 16_384
        var report: [String] = []
        for c in Self.cases {
            let eq = AVAudioUnitEQ(numberOfBands: 1)
            let band = eq.bands[0]
            band.filterType = c.type
            band.frequency = c.frequency
            band.gain = c.gain
            band.bandwidth = c.bandwidth
            band.bypass = false
            let out = try EQDelayTest.render(eq, EQDelayTest.impulse(n), rate: rate, chunk: 4096)
            #expect(out[0] == out[1], "\(c): channels differ")
            var worst = 0.0, worstAt = 0.0
            for f in EQDelayTest.logFrequencies(61) + [Double(c.frequency)] {
                let expected = Self.analytic(c.type, f0: Double(c.frequency), gain: Double(c.gain), bandwidth: Double(c.bandwidth), rate: rate, f: f)
                guard EQDelayTest.db(expected) > -80 else { continue }
                let measured = EQDelayTest.dtftMagnitude(out[0][...], frequency: f, rate: rate)
                let error = abs(EQDelayTest.db(measured) - EQDelayTest.db(expected))
                if error > worst { worst = error; worstAt = f }
            }
            report.append("\(c): max error \(String(format: "%.2e", worst)) dB at \(Int(worstAt)) Hz")
            #expect(worst < 0.1, "\(c) at \(rate) Hz: \(worst) dB off the analytic response at \(worstAt) Hz")
        }
        print("EQ analytic response @\(Int(rate)) Hz:\n  " + report.joined(separator: "\n  "))
    }

    @Test func defaultsRangesAndParameterTree() throws {
        let eq = AVAudioUnitEQ(numberOfBands: 3)
        #expect(eq.bands.count == 3)
        #expect(eq.globalGain == 0)
        for b in eq.bands {
            #expect(b.filterType == .parametric)
            #expect(b.bypass == true)
            #expect(b.gain == 0)
            #expect(b.bandwidth == 0.5)
            #expect(b.frequency == 1000)
        }
        let b = eq.bands[1]
        b.gain = 100; #expect(b.gain == 24)
        b.gain = -200; #expect(b.gain == -96)
        b.bandwidth = 0.001; #expect(b.bandwidth == 0.05)
        b.bandwidth = 9; #expect(b.bandwidth == 5)
        b.frequency = 1; #expect(b.frequency == 20)
        b.frequency = 1e6; #expect(b.frequency == 22_050)    // Nyquist of the unattached unit's 44.1 kHz format
        eq.globalGain = 40; #expect(eq.globalGain == 24)
        eq.globalGain = -100; #expect(eq.globalGain == -96)

        // The same values through the parameter tree, at Apple's addresses.
        let tree = try #require(eq.auAudioUnit.parameterTree)
        #expect(tree.allParameters.count == 1 + 5 * 3)
        #expect(tree.parameter(withAddress: 0)?.value == -96)
        #expect(tree.parameter(withAddress: 4001)?.value == -96)
        #expect(tree.parameter(withAddress: 5001)?.value == 5)
        tree.parameter(withAddress: 2002)?.value = 8
        #expect(eq.bands[2].filterType == .highShelf)
        tree.parameter(withAddress: 1002)?.value = 0
        #expect(eq.bands[2].bypass == false)
        tree.parameter(withAddress: 3002)?.value = 440
        #expect(eq.bands[2].frequency == 440)
        #expect(eq.latency == 0)
        #expect(eq.auAudioUnit.latency == 0)
        #expect(eq.name == "AUNBandEQ")
        #expect(eq.audioComponentDescription.componentSubType == kAudioUnitSubType_NBandEQ)

        // And as a generic effect made from its component description.
        let generic = AVAudioUnitEffect(audioComponentDescription: eq.audioComponentDescription)
        #expect(generic.auAudioUnit.parameterTree?.parameter(withAddress: 5015) != nil)
    }

    /// Bypassed bands at 0 dB global gain, and the unit's own bypass, pass audio bit for bit;
    /// the global gain scales it.
    @Test func bypassesAndGlobalGain() throws {
        let x = [EQDelayTest.noise(3000, seed: 1), EQDelayTest.noise(3000, seed: 2)]
        let eq = AVAudioUnitEQ(numberOfBands: 4)
        #expect(try EQDelayTest.render(eq, x) == x)

        let active = AVAudioUnitEQ(numberOfBands: 2)
        for b in active.bands { b.bypass = false; b.gain = 12; b.frequency = 1000 }
        let filtered = try EQDelayTest.render(active, x)
        #expect(filtered != x)
        let bypassed = AVAudioUnitEQ(numberOfBands: 2)
        for b in bypassed.bands { b.bypass = false; b.gain = 12; b.frequency = 1000 }
        bypassed.bypass = true
        #expect(try EQDelayTest.render(bypassed, x) == x)

        // One band bypassed of two equals the other band alone.
        let one = AVAudioUnitEQ(numberOfBands: 2)
        one.bands[0].bypass = false; one.bands[0].gain = 12; one.bands[0].frequency = 1000
        one.bands[1].gain = -12; one.bands[1].frequency = 300   // stays bypassed
        let single = AVAudioUnitEQ(numberOfBands: 1)
        single.bands[0].bypass = false; single.bands[0].gain = 12; single.bands[0].frequency = 1000
        #expect(try EQDelayTest.render(one, x) == EQDelayTest.render(single, x))

        let gained = AVAudioUnitEQ(numberOfBands: 1)
        gained.globalGain = -6
        let y = try EQDelayTest.render(gained, x)
        let g = pow(10, -6.0 / 20)
        var worst: Double = 0
        for c in 0 ..< 2 { for i in 0 ..< 3000 { worst = max(worst, abs(Double(y[c][i]) - g * Double(x[c][i]))) } }
        #expect(worst < 1e-7)
    }

    /// The 10-band EQ of the peer benchmark (low shelf 80 Hz, 8 peaks, high shelf 14 kHz, all
    /// with Qs: resonant shelves and peaks with bandwidths converted from the Qs) nulls against a Float64 cascade of the same
    /// cookbook biquads computed here far below the −82 dB of Float32 direct-form peers.
    @Test func tenBandCascadeIsFloat64Accurate() throws {
        let rate = 48_000.0
        let spec: [(AVAudioUnitEQFilterType, Double, Double, Double)] = [
            (.resonantLowShelf, 80, 3, 0.707), (.parametric, 125, -4, 1), (.parametric, 250, 2, 1), (.parametric, 500, -3, 1.4),
            (.parametric, 1000, 4, 1), (.parametric, 2000, -2, 2), (.parametric, 4000, 3, 1), (.parametric, 6000, -4, 1),
            (.parametric, 10000, 2, 0.7), (.resonantHighShelf, 14000, -3, 0.707)]
        let eq = AVAudioUnitEQ(numberOfBands: 10)
        for (b, s) in zip(eq.bands, spec) {
            b.filterType = s.0; b.frequency = Float(s.1); b.gain = Float(s.2); b.bypass = false
            let w0 = 2 * Double.pi * s.1 / rate
            b.bandwidth = Float(2 / log(2) * asinh(1 / (2 * s.3)) * sin(w0) / w0)
        }
        let n = 24_000
        let x = [EQDelayTest.noise(n, seed: 7), EQDelayTest.noise(n, seed: 8)]
        let y = try EQDelayTest.render(eq, x, rate: rate, chunk: 4096)
        // Reference: direct form I in Float64, coefficients from Q as the cookbook (and the
        // peers' script) gives them; the unit's resonant shelves take Q from the bandwidth.
        var error = 0.0, signal = 0.0
        for c in 0 ..< 2 {
            var v = x[c].map(Double.init)
            for (kind, f, g, q) in spec {
                let A = pow(10, g / 40), w0 = 2 * Double.pi * f / rate, cs = cos(w0)
                let alpha = sin(w0) / (2 * q)
                var b: [Double], a: [Double]
                switch kind {
                case .resonantLowShelf:
                    let sq = 2 * A.squareRoot() * alpha
                    b = [A * ((A + 1) - (A - 1) * cs + sq), 2 * A * ((A - 1) - (A + 1) * cs), A * ((A + 1) - (A - 1) * cs - sq)]
                    a = [(A + 1) + (A - 1) * cs + sq, -2 * ((A - 1) + (A + 1) * cs), (A + 1) + (A - 1) * cs - sq]
                case .resonantHighShelf:
                    let sq = 2 * A.squareRoot() * alpha
                    b = [A * ((A + 1) + (A - 1) * cs + sq), -2 * A * ((A - 1) + (A + 1) * cs), A * ((A + 1) + (A - 1) * cs - sq)]
                    a = [(A + 1) - (A - 1) * cs + sq, 2 * ((A - 1) - (A + 1) * cs), (A + 1) - (A - 1) * cs - sq]
                default:
                    b = [1 + alpha * A, -2 * cs, 1 - alpha * A]
                    a = [1 + alpha / A, -2 * cs, 1 - alpha / A]
                }
                var x1 = 0.0, x2 = 0.0, y1 = 0.0, y2 = 0.0
                for i in 0 ..< n {
                    let xi = v[i]
                    let yi = (b[0] * xi + b[1] * x1 + b[2] * x2 - a[1] * y1 - a[2] * y2) / a[0]
                    x2 = x1; x1 = xi; y2 = y1; y1 = yi
                    v[i] = yi
                }
            }
            for i in 0 ..< n {
                error += (Double(y[c][i]) - v[i]) * (Double(y[c][i]) - v[i])
                signal += v[i] * v[i]
            }
        }
        let nullDB = 10 * log10(error / signal)
        print("10-band EQ null vs Float64 reference: \(String(format: "%.1f", nullDB)) dB")
        #expect(nullDB < -120)
    }

    /// A gain sweep while a sine plays (a 997 Hz sine — not at a zero crossing when the gain
    /// changes — in a 200 Hz high shelf stepping −12 → +12 dB in 4 dB steps): every change glides, so the output's second difference stays at the
    /// sine's own (ω²·amplitude) — while the same changes applied within one sample (ramp 1
    /// through scheduleParameterBlock) leave steps many times that.
    @Test func gainSweepHasNoZipperNoise() throws {
        let rate = 48_000.0, n = 9600, chunk = 1200
        let x = [EQDelayTest.sine(n, frequency: 997, rate: rate, amplitude: 0.25)]
        func sweep(abruptly: Bool) throws -> [Float] {
            let eq = AVAudioUnitEQ(numberOfBands: 1)
            let band = eq.bands[0]
            band.bypass = false; band.filterType = .highShelf; band.frequency = 200; band.gain = -12
            let schedule = eq.auAudioUnit.scheduleParameterBlock
            let out = try EQDelayTest.render(eq, x, rate: rate, total: n, chunk: chunk, eachChunk: { done in
                guard done > 0 else { return }
                let g = Float(min(12, -12 + 4 * done / chunk))
                if abruptly { schedule(AUEventSampleTimeImmediate, 1, 4000, g) } else { band.gain = g }
            })
            return out[0]
        }
        func worstSecondDifference(_ y: [Float]) -> Double {
            var worst = 0.0
            for i in 1000 ..< y.count { worst = max(worst, abs(Double(y[i]) - 2 * Double(y[i - 1]) + Double(y[i - 2]))) }
            return worst
        }
        let smooth = try sweep(abruptly: false), abrupt = try sweep(abruptly: true)
        let peak = Double(smooth[1000...].map { abs($0) }.max()!)
        let w = 2 * Double.pi * 997 / rate
        let sine = w * w * peak                     // a pure sine's largest second difference
        let s = worstSecondDifference(smooth), a = worstSecondDifference(abrupt)
        print("gain sweep: max |Δ²y| smooth \(s), abrupt \(a), the sine's own \(sine)")
        #expect(s < 1.3 * sine)
        #expect(a > 5 * sine)
    }

    /// A change scheduled at sample T leaves every sample before T untouched and starts at T.
    @Test func scheduledChangeStartsAtItsSample() throws {
        let x = [EQDelayTest.noise(4096, seed: 3)]
        func run(_ schedule: Bool) throws -> [Float] {
            let eq = AVAudioUnitEQ(numberOfBands: 1)
            eq.bands[0].bypass = false; eq.bands[0].gain = 0; eq.bands[0].frequency = 2000
            return try EQDelayTest.render(eq, x, chunk: 512, during: { _ in
                if schedule { eq.auAudioUnit.scheduleParameterBlock(1234, 0, 4000, 18) }
            })[0]
        }
        let plain = try run(false), changed = try run(true)
        #expect(Array(plain[..<1234]) == Array(changed[..<1234]))
        #expect(plain[1234] != changed[1234])
    }
}

@Suite struct AVAudioUnitComponentManagerTests {
    @Test func listsTheBuiltInUnits() throws {
        let manager = AVAudioUnitComponentManager.shared()
        #expect(manager === AVAudioUnitComponentManager.shared())
        let all = manager.components(matching: AudioComponentDescription())
        #expect(all.map(\.name) == ["AUNBandEQ", "AUDelay", "AUDistortion", "AUReverb2", "AUNewTimePitch", "AUVarispeed"])
        let effects = manager.components(matching: AudioComponentDescription(componentType: kAudioUnitType_Effect, componentSubType: 0,
                                                                             componentManufacturer: 0, componentFlags: 0, componentFlagsMask: 0))
        #expect(effects.count == 4)
        #expect(effects.allSatisfy { $0.typeName == AVAudioUnitTypeEffect })
        let converters = manager.components(matching: AudioComponentDescription(componentType: kAudioUnitType_FormatConverter, componentSubType: 0,
                                                                                componentManufacturer: kAudioUnitManufacturer_Apple, componentFlags: 0, componentFlagsMask: 0))
        #expect(converters.map(\.audioComponentDescription.componentSubType) == [kAudioUnitSubType_NewTimePitch, kAudioUnitSubType_Varispeed])

        let eq = try #require(manager.components(matching: AVAudioUnitEQ().audioComponentDescription).first)
        #expect(eq.name == "AUNBandEQ")
        #expect(eq.manufacturerName == AVAudioUnitManufacturerNameApple)
        #expect(eq.typeName == "Effect")
        #expect(eq.localizedTypeName == "Effect")
        #expect(eq.hasCustomView == false)
        #expect(eq.version == 0x0001_0000 && eq.versionString == "1.0.0")
        #expect(eq.allTagNames.contains("EQ"))
        #expect(eq.supportsNumberInputChannels(2, outputChannels: 2))
        #expect(!eq.supportsNumberInputChannels(1, outputChannels: 2))
        #expect(manager.components(matching: AudioComponentDescription(componentType: kAudioUnitType_Effect, componentSubType: 0x7A7A_7A7A,
                                                                       componentManufacturer: 0, componentFlags: 0, componentFlagsMask: 0)).isEmpty)

        var visited = 0
        let delays = manager.components(passingTest: { c, stop in
            visited += 1
            if c.allTagNames.contains("Delay") { stop.pointee = true; return true }
            return false
        })
        #expect(delays.map(\.name) == ["AUDelay"])
        #expect(visited == 2)
        #expect(manager.components(matching: NSPredicate { c, _ in (c as? AVAudioUnitComponent)?.typeName == AVAudioUnitTypeFormatConverter }).count == 2)
        #expect(Set(["EQ", "Delay", "Distortion", "Reverb", "Pitch"]).isSubset(of: Set(manager.tagNames)))
        #expect(manager.standardLocalizedTagNames.contains("Reverb"))

        // Every listed unit can be made from its description, with its parameters.
        for c in all {
            let d = c.audioComponentDescription
            let unit: AVAudioUnit = d.componentType == kAudioUnitType_Effect
                ? AVAudioUnitEffect(audioComponentDescription: d) : AVAudioUnitTimeEffect(audioComponentDescription: d)
            #expect(unit.auAudioUnit.parameterTree?.allParameters.isEmpty == false, "\(c.name)")
        }
    }
}
