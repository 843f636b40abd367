// FLAC in Ogg written (mapping 1.0, xiph.org/flac/ogg_mapping.html): FLACFileWriter encodes the
// frames; this puts them in pages.
//
// Layout: page 0 (BOS, granule 0) holds only the identification packet — 0x7F "FLAC" 1 0, one
// header packet following, "fLaC", STREAMINFO — exactly 79 bytes, as the mapping requires; page 1
// (granule 0) holds a VORBIS_COMMENT block with our vendor string and no comments (the mapping
// requires one, first), ending its page so that audio starts a fresh page. Then each `flush`
// puts the FLAC frames completed since the last one (one frame per packet) on pages of at most
// 255 segments, a frame longer than a page's room continuing on the next; each page's granule
// position is the sample count at the end of the last frame completed on it (Vorbis's rule,
// which the mapping adopts), −1 on a page no frame ends on.
//
// Crash safety: pages are self-delimiting and checksummed, and frames reach the file only as
// whole pages, written after the pages before them. A writer killed at any moment leaves every
// complete page; a reader (ours, ffmpeg, libogg) skips a torn last page. STREAMINFO (page 0) is
// rewritten in place after every flush — the page's size never changes — with the total samples
// and frame sizes of the frames on disk (the mapping allows 0, "unknown", and our reader goes by
// granule positions either way) and, at close, the MD5. The last page written is kept in memory;
// `close()` rewrites it with the end-of-stream flag (a header page when no audio was written).
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

final class OggFLACOutput {
    private let serialNumber: UInt32
    private var sequence: UInt32 = 0
    /// Where the next page goes.
    private(set) var offset: Int64 = 0
    /// Frames encoded but not yet on a page, and the sample count at each one's end.
    private var queued: [(bytes: [UInt8], end: Int64)] = []
    /// The last page written and where: `close()` sets its end-of-stream flag.
    private var lastPage: (offset: Int64, bytes: [UInt8])?

    /// Vendor string of the VORBIS_COMMENT block.
    static let vendor = "OpenAVFAudio"

    /// A stream serial number; any value is valid for a file holding one stream. Taken from the
    /// clock so two files made together and then multiplexed by someone else are unlikely to clash.
    init() {
        var t = timespec()
        clock_gettime(CLOCK_REALTIME, &t)
        serialNumber = UInt32(truncatingIfNeeded: t.tv_nsec ^ (t.tv_sec << 20))
    }

    /// The identification page for `streamHeader` ("fLaC" + the 38-byte STREAMINFO block as
    /// FLACEncoder makes it), sequence 0.
    func identificationPage(_ streamHeader: [UInt8]) -> [UInt8] {
        var block = Array(streamHeader[4...])
        block[0] &= 0x7F   // more metadata (the comment) follows
        let packet: [UInt8] = [0x7F, 0x46, 0x4C, 0x41, 0x43, 1, 0, 0, 1] + [0x66, 0x4C, 0x61, 0x43] + block
        return packet.withUnsafeBytes {
            OggPage.build(OggPageHeader(beginsStream: true, granulePosition: 0, serialNumber: serialNumber, sequenceNumber: 0),
                          pieces: [$0], lastPieceEndsPacket: true)
        }
    }

    /// Page 0 and page 1: what the file starts with.
    func headerPages(_ streamHeader: [UInt8]) -> [UInt8] {
        var comment: [UInt8] = []
        func le32(_ v: Int) { for i in 0..<4 { comment.append(UInt8(truncatingIfNeeded: v >> (8 * i))) } }
        le32(Self.vendor.utf8.count)
        comment += Self.vendor.utf8
        le32(0)
        let packet: [UInt8] = [0x84, UInt8(comment.count >> 16), UInt8(truncatingIfNeeded: comment.count >> 8), UInt8(truncatingIfNeeded: comment.count)] + comment
        let second = packet.withUnsafeBytes {
            OggPage.build(OggPageHeader(granulePosition: 0, serialNumber: serialNumber, sequenceNumber: 1), pieces: [$0], lastPieceEndsPacket: true)
        }
        sequence = 2
        let first = identificationPage(streamHeader)
        lastPage = (Int64(first.count), second)
        offset = Int64(first.count + second.count)
        return first + second
    }

    /// Queues one encoded frame, whose last sample is sample `end` − 1 of the stream.
    func append(_ frame: UnsafeRawBufferPointer, endSample end: Int64) {
        queued.append((Array(frame), end))
    }

    /// Writes the queued frames as pages at the end of the file. On failure nothing is counted
    /// as written: the frames stay queued and the next flush rewrites from the same offset.
    func flush(to file: RawFile) throws {
        guard !queued.isEmpty else { return }
        var pages: [[UInt8]] = []
        var seq = sequence
        var pieces: [(packet: Int, range: Range<Int>, ends: Bool)] = []
        var segments = 0
        var continued = false
        func emitPage() {
            guard let last = pieces.last else { return }
            // The granule: the sample count at the end of the last frame completed here.
            let granule = pieces.last(where: \.ends).map { queued[$0.packet].end } ?? -1
            let header = OggPageHeader(continued: continued, granulePosition: granule, serialNumber: serialNumber, sequenceNumber: seq)
            let page = withPieces(pieces.map { (queued[$0.packet].bytes, $0.range) }) { OggPage.build(header, pieces: $0, lastPieceEndsPacket: last.ends) }
            pages.append(page)
            seq &+= 1
            continued = !last.ends
            pieces = []
            segments = 0
        }
        for (k, frame) in queued.enumerated() {
            let count = frame.bytes.count
            var at = 0
            var ended = false
            while !ended {
                if segments == 255 { emitPage() }
                // Room on this page: whole 255-byte segments, plus the short (maybe empty)
                // segment that ends the packet.
                let room = 255 - segments
                let rest = count - at
                if rest / 255 + 1 <= room {
                    pieces.append((k, at..<count, true))
                    segments += rest / 255 + 1
                    at = count
                    ended = true
                } else {
                    let take = room * 255
                    pieces.append((k, at..<(at + take), false))
                    at += take
                    segments = 255
                }
            }
        }
        emitPage()
        var at = offset
        var lastWritten: (Int64, [UInt8])?
        for page in pages {
            let result = page.withUnsafeBytes { file.write($0.baseAddress!, count: page.count, at: at) }
            if result.errno != 0 { throw file.writeError(result.errno) }
            lastWritten = (at, page)
            at += Int64(page.count)
        }
        offset = at
        sequence = seq
        if let lastWritten { lastPage = lastWritten }
        queued.removeAll(keepingCapacity: true)
    }

    /// Rewrites page 0 with `streamHeader` (same size, so in place).
    func rewriteIdentification(_ streamHeader: [UInt8], in file: RawFile) throws {
        try file.write(identificationPage(streamHeader), at: 0)
    }

    /// Sets the end-of-stream flag on the last page written.
    func finish(in file: RawFile) throws {
        guard let (at, written) = lastPage else { return }
        var page = written
        page[5] |= 4
        OggPage.setChecksum(&page)
        try file.write(page, at: at)
        lastPage = (at, page)
    }

    private func withPieces<R>(_ parts: [([UInt8], Range<Int>)], _ body: ([UnsafeRawBufferPointer]) -> R) -> R {
        // Each part copied into one contiguous buffer, then sliced: simple and bounded (a page).
        var joined: [UInt8] = []
        var ranges: [Range<Int>] = []
        for (bytes, range) in parts {
            ranges.append(joined.count..<(joined.count + range.count))
            joined += bytes[range]
        }
        return joined.withUnsafeBytes { raw in body(ranges.map { UnsafeRawBufferPointer(rebasing: raw[$0]) }) }
    }
}
