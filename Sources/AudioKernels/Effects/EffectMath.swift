// The C library's transcendental functions for the effect processors' coefficient design.
//
// AudioKernels otherwise uses the standard library only (the resampler and the time stretcher
// carry their own polynomial approximations). The effects design their filters, ramps and line
// lengths with libm's `pow`, `sin`, `cos`, `tan`, `sinh`, `exp`, `log`, `exp2`, `log2` — the
// same functions the AVFAudio façade computed them with before the DSP moved here, so every
// coefficient (and every output sample) is bit-for-bit what it was.
//
// Some of these run on the render thread (a parameter change recomputes coefficients there).
// The compiler's `@_noLocks` check cannot see into C, so each call goes through a wrapper
// vouched for by hand: the libm functions compute on their arguments and touch no heap and no
// lock (glibc's are pure; `errno` is thread-local).
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif

enum EffectMath {
    static let pi = Double.pi

    @_semantics("no_performance_analysis") @inline(never)
    static func power(_ x: Double, _ y: Double) -> Double { libmPow(x, y) }
    @_semantics("no_performance_analysis") @inline(never)
    static func sine(_ x: Double) -> Double { libmSin(x) }
    @_semantics("no_performance_analysis") @inline(never)
    static func cosine(_ x: Double) -> Double { libmCos(x) }
    @_semantics("no_performance_analysis") @inline(never)
    static func tangent(_ x: Double) -> Double { libmTan(x) }
    @_semantics("no_performance_analysis") @inline(never)
    static func hyperbolicSine(_ x: Double) -> Double { libmSinh(x) }
    @_semantics("no_performance_analysis") @inline(never)
    static func exponential(_ x: Double) -> Double { libmExp(x) }
    @_semantics("no_performance_analysis") @inline(never)
    static func logarithm(_ x: Double) -> Double { libmLog(x) }
    @_semantics("no_performance_analysis") @inline(never)
    static func logarithm10(_ x: Double) -> Double { libmLog10(x) }
    @_semantics("no_performance_analysis") @inline(never)
    static func exponential2(_ x: Double) -> Double { libmExp2(x) }
    @_semantics("no_performance_analysis") @inline(never)
    static func logarithm2(_ x: Double) -> Double { libmLog2(x) }
}

// File-scope shims: inside `EffectMath` the short names would resolve to its own members.
@inline(__always) private func libmPow(_ x: Double, _ y: Double) -> Double { pow(x, y) }
@inline(__always) private func libmSin(_ x: Double) -> Double { sin(x) }
@inline(__always) private func libmCos(_ x: Double) -> Double { cos(x) }
@inline(__always) private func libmTan(_ x: Double) -> Double { tan(x) }
@inline(__always) private func libmSinh(_ x: Double) -> Double { sinh(x) }
@inline(__always) private func libmExp(_ x: Double) -> Double { exp(x) }
@inline(__always) private func libmLog(_ x: Double) -> Double { log(x) }
@inline(__always) private func libmLog10(_ x: Double) -> Double { log10(x) }
@inline(__always) private func libmExp2(_ x: Double) -> Double { exp2(x) }
@inline(__always) private func libmLog2(_ x: Double) -> Double { log2(x) }

extension EffectMath {
    /// `x.rounded()` (to nearest, ties away from zero) without the rounding-rule enum, whose
    /// metadata the real-time checker cannot rule out: C's `round` is the same operation.
    @_semantics("no_performance_analysis") @inline(never)
    static func roundHalfAway(_ x: Double) -> Double { libmRound(x) }

    /// √x (IEEE-exact, so the same as `x.squareRoot()`), for coefficient design in proved code:
    /// the checker sees the standard library's square root as a call it cannot inspect.
    @_semantics("no_performance_analysis") @inline(never)
    static func squareRoot(_ x: Double) -> Double { x.squareRoot() }
}

extension Double {
    /// The value rounded to the nearest integer, ties away from zero (`rounded()`), usable in
    /// code the real-time checker proves.
    @inline(__always) var roundedToNearest: Double { EffectMath.roundHalfAway(self) }
}

@inline(__always) private func libmRound(_ x: Double) -> Double { round(x) }
