// Vorbis in Ogg (Vorbis I specification, appendix A "Embedding Vorbis into an Ogg stream"): the
// identification header alone on the first page, the comment and setup headers on the pages
// after it (the first audio packet starts a fresh page), then one audio packet per Ogg packet.
// A page's granule position is the sample count at the end of the last packet completed on it
// (header pages: 0).
//
// Frames per packet. A Vorbis packet outputs the samples between the previous block's centre
// and its own: prevN/4 + n/4, none for the first audio packet. The block size is the packet's
// mode's (its first bits name the mode), so counting frames needs the modes, which sit at the
// end of the setup header: the setup packet is read whole and parsed once here (a few KB).
//
// Granule positions (appendix A.2): the first audio page's granule may be less than the samples
// its packets output — the encoder starts mid-block — and the difference is leading samples to
// discard (priming). A first granule beyond the samples its packets hold means the stream began
// mid-way (a cut from a live stream): positions count from its first frame and a warning says
// where it began. The last page's granule, less than the samples the packets output, trims the
// end (remainder): the stream's length is the last granule less the start, as libvorbisfile's
// ov_pcm_total (and oggdec) report it. When one page holds all the audio, its granule is the
// end's, not the start's (libvorbisfile's reading). ffmpeg (5.1) agrees on every file whose
// audio spans two pages or more; on a one-page file it applies no trim at all and outputs every
// decoded sample (a file of 100 samples decodes to 128 there), so there libvorbis is followed.
//
// The magic cookie handed to the decoder is the three header packets in Xiph lacing
// (VorbisCookie). Chained links join the file (OggChain) only when their identification and
// setup headers are byte-identical to the first link's, since one decoder reads them all; the
// first audio packet of every link outputs nothing (it is counted as 0 frames), so the new link's
// first packet, decoded after the old link's last, contributes no samples.
//
// Channel layouts: Vorbis's order for 3–8 channels (section 4.3.9) is Apple's
// kAudioChannelLayoutTag_Ogg_* (CoreAudioTypes, "Ogg Vorbis / Opus channel orders"); 1 and 2
// channels need none. `channelLayoutData` carries the tag as a CAF 'chan' payload.
import AudioCodecs

enum OggVorbisMapping {
    static var codec: UInt32 { vorbisFormatID }

    /// True when `packet` (the stream's first packet's first bytes) is a Vorbis identification header.
    static func identifies(_ packet: [UInt8]) -> Bool {
        packet.count >= 7 && packet[0] == 1 && Array(packet[1..<7]) == Array("vorbis".utf8)
    }

    /// kAudioChannelLayoutTag_Ogg_3_0 … _Ogg_7_1 (AC3_3_0, WAVE_4_0_B, Ogg_5_0, Ogg_5_1,
    /// Ogg_6_1, Ogg_7_1), by channel count 3 … 8.
    static let layoutTags: [UInt32] = [150 << 16 | 3, 185 << 16 | 4, 212 << 16 | 5, 213 << 16 | 6, 214 << 16 | 7, 215 << 16 | 8]

    /// A CAF 'chan' payload naming Vorbis's channel order for `channels` (nil for 1, 2 and >8).
    static func channelLayoutData(channels: Int) -> [UInt8]? {
        guard (3...8).contains(channels) else { return nil }
        let tag = layoutTags[channels - 3]
        return [UInt8(tag >> 24), UInt8(tag >> 16 & 0xFF), UInt8(tag >> 8 & 0xFF), UInt8(tag & 0xFF)] + [UInt8](repeating: 0, count: 8)
    }

    /// A whole packet's bytes, gathered from its pieces.
    private static func bytes(of packet: OggPacket, read: (Int64, Int) throws -> [UInt8]) throws -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(packet.byteCount)
        for piece in packet.pieces {
            let got = try read(piece.offset, piece.byteCount)
            guard got.count == piece.byteCount else { throw StreamProblem("its Vorbis header packet is cut short") }
            out += got
        }
        return out
    }

    static func packetIndex(_ stream: OggStreamPackets, read: (Int64, Int) throws -> [UInt8]) throws -> PacketIndex {
        guard stream.packets.count >= 3 else {
            throw StreamProblem("its Vorbis stream has \(stream.packets.count) header packet\(stream.packets.count == 1 ? "" : "s"); three are required")
        }
        let idBytes = try bytes(of: stream.packets[0], read: read)
        let commentBytes = try bytes(of: stream.packets[1], read: read)
        let setupBytes = try bytes(of: stream.packets[2], read: read)
        guard commentBytes.count >= 7, commentBytes[0] == 3, Array(commentBytes[1..<7]) == Array("vorbis".utf8) else {
            throw StreamProblem("its second packet is not a Vorbis comment header")
        }
        let decoder: VorbisDecoder
        do {
            decoder = try idBytes.withUnsafeBytes { id in try setupBytes.withUnsafeBytes { s in try VorbisDecoder(identification: id, setup: s) } }
        } catch let error as CodecError {
            let code = error.kind == .unsupported ? AudioFileFormatError.Code.unsupportedDataFormat : AudioFileFormatError.Code.invalidFile
            throw StreamProblem("its Vorbis headers are not valid: \(error.message)", code: code)
        }
        let id = decoder.identification
        var warnings = stream.warnings

        var packets: [StoredPacket] = []
        var pieces: [Int: [StoredPacket]] = [:]
        var endSample: [Int: Int64] = [:]
        var total: Int64 = 0
        var previousLong: Bool?
        var skipped = 0
        for k in 3..<stream.packets.count {
            let p = stream.packets[k]
            let long = p.prefix.withUnsafeBytes { decoder.isLongBlock($0) }
            var frames = 0
            if let long {
                if let previousLong { frames = VorbisDecoder.frameCount(long: long, previousLong: previousLong, id) }
                previousLong = long
            } else {
                skipped += 1
            }
            if p.pieces.count > 1 { pieces[packets.count] = p.pieces }
            packets.append(StoredPacket(offset: p.pieces.first?.offset ?? 0, byteCount: p.byteCount, frameCount: frames))
            total += Int64(frames)
            endSample[k] = total
        }
        if skipped > 0 {
            warnings.append("\(skipped) packet\(skipped == 1 ? " is" : "s are") not Vorbis audio packets and decode to nothing.")
        }

        // Granule positions: where the stream starts, and where it ends.
        let audioGranules = stream.granules.compactMap { g in endSample[g.packet].map { (end: $0, position: g.position) } }
        var priming: Int64 = 0, remainder: Int64 = 0
        if let first = audioGranules.first, let last = audioGranules.last, last.position >= 0 {
            var base = first.position - first.end
            if audioGranules.count == 1 && base < 0 {
                // The first page is also the last: its granule ends the stream (libvorbisfile
                // reads it so; the samples before it are the file's first).
                base = 0
            } else if base < 0 {
                // The encoder began mid-block: the first -base samples are not audio.
                priming = min(-base, first.end)
                base = 0
            } else if base > 0 {
                warnings.append("The stream's first audio page puts its end at sample \(first.position) but its packets hold \(first.end) samples: the stream began at sample \(base) of a longer one; positions count from its first packet.")
            }
            let stated = last.position - base
            if last.end == total && stated >= priming && stated < total {
                remainder = total - stated
            } else if stated != last.end && last.end == total {
                warnings.append("The last page's granule position (\(last.position)) disagrees with the \(last.end) samples its packets hold; the packets decide.")
            }
        }
        var index = PacketIndex(codec: codec, sampleRate: Double(id.sampleRate), channelCount: id.channelCount, bitsPerSample: 32,
                                magicCookie: VorbisCookie.make([idBytes, commentBytes, setupBytes]), packets: packets,
                                primingFrames: priming, remainderFrames: remainder, warnings: warnings)
        index.pieces = pieces
        return index
    }

    /// Whether two links' cookies decode alike: identification and setup headers equal (the
    /// comment may differ).
    static func sameDecoding(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard let x = VorbisCookie.split(a), let y = VorbisCookie.split(b) else { return false }
        return x[0] == y[0] && x[2] == y[2]
    }
}
