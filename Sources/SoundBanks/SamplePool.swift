// A bank's sample points in the form the voices read them.
//
// A SoundFont's 16-bit `smpl` data is kept as the file stores it (Int16, value / 32768): half the
// memory of Float, and loading is one read of the bytes into their final place, with no
// conversion pass (for FluidR3_GM, 141 MB instead of 282 MB, and no 70-million-point loop). The
// voices' interpolation converts each point as it reads it; int16 → Float is exact and 1/32768 a
// power of two, so what they play is bit for bit what a Float pool converted at load gave.
// 24-bit SoundFonts (`sm24`), DLS waves (8- and 16-bit, with their own scale) and audio-file
// instruments keep a Float pool.

/// The sample pool an instrument plays from: Float points in −1 … 1, or 16-bit points to be read
/// as value / 32768. Either way `count` includes the zeros appended as guard frames.
public enum SamplePool: @unchecked Sendable {
    case float32(UnsafeMutableBufferPointer<Float>)
    case int16(UnsafeMutableBufferPointer<Int16>)

    /// Points in the pool (guard frames included).
    public var count: Int {
        switch self {
        case .float32(let b): return b.count
        case .int16(let b): return b.count
        }
    }

    /// Point `i` as a Float in −1 … 1 (control side; the voices read the raw pointer).
    public subscript(i: Int) -> Float {
        switch self {
        case .float32(let b): return b[i]
        case .int16(let b): return Float(b[i]) * (1 / 32_768)
        }
    }

    /// Frees the pool's memory.
    public func deallocate() {
        switch self {
        case .float32(let b): b.deallocate()
        case .int16(let b): b.deallocate()
        }
    }
}
