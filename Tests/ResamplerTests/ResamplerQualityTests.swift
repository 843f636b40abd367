import AudioKernels
import Testing

// Quality per level, measured against analytic references (least-squares sine fits in Float64).
// Signals are short (a few tenths of a second) because the tests run in debug builds; the full
// libsoxr-style measurement (sweep, multitone, 20 s) is Benchmarks/resampler/compare_src.py.

/// Per-level bounds the short debug-mode measurements must meet (dB). The release-mode
/// figures from compare_src.py are 10-20 dB better for alias/THD+N at high and max.
struct LevelBounds: Sendable, CustomStringConvertible {
    let quality: ResamplerQuality
    let thdn: Double          // THD+N of a 1 kHz sine (whole band)
    let alias: Double         // a tone above the output Nyquist
    let image: Double         // the image of an up-sampled tone
    let ripple: Double        // passband max-min up to 20 kHz (0.91 x Nyquist for .min/.low)
    var description: String { "\(quality)" }
}

let levelBounds: [LevelBounds] = [
    LevelBounds(quality: .min, thdn: -85, alias: -80, image: -80, ripple: 0.005),
    LevelBounds(quality: .low, thdn: -105, alias: -100, image: -100, ripple: 0.001),
    LevelBounds(quality: .medium, thdn: -120, alias: -120, image: -120, ripple: 0.001),
    LevelBounds(quality: .high, thdn: -132, alias: -138, image: -138, ripple: 0.001),
    LevelBounds(quality: .max, thdn: -140, alias: -160, image: -160, ripple: 0.001),
]

@Suite("SampleRateConverter quality")
struct ResamplerQualityTests {
    @Test("THD+N of a 1 kHz sine, 44.1 -> 48 kHz", arguments: levelBounds)
    func thdn(_ b: LevelBounds) {
        let x = sine(1000, rate: 44100, frames: 11025)
        let y = convert([x], from: 44100, to: 48000, quality: b.quality)[0]
        let fit = SineFit(y, f: 1000, rate: 48000, range: 1000..<(y.count - 1000))
        #expect(fit.thdnDB <= b.thdn, "THD+N \(fit.thdnDB) dB")
        #expect(abs(fit.levelDB - db20(0.5)) < 0.001)
    }

    @Test("alias rejection: tones above the output Nyquist, 96 -> 44.1 kHz", arguments: levelBounds)
    func alias(_ b: LevelBounds) {
        // 22.6 kHz is just inside the stop band (stop band edge: 22.05 kHz); 30 and 45 kHz far.
        // The alias is measured where it would land (narrow-band fit), below the input's own
        // Float32 noise floor (about -150 dB broadband).
        for f in [22_600.0, 30_000, 45_000] {
            let x = sine(f, rate: 96000, frames: 9600)
            let y = convert([x], from: 96000, to: 44100, quality: b.quality)[0]
            let alias = abs(f - 44100 * (f / 44100).rounded())
            let level = toneLevelDB(y, f: alias, rate: 44100, range: 600..<(y.count - 600)) - db20(0.5)
            #expect(level <= b.alias, "\(f) Hz aliases to \(alias) Hz at \(level) dB")
            if b.quality <= .high {
                // and nothing else comes through either (broadband)
                #expect(rmsDB(y, range: 600..<(y.count - 600)) - db20(0.5) <= b.alias)
            }
        }
    }

    @Test("image rejection: 15 kHz up-sampled 44.1 -> 96 kHz, image at 29.1 kHz", arguments: levelBounds)
    func image(_ b: LevelBounds) {
        let x = sine(15000, rate: 44100, frames: 8820)
        let y = convert([x], from: 44100, to: 96000, quality: b.quality)[0]
        let r = 1000..<(y.count - 1000)
        let tone = SineFit(y, f: 15000, rate: 96000, range: r)
        // everything that is not the tone (images, aliases, noise), full band up to 48 kHz
        let rest = db20(tone.residualRMS * 2.squareRoot()) - tone.levelDB
        #expect(rest <= b.thdn, "residual \(rest) dB")
        let amps = sineAmplitudes(y, freqs: [15000, 44100 - 15000], rate: 96000, range: r)
        let img = db20(amps[1] / amps[0])
        #expect(img <= b.image, "image \(img) dB")
    }

    @Test("pass band: flat to the pass-band edge (20 kHz at high and max), 48 -> 44.1 kHz", arguments: levelBounds)
    func passband(_ b: LevelBounds) {
        // the pass band edge of each level (fraction of the lower Nyquist)
        let edge: [ResamplerQuality: Double] = [.min: 0.80, .low: 0.87, .medium: 0.90, .high: 0.913, .max: 0.913]
        let top = min(20000, edge[b.quality]! * 22050)
        var levels: [Double] = []
        for f in [50.0, 1000, 5000, 10000, 15000, 17000, 19000, top] where f <= top {
            let x = sine(f, rate: 48000, frames: 4800)
            let y = convert([x], from: 48000, to: 44100, quality: b.quality)[0]
            levels.append(toneLevelDB(y, f: f, rate: 44100, range: 500..<(y.count - 500)) - db20(0.5))
        }
        let ripple = levels.max()! - levels.min()!
        #expect(ripple <= b.ripple, "levels \(levels)")
        #expect(levels.last! >= -b.ripple, "response at \(top) Hz: \(levels.last!) dB")
    }

    @Test("-3 dB point lies in the transition band, just below the lower Nyquist", arguments: [ResamplerQuality.low, .high, .max])
    func bandwidth(_ q: ResamplerQuality) {
        func response(_ f: Double) -> Double {
            let x = sine(f, rate: 96000, frames: 4800)
            let y = convert([x], from: 96000, to: 44100, quality: q)[0]
            return toneLevelDB(y, f: f, rate: 44100, range: 500..<(y.count - 500)) - db20(0.5)
        }
        // transition band of .high/.max: 20.13 ... 22.05 kHz; -3 dB near its middle
        let lo = q == .low ? 19400.0 : 20500, hi = 21900.0
        #expect(response(lo) > -3)
        #expect(response(hi) < -3)
    }

    @Test("zero delay: the output sine has the input's phase (linear phase)", arguments: [ResamplerQuality.min, .high, .max])
    func alignment(_ q: ResamplerQuality) {
        for (a, b) in [(44100.0, 48000.0), (96000, 44100), (8000, 192000), (192000, 8000)] {
            let f = 997.0
            let x = sine(f, rate: a, frames: Int(a / 10), phase: 0.3)
            let y = convert([x], from: a, to: b, quality: q)[0]
            let fit = SineFit(y, f: f, rate: b, range: Int(b / 100)..<(y.count - Int(b / 100)))
            // phase error in samples of the output
            let err = abs(fit.phase - 0.3) / (2 * pi * f) * b
            #expect(err < 1e-3, "\(a) -> \(b): \(err) samples")
        }
    }

    @Test("minimum phase: small, compensated delay, no pre-ringing")
    func minimumPhase() {
        // phase at 1 kHz within 0.05 samples of the input's (compensated at 0 Hz)
        let x = sine(1000, rate: 44100, frames: 4410, phase: 0.3)
        let src = SampleRateConverter(inputRate: 44100, outputRate: 48000, channels: 1, phase: .minimum)
        let y = convert([x], from: 44100, to: 48000, converter: src)[0]
        let fit = SineFit(y, f: 1000, rate: 48000, range: 500..<(y.count - 500))
        #expect(abs(fit.phase - 0.3) / (2 * pi * 1000) * 48000 < 0.05)
        #expect(fit.thdnDB < -120, "THD+N \(fit.thdnDB)")
        // look-ahead is a few frames only, versus ~116 for linear phase
        let linear = SampleRateConverter(inputRate: 44100, outputRate: 48000, channels: 1)
        #expect(src.trailingFrames * 4 < linear.trailingFrames)
        // impulse: energy before the main peak is far below the linear-phase filter's
        func preRinging(_ p: ResamplerPhase) -> Double {
            var imp = [Float](repeating: 0, count: 2000)
            imp[1000] = 1
            let z = convert([imp], from: 44100, to: 48000, quality: .high, phase: p)[0]
            let peak = z.indices.max { abs(z[$0]) < abs(z[$1]) }!
            var pre = 0.0, all = 0.0
            for n in z.indices { let e = Double(z[n]) * Double(z[n]); all += e; if n < peak - 2 { pre += e } }
            return pre / all
        }
        #expect(preRinging(.minimum) < 1e-4)
        #expect(preRinging(.linear) > 1e-3)
    }
}
