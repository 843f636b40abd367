// AVAudioFormat ↔ settings dictionaries (AVFormatIDKey, AVSampleRateKey, ...).
//
// Values may arrive as any numeric type (`Int`, `UInt32`, `Double`, `NSNumber`) or Bool, as
// client code writes them; values we return are NSNumbers, so `as? Int`, `as? Double`,
// `as? UInt32` and `as? Bool` all work.

extension AVAudioFormat {
    /// Creates a format from a settings dictionary. Linear PCM defaults to 16-bit signed integer
    /// (32-bit when `AVLinearPCMIsFloatKey` is true), little-endian, interleaved. Returns nil when
    /// the sample rate or channel count is missing or invalid.
    public convenience init?(settings: [String: Any]) {
        guard let d = AVAudioFormat.streamDescription(fromSettings: settings) else { return nil }
        var layout: AVAudioChannelLayout?
        if let data = settings[AVChannelLayoutKey] as? Data, let parsed = AVAudioFormat.channelLayout(from: data) {
            layout = parsed
        }
        if let layout, layout.channelCount != d.mChannelsPerFrame { return nil }
        self.init(validating: d, layout: layout)
    }

    /// The format as a settings dictionary.
    public var settings: [String: Any] {
        let d = streamDescription.pointee
        var s: [String: Any] = [
            AVFormatIDKey: NSNumber(value: d.mFormatID),
            AVSampleRateKey: NSNumber(value: d.mSampleRate),
            AVNumberOfChannelsKey: NSNumber(value: d.mChannelsPerFrame),
        ]
        if d.mFormatID == kAudioFormatLinearPCM {
            s[AVLinearPCMBitDepthKey] = NSNumber(value: d.mBitsPerChannel)
            s[AVLinearPCMIsFloatKey] = NSNumber(value: d.mFormatFlags & kAudioFormatFlagIsFloat != 0)
            s[AVLinearPCMIsBigEndianKey] = NSNumber(value: d.mFormatFlags & kAudioFormatFlagIsBigEndian != 0)
            s[AVLinearPCMIsNonInterleaved] = NSNumber(value: d.mFormatFlags & kAudioFormatFlagIsNonInterleaved != 0)
        }
        if let layout = channelLayout, channelCount > 2 || (layout.layoutTag != _tagMono && layout.layoutTag != _tagStereo) {
            s[AVChannelLayoutKey] = layout.data
        }
        return s
    }

    static func number(_ value: Any?) -> Double? {
        switch value {
        case let v as Double: return v
        case let v as Float: return Double(v)
        case let v as Int: return Double(v)
        case let v as UInt32: return Double(v)
        case let v as Int32: return Double(v)
        case let v as UInt: return Double(v)
        case let v as Int64: return Double(v)
        case let v as UInt64: return Double(v)
        case let v as NSNumber: return v.doubleValue
        case let v as Bool: return v ? 1 : 0
        default: return nil
        }
    }

    /// A settings number that must be a whole value (a format ID, a file type, a bit depth): nil
    /// when absent, `.some(nil)` when present but not a number, NaN, infinite or beyond Int64 — which a
    /// conversion such as `Int64(_:)` would trap on (a settings dictionary is outside data).
    static func integer(_ value: Any?) -> Int64?? {
        guard let value else { return nil }
        // Present but not a number (a String "lpcm", an array): as invalid as NaN, not absent.
        guard let d = number(value) else { return .some(nil) }
        if let v = value as? Int64 { return .some(v) }
        if let v = value as? UInt64 { return .some(Int64(exactly: v)) }
        guard d.isFinite, d > -9.2e18, d < 9.2e18 else { return .some(nil) }
        return .some(Int64(d))
    }

    static func bool(_ value: Any?) -> Bool? {
        if let b = value as? Bool { return b }
        return number(value).map { $0 != 0 }
    }

    static func streamDescription(fromSettings settings: [String: Any]) -> AudioStreamBasicDescription? {
        // A format ID or bit depth that is not a whole number (NaN, ±infinity, 1e300) describes no
        // format: nil, as for a missing rate (found by the settings fuzz target; the conversions
        // used to trap).
        var formatID = kAudioFormatLinearPCM
        if let id = integer(settings[AVFormatIDKey]) {
            guard let id else { return nil }
            formatID = AudioFormatID(truncatingIfNeeded: id)
        }
        guard let rate = number(settings[AVSampleRateKey]), rate.isFinite, rate > 0,
              let channelsValue = number(settings[AVNumberOfChannelsKey]), channelsValue >= 1, channelsValue <= 65535 else { return nil }
        let channels = UInt32(channelsValue)
        if formatID == kAudioFormatLinearPCM {
            let isFloat = bool(settings[AVLinearPCMIsFloatKey]) ?? false
            var bits: UInt32 = isFloat ? 32 : 16
            if let depth = integer(settings[AVLinearPCMBitDepthKey]) {
                guard let depth else { return nil }
                bits = UInt32(max(0, min(depth, 64)))
            }
            let bigEndian = bool(settings[AVLinearPCMIsBigEndianKey]) ?? false
            let nonInterleaved = bool(settings[AVLinearPCMIsNonInterleaved]) ?? false
            guard bits > 0 else { return nil }
            if isFloat && bits != 32 && bits != 64 { return nil }
            let bytes = (bits + 7) / 8
            var flags: AudioFormatFlags = kAudioFormatFlagIsPacked
            flags |= isFloat ? kAudioFormatFlagIsFloat : (bits > 8 ? kAudioFormatFlagIsSignedInteger : 0)
            if bigEndian { flags |= kAudioFormatFlagIsBigEndian }
            if nonInterleaved { flags |= kAudioFormatFlagIsNonInterleaved }
            let bytesPerFrame = nonInterleaved ? bytes : bytes * channels
            return AudioStreamBasicDescription(mSampleRate: rate, mFormatID: formatID, mFormatFlags: flags,
                                               mBytesPerPacket: bytesPerFrame, mFramesPerPacket: 1, mBytesPerFrame: bytesPerFrame,
                                               mChannelsPerFrame: channels, mBitsPerChannel: bits, mReserved: 0)
        }
        // Compressed formats: frames per packet as the codecs define them; sizes are variable.
        let framesPerPacket: UInt32
        switch formatID {
        case kAudioFormatMPEG4AAC, kAudioFormatMPEG4AAC_LD: framesPerPacket = 1024
        case kAudioFormatMPEG4AAC_HE, kAudioFormatMPEG4AAC_HE_V2: framesPerPacket = 2048
        case kAudioFormatMPEG4AAC_ELD, kAudioFormatMPEG4AAC_ELD_SBR, kAudioFormatMPEG4AAC_ELD_V2: framesPerPacket = 512
        case kAudioFormatAppleLossless: framesPerPacket = 4096
        case kAudioFormatMPEGLayer3: framesPerPacket = 1152
        case kAudioFormatOpus: framesPerPacket = 960
        case kAudioFormatULaw, kAudioFormatALaw:
            return AudioStreamBasicDescription(mSampleRate: rate, mFormatID: formatID, mFormatFlags: 0,
                                               mBytesPerPacket: channels, mFramesPerPacket: 1, mBytesPerFrame: channels,
                                               mChannelsPerFrame: channels, mBitsPerChannel: 8, mReserved: 0)
        default: framesPerPacket = 0
        }
        return AudioStreamBasicDescription(mSampleRate: rate, mFormatID: formatID, mFormatFlags: 0,
                                           mBytesPerPacket: 0, mFramesPerPacket: framesPerPacket, mBytesPerFrame: 0,
                                           mChannelsPerFrame: channels, mBitsPerChannel: 0, mReserved: 0)
    }

    /// Parses the bytes of an `AudioChannelLayout` (as stored under `AVChannelLayoutKey`).
    static func channelLayout(from data: Data) -> AVAudioChannelLayout? {
        let header = MemoryLayout<AudioChannelLayout>.offset(of: \AudioChannelLayout.mChannelDescriptions)!
        guard data.count >= header else { return nil }
        return data.withUnsafeBytes { raw -> AVAudioChannelLayout? in
            let tag = raw.loadUnaligned(fromByteOffset: 0, as: UInt32.self)
            let count = raw.loadUnaligned(fromByteOffset: 8, as: UInt32.self)
            let needed = AVAudioChannelLayout.byteSize(descriptions: tag == _tagUseChannelDescriptions ? Int(count) : 0)
            if tag == _tagUseChannelDescriptions && (count == 0 || data.count < header + Int(count) * MemoryLayout<AudioChannelDescription>.stride) { return nil }
            let copy = UnsafeMutableRawPointer.allocate(byteCount: max(needed, data.count), alignment: 8)
            defer { copy.deallocate() }
            copy.initializeMemory(as: UInt8.self, repeating: 0, count: max(needed, data.count))
            copy.copyMemory(from: raw.baseAddress!, byteCount: data.count)
            let layout = AVAudioChannelLayout(layout: copy.assumingMemoryBound(to: AudioChannelLayout.self))
            return layout.channelCount > 0 ? layout : nil
        }
    }
}
