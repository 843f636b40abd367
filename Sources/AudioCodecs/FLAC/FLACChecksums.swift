// FLAC's checksums (RFC 9639 §9.1, §9.3): CRC-8 (polynomial x^8 + x^2 + x + 1, 0x07) over each
// frame header, CRC-16 (x^16 + x^15 + x^2 + 1, 0x8005) over each whole frame; both start at 0,
// no reflection, no final XOR.
//
// The CRC-16 runs over every byte of every frame (twice when a file is opened: once to confirm
// frame boundaries, once when the frame is decoded), so it goes eight bytes per step ("slicing by
// 8": table k holds the CRC of a byte followed by k zero bytes, and the eight lookups of one step
// are independent) instead of one dependent lookup per byte.

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

    public static func crc16(_ p: UnsafePointer<UInt8>, _ n: Int) -> UInt16 {
        var c: UInt16 = 0
        var i = 0
        crc16Slices.withUnsafeBufferPointer { t in
            let t = t.baseAddress!
            while i &+ 8 <= n {
                let x0 = Int(p[i] ^ UInt8(truncatingIfNeeded: c >> 8)), x1 = Int(p[i &+ 1] ^ UInt8(truncatingIfNeeded: c))
                c = t[7 * 256 + x0] ^ t[6 * 256 + x1] ^ t[5 * 256 + Int(p[i &+ 2])] ^ t[4 * 256 + Int(p[i &+ 3])]
                    ^ t[3 * 256 + Int(p[i &+ 4])] ^ t[2 * 256 + Int(p[i &+ 5])] ^ t[256 + Int(p[i &+ 6])] ^ t[Int(p[i &+ 7])]
                i &+= 8
            }
            while i < n {
                c = (c << 8) ^ t[Int(UInt8(truncatingIfNeeded: c >> 8) ^ p[i])]
                i &+= 1
            }
        }
        return c
    }

    /// The CRC-16 a byte at a time (the definition; tests compare the sliced one with it).
    static func crc16Bytewise(_ p: UnsafePointer<UInt8>, _ n: Int) -> UInt16 {
        var c: UInt16 = 0
        crc16Table.withUnsafeBufferPointer { t in
            for i in 0..<n { c = (c << 8) ^ t[Int(UInt8(truncatingIfNeeded: c >> 8) ^ p[i])] }
        }
        return c
    }
}
