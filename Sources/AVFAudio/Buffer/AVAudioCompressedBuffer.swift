// AVAudioCompressedBuffer: packets of a compressed (or otherwise packetised) format, with packet
// descriptions when packet sizes vary.
#if canImport(Glibc)
import Glibc
#endif

/// A buffer of compressed audio packets.
open class AVAudioCompressedBuffer: AVAudioBuffer {
    /// How many packets the buffer can hold.
    public let packetCapacity: AVAudioPacketCount
    /// The largest packet the buffer can hold, in bytes.
    public let maximumPacketSize: Int
    /// The byte capacity (`packetCapacity × maximumPacketSize`).
    public let byteCapacity: UInt32
    private let bytes: UnsafeMutableRawPointer
    private let descriptions: UnsafeMutablePointer<AudioStreamPacketDescription>?
    private var _packetCount: AVAudioPacketCount = 0

    /// Creates a buffer for `packetCapacity` packets of at most `maximumPacketSize` bytes each;
    /// packet descriptions are allocated when the format's packets vary in size. A PCM format is a
    /// programmer error and traps (Apple raises an exception: "An exception is raised if the
    /// format is PCM"). An encoding converter's `maximumOutputPacketSize` is the size to give.
    public init(format: AVAudioFormat, packetCapacity: AVAudioPacketCount, maximumPacketSize: Int) {
        precondition(!format.isPCM, "AVAudioCompressedBuffer: \(format) is PCM; use AVAudioPCMBuffer")
        precondition(maximumPacketSize > 0, "AVAudioCompressedBuffer: maximumPacketSize must be positive (format \(format))")
        self.packetCapacity = packetCapacity
        self.maximumPacketSize = maximumPacketSize
        let capacity = Int(packetCapacity) * maximumPacketSize
        precondition(capacity <= Int(UInt32.max), "AVAudioCompressedBuffer: \(packetCapacity) packets × \(maximumPacketSize) bytes exceeds 4 GiB")
        byteCapacity = UInt32(capacity)
        bytes = UnsafeMutableRawPointer.allocate(byteCount: max(capacity, 1), alignment: 16)
        bytes.initializeMemory(as: UInt8.self, repeating: 0, count: max(capacity, 1))
        let d = format.streamDescription.pointee
        if d.mBytesPerPacket == 0 || d.mFramesPerPacket == 0 {
            let p = UnsafeMutablePointer<AudioStreamPacketDescription>.allocate(capacity: max(Int(packetCapacity), 1))
            p.initialize(repeating: AudioStreamPacketDescription(), count: max(Int(packetCapacity), 1))
            descriptions = p
        } else {
            descriptions = nil
        }
        super.init(format: format, bufferCount: 1)
        bufferList[0] = AudioBuffer(mNumberChannels: d.mChannelsPerFrame, mDataByteSize: 0, mData: bytes)
    }

    /// Creates a buffer for a format with constant-size packets (`mBytesPerPacket` > 0). A format
    /// whose packets vary in size needs ``init(format:packetCapacity:maximumPacketSize:)``; using
    /// this initializer with one is a programmer error and traps, as on Apple platforms.
    public convenience init(format: AVAudioFormat, packetCapacity: AVAudioPacketCount) {
        let size = Int(format.streamDescription.pointee.mBytesPerPacket)
        precondition(size > 0, "AVAudioCompressedBuffer(format:packetCapacity:) needs a format with constant packet size; \(format) has variable-size packets: use init(format:packetCapacity:maximumPacketSize:)")
        self.init(format: format, packetCapacity: packetCapacity, maximumPacketSize: size)
    }

    deinit {
        bytes.deallocate()
        descriptions?.deallocate()
    }

    /// The number of valid packets.
    open var packetCount: AVAudioPacketCount {
        get { _packetCount }
        set {
            precondition(newValue <= packetCapacity, "AVAudioCompressedBuffer.packetCount = \(newValue) exceeds packetCapacity \(packetCapacity)")
            _packetCount = newValue
            if descriptions == nil {
                bufferList[0].mDataByteSize = newValue * UInt32(maximumPacketSize)
            }
        }
    }

    /// The number of valid bytes.
    open var byteLength: UInt32 {
        get { bufferList[0].mDataByteSize }
        set {
            precondition(newValue <= byteCapacity, "AVAudioCompressedBuffer.byteLength = \(newValue) exceeds byteCapacity \(byteCapacity)")
            bufferList[0].mDataByteSize = newValue
        }
    }

    /// The packet data.
    open var data: UnsafeMutableRawPointer { bytes }

    /// Packet descriptions, present when the format's packets vary in size.
    open var packetDescriptions: UnsafeMutablePointer<AudioStreamPacketDescription>? { descriptions }

    /// The packets' dependencies on one another (iOS 26 / macOS 26), or nil when the format does
    /// not use packet dependencies — Apple: "If the audio format doesn't use packet dependencies,
    /// this value is `nil`." Every format this library reads or writes has independently
    /// decodable packets (linear PCM, G.711, Apple Lossless, FLAC; MP3, AAC and Opus are framed
    /// but not decoded), so it is nil for all of them; codecs with dependent packets (APAC, USAC)
    /// would fill it.
    open var packetDependencies: [AudioStreamPacketDependencyDescription]? { nil }
}
