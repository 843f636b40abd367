// The sample type the resampler computes in: Float for the quality levels up to `.high`,
// Double for `.max` (the -150 dB noise floor of the mastering level needs Float64 arithmetic).
//
// The kernels are generic over this protocol and are specialised for both types inside the
// module. They use `SIMD4<T>` with separate multiply and add: the package is compiled for the
// x86-64 baseline (SSE2), where `addingProduct` would become a call to `fmaf` per lane.

@usableFromInline
protocol ResamplerScalar: BinaryFloatingPoint, SIMDScalar, Codable {
    init(_ value: Double)
    init(_ value: Float)
    var doubleValue: Double { get }
    var floatValue: Float { get }
}

extension Float: ResamplerScalar {
    @inlinable var doubleValue: Double { Double(self) }
    @inlinable var floatValue: Float { self }
}

extension Double: ResamplerScalar {
    @inlinable var doubleValue: Double { self }
    @inlinable var floatValue: Float { Float(self) }
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
@usableFromInline
struct AlignedBuffer<T> {
    let pointer: UnsafeMutablePointer<T>
    let count: Int

    init(count: Int, zeroed: Bool = true) {
        let n = max(count, 1)
        let raw = UnsafeMutableRawPointer.allocate(byteCount: n * MemoryLayout<T>.stride + 64, alignment: 64)
        if zeroed { raw.initializeMemory(as: UInt8.self, repeating: 0, count: n * MemoryLayout<T>.stride + 64) }
        pointer = raw.bindMemory(to: T.self, capacity: n)
        self.count = count
    }

    func deallocate() { UnsafeMutableRawPointer(pointer).deallocate() }
}
