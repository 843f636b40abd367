// Scalar trigonometry for the time stretcher (AudioKernels uses the standard library only).
// Double precision, errors below 1e-11 rad / 1e-13: far under Float32 resolution.

enum StretchMath {
    static let pi = 3.141592653589793
    static let twoPi = 6.283185307179586
    static let halfPi = 1.5707963267948966
    static let quarterPi = 0.7853981633974483

    /// atan2(y, x) in (-pi, pi]; 0 for (0, 0).
    @inline(__always)
    static func atan2(_ y: Double, _ x: Double) -> Double {
        let ax = abs(x), ay = abs(y)
        if ax == 0 && ay == 0 { return 0 }
        let swapped = ay > ax
        let t = swapped ? ax / ay : ay / ax          // 0 ... 1
        var base = 0.0
        var u = t
        if t > 0.41421356237309503 {                 // tan(pi/8)
            u = (t - 1) / (t + 1)
            base = quarterPi
        }
        // atan(u), |u| <= tan(pi/8): odd Taylor series to u^21 (error < 1e-9)
        let z = u * u
        var q = -1.0 / 21
        q = q * z + 1.0 / 19
        q = q * z - 1.0 / 17
        q = q * z + 1.0 / 15
        q = q * z - 1.0 / 13
        q = q * z + 1.0 / 11
        q = q * z - 1.0 / 9
        q = q * z + 1.0 / 7
        q = q * z - 1.0 / 5
        q = q * z + 1.0 / 3
        q = q * z - 1
        q = -q
        var a = base + u * q
        if swapped { a = halfPi - a }
        if x < 0 { a = pi - a }
        return y < 0 ? -a : a
    }

    /// (sin x, cos x) for any finite x.
    @inline(__always)
    static func sincos(_ x: Double) -> (sin: Double, cos: Double) {
        // x = k (pi/2) + r, |r| <= pi/4 (Cody-Waite with a two-part pi/2)
        let k = floor(x * 0.6366197723675814 + 0.5)
        let r = (x - k * 1.5707963267341256) - k * 6.077100506506192e-11
        let z = r * r
        // sin r, cos r: Taylor to r^17 / r^16 (|r| <= pi/4: error < 1e-16)
        var s = 1.0 / 355_687_428_096_000          // 1/17!
        s = s * z - 1.0 / 1_307_674_368_000        // 1/15!
        s = s * z + 1.0 / 6_227_020_800            // 1/13!
        s = s * z - 1.0 / 39_916_800               // 1/11!
        s = s * z + 1.0 / 362_880                  // 1/9!
        s = s * z - 1.0 / 5040
        s = s * z + 1.0 / 120
        s = s * z - 1.0 / 6
        let sinR = r + r * z * s
        var c = 1.0 / 20_922_789_888_000           // 1/16!
        c = c * z - 1.0 / 87_178_291_200           // 1/14!
        c = c * z + 1.0 / 479_001_600              // 1/12!
        c = c * z - 1.0 / 3_628_800                // 1/10!
        c = c * z + 1.0 / 40_320                   // 1/8!
        c = c * z - 1.0 / 720
        c = c * z + 1.0 / 24
        c = c * z - 0.5
        let cosR = 1 + z * c
        switch Int(k) & 3 {
        case 0: return (sinR, cosR)
        case 1: return (cosR, -sinR)
        case 2: return (-sinR, -cosR)
        default: return (-cosR, sinR)
        }
    }

    /// x wrapped into [-pi, pi).
    @inline(__always)
    static func wrap(_ x: Double) -> Double {
        x - twoPi * floor((x + pi) * (1 / twoPi))
    }

    /// The largest integer <= x, for |x| < 2^62 (`rounded(.down)` would touch the rounding rule's
    /// metadata, which the real-time checker rejects).
    @inline(__always)
    static func floor(_ x: Double) -> Double {
        let t = Double(Int(x))
        return t > x ? t - 1 : t
    }

    /// x rounded to the nearest integer (halves up), as an Int.
    @inline(__always)
    static func roundToInt(_ x: Double) -> Int { Int(floor(x + 0.5)) }

    /// Copies n floats; the ranges may overlap when dst <= src (a move to lower addresses).
    @inline(__always)
    static func copy(_ dst: UnsafeMutablePointer<Float>, _ src: UnsafePointer<Float>, _ n: Int) {
        var i = 0
        while i < n { dst[i] = src[i]; i += 1 }
    }

    @inline(__always)
    static func copy(_ dst: UnsafeMutablePointer<Float>, _ src: UnsafeMutablePointer<Float>, _ n: Int) {
        copy(dst, UnsafePointer(src), n)
    }

    @inline(__always)
    static func zero(_ dst: UnsafeMutablePointer<Float>, _ n: Int) {
        var i = 0
        while i < n { dst[i] = 0; i += 1 }
    }

    /// 1 / sqrt(x) for x > 0, to full precision: a bit-level first guess (3 % off) and four
    /// Newton steps (the library square root is opaque to the real-time checker).
    @inline(__always)
    static func inverseSquareRoot(_ x: Double) -> Double {
        var y = Double(bitPattern: 0x5FE6_EB50_C7B5_37A9 &- (x.bitPattern >> 1))
        let h = 0.5 * x
        y = y * (1.5 - h * y * y)
        y = y * (1.5 - h * y * y)
        y = y * (1.5 - h * y * y)
        y = y * (1.5 - h * y * y)
        return y
    }

    // MARK: four peaks at a time (Float32)

    typealias F4 = SIMD4<Float>

    /// floor(x) for |x| < 2^22 (adding 1.5 x 2^23 rounds to an integer; no rounding-rule metadata).
    @inline(__always)
    static func floor4(_ x: F4) -> F4 {
        let magic = F4(repeating: 12_582_912)
        let r = (x + magic) - magic
        return r.replacing(with: r - 1, where: r .> x)
    }

    /// atan2(y, x) lane by lane (error < 2e-7 rad).
    @inline(__always)
    static func atan2(_ y: F4, _ x: F4) -> F4 {
        let ax = x.replacing(with: -x, where: x .< 0), ay = y.replacing(with: -y, where: y .< 0)
        let hi = pointwiseMax(ax, ay), lo = pointwiseMin(ax, ay)
        let t = (lo / hi).replacing(with: 0, where: hi .== 0)
        let big = t .> 0.41421356
        let u = ((t - 1) / (t + 1)).replacing(with: t, where: .!big)
        let z = u * u
        var q = F4(repeating: -1.0 / 15)
        q = q * z + 1.0 / 13
        q = q * z - 1.0 / 11
        q = q * z + 1.0 / 9
        q = q * z - 1.0 / 7
        q = q * z + 1.0 / 5
        q = q * z - 1.0 / 3
        q = q * z + 1
        var a = u * q + F4(repeating: Float(quarterPi)).replacing(with: 0, where: .!big)
        a = a.replacing(with: Float(halfPi) - a, where: ay .> ax)
        a = a.replacing(with: Float(pi) - a, where: x .< 0)
        return a.replacing(with: -a, where: y .< 0)
    }

    /// (sin x, cos x) lane by lane for |x| <= pi + a little (error < 1e-7).
    @inline(__always)
    static func sincos(_ x: F4) -> (sin: F4, cos: F4) {
        let k = floor4(x * Float(2 / pi) + 0.5)
        let r = (x - k * 1.5707963705062866) + k * 4.371139000186243e-8
        let z = r * r
        var s = F4(repeating: 1.0 / 362_880)
        s = s * z - 1.0 / 5040
        s = s * z + 1.0 / 120
        s = s * z - 1.0 / 6
        let sinR = r + r * z * s
        var c = F4(repeating: -1.0 / 3_628_800)
        c = c * z + 1.0 / 40_320
        c = c * z - 1.0 / 720
        c = c * z + 1.0 / 24
        c = c * z - 0.5
        let cosR = 1 + z * c
        let q = SIMD4<Int32>(truncatingIfNeeded: SIMD4<Int>(Int(k[0]), Int(k[1]), Int(k[2]), Int(k[3]))) & 3
        let swap = (q & 1) .== 1
        var sn = sinR.replacing(with: cosR, where: swap)
        var cs = cosR.replacing(with: sinR, where: swap)
        sn = sn.replacing(with: -sn, where: q .>= 2)
        cs = cs.replacing(with: -cs, where: (q .== 1) .| (q .== 2))
        return (sn, cs)
    }

    /// 1 / sqrt(x) for x > 0 (bit-level guess and three Newton steps: float precision).
    @inline(__always)
    static func inverseSquareRoot(_ x: F4) -> F4 {
        let bits = SIMD4<UInt32>(repeating: 0x5F37_5A86) &- (unsafeBitCast(x, to: SIMD4<UInt32>.self) &>> 1)
        var y = unsafeBitCast(bits, to: F4.self)
        let h = 0.5 * x
        y = y * (1.5 - h * y * y)
        y = y * (1.5 - h * y * y)
        y = y * (1.5 - h * y * y)
        return y
    }

    /// The rotations R = e^(i phi_s) / e^(i phi_a) of four peaks: X the analysis value, B the
    /// previous analysis value, S the previous synthesis value at the peak's bin; the advance is
    /// base + scale x princarg(angle(X conj B) - expected). A new partial (B ~ 0) keeps its phase.
    @inline(__always)
    static func peakRotations(ar: F4, ai: F4, br: F4, bi: F4, sr: F4, si: F4,
                              expected: F4, base: F4, scale: Float) -> (F4, F4) {
        let prevMag = br * br + bi * bi
        let xMag = ar * ar + ai * ai
        let dr = ar * br + ai * bi, di = ai * br - ar * bi
        var deviation = atan2(di, dr) - expected
        deviation = deviation - Float(twoPi) * floor4((deviation + Float(pi)) * Float(1 / twoPi))
        var advance = base + deviation * scale
        advance = advance - Float(twoPi) * floor4((advance + Float(pi)) * Float(1 / twoPi))
        let (es, ec) = sincos(advance)
        // where the previous synthesis value vanished, continue from the analysis value
        let sMag0 = sr * sr + si * si
        let weak = sMag0 .<= prevMag * 1e-12
        let s1 = sr.replacing(with: br, where: weak), s2 = si.replacing(with: bi, where: weak)
        let sMag = sMag0.replacing(with: prevMag, where: weak)
        let tr = s1 * ec - s2 * es, ti = s1 * es + s2 * ec
        let g = inverseSquareRoot(sMag) * inverseSquareRoot(xMag)
        var rc = (tr * ar + ti * ai) * g
        var rs = (ti * ar - tr * ai) * g
        let fresh = (prevMag .<= xMag * 1e-12) .| (prevMag .== 0) .| (sMag .< 1e-30)
        rc = rc.replacing(with: 1, where: fresh)
        rs = rs.replacing(with: 0, where: fresh)
        return (rc, rs)
    }
}

// Unaligned SIMD4<Float> loads and stores for the stretcher's loops.
extension SIMD4 where Scalar == Float {
    @inline(__always)
    init(_ p: UnsafePointer<Float>) {
        self = UnsafeRawPointer(p).loadUnaligned(as: SIMD4<Float>.self)
    }

    @inline(__always)
    init(_ p: UnsafeMutablePointer<Float>) {
        self = UnsafeRawPointer(p).loadUnaligned(as: SIMD4<Float>.self)
    }

    @inline(__always)
    func store(_ p: UnsafeMutablePointer<Float>) {
        UnsafeMutableRawPointer(p).storeBytes(of: self, as: SIMD4<Float>.self)
    }
}
