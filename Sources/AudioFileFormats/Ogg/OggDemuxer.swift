// Ogg demultiplexing: pages → the packets of one logical stream, each packet as the byte ranges
// (pieces) it occupies in the file, since a packet may span pages (RFC 3533 §5–§6).
//
// Design: the whole file is scanned once, page by page, when it is opened, and every page's CRC
// is checked. Only a page's 27-byte header and lacing table and then the page itself are read
// (at most 65,307 bytes, whatever the page claims), so memory is bounded by one page plus the
// packet list, which grows with the pages actually present.
//
// Damage is handled as libogg's ogg_sync_pageseek and ffmpeg's Ogg demuxer handle it, and
// the choice is theirs: a page whose CRC fails, whose header is not a page header, or that the
// file ends inside, is skipped, and the scan resynchronises at the next "OggS" that begins a page
// with a valid CRC. A packet that loses a piece to a skipped page (a gap in the page sequence
// numbers, or a continuation page that is gone) is dropped whole; the packets after it are kept.
// Each kind of damage adds one sentence to `warnings`. So a truncated file (a writer killed
// mid-page) reads up to its last complete page.
//
// The stream read is the first one that begins at or after the scan's start (the first page with
// the BOS flag); pages of other serial numbers (multiplexed streams) are ignored, and the scan
// stops at the first page that begins a stream after this one's end-of-stream page — the next link
// of a chain (RFC 3533 §4), whose offset it returns; OggChain.swift decides what to do with it.

/// One packet of the logical stream.
struct OggPacket {
    /// Where its bytes lie, in order (one piece unless it spans pages); frameCount unused (0).
    var pieces: [StoredPacket] = []
    var byteCount = 0
    /// Its first bytes (up to `OggDemuxer.prefixLength`): enough for a codec's identification
    /// header or a frame header, without reading the packet again.
    var prefix: [UInt8] = []
}

/// A page's granule position and the packet it applies to (the last packet completed on it).
struct OggGranule {
    var packet: Int
    var position: Int64
}

struct OggStreamPackets {
    var serialNumber: UInt32
    var packets: [OggPacket] = []
    /// One entry per page that completes a packet and states a granule position.
    var granules: [OggGranule] = []
    var sawEndOfStream = false
    var warnings: [String] = []
    /// Where the next link of a chain begins (a page beginning a stream after this one's
    /// end-of-stream page); nil when the file ends without one.
    var nextLinkOffset: Int64?
}

/// An error in a file that cannot be read as Ogg at all (no stream found).
struct StreamProblem: Error {
    var message: String
    var code: Int32
    init(_ message: String, code: Int32 = AudioFileFormatError.Code.invalidFile) {
        self.message = message
        self.code = code
    }
}

enum OggDemuxer {
    static let prefixLength = 64

    /// Scans a file of `size` bytes through `read` (offset, count → the bytes there, fewer at the
    /// end) from byte `start` and returns the packets of the first logical stream beginning there
    /// or after, and where the next link of a chain begins.
    static func scan(size: Int64, from start: Int64 = 0, read: (Int64, Int) throws -> [UInt8]) throws -> OggStreamPackets {
        var stream: OggStreamPackets?
        var offset: Int64 = max(0, start)
        var pending: OggPacket?
        var expectedSequence: UInt32?
        var skippedPages = 0, skippedBytes: Int64 = 0, truncatedAt: Int64?
        var droppedPackets = 0, otherStreamPages = 0
        var chainedAt: Int64?

        func dropPending() {
            if pending != nil { droppedPackets += 1; pending = nil }
        }

        scanning: while offset < size {
            // A page at `offset`, checked; else resynchronise.
            guard let page = try pageAt(offset, size: size, read: read) else {
                // What was in flight crosses the damage.
                dropPending()
                expectedSequence = nil
                guard let next = try nextPage(after: offset, size: size, read: read) else {
                    if try read(offset, 4).elementsEqual(OggPage.capturePattern.prefix(Int(min(4, size - offset)))) {
                        truncatedAt = offset   // a page begins here and the file ends inside it
                    } else {
                        skippedPages += 1
                        skippedBytes += size - offset
                    }
                    break
                }
                skippedPages += 1
                skippedBytes += next - offset
                offset = next
                continue
            }
            defer { offset += Int64(page.bytes.count) }
            let h = page.header
            if stream == nil {
                guard h.beginsStream else { continue }   // pages before any stream begins: nothing to attach them to
                stream = OggStreamPackets(serialNumber: h.serialNumber)
            }
            // A stream beginning after this one ended: the next link. Its serial number should
            // differ (RFC 3533 §4) but need not in practice (the same writer run twice and the
            // results concatenated), so a repeated serial after the end-of-stream page counts too.
            if h.beginsStream && stream!.sawEndOfStream { chainedAt = page.offset; break scanning }
            guard h.serialNumber == stream!.serialNumber else {
                otherStreamPages += 1
                continue
            }
            if let expected = expectedSequence, h.sequenceNumber != expected {
                dropPending()
            }
            expectedSequence = h.sequenceNumber &+ 1
            // The page's first bytes belong to the packet in flight only if it says so.
            var skipping = false
            if h.continued {
                if pending == nil { skipping = true }
            } else {
                dropPending()
            }
            let lacing = page.lacing
            var at = OggPage.fixedHeaderSize + lacing.count
            var run = 0, runStart = at
            var completed = 0
            for (k, value) in lacing.enumerated() {
                run += Int(value)
                guard value < 255 || k == lacing.count - 1 else { continue }
                let ends = value < 255
                if skipping {
                    if ends { skipping = false; droppedPackets += 1 }
                } else {
                    var packet = pending ?? OggPacket()
                    if run > 0 {
                        packet.pieces.append(StoredPacket(offset: page.offset + Int64(runStart), byteCount: run, frameCount: 0))
                        packet.byteCount += run
                        let want = min(prefixLength - packet.prefix.count, run)
                        if want > 0 { packet.prefix += page.bytes[runStart..<(runStart + want)] }
                    }
                    if ends {
                        stream!.packets.append(packet)
                        pending = nil
                        completed += 1
                    } else {
                        pending = packet
                    }
                }
                at = runStart + run
                runStart = at
                run = 0
            }
            if completed > 0 && h.granulePosition != -1 {
                stream!.granules.append(OggGranule(packet: stream!.packets.count - 1, position: h.granulePosition))
            }
            if h.endsStream {
                stream!.sawEndOfStream = true
                dropPending()
            }
        }
        guard var found = stream else {
            throw StreamProblem(skippedPages > 0 ? "no page of it begins a logical stream with a valid checksum (the pages are damaged)"
                                              : "no page of it begins a logical stream")
        }
        if pending != nil { droppedPackets += 1 }
        if skippedPages > 0 {
            found.warnings.append("\(skippedPages) damaged stretch\(skippedPages == 1 ? "" : "es") of \(skippedBytes) bytes (pages failing their checksum or not pages) skipped; reading resumed at the next valid page.")
        }
        if let truncatedAt {
            found.warnings.append("The file is truncated: it ends inside the page at byte \(truncatedAt), which is ignored.")
        }
        if droppedPackets > 0 {
            found.warnings.append("\(droppedPackets) packet\(droppedPackets == 1 ? "" : "s") lost a piece to a missing or damaged page and \(droppedPackets == 1 ? "was" : "were") dropped.")
        }
        if otherStreamPages > 0 {
            found.warnings.append("\(otherStreamPages) pages of other multiplexed streams ignored; only the first stream is read.")
        }
        found.nextLinkOffset = chainedAt
        return found
    }

    /// The page that begins at `offset`, checked (pattern, version, length within the file, CRC);
    /// nil when there is none.
    static func pageAt(_ offset: Int64, size: Int64, read: (Int64, Int) throws -> [UInt8]) throws -> (offset: Int64, header: OggPageHeader, lacing: [UInt8], bytes: [UInt8])? {
        guard size - offset >= Int64(OggPage.fixedHeaderSize) else { return nil }
        let head = try read(offset, OggPage.fixedHeaderSize + 255)
        guard head.count >= OggPage.fixedHeaderSize,
              let parsed = head.withUnsafeBytes({ OggPage.header($0) }) else { return nil }
        let segments = parsed.segmentCount
        guard head.count >= OggPage.fixedHeaderSize + segments else { return nil }
        let lacing = Array(head[OggPage.fixedHeaderSize..<(OggPage.fixedHeaderSize + segments)])
        let total = OggPage.fixedHeaderSize + segments + lacing.reduce(0) { $0 + Int($1) }
        guard Int64(total) <= size - offset else { return nil }
        let bytes = try read(offset, total)
        guard bytes.count == total, bytes.withUnsafeBytes({ OggPage.checksum($0) }) == parsed.storedCRC else { return nil }
        return (offset, parsed.header, lacing, bytes)
    }

    /// The offset of the next valid page after `offset`, searching forward; nil when none follows.
    static func nextPage(after offset: Int64, size: Int64, read: (Int64, Int) throws -> [UInt8]) throws -> Int64? {
        var from = offset + 1
        let window = 65_536
        while from < size {
            let chunk = try read(from, window + 3)
            guard chunk.count >= 4 else { return nil }
            var i = 0
            while i + 4 <= chunk.count {
                if chunk[i] == 0x4F && chunk[i + 1] == 0x67 && chunk[i + 2] == 0x67 && chunk[i + 3] == 0x53,
                   try pageAt(from + Int64(i), size: size, read: read) != nil {
                    return from + Int64(i)
                }
                i += 1
            }
            from += Int64(window)
        }
        return nil
    }
}
