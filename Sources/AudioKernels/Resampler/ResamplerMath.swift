// Elementary functions in Float64 for the filter design (control side only).
//
// AudioKernels imports nothing but the standard library, which has no transcendental functions;
// these are accurate to a few units in the last place over the ranges the designer uses, which
// is all the filter design needs (coefficients are computed in Float64 and the -180 dB designs
// need relative accuracy around 1e-10 at worst).

enum ResamplerMath {
    static let pi = 3.141_592_653_589_793_238_46
    static let ln2 = 0.693_147_180_559_945_309_42

    /// sin(pi x), exact argument reduction.
    static func sinPi(_ x: Double) -> Double {
        if !x.isFinite { return .nan }
        // reduce to [-1, 1]
        var y = x - 2 * (x / 2).rounded()
        var sign = 1.0
        if y < 0 { y = -y; sign = -1 }
        // sin(pi y) for y in [0, 1]: symmetric about 1/2
        if y > 0.5 { y = 1 - y }
        if y <= 0.25 { return sign * sinPiPoly(y) }
        return sign * cosPiPoly(0.5 - y)
    }

    /// cos(pi x), exact argument reduction.
    static func cosPi(_ x: Double) -> Double {
        if !x.isFinite { return .nan }
        var y = abs(x - 2 * (x / 2).rounded())   // [0, 1]
        var sign = 1.0
        if y > 0.5 { y = 1 - y; sign = -1 }       // cos(pi(1-y)) = -cos(pi y)
        if y <= 0.25 { return sign * cosPiPoly(y) }
        return sign * sinPiPoly(0.5 - y)
    }

    /// Taylor series of sin(pi y), |y| <= 0.25.
    private static func sinPiPoly(_ y: Double) -> Double {
        let t = pi * y
        let t2 = t * t
        var term = t
        var sum = t
        var k = 1.0
        while k < 40 {
            term *= -t2 / ((2 * k) * (2 * k + 1))
            sum += term
            if abs(term) < 1e-19 * abs(sum) { break }
            k += 1
        }
        return sum
    }

    /// Taylor series of cos(pi y), |y| <= 0.25.
    private static func cosPiPoly(_ y: Double) -> Double {
        let t = pi * y
        let t2 = t * t
        var term = 1.0
        var sum = 1.0
        var k = 1.0
        while k < 40 {
            term *= -t2 / ((2 * k - 1) * (2 * k))
            sum += term
            if abs(term) < 1e-19 { break }
            k += 1
        }
        return sum
    }

    /// e^x.
    static func exp(_ x: Double) -> Double {
        if x.isNaN { return x }
        if x > 709.7 { return .infinity }
        if x < -745 { return 0 }
        let k = (x / ln2).rounded()
        let r = x - k * ln2
        var term = 1.0
        var sum = 1.0
        var i = 1.0
        while i < 40 {
            term *= r / i
            sum += term
            if abs(term) < 1e-19 * sum { break }
            i += 1
        }
        return sum * pow2(Int(k))
    }

    /// Natural logarithm, x > 0.
    static func log(_ x: Double) -> Double {
        if x.isNaN || x < 0 { return .nan }
        if x == 0 { return -.infinity }
        if x.isInfinite { return x }
        var e = Int(x.exponent)
        var m = x.significand                      // [1, 2)
        if m > 1.414_213_562_373_095 { m /= 2; e += 1 }
        // log(m) = 2 atanh(s), s = (m-1)/(m+1), |s| < 0.172
        let s = (m - 1) / (m + 1)
        let s2 = s * s
        var term = s
        var sum = s
        var k = 3.0
        while k < 80 {
            term *= s2
            let add = term / k
            sum += add
            if abs(add) < 1e-19 * abs(sum) { break }
            k += 2
        }
        return 2 * sum + Double(e) * ln2
    }

    static func pow2(_ k: Int) -> Double {
        if k > 1023 { return .infinity }
        if k < -1074 { return 0 }
        if k < -1022 { return Double(sign: .plus, exponent: -1022, significand: 1) * Double(sign: .plus, exponent: k + 1022, significand: 1) }
        return Double(sign: .plus, exponent: k, significand: 1)
    }

    /// 10^(x/20): an amplitude from decibels.
    static func fromDecibels(_ db: Double) -> Double { exp(db / 20 * log(10)) }

    /// Modified Bessel function of the first kind, order 0 (power series; converges for all x
    /// the Kaiser window uses, beta < 40).
    static func besselI0(_ x: Double) -> Double {
        let q = x * x / 4
        var term = 1.0
        var sum = 1.0
        var k = 1.0
        while k < 500 {
            term *= q / (k * k)
            sum += term
            if term < 1e-18 * sum { break }
            k += 1
        }
        return sum
    }

    /// sin(pi x) / (pi x).
    static func sinc(_ x: Double) -> Double {
        if x == 0 { return 1 }
        return sinPi(x) / (pi * x)
    }
}
