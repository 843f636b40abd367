// AVAudioFormat: an immutable description of an audio stream — a Core Audio
// AudioStreamBasicDescription plus an optional channel layout.
//
//     let standard = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!
//     standard.isStandard                       // true: deinterleaved Float32
//     let cd = AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 44_100,
//                            channels: 2, interleaved: true)!
//     cd.streamDescription.pointee.mBytesPerFrame   // 4

/// An object that describes the representation of an audio format.
open class AVAudioFormat: NSObject, @unchecked Sendable {
    /// Never-moving ASBD, so `streamDescription` is a stable pointer: interned (shared and kept
    /// for the life of the process, see `StreamDescriptionStore`) or, past the store's capacity,
    /// owned by this object.
    private let asbdStorage: UnsafeMutablePointer<AudioStreamBasicDescription>
    private let ownsStorage: Bool
    private let _channelLayout: AVAudioChannelLayout?

    /// Codec-specific data (e.g. an AAC `esds` or ALAC cookie) carried with compressed formats.
    open var magicCookie: Data?

    // MARK: Creating a format

    /// Creates a format from a stream description. Fails (returns nil) when the description is
    /// invalid or specifies more than two channels (give a layout for those with
    /// ``init(streamDescription:channelLayout:)``).
    public convenience init?(streamDescription asbd: UnsafePointer<AudioStreamBasicDescription>) {
        self.init(streamDescription: asbd, channelLayout: nil)
    }

    /// Creates a format from a stream description and channel layout. When `layout` is nil and
    /// the description has one or two channels, mono or stereo is assumed; with more than two
    /// channels and no layout, the initializer fails, as Apple documents.
    public init?(streamDescription asbd: UnsafePointer<AudioStreamBasicDescription>, channelLayout layout: AVAudioChannelLayout?) {
        let d = asbd.pointee
        guard AVAudioFormat.isValid(d) else { return nil }
        if let layout {
            guard layout.channelCount == d.mChannelsPerFrame else { return nil }
        } else if d.mChannelsPerFrame > 2 {
            return nil
        }
        (asbdStorage, ownsStorage) = StreamDescriptionStore.storage(for: d)
        _channelLayout = layout
        super.init()
    }

    /// Internal designated initializer without the >2-channel layout requirement (the channel-count
    /// initializers allow any count, leaving `channelLayout` nil).
    init?(validating d: AudioStreamBasicDescription, layout: AVAudioChannelLayout?) {
        guard AVAudioFormat.isValid(d) else { return nil }
        if let layout, layout.channelCount != d.mChannelsPerFrame { return nil }
        (asbdStorage, ownsStorage) = StreamDescriptionStore.storage(for: d)
        _channelLayout = layout
        super.init()
    }

    /// Creates the standard format: deinterleaved native-endian Float32, with `channels` channels.
    /// Returns nil for zero channels or an invalid sample rate. (More than two channels is allowed
    /// here, with no channel layout.)
    public convenience init?(standardFormatWithSampleRate sampleRate: Double, channels: AVAudioChannelCount) {
        self.init(commonFormat: .pcmFormatFloat32, sampleRate: sampleRate, channels: channels, interleaved: false)
    }

    /// Creates the standard format (deinterleaved Float32) with a channel layout.
    public convenience init(standardFormatWithSampleRate sampleRate: Double, channelLayout layout: AVAudioChannelLayout) {
        self.init(commonFormat: .pcmFormatFloat32, sampleRate: sampleRate, interleaved: false, channelLayout: layout)
    }

    /// Creates a PCM format of one of the common sample types. Returns nil for `.otherFormat`,
    /// zero channels, or a sample rate that is not positive and finite.
    public convenience init?(commonFormat format: AVAudioCommonFormat, sampleRate: Double, channels: AVAudioChannelCount, interleaved: Bool) {
        guard let d = AVAudioFormat.pcmDescription(format, sampleRate: sampleRate, channels: channels, interleaved: interleaved) else { return nil }
        self.init(validating: d, layout: nil)
    }

    /// Creates a PCM format of one of the common sample types with a channel layout, which also
    /// gives the channel count. Traps on `.otherFormat` or an invalid sample rate, the programmer
    /// errors Apple raises an exception for.
    public convenience init(commonFormat format: AVAudioCommonFormat, sampleRate: Double, interleaved: Bool, channelLayout layout: AVAudioChannelLayout) {
        guard let d = AVAudioFormat.pcmDescription(format, sampleRate: sampleRate, channels: layout.channelCount, interleaved: interleaved) else {
            preconditionFailure("AVAudioFormat(commonFormat: \(format), sampleRate: \(sampleRate), interleaved: \(interleaved), channelLayout: \(layout)): invalid format, sample rate or layout")
        }
        self.init(validating: d, layout: layout)!
    }

    deinit {
        if ownsStorage {
            asbdStorage.deinitialize(count: 1)
            asbdStorage.deallocate()
        }
    }

    // MARK: Properties

    /// The stream description; a stable pointer valid for the lifetime of the format.
    open var streamDescription: UnsafePointer<AudioStreamBasicDescription> { UnsafePointer(asbdStorage) }

    /// The channel layout, if one was given (or implied by a file or settings dictionary).
    open var channelLayout: AVAudioChannelLayout? { _channelLayout }

    open var sampleRate: Double { asbdStorage.pointee.mSampleRate }

    open var channelCount: AVAudioChannelCount { asbdStorage.pointee.mChannelsPerFrame }

    /// True when a PCM format stores its channels in one buffer, frame by frame. Mono formats are
    /// reported as interleaved unless the non-interleaved flag is set.
    open var isInterleaved: Bool { asbdStorage.pointee.mFormatFlags & kAudioFormatFlagIsNonInterleaved == 0 }

    /// True for deinterleaved, native-endian, packed Float32 PCM: the engine's processing format.
    open var isStandard: Bool { commonFormat == .pcmFormatFloat32 && !isInterleaved }

    /// Which of the common PCM formats this is, or `.otherFormat`.
    open var commonFormat: AVAudioCommonFormat {
        let d = asbdStorage.pointee
        guard d.mFormatID == kAudioFormatLinearPCM,
              d.mFormatFlags & kAudioFormatFlagIsBigEndian == kAudioFormatFlagsNativeEndian & kAudioFormatFlagIsBigEndian else { return .otherFormat }
        let bytesPerSample = d.mBitsPerChannel / 8
        // Packed: the sample occupies its whole container.
        let perChannelBytes = isInterleaved ? d.mBytesPerFrame / max(1, d.mChannelsPerFrame) : d.mBytesPerFrame
        guard d.mBitsPerChannel % 8 == 0, perChannelBytes == bytesPerSample else { return .otherFormat }
        if d.mFormatFlags & kAudioFormatFlagIsFloat != 0 {
            switch d.mBitsPerChannel {
            case 32: return .pcmFormatFloat32
            case 64: return .pcmFormatFloat64
            default: return .otherFormat
            }
        }
        guard d.mFormatFlags & kAudioFormatFlagIsSignedInteger != 0 else { return .otherFormat }
        switch d.mBitsPerChannel {
        case 16: return .pcmFormatInt16
        case 32: return .pcmFormatInt32
        default: return .otherFormat
        }
    }

    // MARK: Equality

    /// Two formats are equal when their stream descriptions and channel layouts are. A missing
    /// layout on a mono or stereo format equals the implied mono or stereo layout.
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? AVAudioFormat else { return false }
        if other === self { return true }
        guard asbdStorage.pointee == other.asbdStorage.pointee else { return false }
        switch (effectiveLayout, other.effectiveLayout) {
        case (nil, nil): return true
        case let (a?, b?): return a.isEqual(b)
        default: return false
        }
    }

    open override var hash: Int {
        let d = asbdStorage.pointee
        var h = Hasher()
        h.combine(d.mSampleRate)
        h.combine(d.mFormatID)
        h.combine(d.mFormatFlags)
        h.combine(d.mChannelsPerFrame)
        h.combine(d.mBitsPerChannel)
        return h.finalize()
    }

    /// The layout used for comparisons: the given one, or mono/stereo implied by the channel count.
    var effectiveLayout: AVAudioChannelLayout? {
        if let _channelLayout { return _channelLayout }
        switch channelCount {
        case 1: return AVAudioFormat.monoLayout
        case 2: return AVAudioFormat.stereoLayout
        default: return nil
        }
    }

    static let monoLayout = AVAudioChannelLayout(layoutTag: _tagMono)!
    static let stereoLayout = AVAudioChannelLayout(layoutTag: _tagStereo)!

    open override var description: String {
        let d = asbdStorage.pointee
        // Whole rates print without ".0"; a huge one (settings accept any finite rate, e.g. 1e300)
        // prints as a Double, since Int(_:) would trap (found by the settings fuzz target).
        let rate = d.mSampleRate.rounded() == d.mSampleRate && abs(d.mSampleRate) < 1e15
            ? String(Int(d.mSampleRate)) : String(d.mSampleRate)
        var parts = ["\(d.mChannelsPerFrame) ch", "\(rate) Hz"]
        if d.mFormatID == kAudioFormatLinearPCM {
            switch commonFormat {
            case .pcmFormatFloat32: parts.append("Float32")
            case .pcmFormatFloat64: parts.append("Float64")
            case .pcmFormatInt16: parts.append("Int16")
            case .pcmFormatInt32: parts.append("Int32")
            case .otherFormat:
                let kind = d.mFormatFlags & kAudioFormatFlagIsFloat != 0 ? "Float" : (d.mFormatFlags & kAudioFormatFlagIsSignedInteger != 0 ? "Int" : "UInt")
                let endian = d.mFormatFlags & kAudioFormatFlagIsBigEndian != 0 ? " big-endian" : ""
                parts.append("\(d.mBitsPerChannel)-bit \(kind)\(endian)")
            }
            if d.mChannelsPerFrame > 1 { parts.append(isInterleaved ? "interleaved" : "deinterleaved") }
        } else {
            parts.append(fourCharCodeString(d.mFormatID))
            if d.mFramesPerPacket > 0 { parts.append("\(d.mFramesPerPacket) frames/packet") }
        }
        return "<AVAudioFormat: " + parts.joined(separator: ", ") + ">"
    }

    // MARK: Helpers

    static func isValid(_ d: AudioStreamBasicDescription) -> Bool {
        guard d.mSampleRate.isFinite, d.mSampleRate > 0, d.mChannelsPerFrame > 0 else { return false }
        if d.mFormatID == kAudioFormatLinearPCM {
            guard d.mBitsPerChannel > 0, d.mBitsPerChannel <= 64, d.mBytesPerFrame > 0,
                  d.mFramesPerPacket == 1, d.mBytesPerPacket == d.mBytesPerFrame else { return false }
            let nonInterleaved = d.mFormatFlags & kAudioFormatFlagIsNonInterleaved != 0
            let channelsPerBuffer = nonInterleaved ? 1 : d.mChannelsPerFrame
            // The container must hold the sample bits.
            guard UInt64(d.mBytesPerFrame) * 8 >= UInt64(d.mBitsPerChannel) * UInt64(channelsPerBuffer) else { return false }
            if d.mFormatFlags & kAudioFormatFlagIsFloat != 0, d.mBitsPerChannel != 32, d.mBitsPerChannel != 64 { return false }
        } else if d.mFormatID == 0 {
            return false
        }
        return true
    }

    static func pcmDescription(_ format: AVAudioCommonFormat, sampleRate: Double, channels: AVAudioChannelCount, interleaved: Bool) -> AudioStreamBasicDescription? {
        guard sampleRate.isFinite, sampleRate > 0, channels > 0 else { return nil }
        let bytes: UInt32
        var flags: AudioFormatFlags = kAudioFormatFlagsNativeEndian | kAudioFormatFlagIsPacked
        switch format {
        case .otherFormat: return nil
        case .pcmFormatFloat32: bytes = 4; flags |= kAudioFormatFlagIsFloat
        case .pcmFormatFloat64: bytes = 8; flags |= kAudioFormatFlagIsFloat
        case .pcmFormatInt16: bytes = 2; flags |= kAudioFormatFlagIsSignedInteger
        case .pcmFormatInt32: bytes = 4; flags |= kAudioFormatFlagIsSignedInteger
        }
        if !interleaved { flags |= kAudioFormatFlagIsNonInterleaved }
        let bytesPerFrame = interleaved ? bytes * channels : bytes
        return AudioStreamBasicDescription(mSampleRate: sampleRate, mFormatID: kAudioFormatLinearPCM, mFormatFlags: flags,
                                           mBytesPerPacket: bytesPerFrame, mFramesPerPacket: 1, mBytesPerFrame: bytesPerFrame,
                                           mChannelsPerFrame: channels, mBitsPerChannel: bytes * 8, mReserved: 0)
    }

    /// True for linear PCM.
    var isPCM: Bool { asbdStorage.pointee.mFormatID == kAudioFormatLinearPCM }

    /// Bytes of one sample of one channel (PCM only).
    var bytesPerSample: Int {
        let d = asbdStorage.pointee
        return isInterleaved ? Int(d.mBytesPerFrame / max(1, d.mChannelsPerFrame)) : Int(d.mBytesPerFrame)
    }
}
