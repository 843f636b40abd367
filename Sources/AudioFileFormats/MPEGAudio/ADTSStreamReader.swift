// ADTS (ISO/IEC 13818-7 §6.2, 14496-3 §1.A.2): AAC frames each behind a 7-byte header — sync
// 0xFFF, MPEG version, layer 00, protection_absent, profile (object type − 1), sampling
// frequency index, channel configuration, a 13-bit frame length counting the header, buffer
// fullness, and the number of raw data blocks less one — plus a 16-bit CRC when
// protection_absent is 0.
//
// Each ADTS frame is one packet: the bytes after the header (and CRC), decoding to 1,024 samples
// per raw data block (in sync, a header that fits suffices, as for MPEG audio). (Frames of several blocks are rare and kept whole; with a CRC such a frame
// also carries block positions, included in the packet.) Like MPEG audio, a frame is accepted
// when the next header is valid and agrees, the scan resynchronises past garbage with a warning,
// and priming is 0: ADTS does not signal the encoder delay (Apple documents none for it either).
// The magic cookie is the 2-byte AudioSpecificConfig the header implies (object type, frequency
// index, channel configuration).

enum ADTSStreamReader {
    static let sampleRates = [96_000, 88_200, 64_000, 48_000, 44_100, 32_000, 24_000, 22_050, 16_000, 12_000, 11_025, 8_000, 7_350]

    struct Header: Equatable {
        var hasCRC: Bool
        var objectType: Int
        var frequencyIndex: Int
        var channelConfiguration: Int
        var frameLength: Int
        var blocks: Int
        var headerLength: Int { hasCRC ? 9 : 7 }
    }

    /// The ADTS header in `b` at `at` (at least 7 bytes there), or nil.
    static func header(_ b: [UInt8], _ at: Int) -> Header? {
        guard b.count >= at + 7, b[at] == 0xFF, b[at + 1] & 0xF6 == 0xF0 else { return nil }
        let frequency = Int(b[at + 2] >> 2) & 0xF
        guard frequency < sampleRates.count else { return nil }
        let header = Header(hasCRC: b[at + 1] & 1 == 0, objectType: Int(b[at + 2] >> 6) + 1, frequencyIndex: frequency,
                            channelConfiguration: Int(b[at + 2] & 1) << 2 | Int(b[at + 3] >> 6),
                            frameLength: Int(b[at + 3] & 3) << 11 | Int(b[at + 4]) << 3 | Int(b[at + 5] >> 5),
                            blocks: Int(b[at + 6] & 3) + 1)
        guard header.frameLength > header.headerLength else { return nil }
        return header
    }

    static func confirmed(_ data: inout WindowedBytes, _ at: Int64, end: Int64, inSync: Bool = false) throws -> Header? {
        guard let h = try data.bytes(at, 7), let header = header(h, 0) else { return nil }
        let next = at + Int64(header.frameLength)
        guard next <= end else { return nil }
        if end - next < 7 || inSync { return header }
        guard let n = try data.bytes(next, 7), let following = Self.header(n, 0),
              following.frequencyIndex == header.frequencyIndex, following.objectType == header.objectType else { return nil }
        return header
    }

    static func parse(_ data: inout WindowedBytes, from start: Int64, end: Int64) throws -> PacketIndex {
        var warnings: [String] = []
        var offset = start
        var first: Header?
        var packets: [StoredPacket] = []
        var skipped: Int64 = 0, stretches = 0
        var inSync = false
        while offset + 7 <= end {
            guard let header = try confirmed(&data, offset, end: end, inSync: inSync),
                  first.map({ $0.frequencyIndex == header.frequencyIndex && $0.objectType == header.objectType }) ?? true else {
                inSync = false
                var probe = offset + 1
                var found: Int64?
                while probe + 7 <= end {
                    if try data.byte(probe) == 0xFF, try confirmed(&data, probe, end: end) != nil { found = probe; break }
                    probe += 1
                }
                guard let found else {
                    if first == nil { throw StreamProblem("no ADTS frame with a valid successor was found") }
                    warnings.append("\(end - offset) bytes after the last frame (from byte \(offset)) are not ADTS frames and are ignored.")
                    break
                }
                skipped += found - offset
                stretches += 1
                offset = found
                continue
            }
            if first == nil { first = header }
            inSync = true
            packets.append(StoredPacket(offset: offset + Int64(header.headerLength), byteCount: header.frameLength - header.headerLength,
                                        frameCount: 1024 * header.blocks))
            offset += Int64(header.frameLength)
        }
        guard let first else { throw StreamProblem("it holds no ADTS frame") }
        if stretches > 0 {
            warnings.append("\(skipped) bytes in \(stretches) stretch\(stretches == 1 ? "" : "es") between frames were not frames (lost sync) and were skipped.")
        }
        let config: [UInt8] = [UInt8(first.objectType << 3 | first.frequencyIndex >> 1),
                               UInt8(truncatingIfNeeded: (first.frequencyIndex & 1) << 7 | first.channelConfiguration << 3)]
        // Channel configuration 0 means "defined in the stream" (a PCE); 7 is 7.1 (8 channels).
        let channels = first.channelConfiguration == 7 ? 8 : first.channelConfiguration
        return PacketIndex(codec: 0x6161_6320, sampleRate: Double(sampleRates[first.frequencyIndex]), channelCount: channels,
                           bitsPerSample: 0, magicCookie: config, packets: packets, warnings: warnings)
    }
}
