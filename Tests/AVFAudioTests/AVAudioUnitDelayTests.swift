// AVAudioUnitDelay through the public API, rendered offline and measured from impulse
// responses: echo time (integer and fractional), feedback decay and sign, the low-pass's shaping
// of each echo against its analytic response, wet/dry mix, sample-exact scheduling, defaults.
import Foundation
import Testing
import AVFAudio

@Suite struct AVAudioUnitDelayTests {
    static let rate = 48_000.0

    /// A delay rendered at 48 kHz with the low-pass open (cutoff = Nyquist: the identity).
    static func delay(time: Double, feedback: Float, cutoff: Float = 24_000, mix: Float = 100) -> AVAudioUnitDelay {
        let d = AVAudioUnitDelay()
        d.delayTime = time
        d.feedback = feedback
        d.wetDryMix = mix
        // Through the parameter (range up to 96 kHz): `lowPassCutoff` would clamp to Nyquist of
        // the unattached unit's 44.1 kHz format. At or above the render rate's Nyquist the
        // low-pass is the identity.
        d.auAudioUnit.parameterTree?.parameter(withAddress: 3)?.value = cutoff
        return d
    }

    /// Renders an impulse at `at` through `unit`, stereo, returns channel 0 (and checks channel 1 equals it).
    static func impulseResponse(_ unit: AVAudioUnitDelay, frames: Int, at: Int = 100) throws -> [Float] {
        let out = try EQDelayTest.render(unit, EQDelayTest.impulse(frames, at: at), rate: rate, chunk: 1024)
        #expect(out[0] == out[1])
        return out[0]
    }

    @Test func defaultsAndRanges() throws {
        let d = AVAudioUnitDelay()
        #expect(d.delayTime == 1)
        #expect(d.feedback == 50)
        #expect(d.lowPassCutoff == 15_000)
        #expect(d.wetDryMix == 100)
        d.delayTime = 5; #expect(d.delayTime == 2)
        d.delayTime = -1; #expect(d.delayTime == 0)
        d.feedback = 150; #expect(d.feedback == 100)
        d.feedback = -150; #expect(d.feedback == -100)
        d.wetDryMix = -5; #expect(d.wetDryMix == 0)
        d.wetDryMix = 500; #expect(d.wetDryMix == 100)
        d.lowPassCutoff = 1; #expect(d.lowPassCutoff == 10)
        d.lowPassCutoff = 1e6; #expect(d.lowPassCutoff == 22_050)
        let tree = try #require(d.auAudioUnit.parameterTree)
        #expect(tree.allParameters.map(\.address).sorted() == [0, 1, 2, 3])   // wet/dry, time, feedback, cutoff
        tree.parameter(withAddress: 1)?.value = 0.25
        #expect(d.delayTime == 0.25)
        #expect(d.latency == 0 && d.auAudioUnit.latency == 0)
        #expect(d.name == "AUDelay")
        d.feedback = 50; d.delayTime = 1
        #expect(abs(d.auAudioUnit.tailTime - (1 + 3 / log10(2))) < 1e-6)    // echoes down 60 dB
        let generic = AVAudioUnitEffect(audioComponentDescription: d.audioComponentDescription)
        #expect(generic.auAudioUnit.parameterTree?.allParameters.count == 4)
        #expect(generic.auAudioUnit.parameterTree?.parameter(withAddress: 0)?.value == 50)   // the AU's own default
    }

    /// With no feedback and the low-pass open, the output is the input delayed by exactly
    /// delayTime: an integer number of samples lands on one sample.
    @Test func echoLandsExactlyAtDelayTime() throws {
        let h = try Self.impulseResponse(Self.delay(time: 0.01, feedback: 0), frames: 2000)
        var expected = [Float](repeating: 0, count: 2000)
        expected[100 + 480] = 1
        #expect(h == expected)
    }

    /// A fractional delay is interpolated: the echo's centroid is the delay to 1e-4 samples and
    /// its four taps carry it all.
    @Test func fractionalDelayIsInterpolated() throws {
        for samples in [480.25, 1000.5, 2.75, 1.5] {
            let time = samples / Self.rate
            let d = Self.delay(time: time, feedback: 0)
            let exact = Double(Float(time)) * Self.rate        // what the Float32 parameter holds
            let h = try Self.impulseResponse(d, frames: 1400 + Int(samples))
            var sum = 0.0, moment = 0.0
            for (i, v) in h.enumerated() { sum += Double(v); moment += Double(v) * Double(i - 100) }
            let centroid = moment / sum
            print("fractional delay \(samples): echo centroid \(centroid), error \(centroid - exact) samples")
            #expect(abs(sum - 1) < 1e-6)
            #expect(abs(centroid - exact) < 1e-4, "delay \(samples): centroid \(centroid)")
            let base = 100 + Int(samples)
            let outside = h.enumerated().filter { $0.offset < base - 2 || $0.offset > base + 2 }.map { abs($0.element) }.max() ?? 0
            #expect(outside == 0)
        }
    }

    /// Echo k lands at k·D with amplitude feedback^(k−1) (sign alternating for negative feedback).
    @Test(arguments: [50 as Float, -50, 90])
    func feedbackDecaysAtItsRate(feedback: Float) throws {
        let D = 240
        let h = try Self.impulseResponse(Self.delay(time: Double(D) / Self.rate, feedback: feedback), frames: 100 + 10 * D + 10)
        var worst = 0.0
        for k in 1 ... 10 {
            let expected = pow(Double(Float(feedback)) / 100, Double(k - 1))
            worst = max(worst, abs(Double(h[100 + k * D]) - expected))
            // Nothing between the echoes.
            #expect(h[(100 + (k - 1) * D + 1) ..< (100 + k * D)].allSatisfy { $0 == 0 })
        }
        print("feedback \(feedback)%: echoes 1…10 off fb^(k−1) by at most \(worst)")
        #expect(worst < 1e-6)
    }

    /// The low-pass shapes each echo: echo 1 is LP, echo 2 is fb·LP² — checked against the
    /// analytic first-order Butterworth 1/(1 + j·tan(ω/2)/tan(ωc/2)) at 20 Hz … 20 kHz.
    @Test func lowPassShapesTheEchoes() throws {
        let D = 960, cutoff = 2000.0
        let h = try Self.impulseResponse(Self.delay(time: Double(D) / Self.rate, feedback: 50, cutoff: Float(cutoff)), frames: 100 + 3 * D)
        var worst = 0.0
        for f in EQDelayTest.logFrequencies(41) {
            let w = 2 * Double.pi * f / Self.rate, wc = 2 * Double.pi * cutoff / Self.rate
            let lp = EQDelayComplex(1) / EQDelayComplex(1, tan(w / 2) / tan(wc / 2))
            let e1 = EQDelayTest.dtftMagnitude(h[(100 + D) ..< (100 + 2 * D)], frequency: f, rate: Self.rate)
            let e2 = EQDelayTest.dtftMagnitude(h[(100 + 2 * D) ..< (100 + 3 * D)], frequency: f, rate: Self.rate)
            let a1 = lp.magnitude, a2 = 0.5 * lp.magnitude * lp.magnitude
            if EQDelayTest.db(a1) > -80 { worst = max(worst, abs(EQDelayTest.db(e1) - EQDelayTest.db(a1))) }
            if EQDelayTest.db(a2) > -80 { worst = max(worst, abs(EQDelayTest.db(e2) - EQDelayTest.db(a2))) }
        }
        print("delay low-pass: echoes 1 and 2 within \(worst) dB of LP and 0.5·LP²")
        #expect(worst < 0.01)
    }

    @Test func wetDryMixBlendsLinearly() throws {
        let h = try Self.impulseResponse(Self.delay(time: 0.001, feedback: 0, mix: 25), frames: 400)
        #expect(h[100] == 0.75)
        #expect(h[148] == 0.25)
        let dry = try Self.impulseResponse(Self.delay(time: 0.001, feedback: 50, mix: 0), frames: 400)
        var expected = [Float](repeating: 0, count: 400)
        expected[100] = 1
        #expect(dry == expected)
    }

    /// The wet/dry mix scheduled at sample T through scheduleParameterBlock: every sample before
    /// T is dry; with a one-frame ramp every sample from T on is wet; with no ramp the change
    /// starts at T and completes over the 128-sample de-zipper glide.
    @Test func scheduledMixSwitchesAtItsSample() throws {
        let n = 4000, T = 1777
        let x = [EQDelayTest.noise(n, seed: 11)]
        func run(mix: Float, schedule: AUAudioFrameCount?) throws -> [Float] {
            let d = Self.delay(time: 0.002, feedback: 30, cutoff: 8000, mix: mix)
            return try EQDelayTest.render(d, x, rate: Self.rate, chunk: 512, during: { _ in
                if let ramp = schedule { d.auAudioUnit.scheduleParameterBlock(AUEventSampleTime(T), ramp, 0, 100) }
            })[0]
        }
        let wet = try run(mix: 100, schedule: nil)
        let switched = try run(mix: 0, schedule: 1)
        #expect(Array(switched[..<T]) == Array(x[0][..<T]))
        #expect(Array(switched[T...]) == Array(wet[T...]))
        let glided = try run(mix: 0, schedule: 0)
        #expect(Array(glided[..<T]) == Array(x[0][..<T]))
        #expect(glided[T] != x[0][T])
        #expect(Array(glided[(T + 128)...]) == Array(wet[(T + 128)...]))
    }

    /// Changing the delay time while audio plays glides the read head: the output stays
    /// bounded and continuous (no step larger than the signal's own).
    @Test func delayTimeChangeGlides() throws {
        let n = 9600
        let x = [EQDelayTest.sine(n, frequency: 200, rate: Self.rate, amplitude: 0.5)]
        let d = Self.delay(time: 0.01, feedback: 0)
        let y = try EQDelayTest.render(d, x, rate: Self.rate, total: n, chunk: 480, eachChunk: { done in
            if done == 4800 { d.delayTime = 0.02 }
        })[0]
        var worstStep: Float = 0
        for i in 1000 ..< n { worstStep = max(worstStep, abs(y[i] - y[i - 1])) }
        let sineStep = Float(0.5 * 2 * Double.pi * 200 / Self.rate)
        #expect(worstStep < 2 * sineStep, "largest step \(worstStep) vs the sine's \(sineStep)")
    }
}
