// Chained Ogg streams (RFC 3533 §4, "chaining"): a logical stream may follow another once the
// other's end-of-stream page has passed — what `cat a.oga b.oga > ab.oga` makes, and what an
// internet radio stream recorded across tracks is. Here the links whose audio format matches the
// first link's read as one continuous file: their packets follow each other in one PacketIndex,
// so `length` is the sum of the links' lengths and a seek anywhere is a binary search over the
// packets' first frames, decoding one packet, as for a single stream. Each link's granule
// positions count from its own start (every link begins at 0; the mapping checks each link's
// against its own frames), so nothing in one link depends on another's.
//
// What the file ends at. The first link whose format differs from the first link's — another
// codec, sample rate, channel count or bit depth — or that cannot be read (a codec with no
// decoder here, such as Opus; damaged headers; no packet) ends the file at the link before
// it, and a warning says which link and why. The choice rests on AVAudioFile: its
// `fileFormat`/`processingFormat` are fixed for the file's life, so a format change mid-file
// has no representation (Apple's documentation gives no chained-Ogg behaviour, and Apple's
// AudioFile has no Ogg reader to compare). The readers that continue are not followed: ffmpeg
// (5.1, checked here) decodes a 44.1 kHz link followed by a 48 kHz link as one stream and
// resamples the second link to the first's rate behind the caller's back, and stops at a link
// of another codec ("Cannot identify new stream"); libsndfile (1.2.2) reads only a chained
// Vorbis file's first link, and does not read FLAC in Ogg at all. Matching links are read
// whole, as ffmpeg does (its decoding of `cat a.oga b.oga` is a's samples then b's).
//
// One case also ends the file at a link: a link whose last page's granule position trims frames
// off its last packet (an encoder ending mid-packet, which FLAC encoders never need) before
// another link. PacketIndex trims only at the very end, so the trim cannot be honoured mid-file;
// the file ends with that link (its trim honoured, as the file's last), and a warning says so.
//
// Hostile input: each link is scanned from its first page to the next link's first page, so the
// whole file is still visited once and every allocation is bounded by the bytes present (each
// link holds at least one page). A link's own warnings are kept, prefixed with the link.

enum OggChain {
    /// Links after the first whose warnings are kept one by one; past these, a count.
    static let warnedLinks = 16

    /// The index of the file's first stream and every matching link chained after it.
    static func packetIndex(size: Int64, read: (Int64, Int) throws -> [UInt8]) throws -> PacketIndex {
        let firstStream = try OggDemuxer.scan(size: size, read: read)
        // The first link's problems are the file's: thrown.
        var index = try OggPacketReader.linkIndex(firstStream, read: read)
        var next = firstStream.nextLinkOffset
        var links = 1
        var quietWarnings = 0
        while let at = next {
            let number = links + 1
            let stop: String
            do {
                let stream = try OggDemuxer.scan(size: size, from: at, read: read)
                let link = try OggPacketReader.linkIndex(stream, read: read)
                if let difference = difference(index, link) {
                    stop = "its audio is \(difference); AVAudioFile's format cannot change within a file"
                } else if index.codec == OggVorbisMapping.codec && !OggVorbisMapping.sameDecoding(index.magicCookie, link.magicCookie) {
                    stop = "its Vorbis setup differs from the first link's (one decoder reads the whole file)"
                } else if index.codec == OggVorbisMapping.codec && link.primingFrames != 0 {
                    stop = "it starts with \(link.primingFrames) frames to discard (its first granule position), a trim that can only be made at the start of the file"
                } else if index.remainderFrames != 0 {
                    stop = "the link before it ends \(index.remainderFrames) frames into its last packet (its last granule position), a trim that can only be made at the end of the file"
                } else {
                    let before = index.packets.count
                    index.packets += link.packets
                    for (k, pieces) in link.pieces { index.pieces[before + k] = pieces }
                    index.remainderFrames = link.remainderFrames
                    if number <= 1 + warnedLinks {
                        index.warnings += link.warnings.map { "Chained link \(number) (at byte \(at)): \($0)" }
                    } else {
                        quietWarnings += link.warnings.count
                    }
                    if index.codec == OggFLACMapping.codec {
                        index.magicCookie = OggFLACMapping.joinedCookie(index.magicCookie, link.magicCookie)
                    }
                    links = number
                    next = stream.nextLinkOffset
                    continue
                }
            } catch let problem as StreamProblem {
                stop = problem.message
            }
            index.warnings.append("The chained link \(number) at byte \(at) is not read, nor anything after it: \(stop). The file ends with link \(links).")
            break
        }
        // The joined total once, at the end (summing the packets per link would be quadratic in
        // a long chain).
        if links > 1 && index.codec == OggFLACMapping.codec {
            index.magicCookie = OggFLACMapping.settingTotal(index.magicCookie, frames: index.validFrameCount)
        }
        if quietWarnings > 0 {
            index.warnings.append("\(quietWarnings) more warning\(quietWarnings == 1 ? "" : "s") from chained links after link \(1 + warnedLinks).")
        }
        return index
    }

    /// How `link`'s audio format differs from the file's (`file`), in words; nil when it matches.
    static func difference(_ file: PacketIndex, _ link: PacketIndex) -> String? {
        if link.codec != file.codec { return "in another codec" }
        if link.sampleRate != file.sampleRate { return "at \(Int(link.sampleRate)) Hz where the file is at \(Int(file.sampleRate)) Hz" }
        if link.channelCount != file.channelCount { return "\(link.channelCount)-channel where the file is \(file.channelCount)-channel" }
        if link.bitsPerSample != file.bitsPerSample { return "\(link.bitsPerSample)-bit where the file is \(file.bitsPerSample)-bit" }
        return nil
    }
}
