// Reads ALAC's big-endian bit fields from one packet.
//
// The position is a bit offset; every read first checks that the bits lie inside the packet and
// throws `truncated` otherwise, so a damaged packet can never make the decoder read outside it.
// `peek` loads eight bytes at once (assembled byte by byte near the end, zero-padded), which is
// what makes the Golomb decoder's "count the leading ones, then take k bits" cheap.

struct ALACBitReader {
    let base: UnsafePointer<UInt8>
    let byteCount: Int
    /// Bits consumed from the start of the packet.
    var position: Int = 0

    init(_ bytes: UnsafeRawBufferPointer) {
        base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? UnsafePointer(bitPattern: 1)!
        byteCount = bytes.count
    }

    var bitCount: Int { byteCount &* 8 }
    var bitsLeft: Int { bitCount - position }

    /// The next 64 bits, left-aligned (at least 57 of them real, the rest zero past the end).
    @inline(__always)
    func peek64() -> UInt64 {
        let byte = position >> 3
        var v: UInt64
        if byte + 8 <= byteCount {
            v = UInt64(bigEndian: UnsafeRawPointer(base + byte).loadUnaligned(as: UInt64.self))
        } else {
            v = 0
            for i in 0..<8 {
                v <<= 8
                if byte + i < byteCount { v |= UInt64(base[byte + i]) }
            }
        }
        return v << UInt64(position & 7)
    }

    @inline(__always)
    mutating func skip(_ n: Int) throws {
        guard n >= 0, n <= bitsLeft else { throw ALACBitReader.truncated }
        position += n
    }

    /// The next `n` bits (0…57) as an unsigned value.
    @inline(__always)
    mutating func read(_ n: Int) throws -> UInt64 {
        if n == 0 { return 0 }
        guard n <= bitsLeft else { throw ALACBitReader.truncated }
        let v = peek64() >> UInt64(64 - n)
        position += n
        return v
    }

    /// The next `n` bits (1…57) as a two's-complement value.
    @inline(__always)
    mutating func readSigned(_ n: Int) throws -> Int64 {
        if n == 0 { return 0 }
        let v = try read(n)
        let s = UInt64(64 - n)
        return Int64(bitPattern: v << s) >> Int64(s)
    }

    mutating func alignToByte() { position = (position + 7) & ~7 }

    static let truncated = CodecError(.truncated, "Apple Lossless: the packet ends before the data it announces")
}
