// A non-owning description of where a processing buffer's samples live: the "channel pointers"
// every conversion kernel reads from or writes to.

/// A view of the memory of a processing buffer (the memory behind an `AVAudioPCMBuffer`):
/// which of the four processing sample types it holds, how many channels, and how those channels
/// are laid out. It owns nothing and allocates nothing; building one is a few stores, so it can be
/// made on the render thread for every call.
///
/// Three layouts cover every buffer the façade and the converter produce:
///
/// * **interleaved** – one pointer; frame `f`, channel `c` is sample number `f * channelCount + c`
///   (`L R L R …` for stereo). This is also how files store samples.
/// * **deinterleaved, one pointer per channel** – the caller passes a buffer of channel pointers
///   that it keeps alive (an `AudioBufferList`'s `mData` fields, or `floatChannelData` rebound);
///   this type keeps only the `UnsafeBufferPointer`, so nothing is copied per call.
/// * **deinterleaved, planar** – one base pointer and the distance between channels, in samples
///   (`AVAudioPCMBuffer` allocates its channels back to back, `frameCapacity` samples apart).
///
/// The pointers are `UnsafeMutableRawPointer` so one type serves as source and destination; a
/// read-only source can be wrapped with `UnsafeMutableRawPointer(mutating:)` – the kernels never
/// write to a source.
@frozen
public struct ProcessingBufferPointer {
    /// How the channels are addressed.
    @frozen
    public enum Layout {
        /// All channels in one block, frame after frame.
        case interleaved(UnsafeMutableRawPointer)
        /// One pointer per channel; the buffer's count is the channel count.
        case channelPointers(UnsafeBufferPointer<UnsafeMutableRawPointer>)
        /// Channel `c` starts at `base + c * channelStride` samples.
        case planar(base: UnsafeMutableRawPointer, channelStride: Int)
    }

    /// The type of every sample in the buffer.
    public let sampleType: ProcessingSampleType
    /// Number of channels.
    public let channelCount: Int
    /// Where the channels are.
    public let layout: Layout

    @inlinable
    init(sampleType: ProcessingSampleType, channelCount: Int, layout: Layout) {
        precondition(channelCount > 0, "ProcessingBufferPointer needs at least one channel")
        self.sampleType = sampleType
        self.channelCount = channelCount
        self.layout = layout
    }

    /// An interleaved buffer of `channelCount` channels starting at `base`.
    @inlinable
    public static func interleaved(_ base: UnsafeMutableRawPointer, channelCount: Int,
                                   sampleType: ProcessingSampleType) -> ProcessingBufferPointer {
        ProcessingBufferPointer(sampleType: sampleType, channelCount: channelCount, layout: .interleaved(base))
    }

    /// A deinterleaved buffer given as one pointer per channel. The caller keeps `channels` (the
    /// array of pointers, not just the samples) alive while the value is used.
    @inlinable
    public static func deinterleaved(_ channels: UnsafeBufferPointer<UnsafeMutableRawPointer>,
                                     sampleType: ProcessingSampleType) -> ProcessingBufferPointer {
        ProcessingBufferPointer(sampleType: sampleType, channelCount: channels.count,
                                layout: .channelPointers(channels))
    }

    /// A deinterleaved buffer whose channels sit `channelStride` samples apart from `base`.
    @inlinable
    public static func deinterleaved(base: UnsafeMutableRawPointer, channelCount: Int, channelStride: Int,
                                     sampleType: ProcessingSampleType) -> ProcessingBufferPointer {
        ProcessingBufferPointer(sampleType: sampleType, channelCount: channelCount,
                                layout: .planar(base: base, channelStride: channelStride))
    }

    /// Whether consecutive samples in memory are consecutive channels of one frame. A one-channel
    /// buffer is both interleaved and deinterleaved; this is `true` for it whatever the layout,
    /// because its samples are contiguous either way.
    @inlinable
    public var isInterleaved: Bool {
        if channelCount == 1 { return true }
        if case .interleaved = layout { return true }
        return false
    }

    /// Bytes from one sample of a channel to the next sample of the same channel.
    @inlinable
    public var frameStride: Int {
        if case .interleaved = layout { return channelCount &* sampleType.bytesPerSample }
        return sampleType.bytesPerSample
    }

    /// The address of the sample of `channel` in `frame`.
    @inlinable
    public func address(channel: Int, frame: Int) -> UnsafeMutableRawPointer {
        let size = sampleType.bytesPerSample
        switch layout {
        case .interleaved(let base):
            return base + (frame &* channelCount &+ channel) &* size
        case .channelPointers(let channels):
            return channels[channel] + frame &* size
        case .planar(let base, let channelStride):
            return base + (channel &* channelStride &+ frame) &* size
        }
    }
}
