import Foundation

/// Measurements of a steady sine tone: frequency, envelope, THD+N (the checks of
/// `shared/peers/bench_stretch.py`, written from their definitions).
public enum ToneAnalysis {
    public struct Stats {
        public var frequency: Double
        public var centsError: Double
        public var envelopeDipDB: Double
        public var thdnDB: Double
    }

    /// bench_stretch.py's tone checks on `y[range]`: pitch (sine fit with Gauss-Newton frequency
    /// refinement), envelope dip (5th percentile of the 2-period amplitude re its median, middle
    /// 80 %), THD+N (median over 200 ms frames of the residual after a refined sine fit).
    public static func stats(_ y: ArraySlice<Float>, sampleRate rate: Double, expected: Double, refine: Int = 5, frameRefine: Int = 2) -> Stats {
        let x = Array(y)
        return x.withUnsafeBufferPointer { x in
            let w0 = 2 * Double.pi * expected / rate
            let whole = fit(x, w: w0, refine: refine)
            let f = whole.w * rate / (2 * Double.pi)
            let lo = x.count / 10, hi = x.count - x.count / 10
            let win = max(8, Int((2 * rate / f).rounded()))
            var env: [Double] = []
            var i = lo
            while i + win <= hi {
                env.append(fit(UnsafeBufferPointer(rebasing: x[i..<(i + win)]), w: whole.w, refine: 0).amp)
                i += win / 2
            }
            env.sort()
            let frame = Int(0.2 * rate)
            var thdn: [Double] = []
            var j = 0
            while j + frame <= x.count {
                let r = fit(UnsafeBufferPointer(rebasing: x[j..<(j + frame)]), w: whole.w, refine: frameRefine)
                thdn.append(20 * log10(max(r.residual, 1e-15) / max(r.amp / 2.0.squareRoot(), 1e-15)))
                j += frame
            }
            thdn.sort()
            return Stats(frequency: f, centsError: 1200 * log2(f / expected),
                             envelopeDipDB: 20 * log10(max(env[env.count / 20], 1e-15) / max(env[env.count / 2], 1e-15)),
                             thdnDB: thdn.isEmpty ? 0 : thdn[thdn.count / 2])
        }
    }

    /// Least-squares A cos(w t) + B sin(w t) + C, with `refine` Gauss-Newton steps on w; the
    /// residual's RMS drops 5 % at each end.
    public static func fit(_ x: UnsafeBufferPointer<Float>, w w0: Double, refine: Int) -> (w: Double, amp: Double, residual: Double) {
        let n = x.count
        let mid = Double(n - 1) / 2
        var w = w0
        var a = 0.0, b = 0.0, dc = 0.0
        for iteration in 0...refine {
            let four = iteration > 0
            var g = [Double](repeating: 0, count: 16), h = [Double](repeating: 0, count: 4)
            g.withUnsafeMutableBufferPointer { g in
                h.withUnsafeMutableBufferPointer { h in
                    let cw = cos(w), sw = sin(w)
                    var c = cos(-w * mid), s = sin(-w * mid)
                    var i = 0
                    while i < n {
                        let t = Double(i) - mid
                        let d = four ? t * (-a * s + b * c) : 0
                        let y = Double(x[i])
                        h[0] += c * y; h[1] += s * y; h[2] += y; h[3] += d * y
                        g[0] += c * c; g[1] += c * s; g[2] += c; g[3] += c * d
                        g[5] += s * s; g[6] += s; g[7] += s * d
                        g[10] += 1; g[11] += d; g[15] += d * d
                        let nc = c * cw - s * sw
                        s = c * sw + s * cw
                        c = nc
                        i += 1
                    }
                }
            }
            for p in 0..<4 { for q in 0..<p { g[p * 4 + q] = g[q * 4 + p] } }
            let sol = solve(g, h, four ? 4 : 3)
            (a, b, dc) = (sol[0], sol[1], sol[2])
            if four { w += sol[3] }
        }
        if refine > 0 {
            let r = fit(x, w: w, refine: 0)
            return (w, r.amp, r.residual)
        }
        var e = 0.0
        let k = n / 20
        let cw = cos(w), sw = sin(w)
        var c = cos(-w * mid), s = sin(-w * mid)
        for i in 0..<n {
            if i >= k && i < n - k {
                let r = Double(x[i]) - (a * c + b * s + dc)
                e += r * r
            }
            let nc = c * cw - s * sw
            s = c * sw + s * cw
            c = nc
        }
        return (w, (a * a + b * b).squareRoot(), (e / Double(max(1, n - 2 * k))).squareRoot())
    }

    public static func solve(_ g: [Double], _ h: [Double], _ cols: Int) -> [Double] {
        var m = g, r = h
        for k in 0..<cols {
            var piv = k
            for j in (k + 1)..<max(k + 1, cols) where abs(m[j * 4 + k]) > abs(m[piv * 4 + k]) { piv = j }
            if piv != k { for q in 0..<4 { m.swapAt(k * 4 + q, piv * 4 + q) }; r.swapAt(k, piv) }
            let d = m[k * 4 + k]
            if d == 0 { continue }
            for j in (k + 1)..<max(k + 1, cols) {
                let f = m[j * 4 + k] / d
                for q in k..<cols { m[j * 4 + q] -= f * m[k * 4 + q] }
                r[j] -= f * r[k]
            }
        }
        var sol = [Double](repeating: 0, count: 4)
        for k in stride(from: cols - 1, through: 0, by: -1) {
            var v = r[k]
            for q in (k + 1)..<max(k + 1, cols) { v -= m[k * 4 + q] * sol[q] }
            sol[k] = m[k * 4 + k] == 0 ? 0 : v / m[k * 4 + k]
        }
        return sol
    }
}
