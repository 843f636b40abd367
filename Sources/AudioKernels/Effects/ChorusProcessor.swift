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
// to read as chorus, not echo). The LFO is a sine or a triangle of a phase counted in samples
// since the last reset. The sine is evaluated on a grid of `gridFrames` (32) samples, also
// counted from the reset, and each tap's delay is interpolated linearly between two grid points,
// so output does not depend on how frames are chunked. (Per sample, the libm sine of every tap
// cost more than the rest of the chorus and about as much as the reverb: the sampler with its
// sends on took 1.33 s of CPU for a 61 s song against 0.93 s after the change, FluidR3_GM,
// 2026-11-28. Linear interpolation of a sine of amplitude A sampled every Δ frames is off by at
// most A·(ωΔ)²/8; here A = depth·fs/2 frames and ω = 2π·rate/fs, so at FluidSynth's 0.3 Hz and
// 8 ms the delay is off by at most 4·10⁻⁵ frames at 48 kHz, and by 0.011 frames at 5 Hz.) The
// triangle costs no libm call and is computed per sample, so its corners stay sharp. Taps read
// the delay memory with linear interpolation.
// Everything is allocated at init; the render side allocates nothing.

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
    /// Samples since the last reset, modulo `gridFrames` (where the next grid point falls).
    private var gridPosition = 0
    /// Each tap's delay in frames at the last grid point, and its change per frame until the next.
    private let delayAtGrid: UnsafeMutablePointer<Double>, delaySlope: UnsafeMutablePointer<Double>
    /// The LFO is evaluated every this many samples (see the top of the file).
    public static let gridFrames = 32
    /// At most this many taps (`voices` is clamped to it).
    public static let maximumVoices = 99

    public init(sampleRate: Double) {
        self.sampleRate = sampleRate
        var n = 1
        while n < Int(0.05 * sampleRate) + 4 { n <<= 1 }   // 50 ms: every delay the parameters allow (clamped in process)
        memory = .allocate(capacity: n)
        memory.initialize(repeating: 0, count: n)
        mask = n - 1
        delayAtGrid = .allocate(capacity: Self.maximumVoices)
        delayAtGrid.initialize(repeating: 0, count: Self.maximumVoices)
        delaySlope = .allocate(capacity: Self.maximumVoices)
        delaySlope.initialize(repeating: 0, count: Self.maximumVoices)
    }

    deinit {
        memory.deallocate()
        delayAtGrid.deallocate()
        delaySlope.deallocate()
    }

    public func reset() {
        memory.update(repeating: 0, count: mask + 1)
        write = 0
        phase = 0
        gridPosition = 0
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

    /// A tap's delay in frames at LFO phase `p` (0 ..< 1, plus the tap's offset).
    @inline(__always)
    private func delayFrames(_ p: Double, maxDelay: Double) -> Double {
        min(maxDelay, max(1 / sampleRate, minimumDelay + depth * (1 + lfo(p)) / 2)) * sampleRate
    }

    /// Reads `input` (mono) and adds the chorus to `left` and `right`.
    public func process(input: UnsafePointer<Float>, left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frames: Int) {
        let n = max(1, min(voices, Self.maximumVoices))
        let gain = level / Float(n)
        let maxDelay = Double(mask - 2) / sampleRate
        let step = rate / sampleRate
        let grid = Self.gridFrames
        let gridded = waveform == .sine
        // The state in locals for the loop (a class's stored properties would be checked for
        // exclusive access on every sample), stored back at the end.
        var write = self.write, phase = self.phase, gridPosition = self.gridPosition
        let memory = self.memory, mask = self.mask, delayAtGrid = self.delayAtGrid, delaySlope = self.delaySlope
        defer { self.write = write; self.phase = phase; self.gridPosition = gridPosition }
        for i in 0..<frames {
            if gridded && gridPosition == 0 {
                // A grid point: each tap's delay here and at the next point, a grid's phase ahead.
                var ahead = phase + Double(grid) * step
                if ahead >= 1 { ahead -= Double(Int(min(ahead, 1e15))) }
                for k in 0..<n {
                    let offset = Double(k) / Double(n)
                    let now = delayFrames(phase + offset, maxDelay: maxDelay)
                    let next = delayFrames(ahead + offset, maxDelay: maxDelay)
                    delayAtGrid[k] = now
                    delaySlope[k] = (next - now) / Double(grid)
                }
            }
            memory[write] = input[i]
            var l: Float = 0, r: Float = 0
            let along = Double(gridPosition)
            for k in 0..<n {
                let d = gridded ? delayAtGrid[k] + delaySlope[k] * along
                                : delayFrames(phase + Double(k) / Double(n), maxDelay: maxDelay)
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
            gridPosition = gridPosition + 1 == grid ? 0 : gridPosition + 1
        }
    }
}
