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
        let n = min(channelCount, source.channelCount)
        for c in 0..<n { channels[c].update(from: source.channels[c], count: frames) }
        for c in n..<channelCount { channels[c].update(repeating: 0, count: frames) }
        self.frames = frames
        isSilent = source.isSilent
    }
}
