// The IEEE 754 storage formats, binary32 and binary64, in either byte order. A float stored in the
// other byte order is read as an integer of the same width, byte-swapped, and reinterpreted.

/// IEEE 754 binary32 in byte order `E`.
enum Float32Storage<E: ByteOrder>: SampleStorage {
    static var byteCount: Int { 4 }
    static var kind: NumericKind { .float32 }

    @inline(__always)
    static func loadFloat(_ p: UnsafeRawPointer) -> Float { Float(bitPattern: E.load(p, as: UInt32.self)) }

    @inline(__always)
    static func loadDouble(_ p: UnsafeRawPointer) -> Double { Double(loadFloat(p)) }

    @inline(__always)
    static func loadAligned(_ p: UnsafeRawPointer) -> Int32 {
        SampleScaling.integer(fromFloat: loadFloat(p), bits: 32)
    }

    @inline(__always)
    static func store(_ x: Float, to p: UnsafeMutableRawPointer) { E.store(x.bitPattern, to: p) }

    @inline(__always)
    static func store(_ x: Double, to p: UnsafeMutableRawPointer) { store(Float(x), to: p) }

    @inline(__always)
    static func store(_ x: Float, dither: Float, to p: UnsafeMutableRawPointer) { store(x, to: p) }

    @inline(__always)
    static func store(_ x: Double, dither: Double, to p: UnsafeMutableRawPointer) { store(x, to: p) }

    @inline(__always)
    static func store(aligned x: Int32, to p: UnsafeMutableRawPointer) {
        store(SampleScaling.float(fromInteger: x, bits: 32), to: p)
    }
}

/// IEEE 754 binary64 in byte order `E`.
enum Float64Storage<E: ByteOrder>: SampleStorage {
    static var byteCount: Int { 8 }
    static var kind: NumericKind { .float64 }

    @inline(__always)
    static func loadDouble(_ p: UnsafeRawPointer) -> Double { Double(bitPattern: E.load(p, as: UInt64.self)) }

    @inline(__always)
    static func loadFloat(_ p: UnsafeRawPointer) -> Float { Float(loadDouble(p)) }

    @inline(__always)
    static func loadAligned(_ p: UnsafeRawPointer) -> Int32 {
        SampleScaling.integer(fromDouble: loadDouble(p), bits: 32)
    }

    @inline(__always)
    static func store(_ x: Double, to p: UnsafeMutableRawPointer) { E.store(x.bitPattern, to: p) }

    @inline(__always)
    static func store(_ x: Float, to p: UnsafeMutableRawPointer) { store(Double(x), to: p) }

    @inline(__always)
    static func store(_ x: Float, dither: Float, to p: UnsafeMutableRawPointer) { store(x, to: p) }

    @inline(__always)
    static func store(_ x: Double, dither: Double, to p: UnsafeMutableRawPointer) { store(x, to: p) }

    @inline(__always)
    static func store(aligned x: Int32, to p: UnsafeMutableRawPointer) {
        store(SampleScaling.double(fromInteger: x, bits: 32), to: p)
    }
}
