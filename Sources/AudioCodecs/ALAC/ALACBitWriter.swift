// Writes ALAC's big-endian bit fields into a caller's buffer of known capacity. Writing past the
// capacity throws (the encoder sizes packets exactly, so it never should).
import CALACKernels

struct ALACBitWriter {
    let base: UnsafeMutablePointer<UInt8>
    let capacity: Int
    private(set) var byteCount = 0
    private var cache: UInt64 = 0
    private var cacheBits = 0

    init(_ base: UnsafeMutableRawPointer, capacity: Int) {
        self.base = base.assumingMemoryBound(to: UInt8.self)
        self.capacity = capacity
    }

    /// Appends the low `n` bits (0…32) of `value`.
    @inline(__always)
    mutating func write(_ value: UInt32, _ n: Int) throws {
        if n == 0 { return }
        let masked = n == 32 ? UInt64(value) : UInt64(value) & ((1 << UInt64(n)) - 1)
        cache = cache << UInt64(n) | masked
        cacheBits += n
        while cacheBits >= 8 {
            guard byteCount < capacity else { throw CodecError(.corrupt, "Apple Lossless: an encoded packet outgrew its buffer") }
            cacheBits -= 8
            base[byteCount] = UInt8(truncatingIfNeeded: cache >> UInt64(cacheBits))
            byteCount += 1
        }
    }

    /// Bits written so far (whole bytes and the pending ones).
    var bitCount: Int { byteCount * 8 + cacheBits }

    /// `n` one bits (a unary prefix).
    @inline(__always)
    mutating func ones(_ n: Int) throws {
        var left = n
        while left > 0 {
            let k = min(left, 32)
            try write(k == 32 ? UInt32.max : (UInt32(1) << UInt32(k)) - 1, k)
            left -= k
        }
    }

    /// Residuals in the adaptive-Golomb code, written by the C kernel (calac_write_residuals:
    /// the same bits as ALACEncoder.codeResiduals into this writer, which ALACKernelTests checks).
    mutating func writeResiduals(_ res: UnsafePointer<Int32>, count: Int, escapeBits: Int) throws {
        try withKernelState { calac_write_residuals(&$0, res, count, Int32(escapeBits)) }
    }

    /// How `writeResidualsChecked` ended.
    enum CheckedWrite { case written, tooLarge, ambiguous }

    /// Residuals as `writeResiduals` writes them, but stopping (`.tooLarge`) rather than pass
    /// byte `limit` (at most `capacity`), and (`.ambiguous`) at a coding decoders disagree on
    /// (see ALACEncoder.codeResiduals): calac_write_residuals_checked. After either stop this
    /// writer's state is meaningless, and the caller goes back to a copy it kept.
    mutating func writeResidualsChecked(_ res: UnsafePointer<Int32>, count: Int, escapeBits: Int, limit: Int) -> CheckedWrite {
        var state = CALACBitWriter(base: base, capacity: min(limit, capacity), byteCount: byteCount, cache: cache, cacheBits: Int32(cacheBits))
        switch calac_write_residuals_checked(&state, res, count, Int32(escapeBits)) {
        case 0:
            byteCount = state.byteCount
            cache = state.cache
            cacheBits = Int(state.cacheBits)
            return .written
        case -2: return .ambiguous
        default: return .tooLarge
        }
    }

    /// `count` values of `bits` (8 or 16) bits each: the low bytes a shift kept back, written by
    /// the C kernel (calac_write_fixed: what `write(_:_:)` per value would write).
    mutating func writeFixed(_ values: UnsafePointer<UInt16>, count: Int, bits: Int) throws {
        try withKernelState { calac_write_fixed(&$0, values, count, Int32(bits)) }
    }

    /// Hands this writer's position to a C kernel as a `CALACBitWriter` and takes it back; the
    /// kernel returns nonzero when the packet would outgrow the buffer.
    @inline(__always)
    private mutating func withKernelState(_ kernel: (inout CALACBitWriter) -> Int32) throws {
        var state = CALACBitWriter(base: base, capacity: capacity, byteCount: byteCount, cache: cache, cacheBits: Int32(cacheBits))
        guard kernel(&state) == 0 else {
            throw CodecError(.corrupt, "Apple Lossless: an encoded packet outgrew its buffer")
        }
        byteCount = state.byteCount
        cache = state.cache
        cacheBits = Int(state.cacheBits)
    }

    /// Pads with zero bits to a byte boundary.
    mutating func flush() throws {
        if cacheBits > 0 { try write(0, 8 - cacheBits) }
    }
}
