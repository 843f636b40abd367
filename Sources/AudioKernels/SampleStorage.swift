// The compile-time vocabulary of the conversion kernels: one type per way a sample can be stored
// in memory (16-bit big-endian integer, µ-law byte, …), each knowing how to read itself as a number
// and write a number back.
//
// Why types and not a switch: the kernels are generic over a source storage `S` and a destination
// storage `D`. The public entry points switch on the formats once per call and call the generic
// kernel with concrete types; the optimiser then specialises the kernel for that pair, so every
// `S.load…`/`D.store…` inside the loop is inlined straight-line code – no per-sample switch, no
// protocol dispatch – which the loop vectoriser can turn into SIMD instructions.

/// How a storage format holds its numbers, which decides the arithmetic of a conversion.
enum NumericKind {
    /// A two's-complement integer (including G.711, which decodes to 16-bit integers).
    case integer
    case float32
    case float64
}

/// Which representation a conversion passes a sample through between loading and storing.
enum Pipeline {
    /// Integer to integer: a left-aligned Int32 (see `SampleStorage.loadAligned`), so widening and
    /// narrowing are shifts and nothing goes through floating point.
    case integer
    /// Float32 arithmetic: enough for every pair not involving float64 (int32 → float32 rounds
    /// once, as it must; float32 → int32 quantises through Double internally).
    case float32
    /// Float64 arithmetic, when either side is float64: exact for every integer format.
    case float64

    /// The pipeline for converting from `S` to `D`. Both kinds are constants of the types, so
    /// after specialisation this folds to a constant and the other branches disappear.
    @inline(__always)
    static func between<S: SampleStorage, D: SampleStorage>(_: S.Type, _: D.Type) -> Pipeline {
        if S.kind == .integer && D.kind == .integer { return .integer }
        if S.kind == .float64 || D.kind == .float64 { return .float64 }
        return .float32
    }
}

/// One way of storing a sample in memory.
///
/// A storage reads a sample as any of three representations and writes any of them back, applying
/// the rules of `SampleScaling`. Implementations are caseless enums: only the type is ever used.
protocol SampleStorage {
    /// Bytes one sample occupies.
    static var byteCount: Int { get }
    /// How the format holds its numbers.
    static var kind: NumericKind { get }

    /// The sample as a left-aligned 32-bit integer: an integer format's value shifted so that its
    /// sign bit is bit 31 (int16 `x` gives `x << 16`, uint8 `x` gives `(x - 128) << 24`). All
    /// integer widths then share one scale, and integer → integer conversion is one narrowing step.
    static func loadAligned(_ p: UnsafeRawPointer) -> Int32
    /// The sample as a Float in [-1, 1) (floats are returned as stored).
    static func loadFloat(_ p: UnsafeRawPointer) -> Float
    /// The sample as a Double in [-1, 1).
    static func loadDouble(_ p: UnsafeRawPointer) -> Double

    /// Stores a left-aligned 32-bit integer, rounding and clipping to the format's width.
    static func store(aligned x: Int32, to p: UnsafeMutableRawPointer)
    /// Stores a Float sample, quantising if the format is an integer one.
    static func store(_ x: Float, to p: UnsafeMutableRawPointer)
    /// Stores a Double sample, quantising if the format is an integer one.
    static func store(_ x: Double, to p: UnsafeMutableRawPointer)
    /// Stores a Float sample, adding `dither` (in LSBs of the format) before quantising. Float
    /// formats ignore the dither: there is no quantisation to decorrelate.
    static func store(_ x: Float, dither: Float, to p: UnsafeMutableRawPointer)
    /// Stores a Double sample with dither, as `store(_:dither:to:)` for Float.
    static func store(_ x: Double, dither: Double, to p: UnsafeMutableRawPointer)
}

/// An integer storage: a `bits`-wide two's-complement value (G.711 formats count as 16-bit).
/// Implementations provide the raw load and store; this protocol derives the rest.
protocol IntegerSampleStorage: SampleStorage {
    /// Width of the value: 8, 16, 24 or 32.
    static var bits: Int { get }
    /// The value, in `-2^(bits-1) ..< 2^(bits-1)`.
    static func loadInteger(_ p: UnsafeRawPointer) -> Int32
    /// Stores a value already in `-2^(bits-1) ..< 2^(bits-1)`.
    static func store(integer x: Int32, to p: UnsafeMutableRawPointer)
}

extension IntegerSampleStorage {
    @inline(__always)
    static var kind: NumericKind { .integer }

    @inline(__always)
    static func loadAligned(_ p: UnsafeRawPointer) -> Int32 { loadInteger(p) << (32 &- bits) }

    @inline(__always)
    static func loadFloat(_ p: UnsafeRawPointer) -> Float {
        SampleScaling.float(fromInteger: loadInteger(p), bits: bits)
    }

    @inline(__always)
    static func loadDouble(_ p: UnsafeRawPointer) -> Double {
        SampleScaling.double(fromInteger: loadInteger(p), bits: bits)
    }

    @inline(__always)
    static func store(aligned x: Int32, to p: UnsafeMutableRawPointer) {
        store(integer: SampleScaling.integer(x, fromBits: 32, toBits: bits), to: p)
    }

    @inline(__always)
    static func store(_ x: Float, to p: UnsafeMutableRawPointer) {
        store(integer: SampleScaling.integer(fromFloat: x, bits: bits), to: p)
    }

    @inline(__always)
    static func store(_ x: Double, to p: UnsafeMutableRawPointer) {
        store(integer: SampleScaling.integer(fromDouble: x, bits: bits), to: p)
    }

    @inline(__always)
    static func store(_ x: Float, dither: Float, to p: UnsafeMutableRawPointer) {
        store(integer: SampleScaling.integer(fromFloat: x, bits: bits, dither: dither), to: p)
    }

    @inline(__always)
    static func store(_ x: Double, dither: Double, to p: UnsafeMutableRawPointer) {
        store(integer: SampleScaling.integer(fromDouble: x, bits: bits, dither: dither), to: p)
    }
}

// MARK: - Byte order

/// The order of a multi-byte sample's bytes, as a type so that byte swapping is decided at
/// compile time.
protocol ByteOrder {
    static var isBigEndian: Bool { get }
}

/// Least significant byte first (WAV, CAF by flag, x86 and ARM memory).
enum LittleEndian: ByteOrder {
    static var isBigEndian: Bool { false }
}

/// Most significant byte first (AIFF, Sun .au, CAF's default).
enum BigEndian: ByteOrder {
    static var isBigEndian: Bool { true }
}

#if _endian(little)
/// The byte order of this machine's memory, which processing buffers use.
typealias NativeEndian = LittleEndian
#else
typealias NativeEndian = BigEndian
#endif

extension ByteOrder {
    /// Reads a `T` stored in this byte order at `p`, which need not be aligned.
    @inline(__always)
    static func load<T: FixedWidthInteger>(_ p: UnsafeRawPointer, as: T.Type) -> T {
        let raw = p.loadUnaligned(as: T.self)
        return isBigEndian ? T(bigEndian: raw) : T(littleEndian: raw)
    }

    /// Writes `value` in this byte order at `p`, which need not be aligned.
    @inline(__always)
    static func store<T: FixedWidthInteger>(_ value: T, to p: UnsafeMutableRawPointer) {
        p.storeBytes(of: isBigEndian ? value.bigEndian : value.littleEndian, as: T.self)
    }
}
