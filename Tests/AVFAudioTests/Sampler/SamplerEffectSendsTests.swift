// The sampler's effect sends: SoundFont generators reverbEffectsSend (#16) and chorusEffectsSend
// (#15) plus CC91/CC93 through FluidSynth's default modulators (200 × value / 128, 0.1 % units)
// feed one shared reverb (ReverbProcessor) and a chorus (ChorusProcessor). Checked: the wet
// signal (the render minus the same render without sends: the dry path does not change) scales
// with the send exactly as the generator and controller values say, the chorus's taps sit at
// the delays its LFO gives, and the output does not depend on the render chunk.
import Foundation
import Testing
import AVFoundation
import AudioKernels
import AudioAnalysis

@Suite struct SamplerEffectSendsTests {
    static func bank(reverb: Int16 = 0, chorus: Int16 = 0) throws -> URL {
        var b = SoundFontBuilder.sine(period: 100, cycles: 40)
        b.instrumentGenerators = [(Gen.sampleModes, 1), (16, reverb), (15, chorus)]
        return try b.write()
    }

    static func render(reverb: Int16 = 0, chorus: Int16 = 0, cc: [(UInt8, UInt8)] = [], chunk: Int = 512,
                       effects: Bool = true) throws -> [Float] {
        let url = try bank(reverb: reverb, chorus: chorus)
        defer { try? FileManager.default.removeItem(at: url) }
        let sampler = AVAudioUnitSampler()
        sampler._usesInternalEffects = effects
        try sampler.loadInstrument(at: url)
        var events: [(Int, [UInt8])] = cc.map { (0, [0xB0, $0.0, $0.1]) }
        events += [(64, [0x90, 69, 100]), (24_000, [0x80, 69, 0])]
        return try renderSampler(sampler, events: events, frames: 72_000, chunk: chunk).left
    }

    static func wetDB(_ y: [Float], _ dry: [Float]) -> Double {
        rmsDB(zip(y, dry).map { $0 - $1 }[...])
    }

    @Test func wetLevelFollowsTheSendGeneratorsAndControllers() throws {
        let dry = try Self.render()
        #expect(try Self.render(cc: [(91, 0), (93, 0)]) == dry)          // sends at 0: nothing added
        let r500 = Self.wetDB(try Self.render(reverb: 500), dry), r250 = Self.wetDB(try Self.render(reverb: 250), dry)
        #expect(abs(r500 - r250 - 20 * log10(2.0)) < 0.01, "\(r500 - r250) dB")
        // CC91 = 127 → 200 × 127/128 = 198.4 (0.1 %): the same wet level as the generator at that value (±0.5 of a unit)
        let cc = Self.wetDB(try Self.render(cc: [(91, 127)]), dry), g198 = Self.wetDB(try Self.render(reverb: 198), dry)
        #expect(abs(cc - g198 - 20 * log10(198.4375 / 198)) < 0.01, "\(cc - g198) dB")
        // and generator + controller add
        let both = Self.wetDB(try Self.render(reverb: 300, cc: [(91, 64)]), dry), g400 = Self.wetDB(try Self.render(reverb: 400), dry)
        #expect(abs(both - g400) < 0.01)
        let c500 = Self.wetDB(try Self.render(chorus: 500), dry), c1000 = Self.wetDB(try Self.render(chorus: 1_000), dry)
        #expect(abs(c1000 - c500 - 20 * log10(2.0)) < 0.01, "\(c1000 - c500) dB")
        // the reverb rings on after the note's release (−96 dB in 1 ms for the dry voice)
        let tail = try Self.render(reverb: 500)
        #expect(rmsDB(tail[30_000..<36_000]) > -70 && rmsDB(dry[30_000..<36_000]) < -120)
    }

    @Test func internalEffectsOffLeaveTheDryMixAlone() throws {
        // With the sampler's reverb and chorus off, sends as loud as a bank and CC91/CC93 can make
        // them add nothing: the output is the dry render's, sample for sample, tail included.
        let dry = try Self.render()
        let off = try Self.render(reverb: 1_000, chorus: 1_000, cc: [(91, 127), (93, 127)], effects: false)
        #expect(off == dry)
        let on = try Self.render(reverb: 1_000, chorus: 1_000, cc: [(91, 127), (93, 127)])
        #expect(Self.wetDB(on, dry) > -40)
    }

    @Test func sendsAreIndependentOfTheRenderChunk() throws {
        let outputs = try [64, 100, 512, 4_096].map { try Self.render(reverb: 400, chorus: 600, cc: [(91, 30)], chunk: $0) }
        for o in outputs.dropFirst() { #expect(o == outputs[0]) }
    }

    @Test func chorusTapsFollowTheirLFO() {
        // an impulse every 25 ms into a 1-voice chorus: each comes back after minimumDelay + depth·(1 + sin φ)/2
        let rate = 48_000.0
        let c = ChorusProcessor(sampleRate: rate)
        c.voices = 1; c.level = 1; c.rate = 2; c.depth = 0.008; c.minimumDelay = 0.0015
        let frames = 48_000, period = 1_200
        var input = [Float](repeating: 0, count: frames)
        for t in stride(from: 0, to: frames, by: period) { input[t] = 1 }
        var l = [Float](repeating: 0, count: frames), r = [Float](repeating: 0, count: frames)
        input.withUnsafeBufferPointer { i in
            // (in uneven chunks: the LFO counts samples, not calls)
            var done = 0
            for n in [7, 500, 64, 1_000, 46_429] where done < frames {
                let k = min(n, frames - done)
                c.process(input: i.baseAddress! + done, left: &l[done], right: &r[done], frames: k)
                done += k
            }
        }
        var worst = 0.0
        for t in stride(from: 0, to: frames - period, by: period) {
            // the impulse's echo: the centroid of the two interpolated points
            let window = l[t ..< t + period]
            let energy = window.reduce(0) { $0 + Double($1) }
            let centroid = zip(window.indices, window).reduce(0.0) { $0 + Double($1.0 - t) * Double($1.1) } / energy
            // the echo leaves at t′ with t′ − d(t′) = t (the delay is read at output time): solved by iteration
            func d(_ frame: Double) -> Double { (0.0015 + 0.008 * (1 + sin(2 * Double.pi * 2 * frame / rate)) / 2) * rate }
            var expected = d(Double(t))
            for _ in 0..<20 { expected = d(Double(t) + expected) }
            worst = max(worst, abs(centroid - expected))
            // (a sweeping delay stretches or squeezes time: the echo's sum is about 1/(1 − d′), d′ within
            // the sweep's slope ±2π·rate·depth/2 = ±0.05; linear interpolation adds a little)
            #expect(abs(energy - 1) < 0.07)
        }
        #expect(worst < 0.5, "\(worst) samples")
        #expect(l == r)   // one voice feeds both sides
    }

    @Test("Each chorus tap's delay is the LFO's formula (read through a ramp, whose linear interpolation is exact: out(t) = t − delay(t)), in uneven chunks: the sine, evaluated on a 32-frame grid and interpolated, within A·(ωΔ)²/8 (0.011 frames at 5 Hz, 4e-5 at 0.3 Hz) plus Float resolution; the triangle exact to Float resolution")
    func chorusDelayFollowsTheFormulaBetweenGridPoints() {
        let rate = 48_000.0, frames = 8_192
        for (waveform, lfoRate) in [(ChorusProcessor.Waveform.sine, 5.0), (.sine, 0.3), (.triangle, 5.0)] {
            let c = ChorusProcessor(sampleRate: rate)
            c.voices = 1; c.level = 1; c.rate = lfoRate; c.depth = 0.008; c.minimumDelay = 0.0015; c.waveform = waveform
            let input = (0..<frames).map { Float($0) }
            var l = [Float](repeating: 0, count: frames), r = [Float](repeating: 0, count: frames)
            input.withUnsafeBufferPointer { i in
                var done = 0
                for n in [5, 31, 64, 1_000, 33, 7_059] where done < frames {
                    let k = min(n, frames - done)
                    c.process(input: i.baseAddress! + done, left: &l[done], right: &r[done], frames: k)
                    done += k
                }
            }
            func lfo(_ p: Double) -> Double {
                let f = p - p.rounded(.down)
                return waveform == .sine ? sin(2 * Double.pi * f) : (f < 0.5 ? 4 * f - 1 : 3 - 4 * f)
            }
            var worst = 0.0
            for t in 600..<frames {   // past the longest delay (9.5 ms = 456 frames)
                let expected = (0.0015 + 0.008 * (1 + lfo(Double(t) * lfoRate / rate)) / 2) * rate
                worst = max(worst, abs((Double(t) - Double(l[t])) - expected))
            }
            // Float resolution at 8192 is 0.001 frames; the grid's bound for the sine, A·(ωΔ)²/8.
            let omegaDelta = 2 * Double.pi * lfoRate / rate * Double(ChorusProcessor.gridFrames)
            let gridBound = waveform == .sine ? 0.008 * rate / 2 * omegaDelta * omegaDelta / 8 : 0
            #expect(worst < gridBound + 0.001, "\(waveform) at \(lfoRate) Hz: worst delay error \(worst) frames (bound \(gridBound + 0.001))")
        }
    }
}
