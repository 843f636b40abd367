// AVAudioFile writing native FLAC (`.flac`, or AVAudioFileTypeKey kAudioFileFLACType) with
// AVFormatIDKey kAudioFormatFLAC, as Apple platforms do; the stream is encoded by AudioCodecs'
// FLACEncoder through AudioFileFormats' FLACFileWriter. FLAC in MPEG-4 files (.m4a, .mp4) is
// AVAudioFile+MP4Writing.swift's, with the same settings (`flacStream`).
//
// Settings honoured: AVSampleRateKey (a whole number of Hz, 1…1,048,575), AVNumberOfChannelsKey
// (1…8), AVChannelLayoutKey, and the source depth from AVEncoderBitDepthHintKey — the key Apple
// documents for lossless encoders' source depth, range 8…32 — or else AVLinearPCMBitDepthKey, or
// else 16 bits (Apple does not document its default; 16 is what its lossless encoders assume
// for "16-bit source data", the first of their depth flags). The bit-rate keys are accepted and
// ignored (FLAC is lossless).
//
// Compression level. Apple documents no settings key for a FLAC compression level. Here
// AVEncoderAudioQualityKey chooses it — encoder quality is the effort an encoder spends, which for
// a lossless codec is compression — on libFLAC's 0…8 scale: .min → 0, .low → 2, .medium → 5 (also
// the level when the key is absent, libFLAC's default), .high → 6, .max → 8, values between
// rounded down to the nearest of those; `_FLACCompressionLevelKey` (not Apple's; `avaudio
// convert --level` uses it) gives a level exactly and takes precedence.
//
// FLAC in Ogg: a `.oga` or `.ogg` URL (and no AVAudioFileTypeKey) with kAudioFormatFLAC writes
// FLAC in Ogg pages (mapping 1.0; AudioFileFormats' OggFLACOutput). Apple declares no Ogg file
// type constant in AudioFile.h (its runtime knows an undocumented 'Oggf'), so none is invented
// here: the extension chooses Ogg, and AVAudioFileTypeKey kAudioFileFLACType means native FLAC.
//
// The file format reported is the one AVAudioFile reports when it reads the file back:
// kAudioFormatFLAC, the source depth in the Apple Lossless flags, 4,096 frames per packet.
import AudioFileFormats
import AudioCodecs
import AudioKernels

/// The FLAC compression level (0…8, libFLAC's scale) for `AVAudioFile(forWriting:settings:)`:
/// not one of Apple's keys (Apple documents none for FLAC); takes precedence over
/// AVEncoderAudioQualityKey (see AVAudioFile+FLACWriting.swift).
public let _FLACCompressionLevelKey = "OpenAVFAudioFLACCompressionLevelKey"

extension AVAudioFile {
    /// The FLAC compression level `settings` ask for (see the note at the top); nil when
    /// `_FLACCompressionLevelKey` holds something other than 0…8.
    static func flacCompressionLevel(_ settings: [String: Any]) -> Int? {
        if let value = settings[_FLACCompressionLevelKey] {
            guard let level = AVAudioFormat.integer(value), let level, (0...8).contains(level) else { return nil }
            return Int(level)
        }
        guard let value = settings[AVEncoderAudioQualityKey], let quality = AVAudioFormat.integer(value), let quality else { return 5 }
        switch quality {
        case ..<Int64(AVAudioQuality.low.rawValue): return 0
        case ..<Int64(AVAudioQuality.medium.rawValue): return 2
        case ..<Int64(AVAudioQuality.high.rawValue): return 5
        case ..<Int64(AVAudioQuality.max.rawValue): return 6
        default: return 8
        }
    }

    struct FLACWriting {
        var writer: FLACFileWriter
        var description: AudioDataDescription
        var fileFormat: AVAudioFormat
        var layout: AVAudioChannelLayout?
    }

    /// Whether `settings`/`url` ask for a FLAC file (by format ID, file type or extension).
    static func wantsFLAC(_ url: URL, settings: [String: Any]) -> Bool {
        if let id = AVAudioFormat.integer(settings[AVFormatIDKey]), let id, AudioFormatID(truncatingIfNeeded: id) == kAudioFormatFLAC { return true }
        if let type = AVAudioFormat.integer(settings[AVAudioFileTypeKey]), let type, AudioFileTypeID(truncatingIfNeeded: type) == kAudioFileFLACType { return true }
        return settings[AVAudioFileTypeKey] == nil && url.pathExtension.lowercased() == "flac"
    }

    /// Creates the FLAC writer `settings` describe; throws Apple's errors when they describe no
    /// FLAC stream (a FLAC file type with another format ID, or FLAC data in another container:
    /// kAudioFileUnsupportedDataFormatError).
    static func flacWriting(_ url: URL, settings: [String: Any]) throws -> FLACWriting {
        let path = url.path
        func refuse(_ text: String) -> NSError {
            nsError(code: kAudioFileUnsupportedDataFormatError, "cannot create '\(path)': \(text)", path: path)
        }
        var formatID = kAudioFormatLinearPCM
        if let id = AVAudioFormat.integer(settings[AVFormatIDKey]), let id { formatID = AudioFormatID(truncatingIfNeeded: id) }
        guard formatID == kAudioFormatFLAC else {
            throw refuse("a FLAC file holds FLAC data; set AVFormatIDKey to kAudioFormatFLAC (\(fourCharCodeString(formatID)) requested)")
        }
        var container = FLACContainer.native
        if let type = AVAudioFormat.integer(settings[AVAudioFileTypeKey]) {
            let value = type.map { AudioFileTypeID(truncatingIfNeeded: $0) } ?? 0
            guard value == kAudioFileFLACType else {
                throw refuse("FLAC data is written to FLAC, M4A and MPEG-4 files (kAudioFileFLACType, kAudioFileM4AType, kAudioFileMPEG4Type), not \(fourCharCodeString(value)) files")
            }
        } else if ["oga", "ogg"].contains(url.pathExtension.lowercased()) {
            container = .ogg
        } else if url.pathExtension.lowercased() != "flac" {
            throw refuse("FLAC data is written to FLAC (.flac), Ogg (.oga, .ogg) and MPEG-4 (.m4a, .mp4) files; use one of those extensions or AVAudioFileTypeKey")
        }
        let (description, layout, level) = try flacStream(settings, refuse: refuse)
        let writer: FLACFileWriter
        do {
            writer = try FLACFileWriter(path: path, description: description, compressionLevel: level, container: container)
        } catch let error as AudioFileFormatError {
            throw nsError(error, path: path)
        }
        guard let fileFormat = flacFileFormat(description, blockSize: writer.blockSize, layout: layout) else {
            try? writer.close()
            throw refuse("no file format describes \(description)")
        }
        return FLACWriting(writer: writer, description: description, fileFormat: fileFormat, layout: layout)
    }

    /// The stream `settings` describe for FLAC (the note at the top), its layout and compression
    /// level; throws `refuse`'s error when they describe none.
    static func flacStream(_ settings: [String: Any], refuse: (String) -> NSError) throws
        -> (description: AudioDataDescription, layout: AVAudioChannelLayout?, level: Int) {
        guard let rate = AVAudioFormat.number(settings[AVSampleRateKey]), rate.isFinite, rate > 0,
              let channelValue = AVAudioFormat.number(settings[AVNumberOfChannelsKey]), channelValue >= 1, channelValue <= 65535 else {
            throw refuse("the settings do not describe a valid format (\(describe(settings)))")
        }
        guard rate == rate.rounded(), rate <= 1_048_575 else {
            throw refuse("FLAC stores whole-number sample rates of 1 to 1,048,575 Hz, not \(rate) Hz")
        }
        let channels = Int(channelValue)
        guard channels <= 8, Double(channels) == channelValue else { throw refuse("FLAC holds 1 to 8 channels, not \(channelValue)") }
        var bits = 16
        if let hint = AVAudioFormat.integer(settings[AVEncoderBitDepthHintKey]) ?? AVAudioFormat.integer(settings[AVLinearPCMBitDepthKey]) {
            guard let hint, (8...32).contains(hint) else { throw refuse("a bit depth of \(hint.map(String.init) ?? "?"); FLAC files are written with 8 to 32 bits") }
            bits = Int(hint)
        }
        let encoding: SampleEncoding = bits <= 8 ? .signed8 : bits <= 16 ? .signed16 : bits <= 24 ? .signed24 : .signed32
        let description = AudioDataDescription(sampleRate: rate, channelCount: channels, encoding: encoding, bigEndian: false,
                                               validBitsPerSample: bits)
        let layout = try settingsChannelLayout(settings, channels: channels, refuse: refuse) ?? channelLayout(for: description)?.value
        guard let level = flacCompressionLevel(settings) else {
            throw refuse("FLAC compression levels are 0 to 8, not \(settings[_FLACCompressionLevelKey].map { "\($0)" } ?? "?")")
        }
        return (description, layout, level)
    }

    /// The file format AVAudioFile reports for FLAC data of `description` in `blockSize` blocks.
    static func flacFileFormat(_ description: AudioDataDescription, blockSize: Int, layout: AVAudioChannelLayout?) -> AVAudioFormat? {
        let info = FLACStreamInfo(minimumBlockSize: blockSize, maximumBlockSize: blockSize, minimumFrameSize: 0,
                                  maximumFrameSize: 0, sampleRate: Int(description.sampleRate), channelCount: description.channelCount,
                                  bitsPerSample: description.validBitsPerSample, totalSamples: nil, md5: [])
        return flacFileFormat(info, layout: layout)
    }
}
