// FLAC's checksums (RFC 9639 §9.1, §9.3): CRC-8 (polynomial x^8 + x^2 + x + 1, 0x07) over each
// frame header, CRC-16 (x^16 + x^15 + x^2 + 1, 0x8005) over each whole frame; both start at 0,
// no reflection, no final XOR.

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

    public static func crc16(_ p: UnsafePointer<UInt8>, _ n: Int) -> UInt16 {
        var c: UInt16 = 0
        crc16Table.withUnsafeBufferPointer { t in
            for i in 0..<n { c = (c << 8) ^ t[Int(UInt8(truncatingIfNeeded: c >> 8) ^ p[i])] }
        }
        return c
    }
}
