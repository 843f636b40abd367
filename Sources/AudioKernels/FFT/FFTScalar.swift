// The sample types the FFTs run on (Float32 and Float64), and the vector helpers their loops use.
//
// Every FFT in this folder is generic over `FFTScalar` and vectorised with `SIMD4<T>`: one SSE
// register of Float, two of Double (the package is compiled for baseline x86-64). The generic
// code is specialised inside the module for both types; callers in other modules should go
// through the concrete wrappers of their own module (they are not `@inlinable`).

public protocol FFTScalar: BinaryFloatingPoint, SIMDScalar, Codable {}

extension Float: FFTScalar {}
extension Double: FFTScalar {}

enum FFTMath {
    /// Copies n values (memmove: the ranges may overlap). Plain memory moves: `update(from:)`
    /// on a generic element type is not provably free of releases, so `@_noLocks` rejects it.
    @inline(__always)
    static func copy<T: FFTScalar>(_ dst: UnsafeMutablePointer<T>, _ src: UnsafePointer<T>, _ n: Int) {
        UnsafeMutableRawPointer(dst).copyMemory(from: UnsafeRawPointer(src), byteCount: n * MemoryLayout<T>.stride)
    }

    @inline(__always)
    static func copy<T: FFTScalar>(_ dst: UnsafeMutablePointer<T>, _ src: UnsafeMutablePointer<T>, _ n: Int) {
        copy(dst, UnsafePointer(src), n)
    }

    /// Sets n values to zero.
    @inline(__always)
    static func zero<T: FFTScalar>(_ p: UnsafeMutablePointer<T>, _ n: Int) {
        var i = 0
        while i < n { p[i] = 0; i += 1 }
    }

    /// (sin, cos) of pi * x, exact at multiples of 1/4 (the twiddle tables' symmetric points).
    static func sinCosPi(_ x: Double) -> (sin: Double, cos: Double) {
        // reduce to [-1, 1) and use the octant symmetries so w^(n/4), w^(n/8)... are exact
        var r = x.truncatingRemainder(dividingBy: 2)
        if r < -1 { r += 2 } else if r >= 1 { r -= 2 }
        if r == 0 { return (0, 1) }
        if r == 0.5 { return (1, 0) }
        if r == -0.5 { return (-1, 0) }
        if r == -1 { return (0, -1) }
        return StretchMath.sincos(Double.pi * r)
    }
}

extension SIMD4 where Scalar: FFTScalar {
    @inline(__always) static func load(_ p: UnsafePointer<Scalar>) -> SIMD4 {
        UnsafeRawPointer(p).loadUnaligned(as: SIMD4.self)
    }

    @inline(__always) static func load(_ p: UnsafeMutablePointer<Scalar>) -> SIMD4 {
        UnsafeRawPointer(p).loadUnaligned(as: SIMD4.self)
    }

    @inline(__always) func store(to p: UnsafeMutablePointer<Scalar>) {
        UnsafeMutableRawPointer(p).storeBytes(of: self, as: SIMD4.self)
    }
}
