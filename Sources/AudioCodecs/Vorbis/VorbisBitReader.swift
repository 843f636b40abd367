// Vorbis's bit packing (Vorbis I specification, section 2): values are packed least significant
// bit first into bytes, filled from their least significant bit. Reading past a packet's end is
// not an error in itself: the spec defines what each stage does at "end of packet" (a floor is
// then unused, a residue stops where it got to), so reads past the end return zero bits and set
// `pastEnd`, and each stage checks the flag where the spec says to.
//
// Hot path: `read` loads eight bytes at once while eight remain, so a read is one unaligned load,
// a shift and a mask; `peek`/`skip` serve the codebook lookup table (VorbisCodebook).

struct VorbisBitReader {
    let base: UnsafePointer<UInt8>
    /// Bytes in the packet.
    let count: Int
    /// Bits consumed so far.
    var position: Int = 0
    /// True once a read asked for a bit beyond the packet's end.
    var pastEnd = false

    init(_ bytes: UnsafeRawBufferPointer) {
        // An empty packet reads as all end-of-packet; a dummy address keeps `base` non-optional.
        base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? UnsafePointer(bitPattern: 1)!
        count = bytes.count
    }

    /// Bits left before the end of the packet.
    var remaining: Int { max(0, count * 8 - position) }

    /// The next `n` (0...32) bits without consuming them; zero bits past the end.
    @inline(__always)
    func peek(_ n: Int) -> UInt32 {
        let byte = position >> 3, shift = position & 7
        var word: UInt64
        if byte + 8 <= count {
            word = UInt64(littleEndian: UnsafeRawPointer(base + byte).loadUnaligned(as: UInt64.self))
        } else {
            word = 0
            var k = 0
            while byte + k < count && k < 8 {
                word |= UInt64(base[byte + k]) << UInt64(8 * k)
                k += 1
            }
        }
        let mask: UInt64 = n >= 64 ? ~0 : (1 << UInt64(n)) &- 1
        return UInt32(truncatingIfNeeded: (word >> UInt64(shift)) & mask)
    }

    /// Consumes `n` bits.
    @inline(__always)
    mutating func skip(_ n: Int) {
        position += n
        if position > count * 8 { pastEnd = true }
    }

    /// Reads `n` (0...32) bits as an unsigned integer.
    @inline(__always)
    mutating func read(_ n: Int) -> UInt32 {
        let v = peek(n)
        skip(n)
        return v
    }

    /// Reads one bit as a flag.
    @inline(__always)
    mutating func flag() -> Bool { read(1) != 0 }

    /// Reads `n` bits as an Int.
    @inline(__always)
    mutating func int(_ n: Int) -> Int { Int(read(n)) }
}

/// ilog(x) of the specification (section 9.2.1): the position of the highest set bit, 1-based;
/// 0 for x <= 0.
@inline(__always)
func vorbisILog(_ x: Int) -> Int { x <= 0 ? 0 : Int.bitWidth - x.leadingZeroBitCount }

/// float32_unpack (section 9.2.2): 21-bit mantissa, sign, 10-bit exponent biased by 788.
func vorbisFloat32Unpack(_ x: UInt32) -> Float {
    var mantissa = Double(x & 0x1F_FFFF)
    if x & 0x8000_0000 != 0 { mantissa = -mantissa }
    let exponent = Int((x & 0x7FE0_0000) >> 21)
    return Float(mantissa * pow2(exponent - 788))
}

private func pow2(_ e: Int) -> Double {
    // Exact for the exponent range a 10-bit field allows (-788 ... 235): scaled in steps to stay
    // within Double's normal range.
    var r = 1.0, e = e
    while e > 0 { let s = min(e, 512); r *= Double(sign: .plus, exponent: s, significand: 1); e -= s }
    while e < 0 { let s = max(e, -512); r *= Double(sign: .plus, exponent: s, significand: 1); e -= s }
    return r
}

/// lookup1_values (section 9.2.3): the greatest r with r^dimensions <= entries.
func vorbisLookup1Values(entries: Int, dimensions: Int) -> Int {
    guard entries > 0, dimensions > 0 else { return 0 }
    var r = Int(Foundation_pow(Double(entries), 1 / Double(dimensions)).rounded(.down))
    func fits(_ r: Int) -> Bool {
        var p = 1
        for _ in 0..<dimensions {
            let (m, o) = p.multipliedReportingOverflow(by: r)
            if o || m > entries { return false }
            p = m
        }
        return true
    }
    while r > 0 && !fits(r) { r -= 1 }
    while fits(r + 1) { r += 1 }
    return r
}

#if canImport(Glibc)
import Glibc
@inline(__always) private func Foundation_pow(_ a: Double, _ b: Double) -> Double { Glibc.pow(a, b) }
#elseif canImport(Musl)
import Musl
@inline(__always) private func Foundation_pow(_ a: Double, _ b: Double) -> Double { Musl.pow(a, b) }
#else
import Darwin
@inline(__always) private func Foundation_pow(_ a: Double, _ b: Double) -> Double { Darwin.pow(a, b) }
#endif
