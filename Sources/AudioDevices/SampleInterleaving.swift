// Planar Float32 (what the engine renders) ↔ the interleaved sample formats devices take.
// Real-time safe: plain loops over preallocated memory.

/// The interleaved sample formats the backends negotiate, in order of preference.
enum DeviceSampleFormat: Sendable {
    case float32, int32, int16

    var bytesPerSample: Int {
        switch self {
        case .float32, .int32: 4
        case .int16: 2
        }
    }

    /// Writes `frames` frames of `channels` planar channels into `destination`, interleaved.
    /// Integers: scaled by 2^(bits−1), rounded to nearest, clipped.
    @inline(__always)
    func interleave(_ source: UnsafePointer<UnsafeMutablePointer<Float>>, channels: Int, frames: Int,
                    into destination: UnsafeMutableRawPointer, frameOffset: Int = 0) {
        switch self {
        case .float32:
            let out = destination.assumingMemoryBound(to: Float.self) + frameOffset * channels
            for c in 0..<channels {
                let s = source[c]
                var i = 0
                while i < frames { out[i * channels + c] = s[i]; i += 1 }
            }
        case .int32:
            let out = destination.assumingMemoryBound(to: Int32.self) + frameOffset * channels
            for c in 0..<channels {
                let s = source[c]
                var i = 0
                while i < frames {
                    let v = (Double(s[i]) * 2147483648.0).rounded()
                    out[i * channels + c] = v >= 2147483647 ? .max : (v <= -2147483648 ? .min : Int32(v))
                    i += 1
                }
            }
        case .int16:
            let out = destination.assumingMemoryBound(to: Int16.self) + frameOffset * channels
            for c in 0..<channels {
                let s = source[c]
                var i = 0
                while i < frames {
                    let v = (s[i] * 32768).rounded()
                    out[i * channels + c] = v >= 32767 ? .max : (v <= -32768 ? .min : Int16(v))
                    i += 1
                }
            }
        }
    }

    /// Reads `frames` interleaved frames of `channels` channels into planar Float32 buffers.
    @inline(__always)
    func deinterleave(_ source: UnsafeRawPointer, channels: Int, frames: Int,
                      into destination: UnsafePointer<UnsafeMutablePointer<Float>>, frameOffset: Int = 0) {
        switch self {
        case .float32:
            let input = source.assumingMemoryBound(to: Float.self)
            for c in 0..<channels {
                let d = destination[c] + frameOffset
                var i = 0
                while i < frames { d[i] = input[i * channels + c]; i += 1 }
            }
        case .int32:
            let input = source.assumingMemoryBound(to: Int32.self)
            for c in 0..<channels {
                let d = destination[c] + frameOffset
                var i = 0
                while i < frames { d[i] = Float(Double(input[i * channels + c]) / 2147483648.0); i += 1 }
            }
        case .int16:
            let input = source.assumingMemoryBound(to: Int16.self)
            for c in 0..<channels {
                let d = destination[c] + frameOffset
                var i = 0
                while i < frames { d[i] = Float(input[i * channels + c]) / 32768; i += 1 }
            }
        }
    }
}
