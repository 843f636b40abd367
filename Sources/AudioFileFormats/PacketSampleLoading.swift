// The packet writers' (CAF, MP4) input conversion: what AVAudioFile hands a file writer — raw
// interleaved little-endian integers, left-justified in 1 to 4-byte containers — into the
// right-justified Int32 samples AudioCodecs' encoders take.

/// Reads `count` interleaved samples from `p` (each `containerBytes` wide) into `out`,
/// right-justified to `validBits`. A depth below its container's (20 bits in 3 bytes, say) is
/// rounded to the nearest step of that depth (the largest value where rounding up would
/// overflow), as the FLAC writer does; exact values — low bits zero — pass unchanged.
func loadPacketSamples(_ p: UnsafeRawPointer, count: Int, containerBytes: Int, validBits: Int, into out: UnsafeMutablePointer<Int32>) {
    switch containerBytes {
    case 1: for i in 0..<count { out[i] = Int32(p.load(fromByteOffset: i, as: Int8.self)) }
    case 2: for i in 0..<count { out[i] = Int32(Int16(littleEndian: p.loadUnaligned(fromByteOffset: 2 * i, as: Int16.self))) }
    case 3:
        for i in 0..<count {
            let b = p + 3 * i
            out[i] = Int32(b.load(as: UInt8.self)) | Int32(b.load(fromByteOffset: 1, as: UInt8.self)) << 8 | Int32(b.load(fromByteOffset: 2, as: Int8.self)) << 16
        }
    default: for i in 0..<count { out[i] = Int32(littleEndian: p.loadUnaligned(fromByteOffset: 4 * i, as: Int32.self)) }
    }
    let shift = containerBytes * 8 - validBits
    if shift > 0 {
        let half = Int64(1) << Int64(shift - 1)
        let largest = (Int64(1) << Int64(validBits - 1)) - 1
        for i in 0..<count { out[i] = Int32(min((Int64(out[i]) + half) >> Int64(shift), largest)) }
    }
}
