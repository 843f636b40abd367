// Native FLAC files (`.flac`, RFC 9639 §8): the stream is its own container. The reader maps
// the file, finds every frame once when it opens (a scan for frame sync codes; a candidate must
// have a valid header — CRC-8 included — whose frame or sample number continues the previous
// frame's, and the two bytes before it must be the CRC-16 of the previous frame: no audio is
// decoded to index, and a sync pattern inside a frame's audio is not taken for a frame), and then decodes the frames a read needs, keeping the last one,
// so sequential reads decode each frame once and a seek decodes only the frame it lands in.
//
// It delivers what a PCM container reader does — raw interleaved little-endian integers,
// left-justified in 1, 2, 3 or 4-byte containers with `validBitsPerSample` the stream's depth —
// so the sample codecs above it treat a FLAC file like any PCM file. (The packet layer of the
// codec issue will serve FLAC frames as packets to AVAudioConverter and FLAC-in-MP4/Ogg too.)
//
// Threads: reads are serialised by a lock (the decoder keeps state); reading never allocates
// more than one frame's samples per channel (at most 65,536), whatever the header claims.
#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import AudioCodecs
import AudioKernels

public final class FLACFileReader: @unchecked Sendable {
    public let path: String
    public let info: FLACStreamInfo
    /// How `read` delivers the samples.
    public let description: AudioDataDescription
    /// Frames (interchannel samples) in the file.
    public let frameCount: Int64
    /// Notes about tolerated damage, one sentence each.
    public let warnings: [String]

    /// The file, mapped (nil once closed). A truncation under the mapping reads as zeros and is
    /// reported by `isIntact` (FileMapping.swift), never a crash.
    private var mapping: FileMapping?
    private let size: Int
    private let decoder: FLACFrameDecoder
    /// Each frame's first sample and byte offset, in stream order.
    private let frameStarts: [Int64]
    private let frameOffsets: [Int]
    private let state = Mutex<Int>(-1)   // the frame whose samples the decoder holds
    private var closed = false

    /// Where each frame starts in the file (-1: a stretch whose frames were damaged beyond
    /// recognition), in stream order. For diagnostics and tests.
    public var frameByteOffsets: [Int] { frameOffsets }

    /// Whether the file starts like a native FLAC stream.
    public static func sniff(_ firstBytes: [UInt8]) -> Bool {
        firstBytes.count >= 4 && firstBytes[0] == 0x66 && firstBytes[1] == 0x4C && firstBytes[2] == 0x61 && firstBytes[3] == 0x43
    }

    public init(path: String) throws {
        let file = try RawFile.open(path: path, forWriting: false)
        defer { _ = posixClose(file.fd) }
        let fileSize = Int(try file.size())
        guard fileSize > 0 else {
            throw AudioFileFormatError(code: Code.invalidFile, message: "\(quoted(path)) is empty")
        }
        guard let map = FileMapping(fd: file.fd, size: fileSize) else {
            throw systemError(errno, "cannot map", path: path)
        }
        self.path = path
        mapping = map
        size = fileSize
        let bytes = map.bytes
        do {
            let header = try FLACStreamHeader.parse(bytes)
            guard header.info.bitsPerSample <= 32 else {
                throw CodecError(.unsupported, "FLAC: \(header.info.bitsPerSample)-bit samples")
            }
            info = header.info
            decoder = FLACFrameDecoder(info: header.info)
            var warnings: [String] = []
            var (starts, offsets) = FLACFileReader.index(bytes, from: header.audioOffset, decoder: decoder, warnings: &warnings)
            // The last frame has no successor to confirm it: decode it once, and leave it out
            // when it is cut short or damaged (a truncated download), so `frameCount` counts
            // only frames that can be read.
            while let last = offsets.last, last >= 0, (try? decoder.decodeFrame(bytes, at: last)) == nil {
                starts.removeLast()
                offsets.removeLast()
                warnings.append("the last FLAC frame (at byte \(last)) is cut short or damaged; the frames before it are read")
            }
            while offsets.last.map({ $0 < 0 }) ?? false { starts.removeLast(); offsets.removeLast() }
            (frameStarts, frameOffsets) = (starts, offsets)
            let lastBlock = frameStarts.isEmpty ? 0 : (try? decoder.frameHeader(bytes, at: frameOffsets.last!).blockSize) ?? 0
            var frames = (frameStarts.last ?? 0) + Int64(lastBlock)
            if let total = info.totalSamples {
                if total < frames { frames = total }
                else if total > frames {
                    warnings.append("STREAMINFO announces \(total) samples but the frames present hold \(frames); reading the \(frames) present")
                }
            }
            frameCount = frames
            self.warnings = warnings
            let encoding: SampleEncoding
            switch info.bitsPerSample {
            case ...8: encoding = .signed8
            case ...16: encoding = .signed16
            case ...24: encoding = .signed24
            default: encoding = .signed32
            }
            description = AudioDataDescription(sampleRate: Double(info.sampleRate), channelCount: info.channelCount, encoding: encoding,
                                               bigEndian: false, validBitsPerSample: info.bitsPerSample)
        } catch let error as CodecError {
            if !map.isIntact { throw FLACFileReader.truncated(path) }
            let code = error.kind == .notThisFormat ? Code.unsupportedFileType : (error.kind == .unsupported ? Code.unsupportedDataFormat : Code.invalidFile)
            throw AudioFileFormatError(code: code, message: "\(quoted(path)): \(error.message)")
        }
        if !map.isIntact { throw FLACFileReader.truncated(path) }
    }

    /// The error for a file truncated while it was being read.
    static func truncated(_ path: String) -> AudioFileFormatError {
        AudioFileFormatError(code: Code.invalidFile, message: "\(quoted(path)) was truncated while it was being read")
    }

    deinit { close() }

    public func close() {
        state.withLock { _ in
            mapping = nil
            closed = true
        }
    }

    public var isClosed: Bool { state.withLock { _ in closed } }

    /// Finds the frames: from `start`, each next frame is the first position after the previous
    /// frame's header where a valid header continues the numbering and the previous frame's
    /// CRC-16 ends right before it. After damage (a frame whose CRC-16 fails, or whose header is
    /// destroyed) the scan resynchronises on a later frame whose own CRC-16 checks out, so the
    /// frames after the damage stay readable; the damaged frame stays in the index (reading it
    /// reports the damage).
    static func index(_ bytes: UnsafeRawBufferPointer, from start: Int, decoder: FLACFrameDecoder,
                      warnings: inout [String]) -> ([Int64], [Int]) {
        var starts: [Int64] = [], offsets: [Int] = []
        let p = bytes.bindMemory(to: UInt8.self)
        var position = start
        var nextSample: Int64 = 0
        var nextFrame: Int64 = 0
        /// Samples per frame of a fixed-block-size stream (its first frame's block size).
        var fixedBlock: Int64?
        var skipped = 0
        var resynchronised = 0
        func header(at q: Int) -> FLACFrameHeader? {
            guard q + 2 <= p.count, p[q] == 0xFF, p[q + 1] & 0xFE == 0xF8 else { return nil }
            return try? decoder.frameHeader(bytes, at: q)
        }
        /// Whether the frame at `q` (header `h`) is confirmed by its own CRC-16: the next frame's
        /// header follows it, or it ends the data.
        func confirmed(_ q: Int, _ h: FLACFrameHeader) -> Bool {
            if endsFrame(p, from: q, at: p.count) { return true }
            // (the next header lies within STREAMINFO's largest frame size, or 1 MiB when unknown)
            let largest = decoder.info.maximumFrameSize
            let limit = min(p.count, q + (largest > 0 ? largest + 16 : 1 << 20))
            var r = q + 4
            while r + 2 <= limit {
                if let n = header(at: r), n.variableBlockSize == h.variableBlockSize,
                   n.number == h.number + (h.variableBlockSize ? Int64(h.blockSize) : 1), endsFrame(p, from: q, at: r) {
                    return true
                }
                r += 1
            }
            return false
        }
        func accept(_ h: FLACFrameHeader, at q: Int, sample: Int64) {
            starts.append(sample)
            offsets.append(q)
            if !h.variableBlockSize && fixedBlock == nil { fixedBlock = Int64(h.blockSize) }
            nextSample = sample + Int64(h.blockSize)
            nextFrame = (h.variableBlockSize ? nextFrame : h.number) + 1
        }
        while position + 2 <= p.count {
            if let h = header(at: position) {
                let continues = h.variableBlockSize ? h.number == nextSample : h.number == nextFrame
                if continues && (offsets.last.map { endsFrame(p, from: $0, at: position) } ?? true) {
                    accept(h, at: position, sample: nextSample)
                    position += 4   // (the shortest frame is longer; the scan resumes past this header's sync)
                    continue
                }
                // After damage: a later frame (numbered at or after the one expected) whose own
                // CRC-16 checks out.
                let later = h.variableBlockSize ? h.number >= nextSample : h.number >= nextFrame
                if !offsets.isEmpty, later, !endsFrame(p, from: offsets.last!, at: position), confirmed(position, h) {
                    let sample = h.variableBlockSize ? h.number : h.number * (fixedBlock ?? Int64(h.blockSize))
                    if sample > nextSample {
                        // (frames whose headers were destroyed: the samples keep their positions,
                        // and reading them reports the damage: offset -1)
                        starts.append(nextSample)
                        offsets.append(-1)
                    }
                    resynchronised += 1
                    accept(h, at: position, sample: sample)
                    position += 4
                    continue
                }
            }
            // On to the next 0xFF byte (the only byte a sync code starts with): memchr's wide
            // scan instead of testing the frame's bytes one by one.
            var next = p.count
            if position + 1 < p.count, let hit = memchr(p.baseAddress! + position + 1, 0xFF, p.count - position - 1) {
                next = p.baseAddress!.distance(to: hit.assumingMemoryBound(to: UInt8.self))
            }
            skipped += max(0, next - max(position, start + 1))
            position = next
        }
        if offsets.first.map({ $0 != start }) ?? true, p.count > start {
            warnings.append("the audio does not start with a FLAC frame; \(skipped) bytes were skipped looking for frames")
        }
        if resynchronised > 0 {
            warnings.append("\(resynchronised) damaged stretch(es) of frames: reading them reports the damage; the frames after each are read")
        }
        return (starts, offsets)
    }

    /// Whether the frame starting at `start` ends right before `end`: its last two bytes are the
    /// CRC-16 of the bytes before them.
    static func endsFrame(_ p: UnsafeBufferPointer<UInt8>, from start: Int, at end: Int) -> Bool {
        guard end - start >= 8 else { return false }
        let stored = UInt16(p[end - 2]) << 8 | UInt16(p[end - 1])
        return FLACChecksums.crc16(p.baseAddress! + start, end - 2 - start) == stored
    }

    /// Reads up to `frames` frames from frame `frame` into `buffer` (`frames × bytesPerFrame`
    /// bytes), as `description` says. Returns the frames read (0 at or past the end).
    public func read(frames: Int, startingAt frame: Int64, into buffer: UnsafeMutableRawPointer) throws -> Int {
        let channels = info.channelCount
        let width = description.encoding.bytesPerSample
        let shift = Int64(width * 8 - info.bitsPerSample)
        return try decodeFrames(frames: frames, startingAt: frame, deferringDecorrelation: false) { first, n, done in
          for c in 0..<channels {
            let s = decoder.samples(channel: c) + first
            var out = buffer + (done * channels + c) * width
            let stride = channels * width
            switch width {
            case 1:
                for i in 0..<n { out.storeBytes(of: Int8(truncatingIfNeeded: s[i] << shift), as: Int8.self); out += stride }
            case 2:
                for i in 0..<n { out.storeBytes(of: Int16(truncatingIfNeeded: s[i] << shift).littleEndian, as: Int16.self); out += stride }
            case 3:
                for i in 0..<n {
                    let v = UInt32(truncatingIfNeeded: s[i] << shift)
                    out.storeBytes(of: UInt8(truncatingIfNeeded: v), as: UInt8.self)
                    (out + 1).storeBytes(of: UInt8(truncatingIfNeeded: v >> 8), as: UInt8.self)
                    (out + 2).storeBytes(of: UInt8(truncatingIfNeeded: v >> 16), as: UInt8.self)
                    out += stride
                }
            default:
                for i in 0..<n { out.storeBytes(of: Int32(truncatingIfNeeded: s[i] << shift).littleEndian, as: Int32.self); out += stride }
            }
          }
        }
    }

    /// Reads up to `frames` frames from frame `frame` straight into one Float32 array per
    /// channel (`channels[c]`, `frames` samples each): the values `read` followed by the
    /// sample conversion of `description`'s encoding would give (SampleScaling: the container
    /// integer over 2^(container bits − 1)), without the interleaved integer copy in between.
    public func readFloat32(frames: Int, startingAt frame: Int64, into channels: UnsafePointer<UnsafeMutablePointer<Float>>) throws -> Int? {
        let width = description.encoding.bytesPerSample
        let shift = width * 8 - info.bitsPerSample
        // (the scale is a power of two: exact; the conversion rounds only 32-bit integers)
        let scale = 1 / Float(Int64(1) << Int64(width * 8 - 1))
        // (stereo decorrelation deferred to the conversion: one pass over the frame's samples)
        return try decodeFrames(frames: frames, startingAt: frame, deferringDecorrelation: true) { first, n, done in
            decoder.convertToFloat32(from: first, count: n, shift: shift, scale: scale, into: channels, at: done)
        }
    }

    /// Decodes the FLAC frames covering `frames` frames from `frame` and hands the part of each
    /// that is wanted to `emit(firstSampleInTheFrame, count, framesAlreadyDone)`, which takes the
    /// samples from `decoder`. Returns the frames delivered.
    private func decodeFrames(frames: Int, startingAt frame: Int64, deferringDecorrelation: Bool,
                              _ emit: (Int, Int, Int) -> Void) throws -> Int {
        let wanted = try framesToRead(frames, at: frame, of: frameCount, path: path)
        guard wanted > 0 else { return 0 }
        return try state.withLock { held -> Int in
            guard !closed, let mapping else {
                throw AudioFileFormatError(code: Code.notOpen, message: "cannot read \(quoted(path)): the file has been closed")
            }
            let bytes = mapping.bytes
            var done = 0
            // The frame holding `frame`: the last start at or before it.
            var k = frameStarts.lastIndex(before: frame + 1)
            while done < wanted && k < frameStarts.count {
                if frameOffsets[k] < 0 {
                    throw AudioFileFormatError(code: Code.invalidFile,
                                               message: "cannot read \(quoted(path)) at frame \(frameStarts[k]): the FLAC frames there are damaged beyond recognition")
                }
                if held != k {
                    do {
                        _ = try decoder.decodeFrame(bytes, at: frameOffsets[k], deferringDecorrelation: deferringDecorrelation)
                    } catch let error as CodecError {
                        held = -1
                        if !mapping.isIntact { throw FLACFileReader.truncated(path) }
                        throw AudioFileFormatError(code: Code.invalidFile, message: "cannot read \(quoted(path)): \(error.message)")
                    }
                    guard mapping.isIntact else { held = -1; throw FLACFileReader.truncated(path) }
                    held = k
                }
                let first = Int(frame + Int64(done) - frameStarts[k])
                let end = k + 1 < frameStarts.count ? Int(frameStarts[k + 1] - frameStarts[k]) : Int(frameCount - frameStarts[k])
                let n = min(wanted - done, end - first)
                guard n > 0 else { k += 1; continue }
                emit(first, n, done)
                done += n
                k += 1
            }
            return done
        }
    }
}

extension Array where Element == Int64 {
    /// The index of the last element smaller than `value` (sorted ascending); 0 when none.
    func lastIndex(before value: Int64) -> Int {
        var lo = 0, hi = count
        while lo < hi {
            let mid = (lo + hi) / 2
            if self[mid] < value { lo = mid + 1 } else { hi = mid }
        }
        return Swift.max(0, lo - 1)
    }
}
