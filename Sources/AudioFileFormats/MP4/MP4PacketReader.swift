// MP4/M4A/MOV (ISO base media file format, ISO/IEC 14496-12, and QuickTime) → PacketIndex for the
// file's first audio track.
//
// Design: the file is never read whole. The top level is walked header by header (16 bytes per
// box: `mdat` is skipped, however large); `moov` is read into memory (its size is bounded by the
// bytes present, so a lying size cannot make a large allocation), and so is each `moof` of a
// fragmented file, one at a time. Inside, MP4Boxes' walker checks that every box fits its parent.
// The track is the first `trak` whose `hdlr` says 'soun'; its sample entry (MP4SampleEntry) gives
// codec and cookie, its sample table (MP4SampleTables) or fragments (MP4Fragments) the packets,
// and iTunSMPB or the edit list (MP4Gapless) the priming and remainder.
//
// Sample rate: the codec configuration's when it has one (ALAC, FLAC, Opus's fixed 48 kHz), else
// the sample entry's, else the media timescale. Packet durations are in the media timescale and
// are converted to frames when it differs from the rate.
//
// AAC's packets all decode to the same number of frames (1024), but writers (ffmpeg) shorten the
// last packet's `stts` duration so the durations add up to the audio's end. Apple's packet
// model states such padding as remainder frames instead (kAudioFilePropertyPacketTableInfo), so
// for 'aac ' a final packet shorter than the one before it is given the full frame count and the
// difference joins the remainder. Lossless codecs' last packets really are shorter and are kept.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

public enum MP4PacketReader {
    /// True when `head` (a file's first bytes, at least 8) starts with an `ftyp` box: the type at
    /// byte 4 is 'ftyp'. Every MP4/M4A file and every QuickTime file written since 2001 has one.
    public static func sniff(_ head: [UInt8]) -> Bool {
        head.count >= 8 && head[4] == 0x66 && head[5] == 0x74 && head[6] == 0x79 && head[7] == 0x70
    }

    /// The first audio track of the MP4/M4A/MOV file at `path`. Throws AudioFileFormatError
    /// (Apple's OSStatus and a sentence naming the file) when the file cannot be opened, has no
    /// audio track, or its boxes are damaged.
    public static func packetIndex(path: String) throws -> PacketIndex {
        let file = try RawFile.open(path: path, forWriting: false)
        defer { _ = posixClose(file.fd) }
        let size = try file.size()
        return try wrap(path) { try parse(size: size) { try file.readBytes(at: $0, count: $1) } }
    }

    /// The same from bytes in memory; `name` stands for the file in messages.
    public static func packetIndex(bytes: [UInt8], name: String = "the MP4 data") throws -> PacketIndex {
        try wrap(name) {
            try parse(size: Int64(bytes.count)) { offset, count in
                guard offset >= 0, offset < Int64(bytes.count) else { return [] }
                return Array(bytes[Int(offset)..<Int(min(Int64(bytes.count), offset + Int64(count)))])
            }
        }
    }

    private static func wrap(_ name: String, _ body: () throws -> PacketIndex) throws -> PacketIndex {
        do { return try body() } catch let problem as MP4Problem {
            throw AudioFileFormatError(code: problem.code, message: "\(quoted(name)) cannot be read as an MP4 file: \(problem.message)")
        }
    }

    static func parse(size fileSize: Int64, read: (Int64, Int) throws -> [UInt8]) throws -> PacketIndex {
        var warnings: [String] = []
        var moov: [UInt8]?
        var moofs: [(offset: Int64, size: Int)] = []
        var offset: Int64 = 0
        while fileSize - offset >= 8 {
            let head = try read(offset, 16)
            var c = MP4Cursor(head, 0..<head.count, box: "file")
            var size = UInt64(try c.u32())
            let type = try c.u32()
            if size == 1 {
                guard c.remaining >= 8 else { throw MP4Problem("the file ends inside the \(fourCCText(type)) box's 64-bit size at byte \(offset)") }
                size = try c.u64()
            } else if size == 0 {
                size = UInt64(fileSize - offset)
            }
            let header = UInt64(c.position)
            guard size >= header else {
                throw MP4Problem("the \(fourCCText(type)) box at byte \(offset) has size \(size), less than its own header")
            }
            let available = UInt64(fileSize - offset)
            if size > available {
                if type == fcc("moov") {
                    throw MP4Problem("the moov box at byte \(offset) claims \(size) bytes but the file has only \(available) from there (truncated)")
                }
                warnings.append("The file is truncated: the \(fourCCText(type)) box at byte \(offset) claims \(size) bytes but only \(available) remain.")
                size = available
            }
            switch type {
            case fcc("moov"):
                if moov == nil { moov = try read(offset, Int(size)) }
            case fcc("moof"):
                moofs.append((offset, Int(size)))
            default: break
            }
            offset += Int64(size)
        }
        guard let moov else {
            throw MP4Problem(moofs.isEmpty ? "it has no moov box (the movie's description), so no track can be found"
                                           : "its fragments have no moov box to describe them")
        }
        return try track(moov, fileSize: fileSize, moofs: moofs, read: read, warnings: &warnings)
    }

    private static func track(_ bytes: [UInt8], fileSize: Int64, moofs: [(offset: Int64, size: Int)],
                              read: (Int64, Int) throws -> [UInt8], warnings: inout [String]) throws -> PacketIndex {
        let moovHeader = try mp4Children(bytes, 0..<bytes.count, parent: "file")
        guard let moovBox = moovHeader.first else { throw MP4Problem("the moov box is empty") }
        let top = try mp4Children(bytes, moovBox.payload, parent: "moov")

        var movieTimescale: UInt64 = 0
        if let mvhd = top.first("mvhd") {
            var c = MP4Cursor(bytes, mvhd.payload, box: "mvhd")
            try c.skip(try c.versionAndFlags().version == 1 ? 16 : 8)
            movieTimescale = UInt64(try c.u32())
        }

        // The first sound track.
        var chosen: (trak: MP4Box, mdia: MP4Box)?
        for trak in top.all("trak") {
            guard let mdia = try mp4Children(bytes, trak.payload, parent: "trak").first("mdia"),
                  let hdlr = try mp4Children(bytes, mdia.payload, parent: "mdia").first("hdlr") else { continue }
            var c = MP4Cursor(bytes, hdlr.payload, box: "hdlr")
            try c.skip(8)
            if try c.u32() == fcc("soun") { chosen = (trak, mdia); break }
        }
        guard let (trak, mdia) = chosen else {
            // No Apple documentation of the code for "a movie without sound"; 'fmt?' says what
            // is missing is a data format this library reads.
            throw MP4Problem("it has no audio track (no trak whose hdlr is 'soun')", code: AudioFileFormatError.Code.unsupportedDataFormat)
        }
        let trakBoxes = try mp4Children(bytes, trak.payload, parent: "trak")
        var trackID: UInt32 = 0
        if let tkhd = trakBoxes.first("tkhd") {
            var c = MP4Cursor(bytes, tkhd.payload, box: "tkhd")
            try c.skip(try c.versionAndFlags().version == 1 ? 16 : 8)
            trackID = try c.u32()
        }
        guard let mdhd = try mp4Find(bytes, mdia.payload, ["mdhd"], parent: "mdia") else { throw MP4Problem("the audio track has no mdhd box") }
        var h = MP4Cursor(bytes, mdhd.payload, box: "mdhd")
        try h.skip(try h.versionAndFlags().version == 1 ? 16 : 8)
        let timescale = UInt64(try h.u32())
        guard timescale > 0 else { throw MP4Problem("the audio track's mdhd box gives a timescale of 0") }
        guard let stbl = try mp4Find(bytes, mdia.payload, ["minf", "stbl"], parent: "mdia"),
              let stsd = try mp4Children(bytes, stbl.payload, parent: "stbl").first("stsd") else {
            throw MP4Problem("the audio track has no sample description (minf/stbl/stsd)")
        }
        let entry = try MP4SampleEntryParser.parse(bytes, stsd: stsd)
        let rate = entry.sampleRate > 0 ? entry.sampleRate : Double(timescale)
        guard rate <= 1_048_575 else { throw MP4Problem("the audio track's sample rate \(rate) Hz (its timescale) is not plausible") }
        let sameClock = Double(timescale) == rate
        // (Clamped: a duration field holds up to 64 bits; no real one is near Int.max frames.)
        let frames: (UInt64) -> Int = { sameClock ? Int(clamping: $0) : clampedFrames(Double($0) * rate / Double(timescale)) }

        var budget = MP4PacketBudget(remaining: fileSize)
        var packets = try MP4SampleTables.packets(bytes, stbl: stbl, fileSize: fileSize, budget: &budget, frames: frames, warnings: &warnings)
        if let mvex = top.first("mvex") {
            let defaults = try MP4Fragments.defaults(bytes, mvex: mvex, trackID: trackID)
            for moof in moofs {
                let data = try read(moof.offset, moof.size)
                let boxes = try mp4Children(data, 0..<data.count, parent: "file")
                guard let box = boxes.first else { break }
                let complete = try MP4Fragments.append(data, payload: box.payload, moofOffset: moof.offset, trackID: trackID, defaults: defaults,
                                                       fileSize: fileSize, budget: &budget, frames: frames, packets: &packets, warnings: &warnings)
                if !complete { break }
            }
        }

        // Priming and remainder.
        let decoded = packets.reduce(Int64(0)) { $0 + Int64($1.frameCount) }
        var priming: Int64 = 0
        var remainder: Int64 = 0
        if let smpb = try MP4Gapless.iTunSMPB(bytes, moov: moovBox.payload) {
            priming = smpb.priming
            remainder = smpb.valid.map { decoded - smpb.priming - $0 } ?? smpb.remainder
        } else if let elst = try mp4Find(bytes, trak.payload, ["edts", "elst"], parent: "trak"),
                  let trim = try MP4Gapless.editList(bytes, elst: elst, mediaToFrames: { Int64(frames($0)) },
                                                     movieToFrames: { Int64(clampedFrames(Double($0) * rate / Double(max(1, movieTimescale)))) },
                                                     warnings: &warnings) {
            priming = trim.priming
            if let valid = trim.validFrames, movieTimescale > 0 {
                let tick = movieTimescale == 0 ? 0 : Int64((rate / Double(movieTimescale)).rounded(.up))
                let rest = decoded - priming
                remainder = abs(rest - valid) <= tick ? 0 : rest - valid
            }
        } else if let preSkip = entry.preSkip {
            priming = Int64(preSkip)
        }
        if entry.codec == MP4SampleEntryParser.codecAAC, packets.count >= 2 {
            let full = packets[packets.count - 2].frameCount
            if packets[packets.count - 1].frameCount < full {
                remainder += Int64(full - packets[packets.count - 1].frameCount)
                packets[packets.count - 1].frameCount = full
            }
        }
        let fullTotal = packets.reduce(Int64(0)) { $0 + Int64($1.frameCount) }
        if priming < 0 || priming > fullTotal {
            warnings.append("The priming of \(priming) frames is more than the \(fullTotal) frames the packets hold; it is ignored.")
            priming = 0
        }
        if remainder < 0 {
            warnings.append("The stated length is longer than the \(fullTotal - priming) frames the packets hold after the priming; the packets decide.")
            remainder = 0
        }
        remainder = min(remainder, fullTotal - priming)
        return PacketIndex(codec: entry.codec, sampleRate: rate, channelCount: entry.channelCount, bitsPerSample: entry.bitsPerSample,
                           magicCookie: entry.cookie, packets: packets, primingFrames: priming, remainderFrames: remainder, warnings: warnings)
    }

    /// `value` rounded to whole frames, clamped to 0…2^52 (a Double is exact there; fields that
    /// claim more describe no real file and fail the checks against the packets later).
    static func clampedFrames(_ value: Double) -> Int {
        guard value.isFinite, value > 0 else { return 0 }
        return Int(min(value.rounded(), 4_503_599_627_370_496))
    }
}
