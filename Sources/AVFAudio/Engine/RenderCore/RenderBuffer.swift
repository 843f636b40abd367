// The audio that flows along one connection during one render cycle: deinterleaved Float32,
// `channelCount` channels of up to `capacity` frames, plus an AudioBufferList describing the same
// memory for client blocks (source-node render blocks, sink-node receivers, the manual rendering
// block). Allocated when a render plan is compiled (control side), never on the render thread.

final class RenderBuffer {
    let channelCount: Int
    let capacity: Int
    private let memory: UnsafeMutablePointer<Float>
    /// `channelCount` channel pointers, each `capacity` floats.
    let channels: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    /// An AudioBufferList over the same memory (one mono buffer per channel).
    let bufferList: UnsafeMutableAudioBufferListPointer
    /// Frames valid in this cycle.
    var frames = 0
    /// True when the producer knows the contents are silence (lets mixers skip work).
    var isSilent = true

    init(channelCount: Int, capacity: Int) {
        self.channelCount = channelCount
        self.capacity = capacity
        memory = .allocate(capacity: max(1, channelCount * capacity))
        memory.initialize(repeating: 0, count: max(1, channelCount * capacity))
        channels = .allocate(capacity: max(1, channelCount))
        for c in 0..<channelCount { channels[c] = memory + c * capacity }
        bufferList = AudioBufferList.allocate(maximumBuffers: max(1, channelCount))
        resetBufferList(frames: capacity)
    }

    deinit {
        memory.deallocate()
        channels.deallocate()
        free(bufferList.unsafeMutablePointer)
    }

    /// Points the AudioBufferList back at our memory with `frames` frames (clients may have
    /// replaced `mData` or changed sizes in a callback).
    @inline(__always)
    func resetBufferList(frames: Int) {
        let bytes = UInt32(frames * MemoryLayout<Float>.size)
        for c in 0..<channelCount {
            bufferList[c] = AudioBuffer(mNumberChannels: 1, mDataByteSize: bytes, mData: UnsafeMutableRawPointer(channels[c]))
        }
    }

    /// points the channels back at our own memory (after a producer lent other memory).
    @inline(__always)
    func restoreChannels() {
        // (nested ifs, not `&&`: its autoclosure would retain self)
        if channelCount > 0 {
            if channels[0] != memory {
                for c in 0..<channelCount { channels[c] = memory + c * capacity }
            }
        }
    }

    /// Writes silence into the first `frames` frames.
    @inline(__always)
    func clear(frames: Int) {
        restoreChannels()
        for c in 0..<channelCount { channels[c].update(repeating: 0, count: frames) }
        self.frames = frames
        isSilent = true
    }

    /// Copies `frames` frames from another buffer with the same channel count.
    @inline(__always)
    func copy(from source: RenderBuffer, frames: Int) {
        copy(channels: source.channels, count: source.channelCount, isSilent: source.isSilent, frames: frames)
    }
}

// MARK: - Reaching buffers on the render thread without reference counting
//
// The compiler's real-time check (RenderPathProof.swift) rejects every retain and release on the
// render path, and Swift retains an object whenever a closure captures it or a reference is
// loaded from memory it does not know to be kept alive. The render loop therefore passes buffers
// as `Unmanaged<RenderBuffer>` (the plan keeps them alive) and works on them through these
// accessors, each one `_withUnsafeGuaranteedRef` closure that captures only plain values.

extension UnsafeBufferPointer where Element == RenderBuffer? {
    /// Input bus `i`'s buffer (nil: unconnected), read as an unmanaged reference — the same
    /// layout as `RenderBuffer?` (one nullable pointer), so reading it is not a retain.
    @inline(__always)
    func unmanaged(_ i: Int) -> Unmanaged<RenderBuffer>? {
        UnsafeRawPointer(baseAddress.unsafelyUnwrapped).assumingMemoryBound(to: Unmanaged<RenderBuffer>?.self)[i]
    }
}

extension UnsafeBufferPointer where Element == RenderBuffer {
    /// Output bus `i`'s buffer, read as an unmanaged reference (see above).
    @inline(__always)
    func unmanaged(_ i: Int) -> Unmanaged<RenderBuffer> {
        UnsafeRawPointer(baseAddress.unsafelyUnwrapped).assumingMemoryBound(to: Unmanaged<RenderBuffer>.self)[i]
    }
}

extension Unmanaged where Instance == RenderBuffer {
    @inline(__always) var channels: UnsafeMutablePointer<UnsafeMutablePointer<Float>> { _withUnsafeGuaranteedRef { $0.channels } }
    @inline(__always) var channelCount: Int { _withUnsafeGuaranteedRef { $0.channelCount } }
    @inline(__always) var capacity: Int { _withUnsafeGuaranteedRef { $0.capacity } }
    @inline(__always) var bufferList: UnsafeMutableAudioBufferListPointer { _withUnsafeGuaranteedRef { $0.bufferList } }
    @inline(__always) var frames: Int {
        get { _withUnsafeGuaranteedRef { $0.frames } }
        nonmutating set { _withUnsafeGuaranteedRef { $0.frames = newValue } }
    }
    @inline(__always) var isSilent: Bool {
        get { _withUnsafeGuaranteedRef { $0.isSilent } }
        nonmutating set { _withUnsafeGuaranteedRef { $0.isSilent = newValue } }
    }
    @inline(__always) func clear(frames: Int) { _withUnsafeGuaranteedRef { $0.clear(frames: frames) } }
    @inline(__always) func restoreChannels() { _withUnsafeGuaranteedRef { $0.restoreChannels() } }
    @inline(__always) func resetBufferList(frames: Int) { _withUnsafeGuaranteedRef { $0.resetBufferList(frames: frames) } }

    /// Copies `frames` frames from `source` (see `RenderBuffer.copy(from:frames:)`).
    @inline(__always)
    func copy(from source: Unmanaged<RenderBuffer>, frames: Int) {
        let (from, fromCount, silent) = source._withUnsafeGuaranteedRef { ($0.channels, $0.channelCount, $0.isSilent) }
        _withUnsafeGuaranteedRef { $0.copy(channels: from, count: fromCount, isSilent: silent, frames: frames) }
    }

    /// Whether two unmanaged references are the same buffer.
    @inline(__always) func isSame(_ other: Unmanaged<RenderBuffer>) -> Bool { toOpaque() == other.toOpaque() }
}

extension RenderBuffer {
    /// `copy(from:frames:)` from raw channel pointers.
    @inline(__always)
    func copy(channels source: UnsafeMutablePointer<UnsafeMutablePointer<Float>>, count: Int, isSilent silent: Bool, frames: Int) {
        let n = min(channelCount, count)
        var c = 0
        while c < n { copyFloats(channels[c], source[c], frames); c += 1 }
        while c < channelCount { channels[c].update(repeating: 0, count: frames); c += 1 }
        self.frames = frames
        isSilent = silent
    }
}

/// Copies `count` floats (overlap allowed). `UnsafeMutablePointer.update(from:count:)` is generic
/// over element types that may need releasing, which the real-time check rejects; a byte copy is
/// what it does for `Float` anyway.
@inline(__always)
func copyFloats(_ destination: UnsafeMutablePointer<Float>, _ source: UnsafePointer<Float>, _ count: Int) {
    UnsafeMutableRawPointer(destination).copyMemory(from: source, byteCount: count &* MemoryLayout<Float>.stride)
}
