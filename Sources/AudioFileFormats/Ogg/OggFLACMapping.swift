// FLAC in Ogg, mapping version 1.0 (xiph.org/flac/ogg_mapping.html): the stream's first packet
// is 0x7F, "FLAC", the mapping's major and minor version (1, 0), a big-endian 16-bit count of
// the header packets after it (0 = unknown), "fLaC" and the STREAMINFO metadata block; then one
// packet per metadata block (the first a VORBIS_COMMENT); then one native FLAC frame per packet.
// Granule positions follow Vorbis's rule: the sample count at the end of the last packet
// completed on the page; header pages have 0.
//
// Each packet's frame count comes from its FLAC frame header (the block size), as the decoder
// will find it; the granule positions are checked against those counts. The last page's
// granule, when it ends before the frames do, trims the end (remainder frames), as Vorbis's
// rule lets an encoder end a stream mid-packet (FLAC encoders never need to: their last frame is
// short instead). A stream whose first audio page states a granule beyond its own frames began
// mid-way (a cut from a live stream): positions here count from its first frame, and a warning
// says where it began.
//
// The magic cookie handed to the FLAC decoder is "fLaC" and the STREAMINFO block, as in MP4's
// `dfLa` box and native FLAC.
import AudioCodecs

enum OggFLACMapping {
    /// kAudioFormatFLAC, 'flac'.
    static let codec: UInt32 = 0x666C_6163

    /// The cookie for a chain of FLAC links (OggChain): `file`'s (the links so far) joined with
    /// the next link's, both "fLaC", a STREAMINFO block header and the 34-byte STREAMINFO as
    /// `packetIndex` makes them. The block sizes span both (the decoder sizes its buffer by the
    /// largest), the frame sizes too (0, "unknown", when either does not know), and the MD5 is
    /// zero — "not computed" (RFC 9639 §8.2) — since each link's covers only that link; the
    /// total is for `settingTotal` once the chain is joined. Sample rate, channels and depth are
    /// the same in both (OggChain joins only matching links).
    static func joinedCookie(_ file: [UInt8], _ link: [UInt8]) -> [UInt8] {
        guard file.count == 42, link.count == 42 else { return file }
        func field(_ b: [UInt8], _ at: Int, _ n: Int) -> Int { (0..<n).reduce(0) { $0 << 8 | Int(b[8 + at + $1]) } }
        var out = file
        func set(_ at: Int, _ n: Int, _ value: Int) {
            for i in 0..<n { out[8 + at + i] = UInt8(truncatingIfNeeded: value >> (8 * (n - 1 - i))) }
        }
        set(0, 2, min(field(file, 0, 2), field(link, 0, 2)))
        set(2, 2, max(field(file, 2, 2), field(link, 2, 2)))
        let minimumFrames = (field(file, 4, 3), field(link, 4, 3)), maximumFrames = (field(file, 7, 3), field(link, 7, 3))
        set(4, 3, minimumFrames.0 == 0 || minimumFrames.1 == 0 ? 0 : min(minimumFrames.0, minimumFrames.1))
        set(7, 3, maximumFrames.0 == 0 || maximumFrames.1 == 0 ? 0 : max(maximumFrames.0, maximumFrames.1))
        for i in 18..<34 { out[8 + i] = 0 }
        return out
    }

    /// `cookie` (as `joinedCookie` takes it) with STREAMINFO's total samples set to `frames`
    /// (0, "unknown", when it does not fit the field's 36 bits).
    static func settingTotal(_ cookie: [UInt8], frames: Int64) -> [UInt8] {
        guard cookie.count == 42 else { return cookie }
        var out = cookie
        // Total samples: the low 4 bits of STREAMINFO's byte 13 and its bytes 14–17, big-endian.
        let total = frames > 0 && frames < 1 << 36 ? frames : 0
        out[8 + 13] = out[8 + 13] & 0xF0 | UInt8(truncatingIfNeeded: total >> 32) & 0x0F
        for i in 0..<4 { out[8 + 14 + i] = UInt8(truncatingIfNeeded: total >> (8 * (3 - i))) }
        return out
    }

    /// True when `packet` (the stream's first packet's first bytes) is a FLAC mapping header.
    static func identifies(_ packet: [UInt8]) -> Bool {
        packet.count >= 5 && packet[0] == 0x7F && packet[1] == 0x46 && packet[2] == 0x4C && packet[3] == 0x41 && packet[4] == 0x43
    }

    static func packetIndex(_ stream: OggStreamPackets) throws -> PacketIndex {
        let id = stream.packets[0].prefix
        guard id.count >= 51, stream.packets[0].byteCount >= 51 else {
            throw StreamProblem("its FLAC identification packet is \(stream.packets[0].byteCount) bytes, shorter than the 51 the mapping defines")
        }
        guard id[5] == 1 else {
            throw StreamProblem("it uses version \(id[5]).\(id[6]) of the FLAC-to-Ogg mapping; only major version 1 is defined",
                             code: AudioFileFormatError.Code.unsupportedDataFormat)
        }
        let headerCount = Int(id[7]) << 8 | Int(id[8])
        guard id[9] == 0x66, id[10] == 0x4C, id[11] == 0x61, id[12] == 0x43 else {
            throw StreamProblem("its FLAC identification packet lacks the \"fLaC\" signature at byte 9")
        }
        guard id[13] & 0x7F == 0, Int(id[14]) << 16 | Int(id[15]) << 8 | Int(id[16]) == 34 else {
            throw StreamProblem("its FLAC identification packet does not hold a 34-byte STREAMINFO block")
        }
        let cookie: [UInt8] = [0x66, 0x4C, 0x61, 0x43, 0x80, 0, 0, 34] + id[17..<51]
        let info: FLACStreamInfo
        do {
            info = try cookie.withUnsafeBytes { try FLACStreamHeader.parse($0).info }
        } catch let error as CodecError {
            throw StreamProblem("its STREAMINFO is not valid: \(error.message)")
        }
        guard info.sampleRate > 0, info.channelCount >= 1 else {
            throw StreamProblem("its STREAMINFO gives \(info.sampleRate) Hz and \(info.channelCount) channels")
        }
        var warnings = stream.warnings
        let frameParser = FLACFrameDecoder(info: info)

        // The audio packets: after the stated header packets, or (count unknown) from the first
        // packet that starts like a FLAC frame.
        var start = 1 + headerCount
        if headerCount == 0 {
            start = stream.packets.indices.dropFirst().first { stream.packets[$0].prefix.first == 0xFF } ?? stream.packets.count
        }
        var packets: [StoredPacket] = []
        var pieces: [Int: [StoredPacket]] = [:]
        /// Sample count at the end of each kept stream packet, by stream packet number.
        var endSample: [Int: Int64] = [:]
        var total: Int64 = 0
        var unreadable = 0
        for k in start..<max(start, stream.packets.count) {
            let p = stream.packets[k]
            guard let header = (p.prefix.withUnsafeBytes { try? frameParser.frameHeader($0, at: 0) }) else {
                unreadable += 1
                continue
            }
            if p.pieces.count > 1 { pieces[packets.count] = p.pieces }
            packets.append(StoredPacket(offset: p.pieces.first?.offset ?? 0, byteCount: p.byteCount, frameCount: header.blockSize))
            total += Int64(header.blockSize)
            endSample[k] = total
        }
        if unreadable > 0 {
            warnings.append("\(unreadable) audio packet\(unreadable == 1 ? " does" : "s do") not begin with a valid FLAC frame header and \(unreadable == 1 ? "was" : "were") skipped.")
        }

        // Granule positions: where the stream starts, and where it ends.
        let audioGranules = stream.granules.compactMap { g in endSample[g.packet].map { (end: $0, position: g.position) } }
        var remainder: Int64 = 0
        if let first = audioGranules.first, let last = audioGranules.last {
            let base = first.position - first.end
            if base != 0 {
                warnings.append("The stream's first audio page puts its end at sample \(first.position) but its frames hold \(first.end) samples: the stream began at sample \(base) of a longer one; positions count from its first frame.")
            }
            let stated = last.position - base
            if last.end == total && stated < total && total - stated < Int64(packets.last?.frameCount ?? 0) {
                remainder = total - stated
            } else if stated != last.end {
                warnings.append("The last page's granule position (\(last.position)) disagrees with the \(last.end) samples its frames hold; the frames decide.")
            }
        }
        var index = PacketIndex(codec: codec, sampleRate: Double(info.sampleRate), channelCount: info.channelCount,
                                bitsPerSample: info.bitsPerSample, magicCookie: cookie, packets: packets,
                                primingFrames: 0, remainderFrames: remainder, warnings: warnings)
        index.pieces = pieces
        return index
    }
}
