// Reads FLAC's big-endian bit fields, unary and Rice codes from a byte range.
//
// Design. The reader keeps the not-yet-consumed bits left-aligned in a 64-bit `cache`;
// `cacheBits` of them are counted as loaded. Away from the end of the range a refill is one
// unaligned 8-byte big-endian load OR-ed in below the counted bits, after which as many whole
// bytes as fit are counted (the cache then holds 56…63 counted bits). The bits below the counted
// ones are not zero after such a refill: they are the stream's own next bits, so OR-ing the same
// bytes in again later changes nothing, and every decision that looks past `cacheBits` (the
// unary scan) only trusts bits it has counted. Within 8 bytes of the end the refill goes a byte
// at a time and never reads outside the range; a read past the end throws `truncated`.
//
// Rice codes (`readRice`), the hot loop of every FLAC decode, take one leading-zero count for the
// quotient and one shift for the k low bits when the whole code lies in the counted bits (almost
// always: a code longer than ~56 bits means a quotient beyond 2^40 and k small — real encoders
// never produce one, and the slow path handles it exactly).
//
// The loop over a whole Rice partition is in C (CFLACKernels), for LZCNT/BMI2.
//
// Positions are in bits from the range's start, so the frame decoder can check CRCs over exact
// byte spans.
import CFLACKernels

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

    /// Bytes of the range not yet loaded into the cache.
    var bytesRemaining: Int { count - bytePosition }

    /// Loads bytes until at least 56 bits are counted or the range ends.
    @inline(__always)
    private mutating func refill() {
        if bytePosition &+ 8 <= count {
            let word = UInt64(bigEndian: UnsafeRawPointer(base + bytePosition).loadUnaligned(as: UInt64.self))
            cache |= word &>> UInt64(cacheBits)
            let bytes = (63 &- cacheBits) &>> 3
            bytePosition &+= bytes
            cacheBits &+= bytes &<< 3
            return
        }
        refillSlowly()
    }

    /// The last bytes of the range, one at a time.
    private mutating func refillSlowly() {
        while cacheBits < 56 && bytePosition < count {   // (at most 63 counted: shifts stay below 64)
            cache |= UInt64(base[bytePosition]) << UInt64(56 - cacheBits)
            cacheBits += 8
            bytePosition += 1
        }
    }

    /// The next `n` bits (0…56) as an unsigned value.
    @inline(__always)
    mutating func read(_ n: Int) throws -> UInt64 {
        if n == 0 { return 0 }
        if cacheBits < n {
            refill()
            if cacheBits < n { throw CodecError(.truncated, "FLAC: the data ends inside a frame") }
        }
        let value = cache &>> UInt64(64 &- n)
        cache = cache &<< UInt64(n)   // (n ≤ 56 here: the shift never reaches 64)
        cacheBits &-= n
        return value
    }

    /// The next `n` bits (1…56) as a two's-complement signed value.
    @inline(__always)
    mutating func readSigned(_ n: Int) throws -> Int64 {
        if n == 0 { return 0 }
        let v = try read(n)
        let shift = UInt64(64 - n)
        return Int64(bitPattern: v &<< shift) &>> Int64(shift)
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
            // Only the counted bits are trusted: a one bit below them is not yet loaded.
            let lz = cache.leadingZeroBitCount
            if lz < cacheBits {
                zeros += lz
                cache = cache &<< UInt64(lz + 1)   // (lz + 1 ≤ cacheBits ≤ 63)
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

    /// One Rice-coded residual with parameter `k` (0…30), unfolded to a signed value
    /// (RFC 9639 §9.2.7.1: the quotient in unary, then k low bits; 0, 1, 2, 3 … → 0, −1, 1, −2 …).
    @inline(__always)
    mutating func readRice(_ k: Int) throws -> Int64 {
        if cacheBits < 32 { refill() }
        let lz = cache.leadingZeroBitCount
        let length = lz &+ 1 &+ k
        let folded: UInt64
        if length <= cacheBits {
            // The whole code is counted: quotient lz, then the k bits after the stop bit.
            let afterStop = cache &<< UInt64(lz &+ 1)   // (lz + 1 < 64: lz < cacheBits ≤ 63)
            let low = (afterStop &>> 1) &>> UInt64(63 &- k)   // (k = 0 gives 0 without a branch)
            folded = UInt64(lz) &<< UInt64(k) | low
            cache = cache &<< UInt64(length)   // (length ≤ cacheBits ≤ 63)
            cacheBits &-= length
        } else {
            let q = UInt64(try readUnary())
            folded = q &<< UInt64(k) | (try read(k))
        }
        return Int64(bitPattern: folded &>> 1) ^ (0 &- Int64(bitPattern: folded & 1))
    }

    /// Whether the Rice loop may use LZCNT and BMI2 (CPUID, once; see CFLACKernels.h).
    static let riceLoopUsesLZCNT = cflac_has_lzcnt() != 0

    /// `n` Rice-coded residuals with parameter `k` (0…30) into `out[0..<n]`: the C loop of
    /// CFLACKernels, which keeps the reader's state in registers and stops within 8 bytes of the
    /// range's end or at a code longer than its counted bits; `readRice` (checked, throwing)
    /// decodes that code, and the loop goes on.
    @inline(__always)
    mutating func readRiceRun(into out: UnsafeMutablePointer<Int64>, count n: Int, parameter k: Int) throws {
        var m = 0
        let fast = Self.riceLoopUsesLZCNT
        while m < n {
            var state = CFLACBits(base: base, count: count, position: bytePosition, cache: cache, bits: cacheBits)
            m &+= fast ? cflac_rice_run_lzcnt(&state, out + m, n &- m, Int32(truncatingIfNeeded: k))
                       : cflac_rice_run_portable(&state, out + m, n &- m, Int32(truncatingIfNeeded: k))
            cache = state.cache
            cacheBits = state.bits
            bytePosition = state.position
            if m < n {
                out[m] = try readRice(k)
                m &+= 1
            }
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
