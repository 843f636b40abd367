// Reads FLAC's big-endian bit fields, unary and Rice codes from a byte range.
//
// The reader keeps up to 64 not-yet-consumed bits left-aligned in `cache`, refilled a byte at a
// time; a read past the end throws `truncated` (never reads outside the range). Positions are in
// bits from the range's start, so the frame decoder can check CRCs over exact byte spans.

struct FLACBitReader {
    let base: UnsafePointer<UInt8>
    let count: Int
    /// The next byte to load into the cache.
    private(set) var bytePosition: Int
    private var cache: UInt64 = 0
    private var cacheBits = 0

    init(_ base: UnsafePointer<UInt8>, count: Int, byteOffset: Int = 0) {
        self.base = base
        self.count = count
        bytePosition = byteOffset
    }

    /// Bits consumed from the start of the range.
    var bitPosition: Int { bytePosition * 8 - cacheBits }

    @inline(__always)
    private mutating func refill() {
        while cacheBits <= 56 && bytePosition < count {
            cache |= UInt64(base[bytePosition]) << UInt64(56 - cacheBits)
            cacheBits += 8
            bytePosition += 1
        }
    }

    /// The next `n` bits (0…57) as an unsigned value.
    @inline(__always)
    mutating func read(_ n: Int) throws -> UInt64 {
        if n == 0 { return 0 }
        if cacheBits < n {
            refill()
            if cacheBits < n { throw CodecError(.truncated, "FLAC: the data ends inside a frame") }
        }
        let value = cache >> UInt64(64 - n)
        cache = n == 64 ? 0 : cache << UInt64(n)
        cacheBits -= n
        return value
    }

    /// The next `n` bits (1…57) as a two's-complement signed value.
    @inline(__always)
    mutating func readSigned(_ n: Int) throws -> Int64 {
        if n == 0 { return 0 }
        let v = try read(n)
        let shift = UInt64(64 - n)
        return Int64(bitPattern: v << shift) >> Int64(shift)
    }

    /// Counts zero bits up to the next one bit, and consumes them and the one.
    @inline(__always)
    mutating func readUnary() throws -> Int {
        var zeros = 0
        while true {
            if cacheBits == 0 {
                refill()
                if cacheBits == 0 { throw CodecError(.truncated, "FLAC: the data ends inside a frame") }
            }
            // (the cache's bits below `cacheBits` are zero)
            let lz = cache.leadingZeroBitCount
            if lz < cacheBits {
                zeros += lz
                cache = lz + 1 == 64 ? 0 : cache << UInt64(lz + 1)
                cacheBits -= lz + 1
                return zeros
            }
            zeros += cacheBits
            cache = 0
            cacheBits = 0
            // A unary run longer than any valid residual can need: corrupt data, not a hang.
            if zeros > 1 << 30 { throw CodecError(.corrupt, "FLAC: a Rice code's unary part is impossibly long") }
        }
    }

    /// Skips to the next byte boundary.
    mutating func alignToByte() {
        let extra = cacheBits % 8
        if extra > 0 {
            cache <<= UInt64(extra)
            cacheBits -= extra
        }
    }
}
