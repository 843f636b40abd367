// Fragmented MP4 (ISO/IEC 14496-12 §8.8): a `moov` whose sample table is empty and whose `mvex`
// holds per-track defaults (`trex`), then `moof` boxes, each with a `traf` per track: `tfhd`
// (track, base data offset, defaults that override `trex`) and `trun`s (packet count, a data
// offset, and per packet — when the flags say so — duration, size, flags, composition offset).
//
// Where a run's data starts (§8.8.7.1, §8.8.8.3): the `tfhd`'s base data offset when present;
// otherwise the `moof`'s first byte when the default-base-is-moof flag is set or for the first
// `traf` of a `moof`, else where the previous `traf`'s data ended. A `trun` with a data offset
// starts at base + offset; one without continues where the previous `trun` ended.
//
// Counts are checked against the bytes that hold them (per-packet fields) or against the packet
// budget (one packet per file byte) when every packet takes the defaults.

struct MP4TrackDefaults {
    var duration: UInt32 = 0
    var size: UInt32 = 0
}

enum MP4Fragments {
    /// The `trex` defaults for `trackID` in the `mvex` box, if any.
    static func defaults(_ bytes: [UInt8], mvex: MP4Box, trackID: UInt32) throws -> MP4TrackDefaults {
        for trex in try mp4Children(bytes, mvex.payload, parent: "mvex").all("trex") {
            var c = MP4Cursor(bytes, trex.payload, box: "trex")
            _ = try c.versionAndFlags()
            guard try c.u32() == trackID else { continue }
            try c.skip(4)                               // default sample description index
            let duration = try c.u32(), size = try c.u32()
            return MP4TrackDefaults(duration: duration, size: size)
        }
        return MP4TrackDefaults()
    }

    /// Appends the packets of track `trackID` in the `moof` whose bytes are `moof` (payload
    /// `payload`), the box starting at file offset `moofOffset`.
    static func append(_ moof: [UInt8], payload: Range<Int>, moofOffset: Int64, trackID: UInt32, defaults: MP4TrackDefaults,
                       fileSize: Int64, budget: inout MP4PacketBudget, frames: (UInt64) -> Int,
                       packets: inout [StoredPacket], warnings: inout [String]) throws -> Bool {
        var previousTrafEnd: Int64? = nil
        for traf in try mp4Children(moof, payload, parent: "moof").all("traf") {
            let boxes = try mp4Children(moof, traf.payload, parent: "traf")
            guard let tfhd = boxes.first("tfhd") else { throw MP4Problem("a traf box at byte \(moofOffset + Int64(traf.start)) has no tfhd box") }
            var h = MP4Cursor(moof, tfhd.payload, box: "tfhd")
            let flags = try h.versionAndFlags().flags
            let id = try h.u32()
            var base: Int64 = (flags & 0x02_0000 != 0 || previousTrafEnd == nil) ? moofOffset : previousTrafEnd!
            if flags & 0x01 != 0 {
                let explicit = try h.u64()
                guard explicit <= UInt64(fileSize) else { throw MP4Problem("a tfhd box's base data offset \(explicit) lies past the end of the file") }
                base = Int64(explicit)
            }
            if flags & 0x02 != 0 { try h.skip(4) }      // sample description index
            var trackDefaults = defaults
            if flags & 0x08 != 0 { trackDefaults.duration = try h.u32() }
            if flags & 0x10 != 0 { trackDefaults.size = try h.u32() }
            var position = base
            for trun in boxes.all("trun") {
                var r = MP4Cursor(moof, trun.payload, box: "trun")
                let runFlags = try r.versionAndFlags().flags
                let count = UInt64(try r.u32())
                if runFlags & 0x01 != 0 {
                    let dataOffset = Int64(Int32(bitPattern: try r.u32()))
                    position = base + dataOffset
                }
                if runFlags & 0x04 != 0 { try r.skip(4) } // first sample flags
                let perPacket = [0x100, 0x200, 0x400, 0x800].filter { runFlags & $0 != 0 }.count * 4
                if perPacket > 0 { try r.checkTable(count: count, entrySize: perPacket) }
                guard id == trackID else { continue }
                try budget.spend(Int64(count), "trun box")
                packets.reserveCapacity(packets.count + Int(count))
                for index in 0..<count {
                    let duration = runFlags & 0x100 != 0 ? try r.u32() : trackDefaults.duration
                    let size = runFlags & 0x200 != 0 ? try r.u32() : trackDefaults.size
                    if runFlags & 0x400 != 0 { try r.skip(4) }
                    if runFlags & 0x800 != 0 { try r.skip(4) }
                    guard position >= 0, position <= fileSize, Int64(size) <= fileSize - position else {
                        warnings.append("The file ends inside packet \(index) of a fragment's \(count) (at byte \(position)); the packets after it are missing.")
                        return false
                    }
                    guard size > 0 else { throw MP4Problem("a trun box at byte \(moofOffset + Int64(trun.start)) declares a packet of 0 bytes") }
                    packets.append(StoredPacket(offset: position, byteCount: Int(size), frameCount: frames(UInt64(duration))))
                    position += Int64(size)
                }
            }
            previousTrafEnd = position
        }
        return true
    }
}
