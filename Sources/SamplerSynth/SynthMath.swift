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
import CSamplerKernels

/// Frames per control block (envelopes, LFOs, pitch and gains are updated once per block).
let synthBlockFrames = 64
/// Floats per voice in SamplerSynth.blockCache: a block of input, a block of output, the low-pass
/// state at the block's start (and padding to a multiple of 32 bytes), then the low-pass's
/// prepared coefficients (CSamplerKernels.h).
let synthCacheStride = 2 * synthBlockFrames + 8 + Int(CSK_BIQUAD_COEFFICIENTS)
/// Where a voice's prepared low-pass coefficients start in its block cache.
let synthCacheCoefficients = 2 * synthBlockFrames + 8
/// Frames of the effect send buses (the synth renders in stretches of at most this many).
let synthEffectFrames = 512
/// Spare voice slots for voices fading out after a steal (so the new note needs no wait).
let synthFadeSlots = 64

/// 4-point (Catmull-Rom) interpolation between p1 and p2 at fraction f.
@inline(__always)
func synthCubic(_ p0: Float, _ p1: Float, _ p2: Float, _ p3: Float, _ f: Float) -> Float {
    p1 + 0.5 * f * (p2 - p0 + f * (2 * p0 - 5 * p1 + 4 * p2 - p3 + f * (3 * (p1 - p2) + p3 - p0)))
}

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

    /// Concave transform of a 7-bit controller, negative: 960 cB × −(5/12)·log10(v/127), 960 at 0
    /// (SoundFont 2.04 §8.2.1's concave curve as FluidSynth tabulates it).
    @inline(__always)
    static func concaveCentibels(_ v: UInt8) -> Float {
        if v == 0 { return 960 }
        if v >= 127 { return 0 }
        return min(960, Float(-400 * log10(Double(v) / 127)))
    }

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

/// The C voice loops (CSamplerKernels), called through the variant chosen for this CPU. The
/// compiler's check cannot follow a C function pointer; the loops are vouched for by hand: they
/// read and write the memory they are given and nothing else (no heap, no lock, no system call).
enum VoiceKernels {
    @_semantics("no_performance_analysis") @inline(never)
    static func cubic(_ k: UnsafePointer<CSKKernels>, _ s: UnsafePointer<Float>, _ out: UnsafeMutablePointer<Float>, _ n: Int,
                      _ phase: UInt64, _ incr: UInt64) -> UInt64 {
        k.pointee.cubic(s, out, n, phase, incr)
    }
    @_semantics("no_performance_analysis") @inline(never)
    static func cubic16(_ k: UnsafePointer<CSKKernels>, _ s: UnsafePointer<Int16>, _ out: UnsafeMutablePointer<Float>, _ n: Int,
                        _ phase: UInt64, _ incr: UInt64) -> UInt64 {
        k.pointee.cubic16(s, out, n, phase, incr)
    }
    @_semantics("no_performance_analysis") @inline(never)
    static func biquad(_ k: UnsafePointer<CSKKernels>, _ x: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>, _ n: Int,
                       _ b0: Float, _ b1: Float, _ a1: Float, _ a2: Float, _ state: UnsafeMutablePointer<Float>,
                       _ coefficients: UnsafePointer<Float>) {
        k.pointee.biquad(x, y, n, b0, b1, a1, a2, state, coefficients)
    }
    @_semantics("no_performance_analysis") @inline(never)
    static func biquadPrepare(_ k: UnsafePointer<CSKKernels>, _ a1: Float, _ a2: Float, _ coefficients: UnsafeMutablePointer<Float>) {
        k.pointee.biquadPrepare(a1, a2, coefficients)
    }
    @_semantics("no_performance_analysis") @inline(never)
    static func mix(_ k: UnsafePointer<CSKKernels>, _ x: UnsafePointer<Float>, _ l: UnsafeMutablePointer<Float>, _ r: UnsafeMutablePointer<Float>,
                    _ n: Int, _ gl: Float, _ sl: Float, _ gr: Float, _ sr: Float, _ offset: Int) {
        k.pointee.mix(x, l, r, n, gl, sl, gr, sr, offset)
    }
}
