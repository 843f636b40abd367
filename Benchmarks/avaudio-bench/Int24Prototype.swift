// A what-if for the 24-bit kernels: stereo 24-bit little-endian <-> deinterleaved Float32 with
// 8-byte loads/stores (one frame = 6 bytes) instead of three byte accesses per sample, which the
// baseline x86-64 (SSE2) build turns into long shuffle chains. Same numbers as AudioKernels:
// `avaudio-bench io-profile --only wav24` checks the bytes / floats are identical and times both.
import AudioKernels

enum Int24Prototype {
    /// Interleaved stereo 24-bit LE at `src` → `left`, `right` (Float32, x / 2^23).
    static func decodeStereo(count: Int, from src: UnsafeRawPointer,
                             left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>) {
        let scale: Float = 1.0 / 8_388_608.0
        // Every frame but the last reads 8 bytes (its 6 + 2 of the next frame).
        let fast = max(0, count - 1)
        for i in 0 ..< fast {
            let w = UInt64(littleEndian: src.loadUnaligned(fromByteOffset: i &* 6, as: UInt64.self))
            let l = Int32(truncatingIfNeeded: w << 8) >> 8
            let r = Int32(truncatingIfNeeded: w >> 16) >> 8
            left[i] = Float(l) * scale
            right[i] = Float(r) * scale
        }
        for i in fast ..< count {
            let p = src + i * 6
            func s(_ o: Int) -> Int32 {
                let b0 = UInt32(p.load(fromByteOffset: o, as: UInt8.self))
                let b1 = UInt32(p.load(fromByteOffset: o + 1, as: UInt8.self))
                let b2 = UInt32(p.load(fromByteOffset: o + 2, as: UInt8.self))
                return Int32(bitPattern: b2 << 24 | b1 << 16 | b0 << 8) >> 8
            }
            left[i] = Float(s(0)) * scale
            right[i] = Float(s(3)) * scale
        }
    }

    /// `left`, `right` (Float32) → interleaved stereo 24-bit LE at `dst`, rounding and clipping as
    /// SampleScaling does. Blocks of 256 frames: a vectorisable quantise pass into an Int32 scratch
    /// (L1), then a pack pass with one 8-byte store per frame, in ascending order so each store's
    /// two extra bytes are overwritten by the next frame; the last frame is stored byte by byte.
    static func encodeStereo(count: Int, left: UnsafePointer<Float>, right: UnsafePointer<Float>,
                             to dst: UnsafeMutableRawPointer, scratch: UnsafeMutablePointer<Int32>) {
        var frame = 0
        while frame < count {
            let n = min(256, count - frame)
            for i in 0 ..< n {
                scratch[2 &* i] = SampleScaling.integer(fromFloat: left[frame &+ i], bits: 24)
                scratch[2 &* i &+ 1] = SampleScaling.integer(fromFloat: right[frame &+ i], bits: 24)
            }
            let out = dst + frame * 6
            let last = frame + n == count
            let fast = last ? n - 1 : n
            for i in 0 ..< fast {
                let l = UInt64(UInt32(bitPattern: scratch[2 &* i]) & 0xFF_FFFF)
                let r = UInt64(UInt32(bitPattern: scratch[2 &* i &+ 1]) & 0xFF_FFFF)
                out.storeBytes(of: (l | r << 24).littleEndian, toByteOffset: i &* 6, as: UInt64.self)
            }
            if last && n > 0 {
                let i = n - 1
                for (k, v) in [scratch[2 * i], scratch[2 * i + 1]].enumerated() {
                    out.storeBytes(of: UInt8(truncatingIfNeeded: v), toByteOffset: i * 6 + 3 * k, as: UInt8.self)
                    out.storeBytes(of: UInt8(truncatingIfNeeded: v >> 8), toByteOffset: i * 6 + 3 * k + 1, as: UInt8.self)
                    out.storeBytes(of: UInt8(truncatingIfNeeded: v >> 16), toByteOffset: i * 6 + 3 * k + 2, as: UInt8.self)
                }
            }
            frame += n
        }
    }
}
