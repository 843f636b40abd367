import Foundation

/// Non-linear distortion measurements.
public enum DistortionMetrics {
    /// The largest component that is neither the fundamental nor one of its harmonics below
    /// Nyquist (nor DC below 30 Hz), in dB re the fundamental and where it is, and the THD
    /// (harmonics 2…) in percent, from a Blackman–Harris spectrum (`Spectrum.blackmanHarris`) of
    /// the first power-of-two frames of `y`. Each component is the sum over ±16 bins (the window's
    /// skirt); the residual's worst is the sum over a main-lobe-wide (9-bin) window.
    public static func aliasAndTHD<C: Collection>(_ y: C, sampleRate: Double, fundamental f0: Double)
        -> (aliasDB: Double, aliasHz: Double, thd: Double) where C.Element == Float {
        let (p, df) = Spectrum.blackmanHarris(y, sampleRate: sampleRate)
        let halfWidth = 16
        func band(_ f: Double) -> ClosedRange<Int> {
            let k = Int((f / df).rounded())
            return max(0, k - halfWidth) ... min(p.count - 1, k + halfWidth)
        }
        let fund = p[band(f0)].reduce(0, +)
        var masked = p
        var harmonics = 0.0
        var k = 1.0
        while k * f0 < sampleRate / 2 - Double(halfWidth) * df {
            let r = band(k * f0)
            if k > 1 { harmonics += p[r].reduce(0, +) }
            for i in r { masked[i] = 0 }
            k += 1
        }
        for i in 0 ... Int(30 / df) { masked[i] = 0 }
        var worst = 0.0, worstBin = 0
        for i in 4 ..< masked.count - 4 {
            let s = masked[(i - 4) ... (i + 4)].reduce(0, +)
            if s > worst { worst = s; worstBin = i }
        }
        return (10 * log10(max(worst, 1e-30) / fund), Double(worstBin) * df, 100 * (harmonics / fund).squareRoot())
    }
}
