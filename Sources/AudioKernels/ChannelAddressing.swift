// Internal: one description for both sides of a conversion – the caller's processing buffer, and
// the interleaved file bytes – so the kernels handle a single kind of operand.

/// Where each channel's samples are, for a buffer of any layout, starting at a frame offset.
struct ChannelAddressing {
    let layout: ProcessingBufferPointer.Layout
    let channelCount: Int
    let sampleBytes: Int
    /// Frame 0 of this addressing is frame `firstFrame` of the buffer.
    let firstFrame: Int

    /// A processing buffer, seen from its frame `frame` on.
    @inline(__always)
    init(_ buffer: ProcessingBufferPointer, fromFrame frame: Int) {
        precondition(frame >= 0, "frame offset must not be negative")
        layout = buffer.layout
        channelCount = buffer.channelCount
        sampleBytes = buffer.sampleType.bytesPerSample
        firstFrame = frame
    }

    /// Interleaved samples of `sampleBytes` bytes each (the bytes of a file).
    @inline(__always)
    init(interleaved base: UnsafeMutableRawPointer, channelCount: Int, sampleBytes: Int) {
        layout = .interleaved(base)
        self.channelCount = channelCount
        self.sampleBytes = sampleBytes
        firstFrame = 0
    }

    /// Whether the samples of all channels are contiguous in frame order (always so for one channel).
    @inline(__always)
    var isInterleaved: Bool {
        if channelCount == 1 { return true }
        if case .interleaved = layout { return true }
        return false
    }

    /// Bytes from one sample of a channel to its next.
    @inline(__always)
    var frameStride: Int {
        if case .interleaved = layout { return channelCount &* sampleBytes }
        return sampleBytes
    }

    /// The sample of `channel` in frame `frame` (counted from `firstFrame`).
    @inline(__always)
    func address(channel: Int, frame: Int) -> UnsafeMutableRawPointer {
        let f = firstFrame &+ frame
        switch layout {
        case .interleaved(let base):
            return base + (f &* channelCount &+ channel) &* sampleBytes
        case .channelPointers(let channels):
            return channels[channel] + f &* sampleBytes
        case .planar(let base, let channelStride):
            return base + (channel &* channelStride &+ f) &* sampleBytes
        }
    }
}
