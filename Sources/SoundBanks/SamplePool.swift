// A bank's sample points in the form the voices read them.
//
// A SoundFont's 16-bit `smpl` data is kept as the file stores it (Int16, value / 32768): half the
// memory of Float, and loading is one read of the bytes into their final place, with no
// conversion pass (for FluidR3_GM, 141 MB instead of 282 MB, and no 70-million-point loop). The
// voices' interpolation converts each point as it reads it; int16 → Float is exact and 1/32768 a
// power of two, so what they play is bit for bit what a Float pool converted at load gave.
// 24-bit SoundFonts (`sm24`), DLS waves (8- and 16-bit, with their own scale) and audio-file
// instruments keep a Float pool.
import AudioKernels

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

/// Memory for a bank's sample pool, the one large block a bank holds (FluidR3_GM: 141 MB).
///
/// Loading a bank is dominated by the first touch of that memory, not by reading the file: from
/// `malloc`, every 4 KiB page faults in once as `pread` fills it (36,000 faults for FluidR3_GM,
/// each zeroing its page). A pool of `mappedThreshold` bytes or more is therefore a mapping with
/// huge pages asked for (`HugePageMemory`): reading FluidR3_GM's 148 MB into fresh memory took
/// 280–510 ms from `malloc` and 80–105 ms from such a mapping on this project's 2-core VM (C
/// probe, same `pread` loop, page cache warm). Smaller pools use the allocator.
///
/// A block from `allocate` must be freed with `free`, passing back whether it was mapped.
public enum PoolMemory {
    /// Pools of at least this many bytes are mapped (two huge pages).
    public static let mappedThreshold = 4 << 20

    /// An uninitialized block of `count` elements, and whether it is a mapping (a large block
    /// whose mapping the kernel refused comes from the allocator instead).
    public static func allocate<T>(_: T.Type, count: Int) -> (block: UnsafeMutableBufferPointer<T>, mapped: Bool) {
        let bytes = count * MemoryLayout<T>.stride
        if bytes >= mappedThreshold, let p = HugePageMemory.map(byteCount: bytes) {
            return (UnsafeMutableBufferPointer(start: p.bindMemory(to: T.self, capacity: count), count: count), true)
        }
        return (UnsafeMutableBufferPointer<T>.allocate(capacity: count), false)
    }

    /// Frees a block `allocate` returned.
    public static func free<T>(_ block: UnsafeMutableBufferPointer<T>, mapped: Bool) {
        guard let base = block.baseAddress else { return }
        if mapped { HugePageMemory.unmap(base, byteCount: block.count * MemoryLayout<T>.stride) } else { block.deallocate() }
    }

    /// Frees a pool whose block came from `allocate`.
    public static func free(_ pool: SamplePool, mapped: Bool) {
        switch pool {
        case .float32(let b): free(b, mapped: mapped)
        case .int16(let b): free(b, mapped: mapped)
        }
    }
}
