// Native FLAC files written (RFC 9639 §8): "fLaC", one STREAMINFO block, then frames from
// AudioCodecs' FLACEncoder.
//
// It takes what a PCM container writer takes — raw interleaved little-endian integers,
// left-justified in 1, 2, 3 or 4-byte containers, `validBitsPerSample` the stream's depth (the
// mirror of FLACFileReader) — so AVAudioFile's sample codecs feed it like any PCM writer.
//
// Buffering: frames are encoded 4,096 samples at a time; a `write` encodes every whole frame it
// completes and keeps the rest (fewer than 4,096 samples per channel) for the next call. `close()`
// (and deinit) encodes that remainder as the last, shorter frame.
//
// Crash safety, as for the PCM writers: the file is created with its header in place, every
// frame is written before STREAMINFO is rewritten to count it, and STREAMINFO is rewritten after
// every `write` that completed a frame — total samples (the samples in the frames on disk) and
// the minimum/maximum frame sizes are always current. The MD5 signature stays all zero ("not
// computed", RFC 9639 §8.2) until `close()`, since the samples still buffered are not in the file
// yet. A writer killed at any moment therefore leaves a valid FLAC stream holding every complete
// frame; only the samples buffered for an unfinished frame are lost.
//
// The same frames go into Ogg pages instead (FLAC in Ogg, `.oga`/`.ogg`) when the writer is made
// with `container: .ogg`: OggFLACOutput lays out the pages, with the same crash safety.
import AudioCodecs
import AudioKernels
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a FLACFileWriter's frames go.
public enum FLACContainer: Sendable {
    /// A native FLAC stream (`.flac`).
    case native
    /// FLAC in Ogg, mapping 1.0 (`.oga`, `.ogg`).
    case ogg
}

public final class FLACFileWriter {
    public let path: String
    public let description: AudioDataDescription
    /// Frames accepted so far, including those buffered for the next FLAC frame.
    public private(set) var framesWritten: Int64 = 0
    /// Frames in complete FLAC frames on disk (what STREAMINFO says).
    public private(set) var framesEncoded: Int64 = 0
    /// Samples per FLAC frame.
    public var blockSize: Int { encoder.blockSize }

    private var file: RawFile
    private let encoder: FLACEncoder
    private let containerBytes: Int
    private let justification: Int64
    private var buffered = 0
    private var frameNumber: Int64 = 0
    private var offset: Int64
    private var minimumFrameSize = 0
    private var maximumFrameSize = 0
    private var md5 = MD5()
    private var md5Bytes: [UInt8]
    private var closed = false
    /// The Ogg page layer, for `container: .ogg`.
    private let ogg: OggFLACOutput?

    /// Creates (or replaces) `path` as a FLAC stream of `description`'s rate, channels and depth
    /// (`validBitsPerSample`, 4–32; samples in signed 8/16/24/32-bit containers). Throws 'fmt?'
    /// when FLAC cannot hold the format, and the PCM writers' errors when the file cannot be created.
    /// `compressionLevel` (0…8, libFLAC's scale; 5 by default as in libFLAC and `flac`) sets
    /// the block size and the largest LPC order (`FLACEncoder.parameters(forLevel:)`).
    /// `container` chooses native FLAC or FLAC in Ogg.
    public init(path: String, description: AudioDataDescription, compressionLevel: Int = 5, container: FLACContainer = .native) throws {
        func refuse(_ text: String) -> AudioFileFormatError {
            AudioFileFormatError(code: Code.unsupportedDataFormat, message: "cannot write \(quoted(path)): \(text)")
        }
        switch description.encoding {
        case .signed8, .signed16, .signed24, .signed32: break
        default: throw refuse("FLAC stores integer samples, not \(description.encoding)")
        }
        guard description.sampleRate == description.sampleRate.rounded(), description.sampleRate >= 1, description.sampleRate <= 1_048_575 else {
            throw refuse("FLAC stores whole-number sample rates of 1 to 1,048,575 Hz, not \(description.sampleRate) Hz")
        }
        let containerBits = description.encoding.bytesPerSample * 8
        guard description.validBitsPerSample >= 4, description.validBitsPerSample <= containerBits else {
            throw refuse("\(description.validBitsPerSample)-bit samples in \(containerBits)-bit containers; FLAC stores 4 to 32 bits")
        }
        let encoder: FLACEncoder
        do {
            let level = FLACEncoder.parameters(forLevel: compressionLevel)
            encoder = try FLACEncoder(sampleRate: Int(description.sampleRate), channelCount: description.channelCount,
                                      bitsPerSample: description.validBitsPerSample, blockSize: level.blockSize,
                                      maximumLPCOrder: level.maximumLPCOrder)
        } catch let error as CodecError {
            throw refuse(error.message)
        }
        let ogg = container == .ogg ? OggFLACOutput() : nil
        let streamHeader = encoder.streamHeader(minimumFrameSize: 0, maximumFrameSize: 0, totalSamples: 0, md5: [])
        let header = ogg?.headerPages(streamHeader) ?? streamHeader
        file = try RawFile.create(path: path, header: header)
        self.ogg = ogg
        // Another file may have stood here: drop anything beyond the header.
        _ = ftruncate(file.fd, off_t(header.count))
        self.path = path
        self.description = description
        self.encoder = encoder
        containerBytes = description.encoding.bytesPerSample
        justification = Int64(containerBits - description.validBitsPerSample)
        offset = Int64(header.count)
        md5Bytes = [UInt8](repeating: 0, count: encoder.blockSize * description.channelCount * ((description.validBitsPerSample + 7) / 8))
    }

    deinit {
        if !closed { try? close() }
    }

    /// Appends `frames` interleaved frames from `buffer` (frames × bytesPerFrame bytes), encoding
    /// every FLAC frame they complete; then STREAMINFO counts every frame on disk.
    public func write(frames: Int, from buffer: UnsafeRawPointer) throws {
        guard !closed else {
            throw AudioFileFormatError(code: Code.notOpen, message: "cannot write to \(quoted(path)): the file has been closed")
        }
        guard frames >= 0 else {
            throw AudioFileFormatError(code: Code.position, message: "cannot write \(frames) frames to \(quoted(path)): the count is negative")
        }
        let channels = description.channelCount
        let bytesPerFrame = containerBytes * channels
        var done = 0
        var encodedAny = false
        defer { if encodedAny { try? writeStreamInfo(final: false) } }
        while done < frames {
            // A frame left full by a failed write goes out first.
            if buffered == encoder.blockSize {
                try emitFrame()
                encodedAny = true
            }
            let take = min(frames - done, encoder.blockSize - buffered)
            let source = buffer + done * bytesPerFrame
            for c in 0..<channels {
                deinterleave(source + c * containerBytes, stride: bytesPerFrame, count: take, into: encoder.samples(channel: c) + buffered)
            }
            buffered += take
            done += take
            framesWritten += Int64(take)
            if buffered == encoder.blockSize {
                try emitFrame()
                encodedAny = true
            }
        }
        // Ogg: the frames completed go onto pages now (a failure throws here; the frames stay
        // queued for the next attempt).
        if encodedAny, let ogg { try ogg.flush(to: file) }
    }

    /// FLAC frames cannot be rewritten in place: writing is allowed only at the end.
    public func write(frames: Int, from buffer: UnsafeRawPointer, atFrame frame: Int64) throws {
        guard frame == framesWritten else {
            throw AudioFileFormatError(code: Code.operationNotSupported, message:
                "cannot write at frame \(frame) of \(quoted(path)): a FLAC file is written only at its end (frame \(framesWritten))")
        }
        try write(frames: frames, from: buffer)
    }

    /// Encodes the buffered samples as the last frame, writes the final STREAMINFO (with the MD5
    /// of every sample) and closes the file. Closing twice does nothing.
    public func close() throws {
        guard !closed else { return }
        closed = true
        var failure: Error?
        do {
            if buffered > 0 { try emitFrame() }
            try writeStreamInfo(final: true)
        } catch {
            failure = error
        }
        if posixClose(file.fd) != 0 && failure == nil {
            failure = systemError(errno, "cannot close", path: path)
        }
        file.fd = -1
        if let failure { throw failure }
    }

    /// Takes channel samples out of the interleaved containers. A depth below its container's
    /// (12 or 20 bits, say) is rounded to the nearest step of that depth (the largest value where
    /// rounding up would overflow); exact values — low bits zero — pass unchanged.
    private func deinterleave(_ p: UnsafeRawPointer, stride: Int, count: Int, into out: UnsafeMutablePointer<Int64>) {
        let shift = justification
        defer {
            if shift > 0 {
                let half = Int64(1) << (shift - 1)
                let largest = (Int64(1) << Int64(description.validBitsPerSample - 1)) - 1
                for i in 0..<count { out[i] = min((out[i] + half) >> shift, largest) }
            }
        }
        switch containerBytes {
        case 1:
            for i in 0..<count { out[i] = Int64(p.load(fromByteOffset: i * stride, as: Int8.self)) }
        case 2:
            for i in 0..<count { out[i] = Int64(Int16(littleEndian: p.loadUnaligned(fromByteOffset: i * stride, as: Int16.self))) }
        case 3:
            for i in 0..<count {
                let b = p + i * stride
                let v = Int32(b.load(as: UInt8.self)) | Int32(b.load(fromByteOffset: 1, as: UInt8.self)) << 8
                    | Int32(b.load(fromByteOffset: 2, as: Int8.self)) << 16
                out[i] = Int64(v)
            }
        default:
            for i in 0..<count { out[i] = Int64(Int32(littleEndian: p.loadUnaligned(fromByteOffset: i * stride, as: Int32.self))) }
        }
    }

    /// Encodes the `buffered` samples as the next frame and appends it. On a write error the
    /// samples stay buffered (a partial frame at the end of the file is ignored by readers and
    /// overwritten by the next attempt).
    private func emitFrame() throws {
        let n = buffered
        let bytes = encoder.encodeFrame(count: n, frameNumber: frameNumber)
        if let ogg {
            ogg.append(bytes, endSample: framesEncoded + Int64(n))
        } else {
            let result = file.write(bytes.baseAddress!, count: bytes.count, at: offset)
            if result.errno != 0 { throw file.writeError(result.errno) }
            offset += Int64(bytes.count)
        }
        minimumFrameSize = minimumFrameSize == 0 ? bytes.count : min(minimumFrameSize, bytes.count)
        maximumFrameSize = max(maximumFrameSize, bytes.count)
        updateMD5(count: n)
        framesEncoded += Int64(n)
        frameNumber += 1
        buffered = 0
    }

    /// Adds a frame's samples to the MD5 signature: interleaved, little-endian, in the fewest
    /// whole bytes that hold the depth (RFC 9639 §8.2).
    private func updateMD5(count n: Int) {
        let channels = description.channelCount
        let width = (description.validBitsPerSample + 7) / 8
        let planes = (0..<channels).map { encoder.samples(channel: $0) }
        md5Bytes.withUnsafeMutableBytes { raw in
            let out = raw.baseAddress!
            var k = 0
            if width == 2 {
                // The common case in one store per sample.
                for i in 0..<n {
                    for c in 0..<channels {
                        out.storeBytes(of: UInt16(truncatingIfNeeded: planes[c][i]).littleEndian, toByteOffset: k, as: UInt16.self)
                        k += 2
                    }
                }
            } else {
                for i in 0..<n {
                    for c in 0..<channels {
                        let v = UInt64(bitPattern: planes[c][i])
                        for b in 0..<width { out.storeBytes(of: UInt8(truncatingIfNeeded: v >> UInt64(8 * b)), toByteOffset: k + b, as: UInt8.self) }
                        k += width
                    }
                }
            }
            md5.update(out, count: k)
        }
    }

    private func writeStreamInfo(final: Bool) throws {
        let digest = final ? md5.finish() : []
        let header = encoder.streamHeader(minimumFrameSize: minimumFrameSize, maximumFrameSize: maximumFrameSize,
                                          totalSamples: framesEncoded, md5: digest)
        if let ogg {
            try ogg.flush(to: file)
            try ogg.rewriteIdentification(header, in: file)
            if final { try ogg.finish(in: file) }
        } else {
            try file.write(header, at: 0)
        }
    }
}
