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
import Foundation

final class FileDecodeStream {
    /// How the file stores its samples.
    let description: AudioDataDescription
    /// The format `read` delivers.
    let processingFormat: AVAudioFormat
    /// The sample codec (AVAudioFile also encodes through it when writing).
    let codec: FileSampleCodec
    private let reader: StoredFrameReader

    /// Decodes `reader`'s frames into buffers in `processing` (same rate and channels as the file).
    init(reader: StoredFrameReader, processing: AVAudioFormat) {
        self.reader = reader
        description = reader.description
        processingFormat = processing
        codec = FileSampleCodec(file: reader.description, processing: processing)
    }

    /// Opens the file at `path` (throws `AudioFileFormatError` when it cannot be read).
    convenience init(path: String, processing: (AudioDataDescription) -> AVAudioFormat) throws {
        let reader = try openStoredFrameReader(path: path)
        self.init(reader: reader, processing: processing(reader.description))
    }

    /// Frames in the file.
    var frameCount: Int64 { reader.frameCount }

    /// Decodes up to `frames` frames from file frame `position` into `buffer` (in
    /// `processingFormat`) starting at its frame `offset`; returns the frames decoded, fewer only
    /// at the end of the file. Throws `AudioFileFormatError` when the file cannot be read.
    func read(frames: Int, at position: Int64, into buffer: AVAudioPCMBuffer, offset: Int) throws -> Int {
        // A large read that converts (deinterleaves, scales) runs as two halves on two threads:
        // each half's kernel copy and conversion overlap the other's. Same work and CPU time,
        // about half the wall time on an idle second core. Only for readers that serve positional
        // reads from several threads (the PCM containers), and reads of at least 16 MB.
        if !codec.isDirect, frames * description.bytesPerFrame >= FileDecodeStream.splitBytes,
           reader is AudioFileReader, ProcessInfo.processInfo.activeProcessorCount >= 2 {
            let second = secondCodec ?? FileSampleCodec(file: description, processing: processingFormat)
            secondCodec = second
            let half = frames / 2
            var got = [0, 0]
            var failure: [Error?] = [nil, nil]
            let codecs = [codec, second]
            got.withUnsafeMutableBufferPointer { got in
                failure.withUnsafeMutableBufferPointer { failure in
                    let g = UncheckedSendable(got), f = UncheckedSendable(failure)
                    DispatchQueue.concurrentPerform(iterations: 2) { part in
                        let start = part == 0 ? 0 : half
                        let count = part == 0 ? half : frames - half
                        do {
                            g.value[part] = try self.decode(with: codecs[part], frames: count, at: position + Int64(start),
                                                            into: buffer, offset: offset + start)
                        } catch {
                            f.value[part] = error
                        }
                    }
                }
            }
            if let error = failure[0] ?? (got[0] == half ? failure[1] : nil) { throw error }
            return got[0] < half ? got[0] : half + got[1]
        }
        return try decode(with: codec, frames: frames, at: position, into: buffer, offset: offset)
    }

    /// Reads that convert, of at least this many stored bytes, decode from a mapping of the file.
    static let mappedBytes = 1 << 20
    /// Reads of at least this many stored bytes are split over two threads.
    static let splitBytes = 16 << 20
    /// The second half's codec (its own staging memory), made on first use.
    private var secondCodec: FileSampleCodec?

    private func decode(with codec: FileSampleCodec, frames: Int, at position: Int64, into buffer: AVAudioPCMBuffer, offset: Int) throws -> Int {
        // A large read that converts decodes straight from a mapping of the file: one pass over
        // the samples instead of a kernel copy into staging and a second pass out of it (see
        // FileMapping.swift, which also keeps a file truncated meanwhile from crashing the process).
        if !codec.isDirect, frames * description.bytesPerFrame >= FileDecodeStream.mappedBytes,
           let pcm = reader as? AudioFileReader,
           let got = try pcm.withMappedFrames(frames, startingAt: position, { bytes, count in
               codec.decode(mapped: bytes, frames: count, into: buffer, offset: offset)
               return count
           }) {
            return got
        }
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
        secondCodec?.release()
    }
}
