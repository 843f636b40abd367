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
        var index = PacketIndex(codec: 0x666C_6163, sampleRate: Double(info.sampleRate), channelCount: info.channelCount,
                                bitsPerSample: info.bitsPerSample, magicCookie: cookie, packets: packets,
                                primingFrames: 0, remainderFrames: remainder, warnings: warnings)
        index.pieces = pieces
        return index
    }
}
