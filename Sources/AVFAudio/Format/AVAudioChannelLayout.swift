// AVAudioChannelLayout: an immutable wrapper of Core Audio's variable-length AudioChannelLayout.
//
//     let surround = AVAudioChannelLayout(layoutTag: kAudioChannelLayoutTag_MPEG_5_1_A)!
//     surround.channelCount          // 6
//     surround.layout.pointee.mChannelLayoutTag
#if canImport(Glibc)
import Glibc
#endif

// Tag values used here before the full constant table (CoreAudioTypes) is consulted.
@usableFromInline let _tagUseChannelDescriptions: AudioChannelLayoutTag = 0 << 16
@usableFromInline let _tagUseChannelBitmap: AudioChannelLayoutTag = 1 << 16
@usableFromInline let _tagMono: AudioChannelLayoutTag = (100 << 16) | 1
@usableFromInline let _tagStereo: AudioChannelLayoutTag = (101 << 16) | 2
@usableFromInline let _tagDiscreteInOrder: AudioChannelLayoutTag = 147 << 16
@usableFromInline let _tagUnknown: AudioChannelLayoutTag = 0xFFFF_0000

/// An object that describes the roles of a set of audio channels.
///
/// Instances are immutable; ``layout`` points at storage owned by the object for its lifetime.
open class AVAudioChannelLayout: NSObject, @unchecked Sendable {
    /// Owned copy of the variable-length structure.
    private let storage: UnsafeMutableRawPointer
    private let byteCount: Int

    /// Byte size of an AudioChannelLayout with `n` channel descriptions.
    static func byteSize(descriptions n: Int) -> Int {
        MemoryLayout<AudioChannelLayout>.offset(of: \AudioChannelLayout.mChannelDescriptions)!
            + max(1, n) * MemoryLayout<AudioChannelDescription>.stride
    }

    /// Creates a layout from a layout tag. Returns nil for the tags that do not describe a layout
    /// on their own (`UseChannelDescriptions`, `UseChannelBitmap`) and for `Unknown`.
    public convenience init?(layoutTag: AudioChannelLayoutTag) {
        if layoutTag == _tagUseChannelDescriptions || layoutTag == _tagUseChannelBitmap
            || (layoutTag & 0xFFFF_0000) == _tagUnknown {
            return nil
        }
        var acl = AudioChannelLayout()
        acl.mChannelLayoutTag = layoutTag
        self.init(layout: &acl)
    }

    /// Creates a layout by copying an `AudioChannelLayout` (including its channel descriptions).
    public init(layout: UnsafePointer<AudioChannelLayout>) {
        let n = Int(layout.pointee.mChannelLayoutTag == _tagUseChannelDescriptions ? layout.pointee.mNumberChannelDescriptions : 0)
        byteCount = Self.byteSize(descriptions: n)
        storage = UnsafeMutableRawPointer.allocate(byteCount: byteCount, alignment: 8)
        storage.initializeMemory(as: UInt8.self, repeating: 0, count: byteCount)
        let dst = storage.bindMemory(to: AudioChannelLayout.self, capacity: 1)
        dst.pointee.mChannelLayoutTag = layout.pointee.mChannelLayoutTag
        dst.pointee.mChannelBitmap = layout.pointee.mChannelBitmap
        dst.pointee.mNumberChannelDescriptions = UInt32(n)
        if n > 0 {
            let offset = MemoryLayout<AudioChannelLayout>.offset(of: \AudioChannelLayout.mChannelDescriptions)!
            let src = (UnsafeRawPointer(layout) + offset)
            (storage + offset).copyMemory(from: src, byteCount: n * MemoryLayout<AudioChannelDescription>.stride)
        }
        super.init()
    }

    /// Creates a layout from channel descriptions (`kAudioChannelLayoutTag_UseChannelDescriptions`).
    convenience init(channelLabels labels: [AudioChannelLabel]) {
        let size = Self.byteSize(descriptions: labels.count)
        let raw = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
        defer { raw.deallocate() }
        raw.initializeMemory(as: UInt8.self, repeating: 0, count: size)
        let acl = raw.bindMemory(to: AudioChannelLayout.self, capacity: 1)
        acl.pointee.mChannelLayoutTag = _tagUseChannelDescriptions
        acl.pointee.mNumberChannelDescriptions = UInt32(labels.count)
        let descriptions = UnsafeMutableAudioChannelDescriptions(acl)
        for (i, label) in labels.enumerated() {
            descriptions[i] = AudioChannelDescription(mChannelLabel: label, mChannelFlags: [], mCoordinates: (0, 0, 0))
        }
        self.init(layout: acl)
    }

    deinit { storage.deallocate() }

    /// The underlying structure; valid for the lifetime of this object.
    open var layout: UnsafePointer<AudioChannelLayout> {
        UnsafePointer(storage.assumingMemoryBound(to: AudioChannelLayout.self))
    }

    /// The layout's tag (`kAudioChannelLayoutTag_UseChannelDescriptions` when it is described
    /// channel by channel).
    open var layoutTag: AudioChannelLayoutTag { layout.pointee.mChannelLayoutTag }

    /// The number of channels the layout describes.
    open var channelCount: AVAudioChannelCount {
        let acl = layout.pointee
        switch acl.mChannelLayoutTag {
        case _tagUseChannelDescriptions: return acl.mNumberChannelDescriptions
        case _tagUseChannelBitmap: return UInt32(acl.mChannelBitmap.rawValue.nonzeroBitCount)
        default: return AudioChannelLayoutTag_GetNumberOfChannels(acl.mChannelLayoutTag)
        }
    }

    /// The raw bytes of the structure, as stored under `AVChannelLayoutKey`.
    var data: Data { Data(bytes: storage, count: byteCount) }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? AVAudioChannelLayout else { return false }
        if other === self { return true }
        let a = layout.pointee, b = other.layout.pointee
        guard a.mChannelLayoutTag == b.mChannelLayoutTag else { return false }
        switch a.mChannelLayoutTag {
        case _tagUseChannelBitmap: return a.mChannelBitmap == b.mChannelBitmap
        case _tagUseChannelDescriptions:
            guard a.mNumberChannelDescriptions == b.mNumberChannelDescriptions else { return false }
            let da = UnsafeMutableAudioChannelDescriptions(UnsafeMutablePointer(mutating: layout))
            let db = UnsafeMutableAudioChannelDescriptions(UnsafeMutablePointer(mutating: other.layout))
            for i in 0..<Int(a.mNumberChannelDescriptions) {
                let x = da[i], y = db[i]
                if x.mChannelLabel != y.mChannelLabel || x.mChannelFlags != y.mChannelFlags
                    || x.mCoordinates != y.mCoordinates { return false }
            }
            return true
        default: return true
        }
    }

    open override var hash: Int {
        var h = Hasher()
        h.combine(layoutTag)
        h.combine(channelCount)
        return h.finalize()
    }

    open override var description: String {
        "<AVAudioChannelLayout: tag 0x\(String(layoutTag, radix: 16)), \(channelCount) channel\(channelCount == 1 ? "" : "s")>"
    }
}

/// Indexed access to the trailing channel descriptions of an AudioChannelLayout.
struct UnsafeMutableAudioChannelDescriptions {
    let base: UnsafeMutablePointer<AudioChannelDescription>
    init(_ layout: UnsafeMutablePointer<AudioChannelLayout>) {
        let offset = MemoryLayout<AudioChannelLayout>.offset(of: \AudioChannelLayout.mChannelDescriptions)!
        base = (UnsafeMutableRawPointer(layout) + offset).assumingMemoryBound(to: AudioChannelDescription.self)
    }
    subscript(i: Int) -> AudioChannelDescription {
        get { base[i] }
        nonmutating set { base[i] = newValue }
    }
}

private func != (a: (Float, Float, Float), b: (Float, Float, Float)) -> Bool {
    a.0 != b.0 || a.1 != b.1 || a.2 != b.2
}
