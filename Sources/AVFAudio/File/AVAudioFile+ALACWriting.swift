// AVAudioFile writing Apple Lossless (AVFormatIDKey kAudioFormatAppleLossless) into CAF files
// (`.caf`, or AVAudioFileTypeKey kAudioFileCAFType), as Apple platforms do; the packets are
// encoded by AudioCodecs' ALACEncoder through AudioFileFormats' CAFPacketFileWriter. MP4/M4A, the
// other container Apple writes ALAC into, is AVAudioFile+MP4Writing.swift's, with the same
// settings (`alacStream`).
//
// Settings honoured: AVSampleRateKey, AVNumberOfChannelsKey (1…8), AVChannelLayoutKey, and the
// source depth from AVEncoderBitDepthHintKey (Apple's key for lossless encoders' source depth)
// or else AVLinearPCMBitDepthKey, else 16 — one of ALAC's depths 16, 20, 24, 32. Quality and
// bit-rate keys are accepted and ignored: ALAC is lossless with one setting.
//
// The file format reported is what AVAudioFile reports reading the file back: kAudioFormatAppleLossless,
// the source depth flag (kAppleLosslessFormatFlag_16BitSourceData …), 4,096 frames per packet.
import AudioFileFormats
import AudioCodecs
import AudioKernels

extension AVAudioFile {
    struct ALACWriting {
        var writer: CAFPacketFileWriter
        var description: AudioDataDescription
        var fileFormat: AVAudioFormat
        var layout: AVAudioChannelLayout?
    }

    /// Whether `settings` ask for Apple Lossless data.
    static func wantsALAC(_ settings: [String: Any]) -> Bool {
        if let id = AVAudioFormat.integer(settings[AVFormatIDKey]), let id { return AudioFormatID(truncatingIfNeeded: id) == kAudioFormatAppleLossless }
        return false
    }

    static func alacWriting(_ url: URL, settings: [String: Any]) throws -> ALACWriting {
        let path = url.path
        func refuse(_ text: String) -> NSError {
            nsError(code: kAudioFileUnsupportedDataFormatError, "cannot create '\(path)': \(text)", path: path)
        }
        if let type = AVAudioFormat.integer(settings[AVAudioFileTypeKey]) {
            let value = type.map { AudioFileTypeID(truncatingIfNeeded: $0) } ?? 0
            guard value == kAudioFileCAFType else {
                throw refuse("Apple Lossless is written to CAF, M4A and MPEG-4 files (kAudioFileCAFType, kAudioFileM4AType, kAudioFileMPEG4Type), not \(fourCharCodeString(value)) files")
            }
        } else if url.pathExtension.lowercased() != "caf" {
            throw refuse("Apple Lossless is written to CAF (.caf) and MPEG-4 (.m4a, .mp4) files, not '.\(url.pathExtension)' ones")
        }
        let (description, layout, flags) = try alacStream(settings, refuse: refuse)
        let writer: CAFPacketFileWriter
        do {
            writer = try CAFPacketFileWriter(path: path, codec: kAudioFormatAppleLossless, description: description, formatFlags: flags,
                                             channelLayout: layout.map { bigEndianCAFLayout($0) })
        } catch let error as AudioFileFormatError {
            throw nsError(error, path: path)
        }
        writer.channelOrder = alacChannelOrder(for: layout)
        guard let fileFormat = alacFileFormat(description, flags: flags, framesPerPacket: writer.encoder.framesPerPacket, layout: layout) else {
            try? writer.close()
            throw refuse("no file format describes \(description)")
        }
        return ALACWriting(writer: writer, description: description, fileFormat: fileFormat, layout: layout)
    }

    /// The stream `settings` describe for Apple Lossless (the note at the top), its layout and
    /// its source depth flag; throws `refuse`'s error when they describe none.
    static func alacStream(_ settings: [String: Any], refuse: (String) -> NSError) throws
        -> (description: AudioDataDescription, layout: AVAudioChannelLayout?, flags: AudioFormatFlags) {
        guard let rate = AVAudioFormat.number(settings[AVSampleRateKey]), rate.isFinite, rate >= 1, rate <= Double(UInt32.max),
              let channelValue = AVAudioFormat.number(settings[AVNumberOfChannelsKey]), channelValue >= 1, channelValue <= 65535 else {
            throw refuse("the settings do not describe a valid format (\(describe(settings)))")
        }
        let channels = Int(channelValue)
        guard channels <= 8, Double(channels) == channelValue else { throw refuse("Apple Lossless holds 1 to 8 channels, not \(channelValue)") }
        var bits = 16
        if let hint = AVAudioFormat.integer(settings[AVEncoderBitDepthHintKey]) ?? AVAudioFormat.integer(settings[AVLinearPCMBitDepthKey]) {
            guard let hint, [16, 20, 24, 32].contains(hint) else {
                throw refuse("a bit depth of \(hint.map(String.init) ?? "?"); Apple Lossless stores 16, 20, 24 or 32 bits")
            }
            bits = Int(hint)
        }
        let encoding: SampleEncoding = bits <= 16 ? .signed16 : bits <= 24 ? .signed24 : .signed32
        let description = AudioDataDescription(sampleRate: rate, channelCount: channels, encoding: encoding, bigEndian: false,
                                               validBitsPerSample: bits)
        // Without a layout in the settings, ALAC's fixed channel order per count implies one.
        let layout = try settingsChannelLayout(settings, channels: channels, refuse: refuse) ?? alacChannelLayout(channels: channels)
        let flags: AudioFormatFlags
        switch bits {
        case 16: flags = kAppleLosslessFormatFlag_16BitSourceData
        case 20: flags = kAppleLosslessFormatFlag_20BitSourceData
        case 24: flags = kAppleLosslessFormatFlag_24BitSourceData
        default: flags = kAppleLosslessFormatFlag_32BitSourceData
        }
        return (description, layout, flags)
    }

    /// The file format AVAudioFile reports for Apple Lossless data of `description`.
    static func alacFileFormat(_ description: AudioDataDescription, flags: AudioFormatFlags, framesPerPacket: Int,
                               layout: AVAudioChannelLayout?) -> AVAudioFormat? {
        var asbd = AudioStreamBasicDescription()
        asbd.mSampleRate = description.sampleRate
        asbd.mFormatID = kAudioFormatAppleLossless
        asbd.mFormatFlags = flags
        asbd.mFramesPerPacket = UInt32(framesPerPacket)
        asbd.mChannelsPerFrame = UInt32(description.channelCount)
        return layout.map { AVAudioFormat(streamDescription: &asbd, channelLayout: $0) } ?? AVAudioFormat(streamDescription: &asbd)
    }
}
