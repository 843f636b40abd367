// AVAudioFile writing MPEG-4 audio files: `.m4a` (or AVAudioFileTypeKey kAudioFileM4AType) and
// `.mp4` (kAudioFileMPEG4Type), holding Apple Lossless (AVFormatIDKey kAudioFormatAppleLossless)
// or FLAC (kAudioFormatFLAC) packets, through AudioFileFormats' MP4PacketFileWriter.
//
// The container comes from AVAudioFileTypeKey when present, else from the extension, as for every
// other file type. Apple's AudioFile writes only encoded formats into MPEG-4 files — AAC, ALAC
// and others, never linear PCM (AudioFileGetGlobalInfo(kAudioFileGlobalInfo_AvailableFormatIDs)
// for 'm4af' lists no 'lpcm') — so linear PCM, and any codec this library cannot encode yet
// (AAC, Opus), is refused with kAudioFileUnsupportedDataFormatError and a sentence saying which
// formats are written.
//
// Settings are read exactly as for the same codec in CAF (`alacStream`) and native FLAC
// (`flacStream`: AVEncoderBitDepthHintKey, the compression level keys), and the file format
// reported is the same: what AVAudioFile reports reading the file back. An MP4 track's timescale
// is a whole number of Hz, so a fractional sample rate is refused.
//
// FLAC's STREAMINFO (in the `dfLa` box) carries the frame sizes and total samples listed so far;
// its MD5 signature stays all zero ("not computed", which RFC 9639 §8.2 allows): the packet
// encoder keeps no running MD5 (a native .flac file gets one).
import AudioFileFormats
import AudioCodecs
import AudioKernels

extension AVAudioFile {
    struct MP4Writing {
        var writer: MP4PacketFileWriter
        var description: AudioDataDescription
        var fileFormat: AVAudioFormat
        var layout: AVAudioChannelLayout?
    }

    /// Whether `settings`/`url` ask for an MPEG-4 file: AVAudioFileTypeKey M4A or MPEG-4, or
    /// (without a file type) the extension `.m4a` or `.mp4`.
    static func wantsMP4(_ url: URL, settings: [String: Any]) -> Bool {
        if let raw = AVAudioFormat.integer(settings[AVAudioFileTypeKey]) {
            let type = raw.map { AudioFileTypeID(truncatingIfNeeded: $0) } ?? 0
            return type == kAudioFileM4AType || type == kAudioFileMPEG4Type
        }
        return ["m4a", "mp4"].contains(url.pathExtension.lowercased())
    }

    /// Creates the MP4 writer `settings` describe; throws kAudioFileUnsupportedDataFormatError
    /// for a format this library does not write into MPEG-4 files.
    static func mp4Writing(_ url: URL, settings: [String: Any]) throws -> MP4Writing {
        let path = url.path
        func refuse(_ text: String) -> NSError {
            nsError(code: kAudioFileUnsupportedDataFormatError, "cannot create '\(path)': \(text)", path: path)
        }
        var m4a = url.pathExtension.lowercased() != "mp4"
        if let raw = AVAudioFormat.integer(settings[AVAudioFileTypeKey]), let raw { m4a = AudioFileTypeID(truncatingIfNeeded: raw) == kAudioFileM4AType }
        var formatID = kAudioFormatLinearPCM
        if let id = AVAudioFormat.integer(settings[AVFormatIDKey]), let id { formatID = AudioFormatID(truncatingIfNeeded: id) }
        let kind = m4a ? "M4A" : "MPEG-4"

        let description: AudioDataDescription
        let layout: AVAudioChannelLayout?
        let encoder: AudioPacketEncoder
        let fileFormat: (Int) -> AVAudioFormat?
        do {
            switch formatID {
            case kAudioFormatAppleLossless:
                let alac = try alacStream(settings, refuse: refuse)
                (description, layout) = (alac.description, alac.layout)
                encoder = try AudioCodecRegistry.encoder(for: AudioStreamSetup(codec: formatID, sampleRate: description.sampleRate,
                                                                               channelCount: description.channelCount,
                                                                               bitsPerSample: description.validBitsPerSample))
                fileFormat = { alacFileFormat(description, flags: alac.flags, framesPerPacket: $0, layout: layout) }
            case kAudioFormatFLAC:
                let flac = try flacStream(settings, refuse: refuse)
                (description, layout) = (flac.description, flac.layout)
                encoder = try FLACPacketEncoder(sampleRate: Int(description.sampleRate), channelCount: description.channelCount,
                                                bitsPerSample: description.validBitsPerSample, compressionLevel: flac.level)
                fileFormat = { flacFileFormat(description, blockSize: $0, layout: layout) }
            default:
                throw refuse("\(kind) files are written with Apple Lossless (kAudioFormatAppleLossless) or FLAC (kAudioFormatFLAC) data by this library, not \(fourCharCodeString(formatID))"
                             + (formatID == kAudioFormatLinearPCM ? " (Apple writes no linear PCM into MPEG-4 files either)" : ""))
            }
        } catch let error as CodecError {
            throw refuse(error.message)
        }
        guard description.sampleRate == description.sampleRate.rounded() else {
            throw refuse("an MPEG-4 track's sample rate is a whole number of Hz, not \(description.sampleRate)")
        }
        let writer: MP4PacketFileWriter
        do {
            writer = try MP4PacketFileWriter(path: path, codec: formatID, encoder: encoder, description: description, m4a: m4a,
                                             channelLayout: formatID == kAudioFormatAppleLossless ? layout.map { bigEndianCAFLayout($0) } : nil)
        } catch let error as AudioFileFormatError {
            throw nsError(error, path: path)
        }
        if formatID == kAudioFormatAppleLossless { writer.channelOrder = alacChannelOrder(for: layout) }
        guard let format = fileFormat(encoder.framesPerPacket) else {
            try? writer.close()
            throw refuse("no file format describes \(description)")
        }
        return MP4Writing(writer: writer, description: description, fileFormat: format, layout: layout)
    }
}
