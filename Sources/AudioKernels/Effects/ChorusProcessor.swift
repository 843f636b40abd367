// A chorus for the sampler's chorus send: a mono input read back through `voices` delay taps
// whose delay times an LFO sweeps, the taps spread alternately to the left and right outputs.
//
//   delay_k(t) = minimumDelay + depth · (1 + lfo(2π·rate·t + 2π·k/voices)) / 2      (seconds)
//   out_L += level/voices · Σ_{k even} x(t − delay_k(t)),  out_R likewise over odd k (a single
//   voice feeds both)
//
// Parameters follow FluidSynth's chorus defaults (its settings synth.chorus.nr 3, level 2.0,
// speed 0.3 Hz, depth 8 ms, waveform sine), the peer the sampler is measured against; FluidSynth
// does not document its minimum delay, so the sweep starts at 1.5 ms here (a choice: short enough
// to read as chorus, not echo). The LFO is a sine or a triangle, computed per sample from a phase
// counted in samples since the last reset, so output does not depend on how frames are chunked.
// Taps read the delay memory with linear interpolation. Everything is allocated at init; the
// render side allocates nothing.

/// The chorus (see the top of this file).
public final class ChorusProcessor {
    public enum Waveform: Sendable { case sine, triangle }
    public let sampleRate: Double
    public var voices = 3
    public var level: Float = 2
    public var rate = 0.3
    public var depth = 0.008
    public var minimumDelay = 0.0015
    public var waveform = Waveform.sine

    private let memory: UnsafeMutablePointer<Float>
    private let mask: Int
    private var write = 0
    private var phase = 0.0

    public init(sampleRate: Double) {
        self.sampleRate = sampleRate
        var n = 1
        while n < Int(0.05 * sampleRate) + 4 { n <<= 1 }   // 50 ms: every delay the parameters allow (clamped in process)
        memory = .allocate(capacity: n)
        memory.initialize(repeating: 0, count: n)
        mask = n - 1
    }

    deinit { memory.deallocate() }

    public func reset() {
        memory.update(repeating: 0, count: mask + 1)
        write = 0
        phase = 0
    }

    /// The LFO at phase p (cycles, 0 ≤ p < 2), −1 … 1.
    @inline(__always)
    private func lfo(_ p: Double) -> Double {
        let f = p >= 1 ? p - 1 : p
        switch waveform {
        case .sine: return EffectMath.sine(2 * Double.pi * f)
        case .triangle: return f < 0.5 ? 4 * f - 1 : 3 - 4 * f
        }
    }

    /// Reads `input` (mono) and adds the chorus to `left` and `right`.
    public func process(input: UnsafePointer<Float>, left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frames: Int) {
        let n = max(1, min(voices, 99))
        let gain = level / Float(n)
        let maxDelay = Double(mask - 2) / sampleRate
        let step = rate / sampleRate
        for i in 0..<frames {
            memory[write] = input[i]
            var l: Float = 0, r: Float = 0
            for k in 0..<n {
                let m = lfo(phase + Double(k) / Double(n))
                let d = min(maxDelay, max(1 / sampleRate, minimumDelay + depth * (1 + m) / 2)) * sampleRate
                let whole = Int(d), frac = Float(d - Double(whole))
                let a = memory[(write - whole) & mask], b = memory[(write - whole - 1) & mask]
                let y = a + (b - a) * frac
                if n == 1 { l += y; r += y } else if k & 1 == 0 { l += y } else { r += y }
            }
            left[i] += gain * l
            right[i] += gain * r
            write = (write + 1) & mask
            phase += step
            if phase >= 1 { phase -= 1 }
        }
    }
}
