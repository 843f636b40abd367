// A whole native FLAC stream in memory, decoded: the entry point for tools and tests until the
// packet layer (codec issue) serves FLAC to AVAudioFile, AVAudioConverter and the player.

public enum FLACDecoder {
    /// Decodes every frame of a native FLAC stream. Returns STREAMINFO and each channel's samples
    /// (signed integers of `info.bitsPerSample` bits). Throws `CodecError` with the byte offset
    /// of the first damaged structure.
    public static func decode(_ bytes: UnsafeRawBufferPointer) throws -> (info: FLACStreamInfo, channels: [[Int32]], statistics: FLACFrameDecoder.Statistics) {
        let (info, _, audioOffset) = try FLACStreamHeader.parse(bytes)
        let decoder = FLACFrameDecoder(info: info)
        // (no reservation from STREAMINFO's total: a header is not trusted with allocations)
        var channels = [[Int32]](repeating: [], count: info.channelCount)
        var offset = audioOffset
        while offset < bytes.count {
            let (header, length) = try decoder.decodeFrame(bytes, at: offset)
            for c in 0..<info.channelCount {
                let s = decoder.samples(channel: c)
                channels[c].append(contentsOf: UnsafeBufferPointer(start: s, count: header.blockSize).lazy.map { Int32(truncatingIfNeeded: $0) })
            }
            offset += length
        }
        let decoded = Int64(channels.first?.count ?? 0)
        if let total = info.totalSamples {
            if total < decoded {
                for c in 0..<channels.count { channels[c].removeLast(channels[c].count - Int(total)) }
            } else if total > decoded {
                throw CodecError(.truncated, "FLAC: the stream ends after \(decoded) of the \(total) samples STREAMINFO announces")
            }
        }
        return (info, channels, decoder.statistics)
    }
}
