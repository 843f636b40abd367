// FLAC's checksums (RFC 9639 §9.1, §9.3): CRC-8 (polynomial x^8 + x^2 + x + 1, 0x07) over each
// frame header, CRC-16 (x^16 + x^15 + x^2 + 1, 0x8005) over each whole frame; both start at 0,
// no reflection, no final XOR.
//
// The CRC-16 runs over every byte of every frame (twice when a file is opened: once to confirm
// frame boundaries, once when the frame is decoded), so it goes eight bytes per step ("slicing by
// 8": table k holds the CRC of a byte followed by k zero bytes, and the eight lookups of one step
// are independent) instead of one dependent lookup per byte — or, on x86-64 CPUs with
// PCLMULQDQ, by carry-less multiplication in C (CFLACKernels/crc16.c), 16 bytes per fold and four
// folds in flight. Measured on the 16-bit / 24-bit benchmark files (6.3 / 12.0 MB, every byte
// checked twice at open + read): see Benchmarks/results/flac-decode-2026-11-28.md.
// OPENAVFAUDIO_FLAC_PORTABLE=1 forces the table (so tests reach both).
import CFLACKernels

public enum FLACChecksums {
    static let crc8Table: [UInt8] = (0..<256).map { i in
        var c = UInt8(i)
        for _ in 0..<8 { c = c & 0x80 != 0 ? (c << 1) ^ 0x07 : c << 1 }
        return c
    }
    static let crc16Table: [UInt16] = (0..<256).map { i in
        var c = UInt16(i) << 8
        for _ in 0..<8 { c = c & 0x8000 != 0 ? (c << 1) ^ 0x8005 : c << 1 }
        return c
    }

    public static func crc8(_ p: UnsafePointer<UInt8>, _ n: Int) -> UInt8 {
        var c: UInt8 = 0
        crc8Table.withUnsafeBufferPointer { t in
            for i in 0..<n { c = t[Int(c ^ p[i])] }
        }
        return c
    }

    /// crc16Slices[k][b]: the CRC-16 register after byte b followed by k zero bytes (k = 0…7),
    /// flattened (256 entries per k).
    static let crc16Slices: [UInt16] = {
        var t = [UInt16](repeating: 0, count: 8 * 256)
        for b in 0..<256 { t[b] = crc16Table[b] }
        for k in 1..<8 {
            for b in 0..<256 {
                let previous = t[(k - 1) * 256 + b]
                t[k * 256 + b] = (previous << 8) ^ crc16Table[Int(previous >> 8)]
            }
        }
        return t
    }()

    /// Whether `crc16` may use the carry-less multiply kernel (CPUID, once).
    static let crc16UsesCLMUL = cflac_has_clmul() != 0

    public static func crc16(_ p: UnsafePointer<UInt8>, _ n: Int) -> UInt16 {
        if crc16UsesCLMUL { return cflac_crc16_clmul(p, n) }
        return crc16Table(p, n)
    }

    /// The sliced table CRC-16 (every CPU; the reference the CLMUL kernel is tested against).
    static func crc16Table(_ p: UnsafePointer<UInt8>, _ n: Int) -> UInt16 {
        var c: UInt16 = 0
        var i = 0
        crc16Slices.withUnsafeBufferPointer { t in
            let t = t.baseAddress!
            while i &+ 8 <= n {
                // The eight bytes as one big-endian word, the register XOR-ed into its top two.
                let w = UInt64(bigEndian: UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self)) ^ UInt64(c) &<< 48
                @inline(__always) func byte(_ k: UInt64) -> Int { Int(truncatingIfNeeded: (w &>> (8 &* k)) & 0xFF) }
                c = t[7 * 256 + byte(7)] ^ t[6 * 256 + byte(6)] ^ t[5 * 256 + byte(5)] ^ t[4 * 256 + byte(4)]
                    ^ t[3 * 256 + byte(3)] ^ t[2 * 256 + byte(2)] ^ t[256 + byte(1)] ^ t[byte(0)]
                i &+= 8
            }
            while i < n {
                c = (c << 8) ^ t[Int(UInt8(truncatingIfNeeded: c >> 8) ^ p[i])]
                i &+= 1
            }
        }
        return c
    }
}
