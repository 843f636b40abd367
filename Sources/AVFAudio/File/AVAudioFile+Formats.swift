// The mapping between what a container stores (AudioDataDescription) and AVAudioFormat, the
// choice of container when writing, and the NSErrors AVAudioFile throws.
import AudioFileFormats
import AudioCodecs
import AudioKernels

extension AVAudioFile {
    /// A channel layout for a file's description: from a CAF 'chan' chunk, from a WAV channel
    /// mask, or (more than two channels, nothing stored) the channels in order. The outer
    /// optional is nil when stored layout data is unusable; `.value` is nil for mono/stereo files
    /// that store nothing (the layout is implied).
    static func channelLayout(for d: AudioDataDescription) -> (value: AVAudioChannelLayout?, Void)? {
        if let bytes = d.channelLayoutData, let layout = layoutFromBigEndianCAF(bytes), layout.channelCount == d.channelCount {
            return (layout, ())
        }
        if let mask = d.channelMask, mask != 0 {
            let labels = channelLabels(forWAVChannelMask: mask)
            if labels.count == d.channelCount {
                if let tag = layoutTag(forLabels: labels), let layout = AVAudioChannelLayout(layoutTag: tag) { return (layout, ()) }
                return (AVAudioChannelLayout(channelLabels: labels), ())
            }
        }
        if d.channelCount <= 2 { return (nil, ()) }
        return (AVAudioChannelLayout(layoutTag: _tagDiscreteInOrder | UInt32(d.channelCount)), ())
    }

    /// Parses a CAF 'chan' payload: big-endian AudioChannelLayout.
    static func layoutFromBigEndianCAF(_ bytes: [UInt8]) -> AVAudioChannelLayout? {
        guard bytes.count >= 12 else { return nil }
        func u32(_ o: Int) -> UInt32 { UInt32(bytes[o]) << 24 | UInt32(bytes[o + 1]) << 16 | UInt32(bytes[o + 2]) << 8 | UInt32(bytes[o + 3]) }
        let tag = u32(0), bitmap = u32(4), count = Int(u32(8))
        if tag == _tagUseChannelDescriptions {
            guard count > 0, count <= 1024, bytes.count >= 12 + 20 * count else { return nil }
            var labels: [AudioChannelLabel] = []
            for i in 0..<count { labels.append(u32(12 + 20 * i)) }
            return AVAudioChannelLayout(channelLabels: labels)
        }
        if tag == _tagUseChannelBitmap {
            var acl = AudioChannelLayout()
            acl.mChannelLayoutTag = tag
            acl.mChannelBitmap = AudioChannelBitmap(rawValue: bitmap)
            return AVAudioChannelLayout(layout: &acl)
        }
        return AVAudioChannelLayout(layoutTag: tag)
    }

    /// Serialises a layout as a CAF 'chan' payload (big-endian).
    static func bigEndianCAFLayout(_ layout: AVAudioChannelLayout) -> [UInt8] {
        var out: [UInt8] = []
        func put(_ v: UInt32) { out += [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        let acl = layout.layout.pointee
        put(acl.mChannelLayoutTag)
        put(acl.mChannelBitmap.rawValue)
        put(acl.mNumberChannelDescriptions)
        if acl.mChannelLayoutTag == _tagUseChannelDescriptions {
            let d = UnsafeMutableAudioChannelDescriptions(UnsafeMutablePointer(mutating: layout.layout))
            for i in 0..<Int(acl.mNumberChannelDescriptions) {
                let c = d[i]
                put(c.mChannelLabel); put(c.mChannelFlags.rawValue)
                put(c.mCoordinates.0.bitPattern); put(c.mCoordinates.1.bitPattern); put(c.mCoordinates.2.bitPattern)
            }
        }
        return out
    }

    /// A native FLAC file's format, as Apple's AudioFile reports one: `kAudioFormatFLAC`, the
    /// source depth in the Apple Lossless flags (16/20/24/32-bit source data), a packet per FLAC
    /// frame of the stream's largest block size, variable bytes per packet (0).
    static func flacFileFormat(_ info: FLACStreamInfo, layout: AVAudioChannelLayout?) -> AVAudioFormat? {
        var asbd = AudioStreamBasicDescription()
        asbd.mSampleRate = Double(info.sampleRate)
        asbd.mFormatID = kAudioFormatFLAC
        switch info.bitsPerSample {
        case ...16: asbd.mFormatFlags = kAppleLosslessFormatFlag_16BitSourceData
        case ...20: asbd.mFormatFlags = kAppleLosslessFormatFlag_20BitSourceData
        case ...24: asbd.mFormatFlags = kAppleLosslessFormatFlag_24BitSourceData
        default: asbd.mFormatFlags = kAppleLosslessFormatFlag_32BitSourceData
        }
        asbd.mFramesPerPacket = UInt32(info.maximumBlockSize)
        asbd.mChannelsPerFrame = UInt32(info.channelCount)
        if let layout { return AVAudioFormat(streamDescription: &asbd, channelLayout: layout) }
        return AVAudioFormat(streamDescription: &asbd)
    }

    /// A compressed file's format as Apple's AudioFile reports it: the codec's format ID, the
    /// container's format flags (for Apple Lossless and FLAC the source depth:
    /// kAppleLosslessFormatFlag_16BitSourceData … _32BitSourceData; derived from the decoder's
    /// depth when the container leaves them 0), its frames per packet, and 0 bytes per packet,
    /// per frame and bits per channel (variable-size packets, no fixed sample size).
    static func packetFileFormat(_ reader: PacketFileReader, layout: AVAudioChannelLayout?) -> AVAudioFormat? {
        var asbd = AudioStreamBasicDescription()
        asbd.mSampleRate = reader.description.sampleRate
        asbd.mFormatID = reader.index.codec
        var flags = reader.stream.formatFlags
        if flags == 0 && (asbd.mFormatID == kAudioFormatAppleLossless || asbd.mFormatID == kAudioFormatFLAC) {
            switch reader.description.validBitsPerSample {
            case ...16: flags = kAppleLosslessFormatFlag_16BitSourceData
            case ...20: flags = kAppleLosslessFormatFlag_20BitSourceData
            case ...24: flags = kAppleLosslessFormatFlag_24BitSourceData
            default: flags = kAppleLosslessFormatFlag_32BitSourceData
            }
        }
        asbd.mFormatFlags = flags
        asbd.mFramesPerPacket = UInt32(clamping: reader.stream.framesPerPacket)
        asbd.mChannelsPerFrame = UInt32(reader.description.channelCount)
        if let layout { return AVAudioFormat(streamDescription: &asbd, channelLayout: layout) }
        return AVAudioFormat(streamDescription: &asbd)
    }

    /// A compressed file's channel layout. Apple Lossless with more than two channels: the
    /// layout ALAC's channel order fixes (C L R, C L R Cs, C L R Ls Rs, C L R Ls Rs LFE,
    /// C L R Ls Rs Cs LFE, C Lc Rc L R Ls Rs LFE: the ALACChannelLayoutTags of Apple's ALAC
    /// description) — the order the channels are decoded in — unless a 'chan' chunk declares
    /// the same speakers in another order: then that layout, and the reader is set to hand the
    /// channels out in its order (AVAudioFile+ALACChannelOrder.swift). Otherwise what
    /// `channelLayout(for:)` gives.
    static func packetChannelLayout(_ reader: PacketFileReader) -> (value: AVAudioChannelLayout?, Void)? {
        let d = reader.description
        if reader.index.codec == kAudioFormatAppleLossless, let layout = alacChannelLayout(channels: d.channelCount) {
            if d.channelLayoutData != nil, let declared = channelLayout(for: d)?.value, let order = alacChannelOrder(for: declared) {
                reader.channelOrder = inverseChannelOrder(order)
                return (declared, ())
            }
            return (layout, ())
        }
        return channelLayout(for: d)
    }

    /// The layout ALAC's fixed channel order implies for 3–8 channels (nil for 1–2 and above 8).
    static func alacChannelLayout(channels: Int) -> AVAudioChannelLayout? {
        let tags: [AudioChannelLayoutTag] = [kAudioChannelLayoutTag_MPEG_3_0_B, kAudioChannelLayoutTag_MPEG_4_0_B, kAudioChannelLayoutTag_MPEG_5_0_D,
                                             kAudioChannelLayoutTag_MPEG_5_1_D, kAudioChannelLayoutTag_AAC_6_1, kAudioChannelLayoutTag_MPEG_7_1_B]
        guard (3...8).contains(channels) else { return nil }
        return AVAudioChannelLayout(layoutTag: tags[channels - 3])
    }

    /// The layout `settings` give under AVChannelLayoutKey (nil when absent or unreadable);
    /// throws `refuse`'s error when its channel count is not `channels`. For the codec writers.
    static func settingsChannelLayout(_ settings: [String: Any], channels: Int, refuse: (String) -> NSError) throws -> AVAudioChannelLayout? {
        guard let data = settings[AVChannelLayoutKey] as? Data, let parsed = AVAudioFormat.channelLayout(from: data) else { return nil }
        guard parsed.channelCount == AVAudioChannelCount(channels) else {
            throw refuse("the channel layout has \(parsed.channelCount) channels, the settings \(channels)")
        }
        return parsed
    }

    /// The AVAudioFormat describing how the file stores samples.
    static func fileFormat(for d: AudioDataDescription, layout: AVAudioChannelLayout?) -> AVAudioFormat? {
        let channels = UInt32(d.channelCount)
        var asbd = AudioStreamBasicDescription()
        asbd.mSampleRate = d.sampleRate
        asbd.mChannelsPerFrame = channels
        asbd.mFramesPerPacket = 1
        asbd.mBytesPerFrame = UInt32(d.bytesPerFrame)
        asbd.mBytesPerPacket = asbd.mBytesPerFrame
        switch d.encoding {
        case .ulaw, .alaw:
            asbd.mFormatID = d.encoding == .ulaw ? kAudioFormatULaw : kAudioFormatALaw
            asbd.mBitsPerChannel = 8
        default:
            asbd.mFormatID = kAudioFormatLinearPCM
            var flags: AudioFormatFlags = 0
            if d.encoding.isFloat { flags |= kAudioFormatFlagIsFloat }
            else if d.encoding != .unsigned8 { flags |= kAudioFormatFlagIsSignedInteger }
            if d.bigEndian && d.encoding.bytesPerSample > 1 { flags |= kAudioFormatFlagIsBigEndian }
            let containerBits = d.encoding.bytesPerSample * 8
            let bits = d.encoding.isFloat ? containerBits : max(1, min(d.validBitsPerSample, containerBits))
            flags |= bits == containerBits ? kAudioFormatFlagIsPacked : kAudioFormatFlagIsAlignedHigh
            asbd.mFormatFlags = flags
            asbd.mBitsPerChannel = UInt32(bits)
        }
        return AVAudioFormat(validating: asbd, layout: layout)
    }

    static func processingFormat(_ common: AVAudioCommonFormat, interleaved: Bool, sampleRate: Double, channels: Int,
                                 layout: AVAudioChannelLayout?) -> AVAudioFormat? {
        guard common != .otherFormat,
              let d = AVAudioFormat.pcmDescription(common, sampleRate: sampleRate, channels: UInt32(channels), interleaved: interleaved) else { return nil }
        return AVAudioFormat(validating: d, layout: layout)
    }

    /// The container to write: `AVAudioFileTypeKey` wins, else the extension.
    static func container(forWriting url: URL, settings: [String: Any]) throws -> AudioContainerType {
        if let raw = AVAudioFormat.integer(settings[AVAudioFileTypeKey]) {
            // NaN or an infinite value names no type ('\0\0\0\0' falls to the error below).
            let type = raw.map { AudioFileTypeID(truncatingIfNeeded: $0) } ?? 0
            switch type {
            case kAudioFileWAVEType: return .wav
            case kAudioFileRF64Type: return .rf64
            case kAudioFileBW64Type: return .bw64
            case kAudioFileAIFFType: return .aiff
            case kAudioFileAIFCType: return .aifc
            case kAudioFileCAFType: return .caf
            case kAudioFileNextType: return .au
            default:
                throw nsError(code: kAudioFileUnsupportedFileTypeError,
                              "cannot create '\(url.path)': file type \(fourCharCodeString(type)) is not supported (WAVE, RF64, BW64, AIFF, AIFC, CAF and NeXT are)", path: url.path)
            }
        }
        guard let container = AudioContainerType(fileExtension: url.pathExtension) else {
            throw nsError(code: kAudioFileUnsupportedFileTypeError,
                          "cannot create '\(url.path)': the extension '.\(url.pathExtension)' names no supported file type; use .wav, .aif, .aifc, .caf or .au, or set AVAudioFileTypeKey", path: url.path)
        }
        return container
    }

    /// What the container will store for a requested format, adjusting what the container
    /// requires (WAV is little-endian; AIFF is big-endian integer, and becomes AIFF-C for float
    /// and G.711 data, as Apple's AudioFile does).
    static func dataDescription(forWriting f: AVAudioFormat, container: AudioContainerType, path: String) throws -> (AudioContainerType, AudioDataDescription) {
        let d = f.streamDescription.pointee
        let encoding: SampleEncoding
        var container = container
        var bigEndian = d.mFormatFlags & kAudioFormatFlagIsBigEndian != 0
        switch d.mFormatID {
        case kAudioFormatULaw: encoding = .ulaw
        case kAudioFormatALaw: encoding = .alaw
        case kAudioFormatLinearPCM:
            let isFloat = d.mFormatFlags & kAudioFormatFlagIsFloat != 0
            switch (isFloat, d.mBitsPerChannel) {
            case (true, 32): encoding = .float32
            case (true, 64): encoding = .float64
            case (false, 1...8):
                encoding = container.isWAVFamily ? .unsigned8 : .signed8
            case (false, 9...16): encoding = .signed16
            case (false, 17...24): encoding = .signed24
            case (false, 25...32): encoding = .signed32
            default:
                throw nsError(code: kAudioFileUnsupportedDataFormatError,
                              "cannot create '\(path)': \(d.mBitsPerChannel)-bit \(isFloat ? "float" : "integer") samples are not supported", path: path)
            }
        default:
            throw nsError(code: kAudioFileUnsupportedDataFormatError,
                          "cannot create '\(path)': format \(fourCharCodeString(d.mFormatID)) is not supported yet (linear PCM, µ-law and A-law are)", path: path)
        }
        switch container {
        case .wav, .rf64, .bw64: bigEndian = false
        case .aiff:
            if encoding.isFloat || encoding == .ulaw || encoding == .alaw {
                container = .aifc
            } else {
                bigEndian = true
            }
        case .au: bigEndian = true
        case .aifc, .caf: break
        }
        // AIFF-C stores floats big-endian only ('fl32'/'fl64'), and 8-bit data has no byte order.
        if container == .aifc && (encoding.bytesPerSample == 1 || encoding.isFloat) { bigEndian = true }
        let validBits = encoding.isLinearPCM && !encoding.isFloat ? Int(d.mBitsPerChannel) : encoding.bytesPerSample * 8
        var description = AudioDataDescription(sampleRate: d.mSampleRate, channelCount: Int(d.mChannelsPerFrame), encoding: encoding,
                                               bigEndian: bigEndian, validBitsPerSample: validBits)
        if let layout = f.channelLayout {
            if container == .caf {
                description.channelLayoutData = bigEndianCAFLayout(layout)
            } else if container.isWAVFamily, let labels = labelsOf(layout), let mask = wavChannelMask(forLabels: labels) {
                if d.mChannelsPerFrame > 2 { description.channelMask = mask }
            }
        }
        return (container, description)
    }

    static func labelsOf(_ layout: AVAudioChannelLayout) -> [AudioChannelLabel]? {
        let acl = layout.layout.pointee
        switch acl.mChannelLayoutTag {
        case _tagUseChannelDescriptions:
            let d = UnsafeMutableAudioChannelDescriptions(UnsafeMutablePointer(mutating: layout.layout))
            return (0..<Int(acl.mNumberChannelDescriptions)).map { d[$0].mChannelLabel }
        case _tagUseChannelBitmap:
            return channelLabels(forBitmap: acl.mChannelBitmap.rawValue)
        default:
            return channelLabels(forLayoutTag: acl.mChannelLayoutTag)
        }
    }

    // MARK: Errors

    static func nsError(_ error: AudioFileFormatError, path: String, failedCall: String? = nil) -> NSError {
        nsError(code: error.code, error.message, path: path, failedCall: failedCall)
    }

    /// An AVAudioFile error as Apple reports it: domain "com.apple.coreaudio.avfaudio", the
    /// OSStatus as the code, Apple's "failed call" when given; plus our sentence and the path
    /// (evidence in Types/AVAudioErrors.swift).
    static func nsError(code: OSStatus, _ message: String, path: String, failedCall: String? = nil) -> NSError {
        avfaudioError(code, message, failedCall: failedCall, userInfo: [NSFilePathErrorKey: path])
    }

    /// Runs `body`; an AVAudioFile error it throws without a "failed call" gets `call` — the Core
    /// Audio call Apple names for that operation (ExtAudioFileOpenURL, ExtAudioFileCreateWithURL,
    /// ExtAudioFileRead).
    static func reporting<T>(failedCall call: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as NSError where error.domain == avfaudioErrorDomain && error.userInfo[avfaudioFailedCallKey] == nil {
            var info = error.userInfo
            info[avfaudioFailedCallKey] = call
            throw NSError(domain: error.domain, code: error.code, userInfo: info)
        }
    }

    static func describe(_ settings: [String: Any]) -> String {
        settings.keys.sorted().map { "\($0): \(settings[$0]!)" }.joined(separator: ", ")
    }
}
