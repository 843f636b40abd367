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

    /// A linear-phase low-pass FIR with `length` taps (odd), centred on tap (length-1)/2.
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

    /// The minimum-phase filter with the same magnitude response (real cepstrum method, with an
    /// FFT 32x longer than the filter to keep cepstral aliasing below the stop band).
    /// Returns the filter (same length) and its group delay at DC in taps.
    static func minimumPhase(_ h: [Double]) -> (filter: [Double], delay: Double) {
        var n = 16
        while n < 32 * h.count { n *= 2 }
        let fft = PermutedFFT<Double>(size: n)
        let re = AlignedBuffer<Double>(count: n), im = AlignedBuffer<Double>(count: n)
        defer { re.deallocate(); im.deallocate() }
        for i in 0..<h.count { re.pointer[i] = h[i] }
        fft.forward(re.pointer, im.pointer)
        var peak = 0.0
        for k in 0..<n { peak = max(peak, (re.pointer[k] * re.pointer[k] + im.pointer[k] * im.pointer[k]).squareRoot()) }
        let floor = peak * 1e-16
        for k in 0..<n {
            let mag = (re.pointer[k] * re.pointer[k] + im.pointer[k] * im.pointer[k]).squareRoot()
            re.pointer[k] = ResamplerMath.log(max(mag, floor))
            im.pointer[k] = 0
        }
        fft.inverse(re.pointer, im.pointer)          // real cepstrum * n
        let scale = 1 / Double(n)
        for i in 0..<n {
            let c = re.pointer[i] * scale
            let f: Double = i == 0 || i == n / 2 ? 1 : (i < n / 2 ? 2 : 0)
            re.pointer[i] = c * f
            im.pointer[i] = 0
        }
        fft.forward(re.pointer, im.pointer)
        for k in 0..<n {
            let m = ResamplerMath.exp(re.pointer[k])
            let ph = im.pointer[k] / ResamplerMath.pi
            re.pointer[k] = m * ResamplerMath.cosPi(ph)
            im.pointer[k] = m * ResamplerMath.sinPi(ph)
        }
        fft.inverse(re.pointer, im.pointer)
        var out = [Double](repeating: 0, count: h.count)
        for i in 0..<h.count { out[i] = re.pointer[i] * scale }
        var s0 = 0.0, s1 = 0.0
        for i in 0..<out.count { s0 += out[i]; s1 += Double(i) * out[i] }
        return (out, s1 / s0)
    }
}
