// The sample type the resampler computes in: Float for the quality levels up to `.high`,
// Double for `.max` (the -150 dB noise floor of the mastering level needs Float64 arithmetic).
//
// The kernels are generic over this protocol and are specialised for both types inside the
// module. They use `SIMD4<T>` with separate multiply and add: the package is compiled for the
// x86-64 baseline (SSE2), where `addingProduct` would become a call to `fmaf` per lane. The
// Float64 hot loops (the steep stage's spectrum products, the exact-ratio polyphase stage) run
// in C instead (CResamplerKernels), with AVX2 + FMA where the CPU has them; the steep stage's
// FFT is the package's (FFT/PermutedFFT.swift, whose Float64 body is in C the same way).

protocol ResamplerScalar: FFTScalar {
    init(_ value: Double)
    init(_ value: Float)
    var doubleValue: Double { get }
    var floatValue: Float { get }
}

extension Float: ResamplerScalar {
    var doubleValue: Double { Double(self) }
    var floatValue: Float { self }
}

extension Double: ResamplerScalar {
    var doubleValue: Double { self }
    var floatValue: Float { Float(self) }
}

/// Unaligned SIMD loads and stores on typed pointers.
extension UnsafeMutablePointer where Pointee: SIMDScalar {
    @inline(__always)
    func v4(_ i: Int) -> SIMD4<Pointee> {
        UnsafeRawPointer(self + i).loadUnaligned(as: SIMD4<Pointee>.self)
    }

    @inline(__always)
    func setV4(_ i: Int, _ v: SIMD4<Pointee>) {
        UnsafeMutableRawPointer(self + i).storeBytes(of: v, as: SIMD4<Pointee>.self)
    }
}

extension UnsafePointer where Pointee: SIMDScalar {
    @inline(__always)
    func v4(_ i: Int) -> SIMD4<Pointee> {
        UnsafeRawPointer(self + i).loadUnaligned(as: SIMD4<Pointee>.self)
    }
}

/// A zero-initialised, 64-byte aligned buffer that lives as long as its owner (allocated on the
/// control side, in an initialiser).
struct AlignedBuffer<T> {
    let pointer: UnsafeMutablePointer<T>
    let count: Int

    init(count: Int, zeroed: Bool = true) {
        let n = max(count, 1)
        let words = (n * MemoryLayout<T>.stride + 64 + 7) / 8
        let raw = UnsafeMutableRawPointer.allocate(byteCount: words * 8, alignment: 64)
        // one bulk fill (the typed per-element initialisation is a loop of value-witness calls in
        // debug builds: seconds for the long tables of extreme ratios)
        if zeroed { raw.initializeMemory(as: UInt64.self, repeating: 0, count: words) }
        pointer = raw.bindMemory(to: T.self, capacity: n)
        self.count = count
    }

    func deallocate() { UnsafeMutableRawPointer(pointer).deallocate() }
}

/// floor and ceil to Int without `FloatingPointRoundingRule` (whose use the real-time checker
/// reports as possible metadata access); |x| < 2^62.
@inline(__always)
func floorToInt(_ x: Double) -> Int {
    let i = Int(x)                      // truncates toward zero
    return Double(i) > x ? i - 1 : i
}

@inline(__always)
func ceilToInt(_ x: Double) -> Int {
    let i = Int(x)
    return Double(i) < x ? i + 1 : i
}

/// memmove of n samples (regions may overlap); no generic value-witness calls.
@inline(__always)
func moveSamples<T>(_ dst: UnsafeMutablePointer<T>, _ src: UnsafePointer<T>, _ n: Int) {
    if n > 0 { UnsafeMutableRawPointer(dst).copyMemory(from: UnsafeRawPointer(src), byteCount: n * MemoryLayout<T>.stride) }
}

@inline(__always)
func moveSamples<T>(_ dst: UnsafeMutablePointer<T>, _ src: UnsafeMutablePointer<T>, _ n: Int) {
    moveSamples(dst, UnsafePointer(src), n)
}

/// Sets n samples of a floating-point type to +0.
@inline(__always)
func zeroSamples<T>(_ p: UnsafeMutablePointer<T>, _ n: Int) {
    if n > 0 {
        let raw = UnsafeMutableRawPointer(p)
        var i = 0
        let bytes = n * MemoryLayout<T>.stride
        while i + 8 <= bytes { raw.storeBytes(of: UInt64(0), toByteOffset: i, as: UInt64.self); i += 8 }
        while i < bytes { raw.storeBytes(of: UInt8(0), toByteOffset: i, as: UInt8.self); i += 1 }
    }
}

/// 4x4 transpose of SIMD4 rows.
@inline(__always)
func transpose4<T: SIMDScalar>(_ a: SIMD4<T>, _ b: SIMD4<T>, _ c: SIMD4<T>, _ d: SIMD4<T>)
    -> (SIMD4<T>, SIMD4<T>, SIMD4<T>, SIMD4<T>) {
    (SIMD4(a[0], b[0], c[0], d[0]), SIMD4(a[1], b[1], c[1], d[1]), SIMD4(a[2], b[2], c[2], d[2]), SIMD4(a[3], b[3], c[3], d[3]))
}
