// Raw MPEG audio streams (`.mp3`, `.mp2`, `.mp1`) and ADTS AAC streams (`.aac`) → PacketIndex:
// the framing and packet index only; no decoder exists for these codecs yet, so PacketFileReader
// refuses to open them for PCM reading with kAudioFileUnsupportedDataFormatError naming the codec,
// while `avaudio info` can report codec, bit rate and duration from the index.
//
// MPEG audio (this file): leading ID3v2 tags are skipped (their synchsafe sizes, footers
// included, however many); a frame is accepted only when the header after it is valid too and
// agrees (version, layer, rate) — a false sync inside a tag or in garbage rarely has a valid
// successor — except the last frame of the file, which only has to fit. Lost sync mid-stream is
// found again by searching forward the same way (while in sync, a frame right after the previous
// one needs only a valid header that fits, so the frame before a damaged stretch is kept); the bytes skipped are reported as a warning.
// A trailing ID3v1 tag ("TAG", 128 bytes) ends the scan. Free-format streams (bit-rate index 0)
// are refused with a sentence saying so.
//
// The first frame may be an information frame instead of audio: a Xing/Info tag (after the
// Layer III side information) or a Fraunhofer VBRI tag (32 bytes after the header). It is not a
// packet. A LAME/Lavc extension after the Xing fields gives the encoder delay and padding (12 bits
// each, 21 bytes into the extension); the priming is the delay plus 529 samples of decoder delay
// and the remainder the padding less those 529 — what LAME's own decoder and ffmpeg apply (the
// 528 + 1 of ffmpeg's mp3dec), so the length here equals the samples ffmpeg decodes. Without
// such a tag priming and remainder are 0 (Apple documents no rule for untagged streams).
//
// The format ID is Core Audio's: kAudioFormatMPEGLayer3 '.mp3' (and '.mp2', '.mp1'), not 'mp3 '.
//
// Reading: the file is read through a 1 MiB window, never whole; the packet list grows with
// the frames found (a frame is at least 24 bytes, so at most one packet per 24 bytes).
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Positional reads through a window, for byte-at-a-time scanning without a system call each.
struct WindowedBytes {
    let size: Int64
    let read: (Int64, Int) throws -> [UInt8]
    private var window: [UInt8] = []
    private var start: Int64 = 0
    static let windowSize = 1 << 20

    init(size: Int64, read: @escaping (Int64, Int) throws -> [UInt8]) {
        self.size = size
        self.read = read
    }

    /// The byte at `offset` (nil past the end).
    mutating func byte(_ offset: Int64) throws -> UInt8? {
        guard offset >= 0, offset < size else { return nil }
        if offset < start || offset >= start + Int64(window.count) {
            start = offset
            window = try read(offset, Self.windowSize)
            guard !window.isEmpty else { return nil }
        }
        return window[Int(offset - start)]
    }

    mutating func bytes(_ offset: Int64, _ count: Int) throws -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(count)
        for i in 0..<count {
            guard let b = try byte(offset + Int64(i)) else { return nil }
            out.append(b)
        }
        return out
    }
}

public enum MPEGAudioStreamReader {
    /// True when `head` (a file's first bytes) starts with an ID3v2 tag, an MPEG audio frame
    /// header or an ADTS header. (A weak test on its own; the parsers verify a second frame.)
    public static func sniff(_ head: [UInt8]) -> Bool {
        guard head.count >= 4 else { return false }
        if head[0] == 0x49 && head[1] == 0x44 && head[2] == 0x33 { return true }   // "ID3"
        if head[0] == 0xFF && head[1] & 0xF6 == 0xF0 { return true }                 // ADTS sync, layer 00
        if case .header = MPEGAudioFrameHeader.parse(head[0], head[1], head[2], head[3]) { return true }
        return false
    }

    /// The stream of the MPEG audio or ADTS file at `path`.
    public static func packetIndex(path: String) throws -> PacketIndex {
        try wrap(path) { try withStreamBytes(path: path) { try parse(size: $0, read: $1) } }
    }

    /// The same from bytes in memory; `name` stands for the file in messages.
    public static func packetIndex(bytes: [UInt8], name: String = "the MPEG audio data") throws -> PacketIndex {
        try wrap(name) { try withStreamBytes(bytes) { try parse(size: $0, read: $1) } }
    }

    private static func wrap(_ name: String, _ body: () throws -> PacketIndex) throws -> PacketIndex {
        do { return try body() } catch let problem as StreamProblem {
            throw AudioFileFormatError(code: problem.code, message: "\(quoted(name)) cannot be read as an MPEG audio or ADTS stream: \(problem.message)")
        }
    }

    static func parse(size: Int64, read: @escaping (Int64, Int) throws -> [UInt8]) throws -> PacketIndex {
        var data = WindowedBytes(size: size, read: read)
        // ID3v2 tags.
        var offset: Int64 = 0
        while let tag = try data.bytes(offset, 10), tag[0] == 0x49, tag[1] == 0x44, tag[2] == 0x33 {
            guard tag[6...9].allSatisfy({ $0 < 0x80 }) else { throw StreamProblem("its ID3v2 tag at byte \(offset) has a size that is not synchsafe") }
            let body = Int64(tag[6]) << 21 | Int64(tag[7]) << 14 | Int64(tag[8]) << 7 | Int64(tag[9])
            offset += 10 + body + (tag[5] & 0x10 != 0 ? 10 : 0)
        }
        var end = size
        if size >= 128, let tag = try data.bytes(size - 128, 3), tag == [0x54, 0x41, 0x47] { end = size - 128 }   // ID3v1 "TAG"
        if let h = try data.bytes(offset, 7), ADTSStreamReader.header(h, 0) != nil {
            return try ADTSStreamReader.parse(&data, from: offset, end: end)
        }
        return try parseMPEG(&data, from: offset, end: end)
    }

    /// The header at `at` if a frame starts there whose successor (or the end) confirms it.
    /// `inSync`: the previous frame ended here, so a valid header that fits is enough.
    static func confirmedFrame(_ data: inout WindowedBytes, _ at: Int64, end: Int64, inSync: Bool = false) throws -> MPEGAudioFrameHeader? {
        guard let h = try data.bytes(at, 4), case .header(let header) = MPEGAudioFrameHeader.parse(h[0], h[1], h[2], h[3]) else { return nil }
        let next = at + Int64(header.frameLength)
        guard next <= end else { return nil }
        if next == end || inSync { return header }
        guard let n = try data.bytes(next, 4), case .header(let following) = MPEGAudioFrameHeader.parse(n[0], n[1], n[2], n[3]),
              following.matches(header) else {
            // A frame the file ends inside is not confirmed; one followed by tags at the end is.
            return end - next < 4 ? header : nil
        }
        return header
    }

    static func parseMPEG(_ data: inout WindowedBytes, from start: Int64, end: Int64) throws -> PacketIndex {
        var warnings: [String] = []
        var offset = start
        var first: MPEGAudioFrameHeader?
        var packets: [StoredPacket] = []
        var skipped: Int64 = 0, stretches = 0
        var priming: Int64 = 0, remainder: Int64 = 0
        var inSync = false
        while offset + 4 <= end {
            guard let header = try confirmedFrame(&data, offset, end: end, inSync: inSync), first.map({ header.matches($0) }) ?? true else {
                inSync = false
                if first == nil, let h = try data.bytes(offset, 4), MPEGAudioFrameHeader.parse(h[0], h[1], h[2], h[3]) == .freeFormat {
                    throw StreamProblem("it is a free-format stream (bit-rate index 0), whose frame lengths this reader does not search for",
                                     code: AudioFileFormatError.Code.unsupportedDataFormat)
                }
                // Search forward for a confirmed frame (the first within 64 KiB of the tags).
                var probe = offset + 1
                let limit = first == nil ? min(end, offset + 65_536) : end
                var found: Int64?
                while probe + 4 <= limit {
                    if try data.byte(probe) == 0xFF, let h = try confirmedFrame(&data, probe, end: end), first.map({ h.matches($0) }) ?? true { found = probe; break }
                    probe += 1
                }
                guard let found else {
                    if first == nil { throw StreamProblem("no MPEG audio frame with a valid successor was found at its start") }
                    // Trailing bytes that are no frame (APE or Lyrics tags, garbage).
                    warnings.append("\(end - offset) bytes after the last frame (from byte \(offset)) are not MPEG audio frames and are ignored.")
                    break
                }
                skipped += found - offset
                stretches += 1
                offset = found
                continue
            }
            let length = header.frameLength
            inSync = true
            if first == nil {
                first = header
                // An information frame (Xing/Info, VBRI) is not audio.
                let tagAt = offset + 4 + (header.hasCRC ? 2 : 0) + Int64(header.sideInfoSize)
                if header.layer == 3, let id = try data.bytes(tagAt, 4), id == Array("Xing".utf8) || id == Array("Info".utf8) {
                    if let gapless = try lameGapless(&data, xingAt: tagAt, frameEnd: offset + Int64(length)) {
                        priming = gapless.delay + 529
                        remainder = max(0, gapless.padding - 529)
                    }
                    offset += Int64(length)
                    continue
                }
                if header.layer == 3, let id = try data.bytes(offset + 4 + 32, 4), id == Array("VBRI".utf8) {
                    offset += Int64(length)
                    continue
                }
            }
            packets.append(StoredPacket(offset: offset, byteCount: length, frameCount: header.samplesPerFrame))
            offset += Int64(length)
        }
        guard let first else { throw StreamProblem("it holds no MPEG audio frame") }
        if stretches > 0 && !packets.isEmpty {
            warnings.append("\(skipped) bytes in \(stretches) stretch\(stretches == 1 ? "" : "es") between frames were not frames (lost sync) and were skipped.")
        }
        let total = Int64(packets.count * first.samplesPerFrame)
        if priming + remainder > total { priming = 0; remainder = 0; warnings.append("The LAME tag's delay and padding exceed the stream; ignored.") }
        return PacketIndex(codec: first.formatID, sampleRate: Double(first.sampleRate), channelCount: first.channelCount, bitsPerSample: 0,
                           magicCookie: [], packets: packets, primingFrames: priming, remainderFrames: remainder, warnings: warnings)
    }

    /// The encoder delay and padding of the LAME extension after the Xing/Info fields at `xingAt`.
    static func lameGapless(_ data: inout WindowedBytes, xingAt: Int64, frameEnd: Int64) throws -> (delay: Int64, padding: Int64)? {
        guard let flagBytes = try data.bytes(xingAt + 4, 4) else { return nil }
        let flags = Int(flagBytes[3])
        var at = xingAt + 8
        if flags & 1 != 0 { at += 4 }     // frames
        if flags & 2 != 0 { at += 4 }     // bytes
        if flags & 4 != 0 { at += 100 }   // table of contents
        if flags & 8 != 0 { at += 4 }     // quality
        guard at + 24 <= frameEnd, let tag = try data.bytes(at, 24) else { return nil }
        // The encoder's short name: letters ("LAME", "Lavc", "Lavf", "GOGO").
        guard tag[0..<4].allSatisfy({ ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) }) else { return nil }
        let delay = Int64(tag[21]) << 4 | Int64(tag[22] >> 4)
        let padding = Int64(tag[22] & 0x0F) << 8 | Int64(tag[23])
        return (delay, padding)
    }
}
