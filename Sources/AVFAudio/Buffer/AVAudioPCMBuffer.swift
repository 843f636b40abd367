// AVAudioPCMBuffer: PCM samples in memory, in one of the four common formats or any other PCM
// layout a stream description can express.
//
// Memory: one 64-byte-aligned block. A deinterleaved buffer stores its channels one after the
// other with a stride of `frameCapacity` samples (client code relies on channel n starting at
// `floatChannelData[0] + n * frameCapacity`); an interleaved one stores frames.
//
//     let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 4096)!
//     let left = buffer.floatChannelData![0]
//     for i in 0..<4096 { left[i] = sin(Float(i) * 0.01) }
//     buffer.frameLength = 4096
#if canImport(Glibc)
import Glibc
#endif
import AudioKernels

/// A buffer of PCM audio.
open class AVAudioPCMBuffer: AVAudioBuffer {
    /// The buffer's capacity in sample frames.
    public let frameCapacity: AVAudioFrameCount
    private var _frameLength: AVAudioFrameCount = 0
    /// Owned sample memory (nil when wrapping a caller's buffer list), and its size.
    private let samples: UnsafeMutableRawPointer?
    private let sampleBytes: Int
    private let samplesAreMapped: Bool
    private let deallocator: ((UnsafePointer<AudioBufferList>) -> Void)?
    /// Per-channel pointers: `channelCount` entries when deinterleaved, 1 when interleaved.
    private let channelPointers: UnsafeMutablePointer<UnsafeMutableRawPointer>
    private let channelPointerCount: Int
    private let bytesPerFrameInBuffer: Int

    /// Creates a buffer for `frameCapacity` frames of a PCM format, zero-filled, with
    /// `frameLength` 0. Returns nil when the format is not PCM, or, as Apple documents, when the
    /// byte capacity (`frameCapacity × mBytesPerFrame`) does not fit the UInt32 `mDataByteSize`.
    public init?(pcmFormat format: AVAudioFormat, frameCapacity: AVAudioFrameCount) {
        guard format.isPCM else { return nil }
        let d = format.streamDescription.pointee
        let interleaved = format.isInterleaved
        let buffers = interleaved ? 1 : Int(d.mChannelsPerFrame)
        let bytesPerFrame = Int(d.mBytesPerFrame)
        let perBuffer = bytesPerFrame * Int(frameCapacity)
        // (beyond it, setting frameLength trapped converting the byte size to UInt32)
        guard bytesPerFrame > 0, perBuffer <= Int(UInt32.max) else { return nil }
        let (total, overflow) = perBuffer.multipliedReportingOverflow(by: buffers)
        guard !overflow else { return nil }
        guard let (memory, mapped) = SampleMemory.allocateZeroed(byteCount: max(total, 64)) else { return nil }
        self.frameCapacity = frameCapacity
        samples = memory
        sampleBytes = max(total, 64)
        samplesAreMapped = mapped
        deallocator = nil
        channelPointerCount = buffers
        bytesPerFrameInBuffer = bytesPerFrame
        channelPointers = .allocate(capacity: buffers)
        for b in 0..<buffers { channelPointers[b] = memory + b * perBuffer }
        super.init(format: format, bufferCount: buffers)
        let channelsPerBuffer = interleaved ? d.mChannelsPerFrame : 1
        for b in 0..<buffers {
            bufferList[b] = AudioBuffer(mNumberChannels: channelsPerBuffer, mDataByteSize: 0, mData: channelPointers[b])
        }
    }

    /// Wraps an existing AudioBufferList without copying. `frameCapacity` and `frameLength` come
    /// from the first buffer's `mDataByteSize`; `deallocator` is called when the buffer is
    /// released (pass nil when the memory outlives the buffer). Returns nil when the list does not
    /// match the format (buffer count, channels per buffer, missing data, unequal sizes).
    public init?(pcmFormat format: AVAudioFormat, bufferListNoCopy bufferList: UnsafePointer<AudioBufferList>,
                 deallocator: ((UnsafePointer<AudioBufferList>) -> Void)? = nil) {
        guard format.isPCM else { return nil }
        let d = format.streamDescription.pointee
        let interleaved = format.isInterleaved
        let buffers = interleaved ? 1 : Int(d.mChannelsPerFrame)
        let source = UnsafeMutableAudioBufferListPointer(UnsafeMutablePointer(mutating: bufferList))
        guard source.count == buffers, buffers > 0 else { return nil }
        let bytesPerFrame = Int(d.mBytesPerFrame)
        let byteSize = source[0].mDataByteSize
        for b in 0..<buffers {
            guard source[b].mData != nil, source[b].mDataByteSize == byteSize,
                  source[b].mNumberChannels == (interleaved ? d.mChannelsPerFrame : 1) else { return nil }
        }
        frameCapacity = AVAudioFrameCount(Int(byteSize) / bytesPerFrame)
        samples = nil
        sampleBytes = 0
        samplesAreMapped = false
        self.deallocator = deallocator
        channelPointerCount = buffers
        bytesPerFrameInBuffer = bytesPerFrame
        channelPointers = .allocate(capacity: buffers)
        for b in 0..<buffers { channelPointers[b] = source[b].mData! }
        super.init(format: format, bufferCount: buffers)
        for b in 0..<buffers { self.bufferList[b] = source[b] }
        _wrappedList = bufferList
        _frameLength = frameCapacity
    }

    private var _wrappedList: UnsafePointer<AudioBufferList>?

    deinit {
        if let samples { SampleMemory.deallocate(samples, byteCount: sampleBytes, mapped: samplesAreMapped) }
        if let deallocator, let _wrappedList { deallocator(_wrappedList) }
        channelPointers.deallocate()
    }

    /// The number of valid frames. Setting it updates every buffer's `mDataByteSize`; a value
    /// above `frameCapacity` is a programmer error and traps.
    open var frameLength: AVAudioFrameCount {
        get { _frameLength }
        set {
            precondition(newValue <= frameCapacity,
                         "AVAudioPCMBuffer.frameLength = \(newValue) exceeds frameCapacity \(frameCapacity) (format \(format))")
            _frameLength = newValue
            let bytes = UInt32(Int(newValue) * bytesPerFrameInBuffer)
            for b in 0..<channelPointerCount { bufferList[b].mDataByteSize = bytes }
        }
    }

    /// Samples between consecutive frames of one channel: the channel count when interleaved, 1 otherwise.
    open var stride: Int { format.isInterleaved ? Int(format.channelCount) : 1 }

    /// Channel pointers when the format is Float32 (one pointer, to interleaved samples, when the
    /// format is interleaved); nil for any other sample format.
    open var floatChannelData: UnsafePointer<UnsafeMutablePointer<Float>>? {
        format.commonFormat == .pcmFormatFloat32 ? typedChannelData(Float.self) : nil
    }

    /// Channel pointers when the format is Int16; nil otherwise.
    open var int16ChannelData: UnsafePointer<UnsafeMutablePointer<Int16>>? {
        format.commonFormat == .pcmFormatInt16 ? typedChannelData(Int16.self) : nil
    }

    /// Channel pointers when the format is Int32; nil otherwise.
    open var int32ChannelData: UnsafePointer<UnsafeMutablePointer<Int32>>? {
        format.commonFormat == .pcmFormatInt32 ? typedChannelData(Int32.self) : nil
    }

    /// Float64 samples are reached through `audioBufferList` on Apple platforms; this is the
    /// same pointer array, for convenience (not in Apple's API).
    var float64ChannelData: UnsafePointer<UnsafeMutablePointer<Double>>? {
        format.commonFormat == .pcmFormatFloat64 ? typedChannelData(Double.self) : nil
    }

    private func typedChannelData<T>(_: T.Type) -> UnsafePointer<UnsafeMutablePointer<T>> {
        UnsafeRawPointer(channelPointers).assumingMemoryBound(to: UnsafeMutablePointer<T>.self)
    }

    /// Raw per-buffer pointers (channels when deinterleaved, one when interleaved).
    var rawBufferPointers: UnsafeMutablePointer<UnsafeMutableRawPointer> { channelPointers }
    var rawBufferCount: Int { channelPointerCount }
    var bytesPerFrameInEachBuffer: Int { bytesPerFrameInBuffer }

    open override var description: String {
        "<AVAudioPCMBuffer: \(frameLength)/\(frameCapacity) frames, \(format)>"
    }
}

/// Zeroed sample memory for PCM buffers.
///
/// Small buffers: `posix_memalign` (64-byte aligned: whole cache lines, aligned SIMD loads) and
/// `memset`. Large buffers (2 MiB and up — a whole decoded file, say): an anonymous `mmap`, which
/// the kernel hands out already zeroed, advised to use transparent huge pages. Measured on a
/// 10-minute stereo buffer (230 MB): posix_memalign + memset with 4 KiB pages costs ~220 ms of
/// page faults, mmap + MADV_HUGEPAGE ~40 ms, which decides whether reading a whole file into one
/// buffer beats libsndfile (see Benchmarks/results/io-latest.md). When `madvise` fails (THP
/// disabled, or a kernel without it) the mapping is kept with ordinary pages: the same zeroed
/// memory, only slower to fault in.
///
/// Measured and dropped (2026-11-25, 230 MB buffer decoded from a float32 WAV): placing the
/// mapping on a 2 MiB boundary with its length rounded up to whole huge pages (so that the ~1.7 MB
/// of unaligned head and tail, which the kernel backs with 4 KiB pages, gets huge pages too) made
/// no difference beyond noise (42.4 vs 42.5 ms CPU per decode); prefaulting with
/// MADV_POPULATE_WRITE costs more than faulting on first write (the kernel's zeroing of each
/// huge page is then no longer followed at once by our writes to the same, still cached, lines).
enum SampleMemory {
    static let mmapThreshold = 2 << 20

    /// `madvise(MADV_HUGEPAGE)`; replaceable so that tests can make it fail.
    nonisolated(unsafe) static var adviseHugePages: (UnsafeMutableRawPointer, Int) -> Int32 = HugePageMemory.adviseHugePages

    /// Returns the memory and whether it was mapped (pass both back to `deallocate`).
    static func allocateZeroed(byteCount: Int) -> (UnsafeMutableRawPointer, mapped: Bool)? {
        if byteCount >= mmapThreshold, let p = HugePageMemory.map(byteCount: byteCount, advise: adviseHugePages) {
            return (p, true)   // a refused advice costs only speed
        }
        var memory: UnsafeMutableRawPointer?
        guard posix_memalign(&memory, 64, byteCount) == 0, let memory else { return nil }
        memset(memory, 0, byteCount)
        return (memory, false)
    }

    static func deallocate(_ pointer: UnsafeMutableRawPointer, byteCount: Int, mapped: Bool) {
        if mapped {
            HugePageMemory.unmap(pointer, byteCount: byteCount)
        } else {
            free(pointer)
        }
    }
}
