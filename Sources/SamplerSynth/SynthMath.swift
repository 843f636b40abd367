// libm for the voice engine's control-rate conversions (cents → frequency ratio, centibels →
// amplitude, filter coefficients), called once per voice per 64-frame control block. The
// compiler's `@_noLocks` check cannot see into C, so each call goes through a wrapper vouched
// for by hand: glibc's pow/exp2/log10/sin/cos compute on their arguments and touch no heap and
// no lock (`errno` is thread-local).
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif

enum SynthMath {
    @_semantics("no_performance_analysis") @inline(never)
    static func exp2(_ x: Double) -> Double { libmExp2(x) }
    @_semantics("no_performance_analysis") @inline(never)
    static func log2(_ x: Double) -> Double { libmLog2(x) }
    @_semantics("no_performance_analysis") @inline(never)
    static func log10(_ x: Double) -> Double { libmLog10(x) }
    @_semantics("no_performance_analysis") @inline(never)
    static func pow10(_ x: Double) -> Double { libmPow(10, x) }
    @_semantics("no_performance_analysis") @inline(never)
    static func sin(_ x: Double) -> Double { libmSin(x) }
    @_semantics("no_performance_analysis") @inline(never)
    static func cos(_ x: Double) -> Double { libmCos(x) }
    @_semantics("no_performance_analysis") @inline(never)
    static func sqrt(_ x: Double) -> Double { x.squareRoot() }

    /// Centibels of attenuation → amplitude (10^(−cB/200)).
    @inline(__always) static func amplitude(centibels cb: Float) -> Float { Float(pow10(Double(-cb) / 200)) }
    /// Absolute cents → hertz (8.176 Hz at 0 cents; 440 Hz at 6900).
    @inline(__always) static func hertz(cents: Float) -> Float { Float(440 * exp2((Double(cents) - 6_900) / 1_200)) }
    /// Timecents → seconds.
    @inline(__always) static func seconds(timecents tc: Float) -> Double { exp2(Double(tc) / 1_200) }
}

private func libmExp2(_ x: Double) -> Double { exp2(x) }
private func libmLog2(_ x: Double) -> Double { log2(x) }
private func libmLog10(_ x: Double) -> Double { log10(x) }
private func libmPow(_ x: Double, _ y: Double) -> Double { pow(x, y) }
private func libmSin(_ x: Double) -> Double { sin(x) }
private func libmCos(_ x: Double) -> Double { cos(x) }
