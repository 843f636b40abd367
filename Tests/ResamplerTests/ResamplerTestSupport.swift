import AudioKernels
import Foundation

// Helpers for the resampler tests: signal generation, whole-stream conversion and the analytic
// measurements (least-squares sine fits computed in Float64, independent of the converter).

let pi = Double.pi

func sin64(_ x: Double) -> Double { Foundation.sin(x) }
func cos64(_ x: Double) -> Double { Foundation.cos(x) }

func db20(_ x: Double) -> Double { 20 * Foundation.log10(max(x, 1e-30)) }

/// A sine sampled at `rate`, rounded to Float32.
func sine(_ f: Double, rate: Double, frames: Int, amplitude: Double = 0.5, phase: Double = 0) -> [Float] {
    (0..<frames).map { Float(amplitude * sin64(2 * pi * f * Double($0) / rate + phase)) }
}

/// Converts whole channels: feeds `chunk` input frames at a time with `outputChunk` output
/// capacity per call, then flushes.
func convert(_ input: [[Float]], from inRate: Double, to outRate: Double, quality: ResamplerQuality = .high,
             phase: ResamplerPhase = .linear, priming: ResamplerPriming = .aligned,
             chunk: Int = 1 << 30, outputChunk: Int = 1 << 30,
             converter given: SampleRateConverter? = nil) -> [[Float]] {
    let channels = input.count
    let frames = input[0].count
    let src = given ?? SampleRateConverter(inputRate: inRate, outputRate: outRate, channels: channels,
                                           quality: quality, phase: phase, priming: priming)
    let total = src.outputFrames(forInputFrames: frames)
    let capacity = total + 64
    let ins = input.map { ch -> UnsafeMutablePointer<Float> in
        let p = UnsafeMutablePointer<Float>.allocate(capacity: max(1, ch.count))
        p.initialize(from: ch, count: ch.count)
        return p
    }
    let outs = (0..<channels).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: capacity) }
    defer { ins.forEach { $0.deallocate() }; outs.forEach { $0.deallocate() } }
    let inPtrs = ins.map { UnsafePointer($0) }
    var produced = 0
    inPtrs.withUnsafeBufferPointer { ib in
        outs.withUnsafeBufferPointer { ob in
            var consumed = 0
            while consumed < frames {
                let n = min(chunk, frames - consumed)
                var fed = 0
                while fed < n {
                    let r = src.process(input: ib, offset: consumed + fed, inputFrames: n - fed, output: ob, offset: produced,
                                        outputCapacity: min(outputChunk, capacity - produced))
                    fed += r.consumed
                    produced += r.produced
                    precondition(r.consumed > 0 || r.produced > 0, "converter made no progress")
                }
                consumed += n
            }
            while true {
                let k = src.flush(output: ob, offset: produced, outputCapacity: min(outputChunk, capacity - produced))
                if k == 0 { break }
                produced += k
            }
        }
    }
    return outs.map { Array(UnsafeBufferPointer(start: $0, count: produced)) }
}

/// Least-squares fit of a*sin + b*cos + c at frequency f (Hz) over x[range] (time n / rate).
struct SineFit {
    let amplitude: Double
    let phase: Double          // of the sine, at n = 0
    let residualRMS: Double
    var thdnDB: Double { db20(residualRMS / (amplitude / 2.squareRoot())) }
    var levelDB: Double { db20(amplitude) }

    init(_ x: [Float], f: Double, rate: Double, range: Range<Int>) {
        // normal equations for (sin, cos, 1)
        var m = [[Double]](repeating: [Double](repeating: 0, count: 3), count: 3)
        var v = [Double](repeating: 0, count: 3)
        let w = 2 * pi * f / rate
        var cs = [Double](repeating: 0, count: range.count), sn = cs
        for (j, n) in range.enumerated() {
            sn[j] = Foundation.sin(w * Double(n)); cs[j] = Foundation.cos(w * Double(n))
        }
        for (j, n) in range.enumerated() {
            let b = [sn[j], cs[j], 1.0]
            let y = Double(x[n])
            for r in 0..<3 { v[r] += b[r] * y; for q in 0..<3 { m[r][q] += b[r] * b[q] } }
        }
        let sol = SineFit.solve3(m, v)
        amplitude = (sol[0] * sol[0] + sol[1] * sol[1]).squareRoot()
        // a sin + b cos = A sin(wt + phi): a = A cos phi, b = A sin phi
        phase = SineFit.atan2(sol[1], sol[0])
        var e = 0.0
        for (j, n) in range.enumerated() {
            let r = Double(x[n]) - (sol[0] * sn[j] + sol[1] * cs[j] + sol[2])
            e += r * r
        }
        residualRMS = (e / Double(range.count)).squareRoot()
    }

    static func solve3(_ a: [[Double]], _ b: [Double]) -> [Double] {
        var m = a, v = b
        for i in 0..<3 {
            var p = i
            for r in i..<3 where abs(m[r][i]) > abs(m[p][i]) { p = r }
            m.swapAt(i, p); v.swapAt(i, p)
            for r in 0..<3 where r != i {
                let f = m[r][i] / m[i][i]
                for q in 0..<3 { m[r][q] -= f * m[i][q] }
                v[r] -= f * v[i]
            }
        }
        return (0..<3).map { v[$0] / m[$0][$0] }
    }

    static func atan2(_ y: Double, _ x: Double) -> Double { Foundation.atan2(y, x) }
}

/// Joint least-squares fit of several sines (and DC) over x[range]; returns the amplitude of
/// each, so a weak tone is measured without leakage from a strong one.
func sineAmplitudes(_ x: [Float], freqs: [Double], rate: Double, range: Range<Int>) -> [Double] {
    let k = 2 * freqs.count + 1
    var m = [[Double]](repeating: [Double](repeating: 0, count: k), count: k)
    var v = [Double](repeating: 0, count: k)
    var basis = [Double](repeating: 0, count: k)
    for n in range {
        for (i, f) in freqs.enumerated() {
            let w = 2 * pi * f / rate * Double(n)
            basis[2 * i] = sin64(w); basis[2 * i + 1] = cos64(w)
        }
        basis[k - 1] = 1
        let y = Double(x[n])
        for r in 0..<k { v[r] += basis[r] * y; for q in 0..<k { m[r][q] += basis[r] * basis[q] } }
    }
    // Gauss-Jordan with partial pivoting
    for i in 0..<k {
        var p = i
        for r in i..<k where abs(m[r][i]) > abs(m[p][i]) { p = r }
        m.swapAt(i, p); v.swapAt(i, p)
        for r in 0..<k where r != i {
            let f = m[r][i] / m[i][i]
            if f == 0 { continue }
            for q in 0..<k { m[r][q] -= f * m[i][q] }
            v[r] -= f * v[i]
        }
    }
    let sol = (0..<k).map { v[$0] / m[$0][$0] }
    return freqs.indices.map { (sol[2 * $0] * sol[2 * $0] + sol[2 * $0 + 1] * sol[2 * $0 + 1]).squareRoot() }
}

/// RMS (dB re amplitude 1 sine, i.e. 0 dB = rms 1/sqrt 2) of x[range].
func rmsDB(_ x: [Float], range: Range<Int>) -> Double {
    var e = 0.0
    for n in range { e += Double(x[n]) * Double(x[n]) }
    return db20((e / Double(range.count)).squareRoot() * 2.squareRoot())
}

/// A deterministic pseudo-random signal in [-0.5, 0.5).
func noise(frames: Int, seed: UInt64) -> [Float] {
    var s = seed | 1
    return (0..<frames).map { _ in
        s ^= s << 13; s ^= s >> 7; s ^= s << 17
        return Float(Double(s >> 11) / Double(1 << 53) - 0.5)
    }
}

/// Level (dB re amplitude 1) of the component at f in x[range] (single-sine fit).
func toneLevelDB(_ x: [Float], f: Double, rate: Double, range: Range<Int>) -> Double {
    SineFit(x, f: f, rate: rate, range: range).levelDB
}
