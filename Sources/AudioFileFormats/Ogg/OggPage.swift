// Ogg pages (RFC 3533 §6): the unit an Ogg file is made of. A page is a 27-byte header —
// capture pattern "OggS", stream structure version 0, header type flags, 64-bit granule
// position, 32-bit serial number, 32-bit page sequence number, 32-bit CRC, segment count —
// then the segment (lacing) table, one byte per segment, then the segments. A packet is a run
// of segments ended by one shorter than 255 bytes; a packet whose last segment is 255 bytes long
// continues on the next page (whose "continued" flag is then set). So a page holds at most
// 255 × 255 = 65,025 bytes of data and is at most 65,307 bytes long: every buffer here is
// bounded by that, whatever a file claims.
//
// The checksum is CRC-32 with generator polynomial 0x04C11DB7, initial value 0, no reflection
// and no final XOR (RFC 3533 §6, "CRC checksum"), computed over the whole page with the CRC
// field set to zero. Note that this is not zlib's CRC-32 (which reflects and inverts).
// Little-endian fields throughout.

/// The fixed part of a page header, as parsed or to be written.
public struct OggPageHeader: Equatable, Sendable {
    /// Header type flag 0x01: the page's first packet continues one from the previous page.
    public var continued: Bool
    /// 0x02: the first page of a logical stream.
    public var beginsStream: Bool
    /// 0x04: the last page of a logical stream.
    public var endsStream: Bool
    /// The codec-defined position at the end of the last packet completed on the page; −1 (all
    /// bits set) when no packet is completed on the page.
    public var granulePosition: Int64
    public var serialNumber: UInt32
    public var sequenceNumber: UInt32

    public init(continued: Bool = false, beginsStream: Bool = false, endsStream: Bool = false, granulePosition: Int64,
                serialNumber: UInt32, sequenceNumber: UInt32) {
        self.continued = continued
        self.beginsStream = beginsStream
        self.endsStream = endsStream
        self.granulePosition = granulePosition
        self.serialNumber = serialNumber
        self.sequenceNumber = sequenceNumber
    }
}

public enum OggPage {
    /// "OggS".
    public static let capturePattern: [UInt8] = [0x4F, 0x67, 0x67, 0x53]
    /// Bytes before the segment table.
    public static let fixedHeaderSize = 27
    /// The longest page: 27 + 255 lacing values + 255 × 255 bytes of segments.
    public static let maximumSize = 27 + 255 + 255 * 255
    /// Bytes of packet data one page can carry.
    public static let maximumBodySize = 255 * 255

    /// True when `head` starts with the capture pattern.
    public static func sniff(_ head: [UInt8]) -> Bool { head.count >= 4 && Array(head[0..<4]) == capturePattern }

    /// The CRC-32 lookup table for polynomial 0x04C11DB7, most significant bit first.
    static let crcTable: [UInt32] = (0..<256).map { i -> UInt32 in
        var r = UInt32(i) << 24
        for _ in 0..<8 { r = r & 0x8000_0000 != 0 ? (r << 1) ^ 0x04C1_1DB7 : r << 1 }
        return r
    }

    /// Continues the Ogg CRC `crc` over `count` bytes at `p`.
    public static func crc(_ crc: UInt32, _ p: UnsafeRawPointer, _ count: Int) -> UInt32 {
        var c = crc
        crcTable.withUnsafeBufferPointer { table in
            let b = p.assumingMemoryBound(to: UInt8.self)
            for i in 0..<count { c = (c << 8) ^ table[Int((c >> 24) ^ UInt32(b[i]))] }
        }
        return c
    }

    /// The checksum of a whole page (`bytes`, its CRC field ignored: counted as zero).
    public static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        guard let base = bytes.baseAddress, bytes.count >= fixedHeaderSize else { return 0 }
        var c = crc(0, base, 22)
        let zero: UInt32 = 0
        c = withUnsafeBytes(of: zero) { crc(c, $0.baseAddress!, 4) }
        return crc(c, base + 26, bytes.count - 26)
    }

    /// Parses the fixed header at the start of `bytes` (at least 27 bytes). Nil when the capture
    /// pattern or the version (0) is wrong.
    public static func header(_ bytes: UnsafeRawBufferPointer) -> (header: OggPageHeader, storedCRC: UInt32, segmentCount: Int)? {
        guard bytes.count >= fixedHeaderSize, bytes[0] == 0x4F, bytes[1] == 0x67, bytes[2] == 0x67, bytes[3] == 0x53, bytes[4] == 0 else { return nil }
        func le(_ at: Int, _ n: Int) -> UInt64 {
            var v: UInt64 = 0
            for i in (0..<n).reversed() { v = v << 8 | UInt64(bytes[at + i]) }
            return v
        }
        let flags = bytes[5]
        let header = OggPageHeader(continued: flags & 1 != 0, beginsStream: flags & 2 != 0, endsStream: flags & 4 != 0,
                                   granulePosition: Int64(bitPattern: le(6, 8)), serialNumber: UInt32(le(14, 4)),
                                   sequenceNumber: UInt32(le(18, 4)))
        return (header, UInt32(le(22, 4)), Int(bytes[26]))
    }

    /// One complete page: `header`, then the segments of `pieces` laced in order. Each piece is
    /// part or all of a packet; `lastPieceEndsPacket` says whether the final piece completes its
    /// packet (pieces before it always do). Pieces must total at most `maximumBodySize` bytes and
    /// need at most 255 lacing values; a completed packet's length a multiple of 255 takes a
    /// zero-length final segment.
    public static func build(_ header: OggPageHeader, pieces: [UnsafeRawBufferPointer], lastPieceEndsPacket: Bool) -> [UInt8] {
        var lacing: [UInt8] = []
        for (k, piece) in pieces.enumerated() {
            let ends = k < pieces.count - 1 || lastPieceEndsPacket
            lacing += [UInt8](repeating: 255, count: piece.count / 255)
            if ends { lacing.append(UInt8(piece.count % 255)) } else { precondition(piece.count % 255 == 0, "an unfinished packet's piece fills whole segments") }
        }
        precondition(lacing.count <= 255, "a page holds at most 255 segments")
        var out: [UInt8] = []
        out.reserveCapacity(fixedHeaderSize + lacing.count + pieces.reduce(0) { $0 + $1.count })
        out += capturePattern
        out.append(0)
        out.append((header.continued ? 1 : 0) | (header.beginsStream ? 2 : 0) | (header.endsStream ? 4 : 0))
        func le(_ v: UInt64, _ n: Int) { for i in 0..<n { out.append(UInt8(truncatingIfNeeded: v >> UInt64(8 * i))) } }
        le(UInt64(bitPattern: header.granulePosition), 8)
        le(UInt64(header.serialNumber), 4)
        le(UInt64(header.sequenceNumber), 4)
        le(0, 4)
        out.append(UInt8(lacing.count))
        out += lacing
        for piece in pieces { out += piece }
        setChecksum(&out)
        return out
    }

    /// Recomputes and stores the CRC of the page in `page` (after a header field changed).
    public static func setChecksum(_ page: inout [UInt8]) {
        let c = page.withUnsafeBytes { checksum($0) }
        for i in 0..<4 { page[22 + i] = UInt8(truncatingIfNeeded: c >> UInt32(8 * i)) }
    }
}
