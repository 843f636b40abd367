// Filter design for the resampler (control side, Float64): Kaiser-windowed sinc low-pass filters,
// their continuous-time kernels for the polyphase stage, and the minimum-phase transform.

enum ResamplerFilterDesign {
    /// Kaiser's beta for a stop-band attenuation in dB.
    static func kaiserBeta(attenuation a: Double) -> Double {
        if a > 50 { return 0.1102 * (a - 8.7) }
        if a > 21 {
            let x = a - 21
            return 0.5842 * ResamplerMath.exp(0.4 * ResamplerMath.log(x)) + 0.07886 * x
        }
        return 0
    }

    /// Kaiser's estimate of the number of taps for an attenuation (dB) and a transition width in
    /// cycles per sample. `margin` lengthens the estimate (the formula is optimistic above ~120 dB).
    static func kaiserLength(attenuation a: Double, transition: Double, margin: Double = 1) -> Int {
        let n = (a - 7.95) / (2.285 * 2 * ResamplerMath.pi * transition) * margin
        return Int(n.rounded(.up)) + 1
    }

    /// The continuous-time Kaiser-windowed sinc: cutoff `cutoff` (cycles per unit of t), window
    /// half-width `radius`, DC gain 1. Zero outside (-radius, radius).
    struct Kernel {
        let cutoff: Double
        let radius: Double
        let beta: Double
        let i0Beta: Double

        init(cutoff: Double, radius: Double, beta: Double) {
            self.cutoff = cutoff
            self.radius = radius
            self.beta = beta
            i0Beta = ResamplerMath.besselI0(beta)
        }

        func callAsFunction(_ t: Double) -> Double {
            let r = t / radius
            if r <= -1 || r >= 1 { return 0 }
            let w = ResamplerMath.besselI0(beta * (1 - r * r).squareRoot()) / i0Beta
            return 2 * cutoff * ResamplerMath.sinc(2 * cutoff * t) * w
        }
    }

    /// A linear-phase low-pass FIR with `length` taps (odd), centred on tap (length-1)/2: the
    /// Kaiser-windowed ideal low-pass (cut-off in cycles per sample).
    static func lowpass(length: Int, cutoff: Double, beta: Double, gain: Double) -> [Double] {
        let center = Double(length - 1) / 2
        var h = [Double](repeating: 0, count: length)
        // Window exactly over the taps: w(n) = I0(beta sqrt(1 - ((n - c)/c)^2)) / I0(beta)
        let i0 = ResamplerMath.besselI0(beta)
        for n in 0..<length {
            let x = Double(n) - center
            let r = center > 0 ? x / center : 0
            let w = ResamplerMath.besselI0(beta * max(0, 1 - r * r).squareRoot()) / i0
            h[n] = gain * 2 * cutoff * ResamplerMath.sinc(2 * cutoff * x) * w
        }
        return h
    }

    /// Frequency response H(nu) (nu in cycles per unit of t) of a kernel, by the trapezoid rule on
    /// 64 points per unit (the kernel is smooth and vanishes at its ends, so this converges fast).
    static func response(of kernel: Kernel, at nus: [Double]) -> [Double] {
        let steps = min(4096, max(64, Int(64 * 2 * kernel.radius)))
        let dt = 2 * kernel.radius / Double(steps)
        var samples = [Double](repeating: 0, count: steps + 1)
        for i in 0...steps { samples[i] = kernel(-kernel.radius + Double(i) * dt) }
        return nus.map { nu in
            // cos(2 pi nu t) by rotation from t = -radius
            let c0 = ResamplerMath.cosPi(-2 * nu * kernel.radius), s0 = ResamplerMath.sinPi(-2 * nu * kernel.radius)
            let cd = ResamplerMath.cosPi(2 * nu * dt), sd = ResamplerMath.sinPi(2 * nu * dt)
            var c = c0, s = s0, sum = 0.0
            for i in 0...steps {
                sum += samples[i] * c
                (c, s) = (c * cd - s * sd, s * cd + c * sd)
                if i % 256 == 255 {   // re-anchor the rotation
                    let t = -kernel.radius + Double(i + 1) * dt
                    c = ResamplerMath.cosPi(2 * nu * t); s = ResamplerMath.sinPi(2 * nu * t)
                }
            }
            return sum * dt
        }
    }

    /// g0 + 2 sum_k g_k cos(2 pi k f).
    static func cosineSeries(_ g: [Double], at freqs: [Double]) -> [Double] {
        freqs.map { f in
            var sum = g[0]
            for k in 1..<max(1, g.count) { sum += 2 * g[k] * ResamplerMath.cosPi(2 * Double(k) * f) }
            return sum
        }
    }

    /// Least-squares cosine series G(f) = g0 + 2 sum_{k=1..taps} g_k cos(2 pi k f) matching
    /// `target` on the grid `freqs` (Householder QR; the normal equations are too ill-conditioned).
    static func cosineFit(freqs: [Double], target: [Double], taps: Int) -> [Double] {
        let m = freqs.count, n = taps + 1
        var a = [Double](repeating: 0, count: m * n)      // row-major m x n
        var b = target
        for i in 0..<m {
            for k in 0..<n { a[i * n + k] = (k == 0 ? 1 : 2) * ResamplerMath.cosPi(2 * Double(k) * freqs[i]) }
        }
        for j in 0..<n {
            var norm = 0.0
            for i in j..<m { norm += a[i * n + j] * a[i * n + j] }
            norm = norm.squareRoot()
            if norm == 0 { continue }
            let alpha = a[j * n + j] > 0 ? -norm : norm
            var v = [Double](repeating: 0, count: m)
            for i in j..<m { v[i] = a[i * n + j] }
            v[j] -= alpha
            var vv = 0.0
            for i in j..<m { vv += v[i] * v[i] }
            if vv == 0 { continue }
            for k in j..<n {
                var d = 0.0
                for i in j..<m { d += v[i] * a[i * n + k] }
                let f = 2 * d / vv
                for i in j..<m { a[i * n + k] -= f * v[i] }
            }
            var d = 0.0
            for i in j..<m { d += v[i] * b[i] }
            let f = 2 * d / vv
            for i in j..<m { b[i] -= f * v[i] }
        }
        var x = [Double](repeating: 0, count: n)
        for j in stride(from: n - 1, through: 0, by: -1) {
            var sum = b[j]
            for k in (j + 1)..<n { sum -= a[j * n + k] * x[k] }
            x[j] = a[j * n + j] != 0 ? sum / a[j * n + j] : 0
        }
        return x
    }

    /// The minimum-phase filter with the same magnitude response (real cepstrum method, with an
    /// FFT 32x longer than the filter to keep cepstral aliasing below the stop band).
    /// Returns the filter (same length) and its group delay at DC in taps.
    static func minimumPhase(_ h: [Double]) -> (filter: [Double], delay: Double) {
        var n = 16
        while n < 32 * h.count { n *= 2 }
        let fft = ComplexFFT<Double>(count: n)
        let re = AlignedBuffer<Double>(count: n), im = AlignedBuffer<Double>(count: n)
        defer { re.deallocate(); im.deallocate() }
        func forward() { fft.forward(inRe: re.pointer, inIm: im.pointer, outRe: re.pointer, outIm: im.pointer) }
        func inverse() { fft.inverse(inRe: re.pointer, inIm: im.pointer, outRe: re.pointer, outIm: im.pointer) }
        for i in 0..<h.count { re.pointer[i] = h[i] }
        forward()
        var peak = 0.0
        for k in 0..<n { peak = max(peak, (re.pointer[k] * re.pointer[k] + im.pointer[k] * im.pointer[k]).squareRoot()) }
        let floor = peak * 1e-16
        for k in 0..<n {
            let mag = (re.pointer[k] * re.pointer[k] + im.pointer[k] * im.pointer[k]).squareRoot()
            re.pointer[k] = ResamplerMath.log(max(mag, floor))
            im.pointer[k] = 0
        }
        inverse()          // real cepstrum * n
        let scale = 1 / Double(n)
        for i in 0..<n {
            let c = re.pointer[i] * scale
            let f: Double = i == 0 || i == n / 2 ? 1 : (i < n / 2 ? 2 : 0)
            re.pointer[i] = c * f
            im.pointer[i] = 0
        }
        forward()
        for k in 0..<n {
            let m = ResamplerMath.exp(re.pointer[k])
            let ph = im.pointer[k] / ResamplerMath.pi
            re.pointer[k] = m * ResamplerMath.cosPi(ph)
            im.pointer[k] = m * ResamplerMath.sinPi(ph)
        }
        inverse()
        var out = [Double](repeating: 0, count: h.count)
        for i in 0..<h.count { out[i] = re.pointer[i] * scale }
        var s0 = 0.0, s1 = 0.0
        for i in 0..<out.count { s0 += out[i]; s1 += Double(i) * out[i] }
        return (out, s1 / s0)
    }
}
