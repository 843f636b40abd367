// A whole Ogg Vorbis stream in memory, decoded at once: what an SF3 SoundFont's compressed
// samples are (each one a complete Ogg Vorbis stream in the `smpl` chunk). Files go through
// AudioFileFormats' Ogg demuxer and PacketFileReader instead; this is the minimal page walk
// (RFC 3533 §6) that SoundBanks, below AudioFileFormats in the layering, can reach.
//
// Pages are taken in order: the first page's serial number selects the stream, pages of other
// serials are skipped, a page that does not start with "OggS" or claims more bytes than remain
// ends the walk (what was decoded stays). CRCs are not checked: the bytes sit inside a RIFF
// chunk, not on a wire. Length: the decoded samples trimmed to the last granule position, as
// libvorbisfile (FluidSynth's and MuseScore's decoder for SF3) delivers them; the first page's
// granule is not used to trim the start (an SF3 sample starts at its first sample).
//
// Hostile input: the output grows only with packets actually present (at most half a long
// block per packet, each packet at least one byte), and `maximumFrames` caps it.

public enum VorbisOggMemoryStream {
    /// Decodes the stream in `bytes`; returns its channels (planar) and sample rate. Throws
    /// CodecError when the headers are missing or damaged.
    public static func decode(_ bytes: UnsafeRawBufferPointer, maximumFrames: Int = 1 << 26) throws -> (channels: [[Float]], sampleRate: Int) {
        var packets: [[UInt8]] = []
        var pending: [UInt8] = []
        var lastGranule: Int64 = -1
        var at = 0
        var serial: UInt32?
        var decoder: VorbisDecoder?
        var headers: [[UInt8]] = []
        var out: [[Float]] = []
        var frames = 0

        func consume(_ packet: [UInt8]) throws {
            if decoder == nil {
                headers.append(packet)
                if headers.count == 3 {
                    decoder = try headers[0].withUnsafeBytes { id in try headers[2].withUnsafeBytes { s in try VorbisDecoder(identification: id, setup: s) } }
                    out = [[Float]](repeating: [], count: decoder!.channelCount)
                }
                return
            }
            let d = decoder!
            let n = packet.withUnsafeBytes { d.decode($0) }
            guard n > 0, frames < maximumFrames else { return }
            let take = min(n, maximumFrames - frames)
            for c in 0..<d.channelCount { out[c].append(contentsOf: UnsafeBufferPointer(start: d.channelData[c], count: take)) }
            frames += take
        }

        while at + 27 <= bytes.count {
            guard bytes[at] == 0x4F, bytes[at + 1] == 0x67, bytes[at + 2] == 0x67, bytes[at + 3] == 0x53 else { break }
            let flags = bytes[at + 5]
            var granule: Int64 = 0
            for i in 0..<8 { granule |= Int64(bytes[at + 6 + i]) << Int64(8 * i) }
            var pageSerial: UInt32 = 0
            for i in 0..<4 { pageSerial |= UInt32(bytes[at + 14 + i]) << UInt32(8 * i) }
            let segments = Int(bytes[at + 26])
            guard at + 27 + segments <= bytes.count else { break }
            var bodySize = 0
            for i in 0..<segments { bodySize += Int(bytes[at + 27 + i]) }
            let body = at + 27 + segments
            guard body + bodySize <= bytes.count else { break }
            if serial == nil { serial = pageSerial }
            if pageSerial == serial {
                if flags & 1 == 0 { pending.removeAll() }   // not a continuation: a torn packet is dropped
                var offset = body
                var completed = false
                for i in 0..<segments {
                    let lace = Int(bytes[at + 27 + i])
                    pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + lace)]))
                    offset += lace
                    if lace < 255 {
                        packets.append(pending)
                        pending.removeAll(keepingCapacity: true)
                        completed = true
                    }
                }
                for p in packets { try consume(p) }
                packets.removeAll(keepingCapacity: true)
                if completed && granule >= 0 && decoder != nil { lastGranule = granule }
                if flags & 4 != 0 { break }
            }
            at = body + bodySize
        }
        guard let d = decoder else { throw CodecError(.truncated, "the Ogg Vorbis stream ends before its three header packets") }
        if lastGranule >= 0 && lastGranule < Int64(frames) {
            for c in out.indices { out[c].removeLast(frames - Int(lastGranule)) }
        }
        return (out, d.sampleRate)
    }
}
