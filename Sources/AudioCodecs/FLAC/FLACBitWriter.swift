// The encoder's bit sink: FLAC writes every field most significant bit first (RFC 9639 §9), and
// frames are byte-aligned only at their end (the CRC-16), so fields are packed into a 64-bit
// accumulator and spilled 32 bits at a time into a growable byte buffer.

import CFLACKernels

/// Appends big-endian bit fields to a byte buffer that grows as needed.
public struct FLACBitWriter {
    /// The bytes completed so far (capacity may be larger).
    public private(set) var bytes: UnsafeMutablePointer<UInt8>
    public private(set) var capacity: Int
    /// Whole bytes stored in `bytes`.
    public private(set) var count = 0
    private var accumulator: UInt64 = 0
    /// Bits waiting in the low end of `accumulator` (always < 32 between calls).
    private var pending = 0

    public init(capacity: Int) {
        self.capacity = max(64, capacity)
        bytes = .allocate(capacity: self.capacity)
    }

    /// Frees the buffer; the writer must not be used afterwards.
    public func deallocate() { bytes.deallocate() }

    /// Bits written so far, counting those not yet spilled.
    public var bitCount: Int { count * 8 + pending }

    /// Starts over (keeps the buffer).
    public mutating func reset() {
        count = 0
        pending = 0
        accumulator = 0
    }

    private mutating func reserve(_ extra: Int) {
        guard count + extra > capacity else { return }
        let bigger = max(capacity * 2, count + extra)
        let fresh = UnsafeMutablePointer<UInt8>.allocate(capacity: bigger)
        fresh.update(from: bytes, count: count)
        bytes.deallocate()
        bytes = fresh
        capacity = bigger
    }

    /// Writes the low `n` bits of `value` (0 ≤ n ≤ 32; higher bits of `value` must be zero).
    @inline(__always)
    public mutating func write(_ value: UInt32, _ n: Int) {
        accumulator = accumulator << UInt64(n) | UInt64(value)
        pending += n
        if pending >= 32 {
            pending -= 32
            let word = UInt32(truncatingIfNeeded: accumulator >> UInt64(pending))
            reserve(4)
            bytes[count] = UInt8(truncatingIfNeeded: word >> 24)
            bytes[count + 1] = UInt8(truncatingIfNeeded: word >> 16)
            bytes[count + 2] = UInt8(truncatingIfNeeded: word >> 8)
            bytes[count + 3] = UInt8(truncatingIfNeeded: word)
            count += 4
        }
    }

    /// Writes `value` as an `n`-bit two's complement number (1 ≤ n ≤ 64).
    @inline(__always)
    public mutating func writeSigned(_ value: Int64, _ n: Int) {
        let bits = n == 64 ? UInt64(bitPattern: value) : UInt64(bitPattern: value) & ((1 << UInt64(n)) - 1)
        if n > 32 {
            write(UInt32(truncatingIfNeeded: bits >> 32), n - 32)
            write(UInt32(truncatingIfNeeded: bits), 32)
        } else {
            write(UInt32(truncatingIfNeeded: bits), n)
        }
    }

    /// Writes an unsigned value of up to 64 bits.
    public mutating func write64(_ value: UInt64, _ n: Int) {
        if n > 32 {
            write(UInt32(truncatingIfNeeded: value >> 32), n - 32)
            write(UInt32(truncatingIfNeeded: value), 32)
        } else {
            write(UInt32(truncatingIfNeeded: value), n)
        }
    }

    /// Writes one Rice code (RFC 9639 §9.2.7.1): `u >> k` zeros, a one, then the low `k` bits of
    /// `u` (the folded residual).
    @inline(__always)
    public mutating func writeRice(_ u: UInt64, _ k: Int) {
        var q = u >> UInt64(k)
        let low = UInt32(truncatingIfNeeded: u & ((1 << UInt64(k)) - 1))
        if q + 1 + UInt64(k) <= 32 {
            write((1 << UInt32(k)) | low, Int(q) + 1 + k)
            return
        }
        while q >= 32 {
            write(0, 32)
            q -= 32
        }
        write(1, Int(q) + 1)
        write(low, k)
    }

    /// Writes `r[0..<n]` as Rice codes with parameter `k` (the folded values, as `writeRice`),
    /// through the C kernel; where the buffer would overflow it grows it and goes on.
    public mutating func writeRiceRun(_ r: UnsafePointer<Int64>, count n: Int, parameter k: Int) {
        var done = 0
        while done < n {
            var state = CFLACWriter(bytes: bytes, capacity: capacity, count: count, accumulator: accumulator, pending: pending)
            done += cflac_write_rice(FLACEncoder.kernelsUseAVX2, &state, r + done, n - done, Int32(k))
            count = state.count
            accumulator = state.accumulator
            pending = state.pending
            if done < n {
                // The next code would not fit: this path reserves as it writes.
                let v = r[done]
                writeRice(UInt64(bitPattern: (v << 1) ^ (v >> 63)), k)
                done += 1
            }
        }
    }

    /// Pads with zero bits to the next byte boundary and spills everything pending.
    public mutating func alignAndFlush() {
        if pending & 7 != 0 { write(0, 8 - pending & 7) }
        reserve(4)
        while pending >= 8 {
            pending -= 8
            bytes[count] = UInt8(truncatingIfNeeded: accumulator >> UInt64(pending))
            count += 1
        }
    }

    /// Appends whole bytes (the writer must be byte-aligned and flushed).
    public mutating func appendBytes(_ values: [UInt8]) {
        precondition(pending == 0)
        reserve(values.count)
        for v in values {
            bytes[count] = v
            count += 1
        }
    }
}
