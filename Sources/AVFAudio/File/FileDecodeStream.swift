// The one path from a file's stored samples to PCM buffers.
//
// `AVAudioFile.read(into:)` and the player's file scheduling (`FileSegmentSource`, filled on the
// control side, the prefetch thread or the offline render) both decode through this stream: the
// container reader (AudioFileFormats) delivers the stored frames, `FileSampleCodec` turns them
// into the processing format a chunk at a time. A player opens its own stream on the file, since
// an AVAudioFile is not thread-safe (one object per thread, as on Apple platforms).
//
// Compressed formats plug in here once: a packet reader in place of the frame reader, and a
// decoder (the AVAudioConverter's) in place of the sample codec, behind the same `read`.
import AudioFileFormats

final class FileDecodeStream {
    /// How the file stores its samples.
    let description: AudioDataDescription
    /// The format `read` delivers.
    let processingFormat: AVAudioFormat
    /// The sample codec (AVAudioFile also encodes through it when writing).
    let codec: FileSampleCodec
    private let reader: AudioFileReader

    /// Decodes `reader`'s frames into buffers in `processing` (same rate and channels as the file).
    init(reader: AudioFileReader, processing: AVAudioFormat) {
        self.reader = reader
        description = reader.description
        processingFormat = processing
        codec = FileSampleCodec(file: reader.description, processing: processing)
    }

    /// Opens the file at `path` (throws `AudioFileFormatError` when it cannot be read).
    convenience init(path: String, processing: (AudioDataDescription) -> AVAudioFormat) throws {
        let reader = try AudioFileReader(path: path)
        self.init(reader: reader, processing: processing(reader.description))
    }

    /// Frames in the file.
    var frameCount: Int64 { reader.frameCount }

    /// Decodes up to `frames` frames from file frame `position` into `buffer` (in
    /// `processingFormat`) starting at its frame `offset`; returns the frames decoded, fewer only
    /// at the end of the file. Throws `AudioFileFormatError` when the file cannot be read.
    func read(frames: Int, at position: Int64, into buffer: AVAudioPCMBuffer, offset: Int) throws -> Int {
        var done = 0
        // Without conversion the file's bytes go straight into the buffer: one read for the whole
        // request, as libsndfile does (measured against 1 MiB and 256 KiB reads on a 230 MB float32
        // WAV read into an interleaved Float32 buffer: 38.8 vs 39.1 vs 40.2 ms CPU).
        while done < frames {
            let chunk = min(frames - done, codec.isDirect ? frames - done : codec.chunkFrames)
            let got = try codec.decode(from: reader, frames: chunk, at: position + Int64(done), into: buffer, offset: offset + done)
            done += got
            if got < chunk { break }
        }
        return done
    }

    func close() {
        reader.close()
        codec.release()
    }
}
