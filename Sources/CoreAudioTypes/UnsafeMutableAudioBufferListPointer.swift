// Swift access to the variable-length AudioBufferList, as in Apple's CoreAudio overlay.
//
//     let abl = AudioBufferList.allocate(maximumBuffers: 2)   // UnsafeMutableAudioBufferListPointer
//     for buffer in abl { print(buffer.mDataByteSize) }
//     abl[1].mDataByteSize = 0
//     free(abl.unsafeMutablePointer)
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension AudioBufferList {
    /// The byte size of an `AudioBufferList` holding `maximumBuffers` buffers.
    public static func sizeInBytes(maximumBuffers: Int) -> Int {
        precondition(maximumBuffers >= 1, "AudioBufferList should contain at least one AudioBuffer")
        return MemoryLayout<AudioBufferList>.size - MemoryLayout<AudioBuffer>.stride
            + maximumBuffers * MemoryLayout<AudioBuffer>.stride
    }

    /// Allocates (with `calloc`, release with `free`) an `AudioBufferList` with room for
    /// `maximumBuffers` buffers, `mNumberBuffers` set to that count and every buffer zeroed.
    public static func allocate(maximumBuffers: Int) -> UnsafeMutableAudioBufferListPointer {
        let byteSize = sizeInBytes(maximumBuffers: maximumBuffers)
        guard let raw = calloc(byteSize, 1) else { fatalError("AudioBufferList.allocate: out of memory (\(byteSize) bytes)") }
        let ablMemory = raw.bindMemory(to: AudioBufferList.self, capacity: 1)
        let abl = UnsafeMutableAudioBufferListPointer(ablMemory)
        abl.count = maximumBuffers
        return abl
    }
}

/// A `MutableCollection` view of the `AudioBuffer`s in an `AudioBufferList`.
public struct UnsafeMutableAudioBufferListPointer {
    /// The pointer to the list.
    public var unsafeMutablePointer: UnsafeMutablePointer<AudioBufferList>

    public init(_ p: UnsafeMutablePointer<AudioBufferList>) {
        unsafeMutablePointer = p
    }

    public init?(_ p: UnsafeMutablePointer<AudioBufferList>?) {
        guard let p else { return nil }
        unsafeMutablePointer = p
    }

    /// The number of buffers (`mNumberBuffers`).
    public var count: Int {
        get { Int(unsafeMutablePointer.pointee.mNumberBuffers) }
        nonmutating set { unsafeMutablePointer.pointee.mNumberBuffers = UInt32(newValue) }
    }

    public var unsafePointer: UnsafePointer<AudioBufferList> {
        UnsafePointer(unsafeMutablePointer)
    }

    /// Pointer to the first AudioBuffer; the rest follow contiguously.
    @usableFromInline
    internal var _audioBuffersPointer: UnsafeMutablePointer<AudioBuffer> {
        let offset = MemoryLayout<AudioBufferList>.offset(of: \AudioBufferList.mBuffers)!
        return (UnsafeMutableRawPointer(unsafeMutablePointer) + offset).assumingMemoryBound(to: AudioBuffer.self)
    }
}

extension UnsafeMutableAudioBufferListPointer: MutableCollection, RandomAccessCollection {
    public typealias Index = Int
    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    public subscript(index: Int) -> AudioBuffer {
        get {
            precondition(index >= 0 && index < count, "AudioBufferList index \(index) out of range 0..<\(count)")
            return _audioBuffersPointer[index]
        }
        nonmutating set {
            precondition(index >= 0 && index < count, "AudioBufferList index \(index) out of range 0..<\(count)")
            _audioBuffersPointer[index] = newValue
        }
    }
}

extension AudioBuffer {
    /// An `AudioBuffer` over `typedBuffer`, with `mDataByteSize` its size in bytes.
    public init<Element>(_ typedBuffer: UnsafeMutableBufferPointer<Element>, numberOfChannels: Int) {
        self.init(mNumberChannels: UInt32(numberOfChannels),
                  mDataByteSize: UInt32(typedBuffer.count * MemoryLayout<Element>.stride),
                  mData: UnsafeMutableRawPointer(typedBuffer.baseAddress))
    }
}

extension UnsafeBufferPointer {
    /// A typed view of an `AudioBuffer`'s data: `mDataByteSize / stride` elements.
    public init(_ audioBuffer: AudioBuffer) {
        self.init(start: audioBuffer.mData?.assumingMemoryBound(to: Element.self),
                  count: Int(audioBuffer.mDataByteSize) / MemoryLayout<Element>.stride)
    }
}

extension UnsafeMutableBufferPointer {
    /// A typed view of an `AudioBuffer`'s data: `mDataByteSize / stride` elements.
    public init(_ audioBuffer: AudioBuffer) {
        self.init(start: audioBuffer.mData?.assumingMemoryBound(to: Element.self),
                  count: Int(audioBuffer.mDataByteSize) / MemoryLayout<Element>.stride)
    }
}
