// AVAudioBuffer: the common base of PCM and compressed buffers; owns (or borrows) an
// AudioBufferList whose memory layout is Core Audio's.

/// A buffer of audio data, with a format.
open class AVAudioBuffer: NSObject {
    /// The buffer's format.
    public let format: AVAudioFormat

    /// The AudioBufferList: one buffer per channel when deinterleaved, one in all when interleaved.
    let bufferList: UnsafeMutableAudioBufferListPointer

    init(format: AVAudioFormat, bufferCount: Int) {
        self.format = format
        bufferList = AudioBufferList.allocate(maximumBuffers: max(1, bufferCount))
        super.init()
    }

    deinit { free(bufferList.unsafeMutablePointer) }

    /// The underlying AudioBufferList, for lower-level Core Audio style APIs. Its `mDataByteSize`
    /// fields give the buffer's current byte size; its structure must not be modified.
    open var audioBufferList: UnsafePointer<AudioBufferList> { bufferList.unsafePointer }

    /// A mutable view of the AudioBufferList, for APIs that fill buffers in place.
    open var mutableAudioBufferList: UnsafeMutablePointer<AudioBufferList> { bufferList.unsafeMutablePointer }
}
