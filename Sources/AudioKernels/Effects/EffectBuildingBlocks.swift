// Small pieces the effect processors share: linear delay memories that never wrap, parameter
// ramps, and a deterministic generator. Render-thread safe: nothing here allocates after init.

/// Delay memories that are written forward in blocks and read behind the write position
/// without wrapping: `count` lines of `history + span` samples; the write position runs from
/// `history` to the end, then the last `history` samples move back to the start.
struct SlidingDelayLines {
    let base: UnsafeMutablePointer<Float>
    let count: Int
    let history: Int
    let stride: Int
    let block: Int
    private(set) var position: Int

    init(count: Int, history: Int, block: Int) {
        self.count = count
        self.history = history
        self.block = block
        stride = history + max(2 * history, 16 * block)
        base = .allocate(capacity: count * stride)
        base.initialize(repeating: 0, count: count * stride)
        position = history
    }

    func free() { base.deallocate() }

    /// The write position of line `i` (the current block starts here).
    @inline(__always) func line(_ i: Int) -> UnsafeMutablePointer<Float> { base + i * stride + position }

    /// Moves the write position `n` frames on (n ≤ block), sliding the history back when the
    /// next block would not fit.
    mutating func advance(_ n: Int) {
        position += n
        if position + block > stride {
            var i = 0
            while i < count {
                let l = base + i * stride
                EffectMemory.copy(l, from: l + position - history, count: history)  // forward: the source lies ahead
                i += 1
            }
            position = history
        }
    }

    func clear() { EffectMemory.zero(base, count: count * stride) }
}

/// A Float value gliding linearly to a target over a number of frames (0: a jump), stepped
/// frame by frame.
struct ParameterRamp {
    var value: Float
    var step: Float = 0
    var remaining = 0
    var target: Float

    init(_ v: Float) { value = v; target = v }

    var isRamping: Bool { remaining > 0 }

    mutating func start(to t: Float, frames: Int) {
        target = t
        if frames <= 0 { value = t; remaining = 0; step = 0 }
        else { remaining = frames; step = (t - value) / Float(frames) }
    }

    @inline(__always)
    mutating func next() -> Float {
        if remaining > 0 {
            remaining -= 1
            value = remaining == 0 ? target : value + step
        }
        return value
    }
}

/// A Double value gliding linearly from `from` to `to` over `length` frames, read at any point.
struct LinearGlide {
    var from: Double
    var to: Double
    var length = 0
    var elapsed = 0

    init(_ value: Double) { from = value; to = value }

    var isActive: Bool { elapsed < length }
    var current: Double { elapsed >= length ? to : from + (to - from) * (Double(elapsed) / Double(length)) }

    /// Starts gliding from the current value to `target` over `frames` frames (0: jump).
    mutating func start(to target: Double, frames: Int) {
        from = frames > 0 ? current : target
        to = target
        length = frames
        elapsed = 0
    }

    mutating func advance(_ frames: Int) { elapsed = min(length, elapsed + frames) }
}

/// A small deterministic generator (SplitMix64), e.g. for a reverb's reflection pattern.
struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed &* 0x9E37_79B9_7F4A_7C15 }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var x = state
        x = (x ^ (x >> 30)) &* 0xBF58_476D_1CE4_E5B9
        x = (x ^ (x >> 27)) &* 0x94D0_49BB_1331_11EB
        return x ^ (x >> 31)
    }
    mutating func unit() -> Double { Double(next() >> 11) * (1.0 / 9_007_199_254_740_992.0) }
}

/// Plain loops for copying and clearing on the render thread: `UnsafeMutablePointer.update` is
/// generic over the pointee and the real-time checker cannot rule out that it releases values.
enum EffectMemory {
    /// Copies front to back (safe when `destination` lies before an overlapping `source`).
    @inline(__always)
    static func copy(_ destination: UnsafeMutablePointer<Float>, from source: UnsafePointer<Float>, count: Int) {
        var i = 0
        while i < count { destination[i] = source[i]; i += 1 }
    }

    @inline(__always)
    static func copy(_ destination: UnsafeMutablePointer<Float>, from source: UnsafeMutablePointer<Float>, count: Int) {
        copy(destination, from: UnsafePointer(source), count: count)
    }

    @inline(__always)
    static func zero(_ p: UnsafeMutablePointer<Float>, count: Int) {
        var i = 0
        while i < count { p[i] = 0; i += 1 }
    }

    @inline(__always)
    static func zero(_ p: UnsafeMutablePointer<Double>, count: Int) {
        var i = 0
        while i < count { p[i] = 0; i += 1 }
    }

    @inline(__always)
    static func zero(_ p: UnsafeMutablePointer<SIMD2<Double>>, count: Int) {
        var i = 0
        while i < count { p[i] = .zero; i += 1 }
    }
}
