import Foundation

/// Room-acoustics measurements of impulse responses and reverb tails.
public enum ReverbMetrics {
    /// RT60 (s) from the Schroeder energy decay curve: the line fitted to the EDC between `from`
    /// and `to` dB, extrapolated to −60 dB. The curve is corrected for truncation: the energy
    /// the response would still have had after its end is estimated from the decay rate of its
    /// last part and added (so short responses of long reverbs are measured without bias).
    public static func rt60(_ h: [Float], rate: Double, from: Double, to: Double) -> Double? {
        guard let start = h.firstIndex(where: { abs($0) > 1e-7 }) else { return nil }
        let e = h[start...].map { Double($0) * Double($0) }
        let n = e.count
        // Decay rate of the envelope over the last half (10 ms energy blocks, least squares).
        let block = Int(rate * 0.01)
        var xs: [Double] = [], ys: [Double] = []
        var i = n / 2
        while i + block <= n {
            let s = e[i ..< i + block].reduce(0, +) / Double(block)
            if s > 0 { xs.append(Double(i + block / 2) / rate); ys.append(10 * log10(s)) }
            i += block
        }
        guard let slope = fitSlope(xs, ys), slope < 0 else { return nil }
        // Energy after the end: density at the end × τ, with density ∝ 10^(slope·t/10).
        let endDensity = pow(10, (ys.last! - slope * xs.last! + slope * Double(n) / rate) / 10)
        let tail = endDensity * rate * (10 / (slope * log(10)) * -1)
        var edc = [Double](repeating: 0, count: n)
        var acc = tail
        for k in stride(from: n - 1, through: 0, by: -1) { acc += e[k]; edc[k] = acc }
        let e0 = edc[0]
        var fx: [Double] = [], fy: [Double] = []
        for k in 0 ..< n {
            let db = 10 * log10(edc[k] / e0)
            if db <= from && db >= to { fx.append(Double(k) / rate); fy.append(db) }
        }
        guard fx.count > 10, let s = fitSlope(fx, fy), s < 0 else { return nil }
        return -60 / s
    }

    public static func fitSlope(_ x: [Double], _ y: [Double]) -> Double? {
        let n = Double(x.count)
        guard n >= 2 else { return nil }
        let mx = x.reduce(0, +) / n, my = y.reduce(0, +) / n
        var sxy = 0.0, sxx = 0.0
        for i in x.indices { sxy += (x[i] - mx) * (y[i] - my); sxx += (x[i] - mx) * (x[i] - mx) }
        return sxx > 0 ? sxy / sxx : nil
    }

    /// Normalized echo density (Abel & Huang): in a 20 ms Hann window, the weighted fraction of
    /// samples whose magnitude exceeds the window's standard deviation, over erfc(1/√2) — about
    /// 1 for Gaussian noise, near 0 for a few isolated echoes. Returned per millisecond, from the
    /// response's onset.
    public static func echoDensity(_ h: [Float], rate: Double, maximumWindows: Int = .max) -> [Double] {
        guard let start = h.firstIndex(where: { abs($0) > 1e-7 }) else { return [] }
        let x = Array(h[start...]).map(Double.init)
        var w = Int(rate * 0.02)
        if w % 2 == 0 { w += 1 }
        let win = (0 ..< w).map { 0.5 - 0.5 * cos(2 * Double.pi * Double($0 + 1) / Double(w + 1)) }
        let wsum = win.reduce(0, +)
        let erfc = 0.317_310_507_862_914_1
        var out: [Double] = []
        var t = 0
        let hop = Int(rate * 0.001)
        while t + w <= x.count && out.count < maximumWindows {
            var energy = 0.0
            for k in 0 ..< w { energy += win[k] * x[t + k] * x[t + k] }
            let sigma = (energy / wsum).squareRoot()
            var count = 0.0
            for k in 0 ..< w where abs(x[t + k]) > sigma { count += win[k] }
            out.append(count / wsum / erfc)
            t += hop
        }
        return out
    }

    /// Modal flatness of a reverb tail: the power spectrum of `x` (Hann window) averaged in
    /// 1/12-octave bands between 200 Hz and 8 kHz, in dB, minus its quadratic trend over
    /// log-frequency; returns the standard deviation and the largest deviation (dB). A metallic
    /// (ringing) tail shows strong isolated peaks; a dense one stays within a few dB.
    public static func spectralRoughness(_ x: [Float], rate: Double) -> (std: Double, max: Double) {
        var n = 1
        while n * 2 <= x.count { n *= 2 }
        let w = (0 ..< n).map { Double(x[$0]) * (0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(n))) }
        let p = Spectrum.power(w)
        let df = rate / Double(n)
        var lx: [Double] = [], ly: [Double] = []
        var lo = 200.0
        while lo * pow(2, 1.0 / 12) <= 8000 {
            let hi = lo * pow(2, 1.0 / 12)
            let a = Int((lo / df).rounded(.up)), b = Int((hi / df).rounded(.down))
            if b >= a {
                let mean = p[a ... b].reduce(0, +) / Double(b - a + 1)
                lx.append(log2((lo * hi).squareRoot())); ly.append(10 * log10(mean))
            }
            lo = hi
        }
        // Quadratic least squares in log-frequency.
        let m = Double(lx.count)
        let mx = lx.reduce(0, +) / m
        let u = lx.map { $0 - mx }
        var s = [Double](repeating: 0, count: 5), r = [Double](repeating: 0, count: 3)
        for i in u.indices {
            var pw = 1.0
            for k in 0 ..< 5 { s[k] += pw; pw *= u[i] }
            r[0] += ly[i]; r[1] += ly[i] * u[i]; r[2] += ly[i] * u[i] * u[i]
        }
        // Solve the 3×3 normal equations (Cramer).
        func det(_ a: [[Double]]) -> Double {
            a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0])
                + a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0])
        }
        let a = [[s[0], s[1], s[2]], [s[1], s[2], s[3]], [s[2], s[3], s[4]]]
        let d = det(a)
        var coef = [0.0, 0.0, 0.0]
        for k in 0 ..< 3 {
            var ak = a
            for row in 0 ..< 3 { ak[row][k] = r[row] }
            coef[k] = det(ak) / d
        }
        let residual = u.indices.map { ly[$0] - (coef[0] + coef[1] * u[$0] + coef[2] * u[$0] * u[$0]) }
        let std = (residual.map { $0 * $0 }.reduce(0, +) / m).squareRoot()
        return (std, residual.map(abs).max() ?? 0)
    }

    /// Normalized correlation of two signals at lag 0.
    public static func correlation(_ a: ArraySlice<Float>, _ b: ArraySlice<Float>) -> Double {
        var ab = 0.0, aa = 0.0, bb = 0.0
        for (x, y) in zip(a, b) { ab += Double(x) * Double(y); aa += Double(x) * Double(x); bb += Double(y) * Double(y) }
        return aa > 0 && bb > 0 ? ab / (aa * bb).squareRoot() : 0
    }
}
