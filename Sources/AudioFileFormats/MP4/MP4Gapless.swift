// Exact length: which decoded frames are audio. Two sources, in the order they are trusted:
//
// 1. iTunes' `iTunSMPB` tag (moov/udta/meta/ilst/'----' with mean "com.apple.iTunes" and name
//    "iTunSMPB"; its data is text of space-separated hexadecimal fields: a reserved word, the
//    priming frames, the remainder frames, the valid frame count). Apple's own gapless tag, read
//    first as Apple's players do; when it is present its fields decide.
// 2. The edit list (trak/edts/elst, ISO/IEC 14496-12 §8.6.6): the first non-empty edit's
//    media_time (media timescale) is the priming, its segment_duration (movie timescale, `mvhd`)
//    the valid length. Empty edits (media_time −1) are skipped: they delay presentation, which a
//    file's frame count does not express. Further edits are ignored with a warning.
//
// A movie timescale coarser than the sample rate (ffmpeg writes 1000: durations in milliseconds)
// cannot state a length to the frame. The choice here, which Apple does not document: when the
// edit's duration lies within one movie tick of the frames the packets hold after the priming,
// it is taken as "to the end of the stream", and the packets' own durations (exact: writers
// shorten the last packet's `stts` delta) decide. A clearly shorter edit still trims.

struct MP4Trim {
    var priming: Int64
    /// The valid frame count, when the file states one.
    var validFrames: Int64?
}

enum MP4Gapless {
    /// The first non-empty edit of the `elst` box, converted to frames.
    static func editList(_ bytes: [UInt8], elst: MP4Box, mediaToFrames: (UInt64) -> Int64, movieToFrames: (UInt64) -> Int64,
                         warnings: inout [String]) throws -> MP4Trim? {
        var c = MP4Cursor(bytes, elst.payload, box: "elst")
        let version = try c.versionAndFlags().version
        let n = UInt64(try c.u32())
        try c.checkTable(count: n, entrySize: version == 1 ? 20 : 12)
        var found: MP4Trim?
        for _ in 0..<n {
            let duration = version == 1 ? try c.u64() : UInt64(try c.u32())
            let mediaTime = version == 1 ? Int64(bitPattern: try c.u64()) : Int64(Int32(bitPattern: try c.u32()))
            try c.skip(4)                                // media rate
            if mediaTime < 0 { continue }
            if found != nil {
                warnings.append("The edit list has more than one non-empty edit; only the first is used.")
                break
            }
            // A zero duration in a fragmented file means "the whole media" (§8.8.1: unknown in advance).
            found = MP4Trim(priming: mediaToFrames(UInt64(mediaTime)), validFrames: duration == 0 ? nil : movieToFrames(duration))
        }
        return found
    }

    /// The iTunSMPB fields under `moov` (udta/meta/ilst or meta/ilst), if present.
    static func iTunSMPB(_ bytes: [UInt8], moov: Range<Int>) throws -> (priming: Int64, remainder: Int64, valid: Int64?)? {
        let top = try mp4Children(bytes, moov, parent: "moov")
        var metas: [MP4Box] = top.all("meta")
        if let udta = top.first("udta") { metas += try mp4Children(bytes, udta.payload, parent: "udta").all("meta") }
        for meta in metas {
            // ISO's meta is a full box (4 bytes of version and flags first); QuickTime's is not.
            var start = meta.payload.lowerBound
            if meta.payload.count >= 8, Array(bytes[start + 4..<start + 8]) != Array("hdlr".utf8) { start += 4 }
            guard let ilst = try mp4Children(bytes, start..<meta.payload.upperBound, parent: "meta").first("ilst") else { continue }
            for item in try mp4Children(bytes, ilst.payload, parent: "ilst").all("----") {
                let parts = try mp4Children(bytes, item.payload, parent: "----")
                guard let name = parts.first("name"), name.payload.count >= 4,
                      String(decoding: bytes[name.payload.lowerBound + 4..<name.payload.upperBound], as: UTF8.self) == "iTunSMPB",
                      let data = parts.first("data"), data.payload.count > 8 else { continue }
                let text = String(decoding: bytes[data.payload.lowerBound + 8..<data.payload.upperBound], as: UTF8.self)
                let fields = text.split(whereSeparator: { $0 == " " || $0 == "\0" }).map { UInt64($0, radix: 16) }
                guard fields.count >= 3, let priming = fields[1], let remainder = fields[2],
                      priming < 1 << 40, remainder < 1 << 40 else { return nil }
                var valid: Int64?
                if fields.count >= 4, let v = fields[3], v < 1 << 50 { valid = Int64(v) }
                return (Int64(priming), Int64(remainder), valid)
            }
        }
        return nil
    }
}
