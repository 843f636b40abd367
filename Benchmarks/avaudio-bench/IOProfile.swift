// Where the time of one AVAudioFile decode / encode goes: the same work split into its pieces and
// timed one by one, plus "what if" variants of the buffer allocation.
//
//   avaudio-bench io-profile [--only wav16] [--input FILE] [--seconds 600] [--runs 3] [--json]
//
// Decode pieces (whole file):
//   open            AVAudioFile(forReading:) + close (header parsing)
//   buffer alloc    AVAudioPCMBuffer(pcmFormat:frameCapacity:) for the whole file (posix_memalign + memset)
//   alloc+touch THP the same size with posix_memalign(2 MiB) + madvise(MADV_HUGEPAGE) + memset
//   pread           the file's data bytes, 256 KiB per pread into one staging buffer (page cache → L2)
//   kernel          SampleConversion.decode of a 256 KiB L2-resident staging chunk to every
//                   successive chunk of a touched destination (what read(into:) does after pread)
//   read prealloc   AVAudioFile read(into:) a touched buffer (= pread + kernel + overhead)
//   read untouched  read(into:) a fresh buffer made with bufferListNoCopy from posix_memalign,
//                   no memset: page faults happen inside the kernel (what dropping memset gives)
//   read THP        the same with madvise(MADV_HUGEPAGE) (what huge pages give)
//   decode          the benchmarked workload: open + alloc (memset) + read
// Encode pieces:
//   kernel          SampleConversion.encode of every chunk of the source into one staging buffer
//   pwrite          create (O_TRUNC) + pwrite the data bytes in 256 KiB chunks + close
//   encode          the benchmarked workload: AVAudioFile(forWriting:) + write(from:) + close
//
// The staging size (256 KiB) mirrors FileSampleCodec.stagingBytes in Sources/AVFAudio/File.
import AVFAudio
import AudioFileFormats
import AudioKernels
#if canImport(Glibc)
import Glibc
#endif

enum IOProfile {
    static let stagingBytes = 256 * 1024

    static func run(_ args: Arguments) throws {
        let options = try SuiteOptions(args)
        let key = args.string("--only") ?? "wav16"
        let format = try IOFormat.named(key)
        mkdir(options.dir, 0o755)
        let path: String
        var source: AVAudioPCMBuffer
        if let input = args.string("--input") {
            path = input
            source = try IOWork.decode(input)
        } else {
            path = "\(options.dir)/profile-\(format.key).\(format.fileExtension)"
            source = Material.make(seconds: options.seconds, sampleRate: format.sampleRate)
            try IOWork.encode(source, to: path, format: format)
        }
        let reader = try AudioFileReader(path: path)
        let d = reader.description
        let frames = Int(reader.frameCount)
        let bytesPerFrame = d.bytesPerFrame
        let dataBytes = frames * bytesPerFrame
        let dataOffset = reader.dataOffset
        reader.close()
        let chunkFrames = max(256, stagingBytes / bytesPerFrame)
        let seconds = Double(frames) / d.sampleRate
        let processing = AVAudioFormat(standardFormatWithSampleRate: d.sampleRate, channels: AVAudioChannelCount(d.channelCount))!
        let bufferBytes = frames * 4 * d.channelCount
        let w = options.warmup, n = options.runs
        note("[io-profile] \(path): \(frames) frames, \(d), \(dataBytes) data bytes, chunk \(chunkFrames) frames")

        var results: [BenchResult] = []
        func add(_ name: String, _ samples: [Sample], _ metrics: [(String, JSONValue)] = []) {
            results.append(BenchResult(suite: "io-profile", workload: "\(format.key) " + name, audioSeconds: seconds,
                                       samples: samples, metrics: metrics))
        }

        // --- decode pieces
        add("decode: open+close", try measure(warmup: w, runs: n) { try AVAudioFile(forReading: IOWork.url(path)).close() })
        add("decode: buffer alloc (memset)", measureKeeping(warmup: w, runs: n) {
            AVAudioPCMBuffer(pcmFormat: processing, frameCapacity: AVAudioFrameCount(frames))!
        }.samples)
        add("decode: alloc+memset THP", measureKeeping(warmup: w, runs: n) { RawBlock(bytes: bufferBytes, hugePages: true, touch: true) }.samples)

        let staging = UnsafeMutableRawPointer.allocate(byteCount: chunkFrames * bytesPerFrame, alignment: 64)
        defer { staging.deallocate() }
        memset(staging, 0, chunkFrames * bytesPerFrame)
        add("decode: pread 256 KiB chunks", try measure(warmup: w, runs: n) {
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw BenchError("cannot open \(path)") }
            defer { close(fd) }
            var done = 0
            while done < dataBytes {
                let want = min(chunkFrames * bytesPerFrame, dataBytes - done)
                let got = pread(fd, staging, want, off_t(dataOffset) + off_t(done))
                guard got > 0 else { throw BenchError("short read") }
                done += got
            }
        })
        let touched = AVAudioPCMBuffer(pcmFormat: processing, frameCapacity: AVAudioFrameCount(frames))!
        let channelPointers = UnsafeMutablePointer<UnsafeMutableRawPointer>.allocate(capacity: d.channelCount)
        defer { channelPointers.deallocate() }
        for c in 0 ..< d.channelCount { channelPointers[c] = UnsafeMutableRawPointer(touched.floatChannelData![c]) }
        let destination = ProcessingBufferPointer.deinterleaved(UnsafeBufferPointer(start: channelPointers, count: d.channelCount),
                                                                sampleType: .float32)
        add("decode: kernel (L2 staging → buffer)", measure(warmup: w, runs: n) {
            var done = 0
            while done < frames {
                let k = min(chunkFrames, frames - done)
                SampleConversion.decode(frameCount: k, from: staging, encoding: d.encoding, bigEndian: d.bigEndian,
                                        to: destination, atFrame: done)
                done += k
            }
        })
        add("decode: read(into:) prealloc", try measure(warmup: w, runs: n) { try IOWork.decode(path, into: touched) })
        add("decode: read(into:) untouched, no memset", try measureKeeping(warmup: w, runs: n) { () -> (RawBlock, AVAudioPCMBuffer) in
            try readIntoFresh(path, processing, frames, hugePages: false)
        }.samples)
        add("decode: read(into:) untouched THP", try measureKeeping(warmup: w, runs: n) { () -> (RawBlock, AVAudioPCMBuffer) in
            try readIntoFresh(path, processing, frames, hugePages: true)
        }.samples)
        add("decode: full (open+alloc+read)", try measureKeeping(warmup: w, runs: n) { try IOWork.decode(path) }.samples)

        // --- encode pieces (source: the decoded file, so the values are what the file holds)
        source = try IOWork.decode(path)
        let sourcePointers = UnsafeMutablePointer<UnsafeMutableRawPointer>.allocate(capacity: d.channelCount)
        defer { sourcePointers.deallocate() }
        for c in 0 ..< d.channelCount { sourcePointers[c] = UnsafeMutableRawPointer(source.floatChannelData![c]) }
        let sourcePointer = ProcessingBufferPointer.deinterleaved(UnsafeBufferPointer(start: sourcePointers, count: d.channelCount),
                                                                  sampleType: .float32)
        add("encode: kernel (buffer → L2 staging)", measure(warmup: w, runs: n) {
            var done = 0
            while done < frames {
                let k = min(chunkFrames, frames - done)
                SampleConversion.encode(frameCount: k, from: sourcePointer, atFrame: done, to: staging,
                                        encoding: d.encoding, bigEndian: d.bigEndian)
                done += k
            }
        })
        let out = "\(options.dir)/profile-out.\(format.fileExtension)"
        add("encode: create+pwrite 256 KiB chunks+close", try measure(warmup: w, runs: n) {
            let fd = open(out, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw BenchError("cannot create \(out)") }
            var done = 0
            while done < dataBytes {
                let want = min(chunkFrames * bytesPerFrame, dataBytes - done)
                let put = pwrite(fd, staging, want, off_t(done) + off_t(dataOffset))
                guard put > 0 else { throw BenchError("short write") }
                done += put
            }
            close(fd)
        })
        add("encode: + 1 header pwrite per chunk", try measure(warmup: w, runs: n) {
            let fd = open(out, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw BenchError("cannot create \(out)") }
            var done = 0
            while done < dataBytes {
                let want = min(chunkFrames * bytesPerFrame, dataBytes - done)
                let put = pwrite(fd, staging, want, off_t(done) + off_t(dataOffset))
                guard put > 0 else { throw BenchError("short write") }
                done += put
                _ = pwrite(fd, staging, Int(dataOffset), 0)
            }
            close(fd)
        })
        add("encode: open(O_TRUNC) of the existing file + close", try measure(warmup: w, runs: n) {
            let fd = open(out, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            close(fd)
            // Put the file back so the next run truncates the same amount.
            let fd2 = open(out, O_RDWR | O_CLOEXEC)
            ftruncate(fd2, 0)
            close(fd2)
        })
        add("encode: full (create+write+close)", try measure(warmup: w, runs: n) { try IOWork.encode(source, to: out, format: format) })
        unlink(out)
        report(results, json: options.json)
    }

    /// A fresh standard buffer over memory that was never touched (no memset), then read(into:).
    static func readIntoFresh(_ path: String, _ format: AVAudioFormat, _ frames: Int, hugePages: Bool) throws -> (RawBlock, AVAudioPCMBuffer) {
        let file = try AVAudioFile(forReading: IOWork.url(path))
        let channels = Int(format.channelCount)
        let block = RawBlock(bytes: frames * 4 * channels, hugePages: hugePages, touch: false)
        let list = AudioBufferList.allocate(maximumBuffers: channels)
        for c in 0 ..< channels {
            list[c] = AudioBuffer(mNumberChannels: 1, mDataByteSize: UInt32(frames * 4), mData: block.pointer + c * frames * 4)
        }
        guard let buffer = AVAudioPCMBuffer(pcmFormat: format, bufferListNoCopy: list.unsafePointer, deallocator: { $0.deallocate() }) else {
            throw BenchError("bufferListNoCopy refused the list")
        }
        try file.read(into: buffer)
        file.close()
        return (block, buffer)
    }
}

/// posix_memalign'd memory, optionally with transparent huge pages and/or touched.
final class RawBlock {
    let pointer: UnsafeMutableRawPointer
    let bytes: Int

    init(bytes: Int, hugePages: Bool, touch: Bool) {
        var p: UnsafeMutableRawPointer?
        let alignment = hugePages ? 2 << 20 : 64
        precondition(posix_memalign(&p, alignment, max(bytes, 64)) == 0 && p != nil, "posix_memalign failed")
        pointer = p!
        self.bytes = bytes
        if hugePages { _ = madvise(pointer, bytes, MADV_HUGEPAGE) }
        if touch { memset(pointer, 0, bytes) }
    }

    deinit { free(pointer) }
}
