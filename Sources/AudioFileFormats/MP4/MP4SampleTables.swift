// The sample table (`stbl`, ISO/IEC 14496-12 §8.6–§8.7) to packets: `stsz`/`stz2` give each
// packet's size, `stsc` how many packets each chunk holds, `stco`/`co64` where each chunk starts
// (a chunk's packets follow each other), `stts` each packet's duration in the media's timescale.
//
// Allocation follows the bytes: every table's entry count is checked against the bytes of its
// box before anything is read, and a constant-size `stsz` (which has no table) may claim at most
// one packet per byte of the file. A chunk or packet that lies past the end of the file (a
// truncated download) ends the list with a warning rather than an error, so what is present stays
// readable.

struct MP4PacketBudget {
    /// Packets still allowed: one per byte of the file (no codec's packet is empty).
    var remaining: Int64
    mutating func spend(_ n: Int64, _ what: String) throws {
        guard n <= remaining else {
            throw MP4Problem("the \(what) claims \(n) more packets than the file has bytes for")
        }
        remaining -= n
    }
}

enum MP4SampleTables {
    /// Packets of the `stbl` box `stbl`. `frames` converts a duration in media timescale units to frames.
    static func packets(_ bytes: [UInt8], stbl: MP4Box, fileSize: Int64, budget: inout MP4PacketBudget,
                        frames: (UInt64) -> Int, warnings: inout [String]) throws -> [StoredPacket] {
        let boxes = try mp4Children(bytes, stbl.payload, parent: "stbl")

        // Sizes.
        var constantSize = 0
        var sizes: [UInt32] = []
        var count = 0
        if let stsz = boxes.first("stsz") {
            var c = MP4Cursor(bytes, stsz.payload, box: "stsz")
            _ = try c.versionAndFlags()
            constantSize = Int(try c.u32())
            let n = UInt64(try c.u32())
            if constantSize == 0 {
                try c.checkTable(count: n, entrySize: 4)
                sizes.reserveCapacity(Int(n))
                for _ in 0..<n { sizes.append(try c.u32()) }
            }
            try budget.spend(Int64(n), "stsz box")
            count = Int(n)
        } else if let stz2 = boxes.first("stz2") {
            var c = MP4Cursor(bytes, stz2.payload, box: "stz2")
            _ = try c.versionAndFlags()
            try c.skip(3)
            let field = try c.u8()
            let n = UInt64(try c.u32())
            guard field == 4 || field == 8 || field == 16 else { throw MP4Problem("the stz2 box has field size \(field), not 4, 8 or 16") }
            guard n <= UInt64(c.remaining) * 8 / UInt64(field) else {
                throw MP4Problem("the stz2 box claims \(n) entries of \(field) bits but holds only \(c.remaining) bytes")
            }
            try budget.spend(Int64(n), "stz2 box")
            sizes.reserveCapacity(Int(n))
            var i: UInt64 = 0
            while i < n {
                switch field {
                case 4:
                    let b = try c.u8()
                    sizes.append(UInt32(b >> 4))
                    if i + 1 < n { sizes.append(UInt32(b & 15)) }
                    i += 2
                case 8: sizes.append(UInt32(try c.u8())); i += 1
                default: sizes.append(UInt32(try c.u16())); i += 1
                }
            }
            count = Int(n)
        } else {
            throw MP4Problem("the audio track's sample table has neither an stsz nor an stz2 box")
        }
        if count == 0 { return [] }
        guard constantSize > 0 || !sizes.isEmpty else { throw MP4Problem("the stsz box declares packets of 0 bytes") }

        // Chunk offsets.
        var chunkOffsets: [UInt64] = []
        if let stco = boxes.first("stco") ?? boxes.first("co64") {
            let wide = stco.type == fcc("co64")
            var c = MP4Cursor(bytes, stco.payload, box: stco.name)
            _ = try c.versionAndFlags()
            let n = UInt64(try c.u32())
            try c.checkTable(count: n, entrySize: wide ? 8 : 4)
            chunkOffsets.reserveCapacity(Int(n))
            for _ in 0..<n { chunkOffsets.append(wide ? try c.u64() : UInt64(try c.u32())) }
        } else {
            throw MP4Problem("the audio track's sample table has neither an stco nor a co64 box")
        }

        // Packets per chunk: runs of (first chunk, packets per chunk).
        var runs: [(first: UInt64, perChunk: UInt64)] = []
        if let stsc = boxes.first("stsc") {
            var c = MP4Cursor(bytes, stsc.payload, box: "stsc")
            _ = try c.versionAndFlags()
            let n = UInt64(try c.u32())
            try c.checkTable(count: n, entrySize: 12)
            runs.reserveCapacity(Int(n))
            for _ in 0..<n {
                let first = UInt64(try c.u32()), per = UInt64(try c.u32())
                try c.skip(4)                            // sample description index
                guard first >= 1, first > (runs.last?.first ?? 0) else {
                    throw MP4Problem("the stsc box's first-chunk numbers are not increasing from 1 (entry \(runs.count) says \(first))")
                }
                runs.append((first, per))
            }
        }
        guard !runs.isEmpty else { throw MP4Problem("the audio track's sample table has no stsc entries") }

        // Durations: runs of (count, delta).
        var durations: [(count: UInt64, delta: UInt64)] = []
        if let stts = boxes.first("stts") {
            var c = MP4Cursor(bytes, stts.payload, box: "stts")
            _ = try c.versionAndFlags()
            let n = UInt64(try c.u32())
            try c.checkTable(count: n, entrySize: 8)
            durations.reserveCapacity(Int(n))
            for _ in 0..<n { durations.append((UInt64(try c.u32()), UInt64(try c.u32()))) }
        }
        guard !durations.isEmpty else { throw MP4Problem("the audio track's sample table has no stts entries") }

        var packets: [StoredPacket] = []
        packets.reserveCapacity(count)
        var run = 0, duration = 0
        var leftInDuration = durations[0].count
        var ranOutOfDurations = false
        chunks: for (index, chunkOffset) in chunkOffsets.enumerated() {
            let chunkNumber = UInt64(index + 1)
            while run + 1 < runs.count && runs[run + 1].first <= chunkNumber { run += 1 }
            var offset = chunkOffset
            let inChunk = min(runs[run].perChunk, UInt64(count - packets.count))
            for _ in 0..<inChunk {
                let size = constantSize > 0 ? UInt64(constantSize) : UInt64(sizes[packets.count])
                guard offset <= UInt64(fileSize), size <= UInt64(fileSize) - offset else {
                    warnings.append("The file ends inside packet \(packets.count) of \(count) (at byte \(offset)); the packets after it are missing.")
                    break chunks
                }
                while leftInDuration == 0 && duration + 1 < durations.count { duration += 1; leftInDuration = durations[duration].count }
                if leftInDuration == 0 { ranOutOfDurations = true } else { leftInDuration -= 1 }
                packets.append(StoredPacket(offset: Int64(offset), byteCount: Int(size), frameCount: frames(durations[duration].delta)))
                offset += size
            }
            if packets.count == count { break }
        }
        if ranOutOfDurations {
            warnings.append("The stts box gives durations for fewer packets than the stsz box lists; the last duration is repeated.")
        }
        if packets.count < count && !(warnings.last ?? "").hasPrefix("The file ends") {
            warnings.append("The stco and stsc boxes place only \(packets.count) of the \(count) packets the stsz box lists; the rest are ignored.")
        }
        return packets
    }
}
