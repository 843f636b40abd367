// Moves samples between a file's bytes and AVAudioPCMBuffers, a chunk at a time.
//
// Why a staging buffer: file samples are interleaved in the file's encoding and byte order, while
// buffers hold one of four processing types, often deinterleaved. Reading a chunk into a small
// staging area and converting it from there keeps both in cache; 256 KiB (about 64k stereo
// 16-bit frames) fits the L2 cache of the machines we measure on and needs only a handful of
// pread/pwrite calls per second of 48 kHz audio.
//
// When the file already stores exactly the processing layout (e.g. a mono float32 WAV read as
// Float32, or interleaved Int16 read as interleaved Int16), samples go straight between the file
// and the buffer with no staging copy.
import AudioFileFormats
import AudioKernels

final class FileSampleCodec {
    /// Frames converted per staging round trip.
    let chunkFrames: Int
    private let encoding: SampleEncoding
    private let bigEndian: Bool
    private let fileBytesPerFrame: Int
    private var staging: UnsafeMutableRawPointer?
    /// True when file bytes are the processing buffer's bytes.
    private let direct: Bool

    static let stagingBytes = 256 * 1024

    init(file: AudioDataDescription, processing: AVAudioFormat) {
        encoding = file.encoding
        bigEndian = file.bigEndian && file.encoding.bytesPerSample > 1
        fileBytesPerFrame = max(1, file.bytesPerFrame)
        chunkFrames = max(256, FileSampleCodec.stagingBytes / fileBytesPerFrame)
        let type = processing.processingSampleType
        let sameType: Bool
        switch (file.encoding, type) {
        case (.float32, .float32?), (.float64, .float64?), (.signed16, .int16?), (.signed32, .int32?): sameType = true
        default: sameType = false
        }
        direct = sameType && !bigEndian && (processing.isInterleaved || file.channelCount == 1)
    }

    deinit { release() }

    func release() {
        staging?.deallocate()
        staging = nil
    }

    private func stagingBuffer() -> UnsafeMutableRawPointer {
        if let staging { return staging }
        let memory = UnsafeMutableRawPointer.allocate(byteCount: chunkFrames * fileBytesPerFrame, alignment: 64)
        staging = memory
        return memory
    }

    /// Reads up to `frames` (≤ chunkFrames) frames at `position` into `buffer` at frame `offset`;
    /// returns the frames read.
    func decode(from reader: AudioFileReader, frames: Int, at position: Int64, into buffer: AVAudioPCMBuffer, offset: Int) throws -> Int {
        if direct {
            let destination = buffer.rawBufferPointers[0] + offset * buffer.bytesPerFrameInEachBuffer
            return try reader.read(frames: frames, startingAt: position, into: destination)
        }
        let staging = stagingBuffer()
        let got = try reader.read(frames: frames, startingAt: position, into: staging)
        SampleConversion.decode(frameCount: got, from: staging, encoding: encoding, bigEndian: bigEndian,
                                to: buffer.processingBufferPointer, atFrame: offset)
        return got
    }

    /// Writes `frames` (≤ chunkFrames) frames of `buffer` from frame `offset`.
    func encode(from buffer: AVAudioPCMBuffer, offset: Int, frames: Int, to writer: AudioFileWriter, atFrame frame: Int64) throws {
        if direct {
            try writer.write(frames: frames, from: buffer.rawBufferPointers[0] + offset * buffer.bytesPerFrameInEachBuffer, atFrame: frame)
            return
        }
        let staging = stagingBuffer()
        SampleConversion.encode(frameCount: frames, from: buffer.processingBufferPointer, atFrame: offset,
                                to: staging, encoding: encoding, bigEndian: bigEndian)
        try writer.write(frames: frames, from: staging, atFrame: frame)
    }
}

extension AVAudioFormat {
    /// The kernel sample type of a common-format PCM format.
    var processingSampleType: ProcessingSampleType? {
        switch commonFormat {
        case .pcmFormatFloat32: return .float32
        case .pcmFormatFloat64: return .float64
        case .pcmFormatInt16: return .int16
        case .pcmFormatInt32: return .int32
        case .otherFormat: return nil
        }
    }
}

extension AVAudioPCMBuffer {
    /// The kernels' view of this buffer's memory (common formats only).
    var processingBufferPointer: ProcessingBufferPointer {
        guard let type = format.processingSampleType else {
            preconditionFailure("AVAudioPCMBuffer in \(format) has no common sample format for conversion")
        }
        if format.isInterleaved {
            return .interleaved(rawBufferPointers[0], channelCount: Int(format.channelCount), sampleType: type)
        }
        return .deinterleaved(UnsafeBufferPointer(start: rawBufferPointers, count: rawBufferCount), sampleType: type)
    }
}
