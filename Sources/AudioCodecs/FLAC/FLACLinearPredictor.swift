// Linear prediction analysis for the FLAC encoder (RFC 9639 §9.2.6 defines only what the decoder
// does with the coefficients; how to find them is the encoder's business). The method is the
// classic one libFLAC also uses by default:
//
//  1. window the block with a Tukey(0.5) window (flat middle half, raised-cosine quarters at the
//     ends), which keeps the block edges from dominating the spectrum estimate;
//  2. autocorrelation of the windowed block for lags 0…maxOrder, in Float as libFLAC computes it
//     (eight SIMD lanes instead of Double's four; it only steers the choice of coefficients: on
//     the 60 s benchmark material, 16-bit level 5, the file went from 6,256,226 bytes with Double
//     to 6,256,222, libFLAC's being 6,258,166, and ffmpeg decodes it to the same samples);
//  3. Levinson–Durbin recursion, which gives the optimal predictor of every order 1…maxOrder and
//     its prediction error in one pass;
//  4. pick the order whose *estimated* size is smallest: (n − order) residuals at
//     ½·log2(error per sample) bits each, plus order × (coefficient precision + sample bits) for
//     the coefficients and warm-up samples;
//  5. quantise that order's coefficients to `precision` signed bits with a shift chosen so the
//     largest coefficient just fits, carrying each coefficient's rounding error into the next
//     (so the sum of the quantised filter stays close to the real one).
//
// The encoder then computes the exact residual with the quantised coefficients (the decoder's
// arithmetic, §9.2.6) and prices it exactly, so a poor estimate costs size, never correctness.
import CFLACKernels
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A quantised predictor ready to be written into an LPC subframe.
struct FLACQuantizedPredictor {
    var order: Int
    /// Signed coefficient width in bits (1…15; RFC 9639 codes it as precision − 1 in 4 bits, 15 reserved).
    var precision: Int
    /// Right shift applied to the prediction sum (0…15: a 5-bit signed field, negative forbidden).
    var shift: Int
    /// coefficients[j] multiplies the sample j + 1 places back.
    var coefficients: [Int64]
}

/// Reusable scratch for the analysis of blocks up to `capacity` samples.
final class FLACLinearPredictor {
    let maxOrder: Int
    private var windowed: [Float]
    private var window: [Float] = []
    private var windowLength = -1
    private var windowEnergy = 0.0

    init(capacity: Int, maxOrder: Int) {
        self.maxOrder = maxOrder
        windowed = [Float](repeating: 0, count: capacity)
    }

    /// The Tukey(0.5) window of length n: a raised cosine over the first and last quarters.
    private func prepareWindow(_ n: Int) {
        guard n != windowLength else { return }
        windowLength = n
        window = [Float](repeating: 1, count: n)
        let taper = Int(0.25 * Double(n - 1))   // p·(N−1)/2 with p = 0.5
        if taper > 0 {
            for i in 0..<taper {
                let w = Float(0.5 * (1 - cos(Double.pi * Double(i) / Double(taper))))
                window[i] = w
                window[n - 1 - i] = w
            }
        }
        windowEnergy = window.reduce(0.0) { $0 + Double($1) * Double($1) }
    }

    /// Finds the predictor for `s[0..<n]` whose estimated coded size is smallest, or nil when the
    /// block is too short, silent or predicts no better than nothing.
    /// `orderLimit` caps the orders considered below `maxOrder`.
    func analyse(_ s: UnsafePointer<Int64>, count n: Int, bits: Int, precision: Int, orderLimit: Int = .max) -> FLACQuantizedPredictor? {
        let top = min(maxOrder, orderLimit, n - 1)
        guard top >= 1 else { return nil }
        prepareWindow(n)
        var autoc = [Double](repeating: 0, count: top + 1)
        windowed.withUnsafeMutableBufferPointer { x in
            window.withUnsafeBufferPointer { w in
                autoc.withUnsafeMutableBufferPointer { out in
                    // Windowing and four-lane sums per lag (lane j adds the products at
                    // i ≡ lag + j mod 4): CFLACEncodeKernels.h.
                    cflac_window_autocorrelation(FLACEncoder.kernelsUseAVX2, s, w.baseAddress!, n, Int32(top), x.baseAddress!, out.baseAddress!)
                }
            }
        }
        guard autoc[0] > 0 else { return nil }
        autoc[0] *= 1 + 1e-10   // a tiny white-noise floor keeps the recursion stable on pure tones

        // Levinson–Durbin: a[j] predicts from the sample j + 1 back.
        var a = [Double](repeating: 0, count: top)
        var previous = a
        var error = autoc[0]
        var best: (order: Int, cost: Double, coefficients: [Double])? = nil
        let perSample = 1 / max(windowEnergy, 1)
        for m in 1...top {
            var acc = autoc[m]
            for j in 0..<(m - 1) { acc -= previous[j] * autoc[m - 1 - j] }
            let k = acc / error
            a[m - 1] = k
            for j in 0..<(m - 1) { a[j] = previous[j] - k * previous[m - 2 - j] }
            error *= 1 - k * k
            guard error > 0, error.isFinite else { break }
            let bitsPerResidual = max(0, 0.5 * log2(error * perSample))
            let cost = Double(n - m) * bitsPerResidual + Double(m * (precision + bits))
            if best == nil || cost < best!.cost { best = (m, cost, Array(a[0..<m])) }
            previous = a
        }
        guard let chosen = best else { return nil }
        return Self.quantise(chosen.coefficients, precision: precision)
    }

    /// Quantises `c` to `precision`-bit integers and a shift (nil when the coefficients are all
    /// zero or too large for any non-negative shift).
    static func quantise(_ c: [Double], precision: Int) -> FLACQuantizedPredictor? {
        let largest = c.reduce(0.0) { max($0, abs($1)) }
        guard largest > 0, largest.isFinite else { return nil }
        let exponent = Int(largest.exponent) + 1       // largest < 2^exponent
        var shift = precision - 1 - exponent
        guard shift >= 0 else { return nil }
        shift = min(shift, 15)
        let limit = Double((1 << (precision - 1)) - 1), lowest = -Double(1 << (precision - 1))
        var carried = 0.0
        var q = [Int64](repeating: 0, count: c.count)
        for j in 0..<c.count {
            carried += c[j] * Double(1 << shift)
            let v = min(limit, max(lowest, carried.rounded()))
            q[j] = Int64(v)
            carried -= v
        }
        guard q.contains(where: { $0 != 0 }) else { return nil }
        return FLACQuantizedPredictor(order: c.count, precision: precision, shift: shift, coefficients: q)
    }
}
