// AVReadOnlyAudioPCMBuffer: a Sendable, read-only PCM buffer (Apple's macOS 27 / iOS 27 SDK).
//
// Declared as Apple's current documentation declares it (developer.apple.com/documentation/
// avfaudio/avreadonlyaudiopcmbuffer): a struct with three initializers (copying, initializing
// through a closure, and retaining a buffer the caller gives up with `sending`), `format`,
// `frameLength` and `frameCapacity` as Int, scoped access to the AudioBufferList, and
// `channelData(_:)` returning a `ChannelData` enum of `Span`s (float, int16, int32) whose lifetime
// is tied to the buffer. For deinterleaved formats a channel's span holds that channel's
// `frameLength` samples; for interleaved formats it holds the whole interleaved buffer from the
// channel's first sample on (Apple's wording).
//
// Design: the struct holds an AVAudioPCMBuffer that nothing mutates after initialization, which
// is what makes it Sendable (`@unchecked`: the class itself is not). `init(unsafeRetaining:)`
// takes the caller's buffer without copying; the caller must not touch it afterwards, which
// `sending` enforces in Swift 6 code.
//
// Not documented by Apple, so chosen here and said so: `channelData(_:)` on a format whose
// samples are not Float32, Int16 or Int32 (Float64) traps with a message, as Apple's enum has no
// case for it; `init(format:frameCapacity:initializingWith:)` takes the frame length from the
// first buffer's `mDataByteSize` after the closure ran (the closure receives the list sized to
// the full capacity, as `AVAudioPCMBuffer.mutableAudioBufferList` is), and throws
// com.apple.coreaudio.avfaudio -50 for a format that is not PCM or a negative capacity.

/// A read-only, Sendable audio buffer for safe concurrent access.
public struct AVReadOnlyAudioPCMBuffer: @unchecked Sendable {
    /// The samples; never mutated once the struct exists.
    let storage: AVAudioPCMBuffer

    /// Represents read-only channel data.
    ///
    /// For deinterleaved formats the span contains only the requested channel's samples in
    /// contiguous memory; for interleaved formats it contains the entire interleaved buffer
    /// starting at the channel's first sample.
    public enum ChannelData: ~Escapable {
        case float(Span<Float>)
        case int16(Span<Int16>)
        case int32(Span<Int32>)
    }

    /// Creates a read-only buffer by copying audio data from an existing PCM buffer.
    public init(copying buffer: AVAudioPCMBuffer) {
        let copy = AVAudioPCMBuffer(pcmFormat: buffer.format, frameCapacity: max(1, buffer.frameCapacity))!
        copy.frameLength = buffer.frameLength
        let from = UnsafeMutableAudioBufferListPointer(buffer.mutableAudioBufferList)
        let to = UnsafeMutableAudioBufferListPointer(copy.mutableAudioBufferList)
        for (source, destination) in zip(from, to) {
            if let s = source.mData, let d = destination.mData {
                d.copyMemory(from: s, byteCount: Int(min(source.mDataByteSize, destination.mDataByteSize)))
            }
        }
        storage = copy
    }

    /// Creates a read-only buffer by allocating and initializing audio data via closure. The
    /// closure receives the buffer's AudioBufferList sized to `frameCapacity` frames; set each
    /// buffer's `mDataByteSize` to the bytes written to report fewer frames.
    public init(format: AVAudioFormat, frameCapacity: Int,
                initializingWith body: (UnsafeMutablePointer<AudioBufferList>) throws -> Void) throws {
        guard format.isPCM, frameCapacity >= 0, frameCapacity <= Int(AVAudioFrameCount.max),
              let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(max(1, frameCapacity))) else {
            throw avfaudioError(kAudio_ParamError,
                                "AVReadOnlyAudioPCMBuffer: cannot hold \(frameCapacity) frames of \(format) (a PCM format and a non-negative capacity are needed)")
        }
        buffer.frameLength = AVAudioFrameCount(frameCapacity)
        try body(buffer.mutableAudioBufferList)
        let list = UnsafeMutableAudioBufferListPointer(buffer.mutableAudioBufferList)
        let bytesPerFrame = Int(format.streamDescription.pointee.mBytesPerFrame)
        if let first = list.first, bytesPerFrame > 0 {
            buffer.frameLength = AVAudioFrameCount(min(frameCapacity, Int(first.mDataByteSize) / bytesPerFrame))
        }
        storage = buffer
    }

    /// Creates a read-only buffer by retaining the existing PCM buffer without copying. The
    /// caller must not modify `buffer` afterwards.
    public init(unsafeRetaining buffer: sending AVAudioPCMBuffer) {
        storage = buffer
    }

    /// The format of the audio in the buffer.
    public var format: AVAudioFormat { storage.format }

    /// The number of valid sample frames.
    public var frameLength: Int { Int(storage.frameLength) }

    /// The buffer's capacity in sample frames.
    public var frameCapacity: Int { Int(storage.frameCapacity) }

    /// Provides scoped read-only access to the audio buffer list. Although the list is const,
    /// each AudioBuffer's `mData` is a mutable pointer: writing through it is undefined behaviour.
    public func withUnsafeAudioBufferList<R>(_ body: (UnsafePointer<AudioBufferList>) throws -> R) rethrows -> R {
        try body(storage.audioBufferList)
    }

    /// Returns read-only access to channel `index`'s data (valid frames only).
    @_lifetime(borrow self)
    public func channelData(_ index: Int) -> ChannelData {
        let channels = Int(storage.format.channelCount)
        precondition(index >= 0 && index < channels,
                     "AVReadOnlyAudioPCMBuffer.channelData(\(index)): the buffer has \(channels) channel(s)")
        let interleaved = storage.format.isInterleaved
        let count = interleaved ? frameLength * channels - index : frameLength
        let data: ChannelData
        if let p = storage.floatChannelData {
            data = .float(Span(_unsafeStart: UnsafePointer(p[interleaved ? 0 : index] + (interleaved ? index : 0)), count: count))
        } else if let p = storage.int16ChannelData {
            data = .int16(Span(_unsafeStart: UnsafePointer(p[interleaved ? 0 : index] + (interleaved ? index : 0)), count: count))
        } else if let p = storage.int32ChannelData {
            data = .int32(Span(_unsafeStart: UnsafePointer(p[interleaved ? 0 : index] + (interleaved ? index : 0)), count: count))
        } else {
            preconditionFailure("AVReadOnlyAudioPCMBuffer.channelData(\(index)): \(storage.format) has no Float32, Int16 or Int32 samples")
        }
        return _overrideLifetime(data, borrowing: self)
    }
}
