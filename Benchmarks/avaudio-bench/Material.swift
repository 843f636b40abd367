// Deterministic program-like test material: harmonic notes on a pentatonic grid, a bass line,
// noise-burst "drums" and a low noise floor, peak normalised to -3 dBFS. Everything comes from a
// 64-bit LCG (no Foundation random), and the oscillators are rotating phasors (no sin() per
// sample), so 10 minutes of stereo take well under a second to make and are bit-identical on
// every machine.
import AVFAudio

/// Knuth's MMIX linear congruential generator.
struct LCG {
    var state: UInt64

    init(seed: UInt64) { state = seed &* 0x9E37_79B9_7F4A_7C15 &+ 1 }

    @inline(__always)
    mutating func next() -> UInt64 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return state
    }

    /// Uniform in [0, 1) from the top 53 bits.
    @inline(__always)
    mutating func unit() -> Double { Double(next() >> 11) * (1.0 / 9_007_199_254_740_992.0) }

    /// Uniform in [-1, 1).
    @inline(__always)
    mutating func bipolar() -> Double { unit() * 2 - 1 }

    /// Roughly Gaussian (sum of four uniforms, unit variance).
    @inline(__always)
    mutating func gaussian() -> Double { (bipolar() + bipolar() + bipolar() + bipolar()) * 0.8660254037844386 }

    mutating func below(_ n: Int) -> Int { Int(next() >> 33) % n }
}

enum Material {
    /// A deinterleaved Float32 buffer of `seconds` of `channels`-channel material at `sampleRate`.
    static func make(seconds: Double, sampleRate: Double, channels: Int = 2, seed: UInt64 = 99) -> AVAudioPCMBuffer {
        let frames = Int((seconds * sampleRate).rounded())
        guard let format = AVAudioFormat(standardFormatWithSampleRate: sampleRate, channels: AVAudioChannelCount(channels)),
              let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(frames)) else {
            fatalError("cannot allocate \(frames) frames of \(channels)-channel material")
        }
        buffer.frameLength = AVAudioFrameCount(frames)
        let data = buffer.floatChannelData!
        var rng = LCG(seed: seed)
        let step = max(1, Int(0.25 * sampleRate))          // a note every 0.25 s
        let scale = [0, 2, 4, 7, 9, 12, 14, 16, 19, 21]   // pentatonic steps
        let decay = exp(-6.0 / sampleRate)                 // note envelope per sample
        let burstLength = Int(0.08 * sampleRate)
        let burstDecay = exp(-60.0 / sampleRate)
        var peak = 0.0
        var scratch = [Double](repeating: 0, count: step)

        for c in 0 ..< channels {
            let out = data[c]
            var start = 0
            var k = 0
            while start < frames {
                let n = min(step, frames - start)
                for i in 0 ..< n { scratch[i] = 0 }
                let note = 57 + scale[rng.below(scale.count)] + ((c % 2 == 1 && k % 2 == 1) ? 12 : 0)
                let f0 = 440.0 * pow(2.0, Double(note - 69) / 12)
                // Up to six partials at 0.5/h, each a phasor rotated once per sample.
                for h in 1 ... 6 where f0 * Double(h) < sampleRate * 0.45 {
                    addTone(&scratch, n, frequency: f0 * Double(h), amplitude: 0.5 / Double(h),
                            phase: rng.unit() * 2 * .pi, sampleRate: sampleRate, decay: decay)
                }
                let bass = 440.0 * pow(2.0, Double(45 + scale[(k / 4) % 5] - 69) / 12)
                addTone(&scratch, n, frequency: bass, amplitude: 0.4, phase: 0, sampleRate: sampleRate, decay: decay)
                for i in 0 ..< n { out[start + i] = Float(scratch[i]) }
                start += n
                k += 1
            }
        }
        // Drums: noise bursts every 0.5 s, louder on the right; then the noise floor.
        var start = 0
        let every = max(1, Int(0.5 * sampleRate))
        while start + burstLength < frames {
            var env = 0.6
            for i in 0 ..< burstLength {
                let v = rng.gaussian() * env
                for c in 0 ..< channels { data[c][start + i] += Float(v * (0.8 + 0.2 * Double(c))) }
                env *= burstDecay
            }
            start += every
        }
        for c in 0 ..< channels {
            let out = data[c]
            for i in 0 ..< frames {
                let v = Double(out[i]) + rng.gaussian() * 0.003
                out[i] = Float(v)
                peak = max(peak, abs(v))
            }
        }
        // Peak at -3 dBFS.
        let gain = Float(pow(10.0, -3.0 / 20.0) / max(peak, 1e-9))
        for c in 0 ..< channels {
            let out = data[c]
            for i in 0 ..< frames { out[i] *= gain }
        }
        return buffer
    }

    /// Adds a decaying sinusoid to `out[0..<n]` with a rotating phasor (re-normalised every
    /// block so rounding cannot make it grow).
    private static func addTone(_ out: inout [Double], _ n: Int, frequency: Double, amplitude: Double,
                                phase: Double, sampleRate: Double, decay: Double) {
        let w = 2 * Double.pi * frequency / sampleRate
        let cw = cos(w), sw = sin(w)
        var re = cos(phase), im = sin(phase)
        var env = amplitude
        for i in 0 ..< n {
            out[i] += env * im
            let r = re * cw - im * sw
            im = re * sw + im * cw
            re = r
            env *= decay
            if i & 1023 == 1023 {
                let norm = 1 / (re * re + im * im).squareRoot()
                re *= norm
                im *= norm
            }
        }
    }
}
