// AudioAnalysis: the measurements the tests, the examples and the benchmarks share (spectra, sine
// fits, reverb decay, distortion). Not part of the product: plain Swift on arrays of samples, no
// Apple names, written for clarity and exactness rather than speed. Every DSP claim the project
// makes is checked with these functions against an analytic value or an external tool's output,
// so each is written from its textbook definition (cited in its doc comment).
import Foundation

/// Spectral measurements.
public enum Spectrum {
    /// Real DFT power spectrum (|X|²) of `x` at bins 0 … n/2, by a radix-2 FFT (n a power of two).
    public static func power(_ x: [Double]) -> [Double] {
        let n = x.count
        precondition(n > 1 && n & (n - 1) == 0, "Spectrum.power: length must be a power of two")
        var re = x, im = [Double](repeating: 0, count: n)
        var j = 0
        for i in 1 ..< n {
            var bit = n >> 1
            while j & bit != 0 { j ^= bit; bit >>= 1 }
            j |= bit
            if i < j { re.swapAt(i, j) }
        }
        var len = 2
        while len <= n {
            let ang = -2 * Double.pi / Double(len)
            let wr = cos(ang), wi = sin(ang)
            var i = 0
            while i < n {
                var cr = 1.0, ci = 0.0
                for k in 0 ..< len / 2 {
                    let a = i + k, b = a + len / 2
                    let tr = re[b] * cr - im[b] * ci, ti = re[b] * ci + im[b] * cr
                    re[b] = re[a] - tr; im[b] = im[a] - ti
                    re[a] += tr; im[a] += ti
                    let ncr = cr * wr - ci * wi
                    ci = cr * wi + ci * wr
                    cr = ncr
                }
                i += len
            }
            len <<= 1
        }
        return (0 ... n / 2).map { re[$0] * re[$0] + im[$0] * im[$0] }
    }

    /// Power spectrum with a 4-term Blackman–Harris window (side lobes −92 dB) of the first
    /// power-of-two frames of `x`; returns the spectrum and the bin width in Hz.
    public static func blackmanHarris<C: Collection>(_ x: C, sampleRate: Double) -> (power: [Double], df: Double) where C.Element == Float {
        var n = 1
        while n * 2 <= x.count { n *= 2 }
        let a0 = 0.35875, a1 = 0.48829, a2 = 0.14128, a3 = 0.01168
        var w = [Double](repeating: 0, count: n)
        var i = 0
        for v in x.prefix(n) {
            let p = 2 * Double.pi * Double(i) / Double(n)
            w[i] = Double(v) * (a0 - a1 * cos(p) + a2 * cos(2 * p) - a3 * cos(3 * p))
            i += 1
        }
        return (power(w), sampleRate / Double(n))
    }

    /// |H(e^{jω})| of a finite impulse response at `frequency` (direct DTFT sum).
    public static func dtftMagnitude<C: Collection>(_ h: C, frequency f: Double, sampleRate: Double) -> Double where C.Element == Float {
        let w = 2 * Double.pi * f / sampleRate
        var re = 0.0, im = 0.0
        for (n, v) in h.enumerated() {
            re += Double(v) * cos(w * Double(n))
            im -= Double(v) * sin(w * Double(n))
        }
        return (re * re + im * im).squareRoot()
    }

    /// Decibels of an amplitude ratio (floored at −240 dB).
    public static func dB(_ x: Double) -> Double { 20 * log10(max(x, 1e-12)) }
}
