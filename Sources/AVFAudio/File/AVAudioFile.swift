// AVAudioFile: read and write audio files in a processing format of your choice.
//
// The file stores samples in its *file format* (e.g. 24-bit big-endian integers, interleaved);
// you read and write AVAudioPCMBuffers in the *processing format* (by default the standard
// deinterleaved Float32, at the file's sample rate and channel count). The conversion between the
// two runs in AudioKernels, a chunk at a time through a staging buffer allocated once per file.
// There is no sample-rate conversion here, as on Apple platforms.
//
//     let file = try AVAudioFile(forReading: url)
//     let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat,
//                                   frameCapacity: AVAudioFrameCount(file.length))!
//     try file.read(into: buffer)
//
//     let out = try AVAudioFile(forWriting: outURL, settings: [
//         AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: 48_000,
//         AVNumberOfChannelsKey: 2, AVLinearPCMBitDepthKey: 24])
//     try out.write(from: buffer)   // the header on disk is valid after every write
//     out.close()
//
// Nothing is lost: after every `write(from:)` the header describes every frame written, so a
// process killed mid-write leaves a readable file; `close()` (or deinit) finalises it.
import AudioFileFormats
import AudioKernels

/// An audio file opened for reading or writing.
open class AVAudioFile: NSObject {
    /// The file's location.
    public let url: URL
    /// How the file stores its samples.
    public let fileFormat: AVAudioFormat
    /// The format of the buffers you read and write.
    public let processingFormat: AVAudioFormat

    /// The decode path for reading (shared with the player's file scheduling).
    private var stream: FileDecodeStream?
    private var writer: StoredFrameWriter?
    private let dataDescription: AudioDataDescription
    private let codec: FileSampleCodec
    private var position: AVAudioFramePosition = 0
    private var _isOpen = true

    // MARK: Reading

    /// Opens a file for reading with the standard processing format (deinterleaved Float32).
    public convenience init(forReading fileURL: URL) throws {
        try self.init(forReading: fileURL, commonFormat: .pcmFormatFloat32, interleaved: false)
    }

    /// Opens a file for reading, with buffers in `format` (interleaved or not).
    public init(forReading fileURL: URL, commonFormat format: AVAudioCommonFormat, interleaved: Bool) throws {
        let path = fileURL.path
        let reader: StoredFrameReader
        do {
            reader = try openStoredFrameReader(path: path)
        } catch let error as AudioFileFormatError {
            throw AVAudioFile.nsError(error, path: path, failedCall: AVFAudioFailedCall.openFile)
        }
        let description = reader.description
        let packets = reader as? PacketFileReader
        guard let layout = packets.map({ AVAudioFile.packetChannelLayout($0) }) ?? AVAudioFile.channelLayout(for: description),
              let fileFormat = (reader as? FLACFileReader).map({ AVAudioFile.flacFileFormat($0.info, layout: layout.value) })
                ?? packets.map({ AVAudioFile.packetFileFormat($0, layout: layout.value) })
                ?? AVAudioFile.fileFormat(for: description, layout: layout.value),
              let processing = AVAudioFile.processingFormat(format, interleaved: interleaved, sampleRate: description.sampleRate,
                                                          channels: description.channelCount, layout: layout.value) else {
            reader.close()
            throw AVAudioFile.nsError(code: kAudioFileUnsupportedDataFormatError,
                                      "'\(path)' holds \(description), which cannot be read as \(format) PCM", path: path,
                                      failedCall: AVFAudioFailedCall.openFile)
        }
        let stream = FileDecodeStream(reader: reader, processing: processing)
        self.url = fileURL
        self.stream = stream
        self.fileFormat = fileFormat
        self.processingFormat = processing
        self.dataDescription = description
        self.codec = stream.codec
        super.init()
    }

    // MARK: Writing

    /// Creates a file for writing with `settings` describing the file format; buffers are in the
    /// standard processing format (deinterleaved Float32). The container comes from
    /// `AVAudioFileTypeKey` when present, else from the URL's extension. An existing file is replaced.
    public convenience init(forWriting fileURL: URL, settings: [String: Any]) throws {
        try self.init(forWriting: fileURL, settings: settings, commonFormat: .pcmFormatFloat32, interleaved: false)
    }

    /// Creates a file for writing, with buffers in `format` (interleaved or not).
    public init(forWriting fileURL: URL, settings: [String: Any], commonFormat format: AVAudioCommonFormat, interleaved: Bool) throws {
        let path = fileURL.path
        let create = AVFAudioFailedCall.createFile
        let writer: StoredFrameWriter
        let description: AudioDataDescription
        let fileFormat: AVAudioFormat
        let layout: AVAudioChannelLayout?
        if AVAudioFile.wantsMP4(fileURL, settings: settings) {
            let mp4 = try AVAudioFile.reporting(failedCall: create) { try AVAudioFile.mp4Writing(fileURL, settings: settings) }
            (writer, description, fileFormat, layout) = (mp4.writer, mp4.description, mp4.fileFormat, mp4.layout)
        } else if AVAudioFile.wantsALAC(settings) {
            let alac = try AVAudioFile.reporting(failedCall: create) { try AVAudioFile.alacWriting(fileURL, settings: settings) }
            (writer, description, fileFormat, layout) = (alac.writer, alac.description, alac.fileFormat, alac.layout)
        } else if AVAudioFile.wantsFLAC(fileURL, settings: settings) {
            let flac = try AVAudioFile.reporting(failedCall: create) { try AVAudioFile.flacWriting(fileURL, settings: settings) }
            (writer, description, fileFormat, layout) = (flac.writer, flac.description, flac.fileFormat, flac.layout)
        } else {
            let container = try AVAudioFile.reporting(failedCall: create) { try AVAudioFile.container(forWriting: fileURL, settings: settings) }
            guard let requested = AVAudioFormat(settings: settings) else {
                throw AVAudioFile.nsError(code: kAudioFileUnsupportedDataFormatError,
                                          "cannot create '\(path)': the settings do not describe a valid format (\(AVAudioFile.describe(settings)))", path: path,
                                          failedCall: create)
            }
            let (container2, pcmDescription) = try AVAudioFile.reporting(failedCall: create) {
                try AVAudioFile.dataDescription(forWriting: requested, container: container, path: path)
            }
            let pcmWriter: AudioFileWriter
            do {
                pcmWriter = try AudioFileWriter(path: path, container: container2, description: pcmDescription)
            } catch let error as AudioFileFormatError {
                throw AVAudioFile.nsError(error, path: path, failedCall: create)
            }
            layout = requested.channelLayout
            guard let pcmFileFormat = AVAudioFile.fileFormat(for: pcmDescription, layout: layout) else {
                try? pcmWriter.close()
                throw AVAudioFile.nsError(code: kAudioFileUnsupportedDataFormatError,
                                          "cannot create '\(path)' with \(pcmDescription) from \(format) buffers", path: path, failedCall: create)
            }
            (writer, description, fileFormat) = (pcmWriter, pcmDescription, pcmFileFormat)
        }
        guard let processing = AVAudioFile.processingFormat(format, interleaved: interleaved, sampleRate: description.sampleRate,
                                                            channels: description.channelCount, layout: layout) else {
            try? writer.close()
            throw AVAudioFile.nsError(code: kAudioFileUnsupportedDataFormatError,
                                      "cannot create '\(path)' with \(description) from \(format) buffers", path: path, failedCall: create)
        }
        self.url = fileURL
        self.writer = writer
        self.fileFormat = fileFormat
        self.processingFormat = processing
        self.dataDescription = description
        self.codec = FileSampleCodec(file: description, processing: processing)
        super.init()
    }

    deinit { close() }

    // MARK: State

    /// The number of sample frames in the file (for a file being written, the frames written so far).
    open var length: AVAudioFramePosition {
        if let stream { return stream.frameCount }
        if let writer { return AVAudioFramePosition(writer.framesWritten) }
        return 0
    }

    /// The position of the next read or write, in frames. Setting it seeks (clamped to
    /// `0...length`); a write before the end overwrites frames and extends the file if it runs
    /// past the end.
    open var framePosition: AVAudioFramePosition {
        get { position }
        set { position = max(0, min(newValue, length)) }
    }

    /// Whether the file is open (false after `close()`).
    open var isOpen: Bool { _isOpen }

    /// Closes the file: a file being written is finalised. Reading or writing afterwards throws.
    /// Safe to call more than once.
    open func close() {
        guard _isOpen else { return }
        _isOpen = false
        stream?.close()
        try? writer?.close()
        codec.release()
    }

    // MARK: Reading and writing

    /// Reads up to `buffer.frameCapacity` frames from `framePosition` into `buffer`, setting its
    /// `frameLength` (0 at the end of the file) and advancing `framePosition`.
    open func read(into buffer: AVAudioPCMBuffer) throws {
        try read(into: buffer, frameCount: buffer.frameCapacity)
    }

    /// Reads up to `frames` frames (at most the buffer's capacity) from `framePosition` into `buffer`.
    open func read(into buffer: AVAudioPCMBuffer, frameCount frames: AVAudioFrameCount) throws {
        guard _isOpen else { throw notOpen("read from") }
        guard let stream else {
            throw AVAudioFile.nsError(code: kAudioFilePermissionsError, "'\(url.path)' was opened for writing; it cannot be read", path: url.path)
        }
        try checkFormat(of: buffer, "read into")
        let wanted = min(AVAudioFramePosition(min(frames, buffer.frameCapacity)), max(0, stream.frameCount - position))
        let done: Int
        do {
            done = try stream.read(frames: Int(wanted), at: position, into: buffer, offset: 0)
        } catch let error as AudioFileFormatError {
            throw AVAudioFile.nsError(error, path: url.path, failedCall: AVFAudioFailedCall.readFile)
        }
        buffer.frameLength = AVAudioFrameCount(done)
        position += AVAudioFramePosition(done)
    }

    /// Writes `buffer.frameLength` frames at `framePosition` and advances it. The header on disk
    /// describes every frame written when this returns.
    open func write(from buffer: AVAudioPCMBuffer) throws {
        guard _isOpen else { throw notOpen("write to") }
        guard let writer else {
            throw AVAudioFile.nsError(code: kAudioFilePermissionsError, "'\(url.path)' was opened for reading; it cannot be written", path: url.path)
        }
        try checkFormat(of: buffer, "write from")
        let total = Int(buffer.frameLength)
        do {
            guard position <= AVAudioFramePosition(writer.framesWritten) else {
                throw AudioFileFormatError(code: kAudioFilePositionError, message:
                    "cannot write to '\(url.path)' at frame \(position): the file holds \(writer.framesWritten) frames, and writing may start at most at its end")
            }
            var done = 0
            while done < total {
                let chunk = min(total - done, codec.chunkFrames)
                try codec.encode(from: buffer, offset: done, frames: chunk, to: writer, atFrame: position + AVAudioFramePosition(done))
                done += chunk
            }
        } catch let error as AudioFileFormatError {
            throw AVAudioFile.nsError(error, path: url.path)
        }
        position += AVAudioFramePosition(total)
    }

    private func checkFormat(of buffer: AVAudioPCMBuffer, _ verb: String) throws {
        let f = buffer.format
        guard f.commonFormat == processingFormat.commonFormat, f.isInterleaved == processingFormat.isInterleaved,
              f.channelCount == processingFormat.channelCount else {
            throw AVAudioFile.nsError(code: -50, "cannot \(verb) '\(url.path)' with a buffer in \(f): the file's processing format is \(processingFormat)", path: url.path)
        }
    }

    private func notOpen(_ verb: String) -> NSError {
        AVAudioFile.nsError(code: kAudioFileNotOpenError, "cannot \(verb) '\(url.path)': the file has been closed", path: url.path)
    }

    open override var description: String {
        "<AVAudioFile: \(url.lastPathComponent), \(length) frames, file \(fileFormat), processing \(processingFormat)>"
    }
}
