// Where the time of one AVAudioFile decode / encode goes: the same work split into its pieces and
// timed one by one, plus "what if" variants of the buffer allocation.
//
//   avaudio-bench io-profile [--only wav16] [--input FILE] [--seconds 600] [--runs 3] [--json]
//
// Decode pieces (whole file):
//   open            AVAudioFile(forReading:) + close (header parsing)
//   buffer alloc    AVAudioPCMBuffer(pcmFormat:frameCapacity:) for the whole file, as Sources implement it
//   alloc+touch THP the same size with posix_memalign(2 MiB) + madvise(MADV_HUGEPAGE) + memset
//   pread           the file's data bytes, 1 MiB per pread into one staging buffer (page cache → L2)
//   kernel          SampleConversion.decode of a 1 MiB L2-resident staging chunk to every
//                   successive chunk of a touched destination (what read(into:) does after pread)
//   mmap the file   what-if: the kernel reads the file through a read-only mapping (no pread copy)
//   read prealloc   AVAudioFile read(into:) a touched buffer (= pread + kernel + overhead)
//   read untouched  read(into:) a fresh buffer made with bufferListNoCopy from posix_memalign,
//                   no memset: page faults happen inside the kernel (what dropping memset gives)
//   read THP        the same with madvise(MADV_HUGEPAGE) (what huge pages give)
//   read THP+memset the same, memset (prefaulted) before the read: huge pages, zero-fill kept
//   read mmap THP   anonymous mmap + MADV_HUGEPAGE (kernel-zeroed, no memset), then read
//   ... + POPULATE  the same, prefaulted with madvise(MADV_POPULATE_WRITE) (no user-space memset)
//   interleaved     read(into:) an interleaved Float32 buffer (libsndfile's layout; for float files
//                   this is AVAudioFile's direct path: pread straight into the buffer)
//   decode          the benchmarked workload: open + alloc (memset) + read
// Encode pieces:
//   kernel          SampleConversion.encode of every chunk of the source into one staging buffer
//   pwrite          create (O_TRUNC) + pwrite the data bytes in 1 MiB chunks + close
//   encode          the benchmarked workload: AVAudioFile(forWriting:) + write(from:) + close
//
// The staging size (1 MiB) mirrors FileSampleCodec.stagingBytes in Sources/AVFAudio/File.
import AVFAudio
import AudioFileFormats
import AudioKernels
#if canImport(Glibc)
import Glibc
#endif

enum IOProfile {
    static let stagingBytes = 1 << 20

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
        add("decode: pread 1 MiB chunks", try measure(warmup: w, runs: n) {
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
        for c in 0 ..< d.channelCount { memset(touched.floatChannelData![c], 0, frames * 4) }   // fault it in
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
        if d.encoding == .signed24 && !d.bigEndian && d.channelCount == 2 {
            // What-if: the 24-bit stereo kernel with 8-byte loads (Int24Prototype), same pattern.
            let left = touched.floatChannelData![0], right = touched.floatChannelData![1]
            // Correctness first: one chunk through both, compared bit for bit.
            let k = min(chunkFrames, frames)
            let reference = UnsafeMutablePointer<Float>.allocate(capacity: 2 * k)
            defer { reference.deallocate() }
            let refPointers = UnsafeMutablePointer<UnsafeMutableRawPointer>.allocate(capacity: 2)
            defer { refPointers.deallocate() }
            refPointers[0] = UnsafeMutableRawPointer(reference)
            refPointers[1] = UnsafeMutableRawPointer(reference + k)
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            _ = pread(fd, staging, k * bytesPerFrame, off_t(dataOffset))
            close(fd)
            SampleConversion.decode(frameCount: k, from: staging, encoding: d.encoding, bigEndian: false,
                                    to: .deinterleaved(UnsafeBufferPointer(start: refPointers, count: 2), sampleType: .float32))
            Int24Prototype.decodeStereo(count: k, from: staging, left: left, right: right)
            var same = true
            for i in 0 ..< k where left[i].bitPattern != reference[i].bitPattern || right[i].bitPattern != reference[k + i].bitPattern {
                same = false
            }
            add("decode: what-if 24-bit kernel, 8-byte loads", measure(warmup: w, runs: n) {
                var done = 0
                while done < frames {
                    let c = min(chunkFrames, frames - done)
                    Int24Prototype.decodeStereo(count: c, from: staging, left: left + done, right: right + done)
                    done += c
                }
            }, [("identical_to_kernel", .bool(same))])
        }
        add("decode: what-if mmap the file + kernel from the mapping", try measure(warmup: w, runs: n) {
            // The kernel reads the page cache through a read-only mapping: no pread copy.
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw BenchError("cannot open \(path)") }
            defer { close(fd) }
            let length = Int(dataOffset) + dataBytes
            guard let map = mmap(nil, length, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0), map != MAP_FAILED else {
                throw BenchError("mmap failed")
            }
            defer { munmap(map, length) }
            var done = 0
            while done < frames {
                let k = min(chunkFrames, frames - done)
                SampleConversion.decode(frameCount: k, from: map + Int(dataOffset) + done * bytesPerFrame, encoding: d.encoding,
                                        bigEndian: d.bigEndian, to: destination, atFrame: done)
                done += k
            }
        })
        add("decode: read(into:) prealloc", try measure(warmup: w, runs: n) { try IOWork.decode(path, into: touched) })
        let bytes = bufferBytes
        add("decode: read(into:) untouched, no memset", try measureKeeping(warmup: w, runs: n) {
            try readIntoFresh(path, processing, frames) { RawBlock(bytes: bytes, hugePages: false, touch: false) }
        }.samples)
        add("decode: read(into:) untouched THP", try measureKeeping(warmup: w, runs: n) {
            try readIntoFresh(path, processing, frames) { RawBlock(bytes: bytes, hugePages: true, touch: false) }
        }.samples)
        add("decode: read(into:) THP + memset", try measureKeeping(warmup: w, runs: n) {
            try readIntoFresh(path, processing, frames) { RawBlock(bytes: bytes, hugePages: true, touch: true) }
        }.samples)
        add("decode: read(into:) mmap THP", try measureKeeping(warmup: w, runs: n) {
            try readIntoFresh(path, processing, frames) { RawBlock(mappedBytes: bytes, hugePages: true, populate: false) }
        }.samples)
        var populated = false
        add("decode: read(into:) mmap THP + POPULATE_WRITE", try measureKeeping(warmup: w, runs: n) { () -> (RawBlock, AVAudioPCMBuffer) in
            let r = try readIntoFresh(path, processing, frames) { RawBlock(mappedBytes: bytes, hugePages: true, populate: true) }
            populated = r.0.populated
            return r
        }.samples, [("populated", .bool(populated))])
        add("decode: interleaved read(into:) mmap THP", try measureKeeping(warmup: w, runs: n) {
            try readIntoFresh(path, processing, frames, interleaved: true) { RawBlock(mappedBytes: bytes, hugePages: true, populate: false) }
        }.samples)
        if d.encoding == .float32 && !d.bigEndian {
            // The direct path (file bytes = buffer bytes, interleaved Float32): pread into a fresh
            // mmap+THP buffer in 1 MiB pieces (what AVAudioFile does) or in one call (libsndfile).
            for (name, piece) in [("1 MiB preads", chunkFrames * bytesPerFrame), ("one pread", dataBytes)] {
                add("decode: what-if direct interleaved, \(name)", try measureKeeping(warmup: w, runs: n) { () -> RawBlock in
                    let block = RawBlock(mappedBytes: dataBytes, hugePages: true, populate: false)
                    let fd = open(path, O_RDONLY | O_CLOEXEC)
                    guard fd >= 0 else { throw BenchError("cannot open \(path)") }
                    defer { close(fd) }
                    var done = 0
                    while done < dataBytes {
                        let got = pread(fd, block.pointer + done, min(piece, dataBytes - done), off_t(dataOffset) + off_t(done))
                        guard got > 0 else { throw BenchError("short read") }
                        done += got
                    }
                    return block
                }.samples)
            }
        }
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
        if d.encoding == .signed24 && !d.bigEndian && d.channelCount == 2 {
            let left = source.floatChannelData![0], right = source.floatChannelData![1]
            let scratch = UnsafeMutablePointer<Int32>.allocate(capacity: 512)
            defer { scratch.deallocate() }
            let k = min(chunkFrames, frames)
            let reference = UnsafeMutableRawPointer.allocate(byteCount: k * 6, alignment: 64)
            defer { reference.deallocate() }
            SampleConversion.encode(frameCount: k, from: sourcePointer, to: reference, encoding: d.encoding, bigEndian: false)
            Int24Prototype.encodeStereo(count: k, left: left, right: right, to: staging, scratch: scratch)
            let same = memcmp(reference, staging, k * 6) == 0
            add("encode: what-if 24-bit kernel, 8-byte stores", measure(warmup: w, runs: n) {
                var done = 0
                while done < frames {
                    let c = min(chunkFrames, frames - done)
                    Int24Prototype.encodeStereo(count: c, left: left + done, right: right + done, to: staging, scratch: scratch)
                    done += c
                }
            }, [("identical_to_kernel", .bool(same))])
        }
        let out = "\(options.dir)/profile-out.\(format.fileExtension)"
        add("encode: create+pwrite 1 MiB chunks+close", try measure(warmup: w, runs: n) {
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
        add("encode: open(O_TRUNC) of the existing file + close", measure(warmup: w, runs: n) {
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

    /// A fresh buffer over memory allocated as `block` says (never memset unless it says so),
    /// then read(into:): what `AVAudioPCMBuffer` would give with another allocation strategy.
    static func readIntoFresh(_ path: String, _ format: AVAudioFormat, _ frames: Int, interleaved: Bool = false,
                              _ block: () -> RawBlock) throws -> (RawBlock, AVAudioPCMBuffer) {
        let channels = Int(format.channelCount)
        let file = interleaved
            ? try AVAudioFile(forReading: IOWork.url(path), commonFormat: .pcmFormatFloat32, interleaved: true)
            : try AVAudioFile(forReading: IOWork.url(path))
        let memory = block()
        let buffers = interleaved ? 1 : channels
        let list = AudioBufferList.allocate(maximumBuffers: buffers)
        let perBuffer = frames * 4 * (interleaved ? channels : 1)
        for b in 0 ..< buffers {
            list[b] = AudioBuffer(mNumberChannels: UInt32(interleaved ? channels : 1), mDataByteSize: UInt32(perBuffer),
                                  mData: memory.pointer + b * perBuffer)
        }
        guard let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat, bufferListNoCopy: list.unsafePointer,
                                            deallocator: { $0.deallocate() }) else {
            throw BenchError("bufferListNoCopy refused the list")
        }
        try file.read(into: buffer)
        file.close()
        return (memory, buffer)
    }
}

/// Memory for a what-if buffer: posix_memalign (optionally 2 MiB-aligned with MADV_HUGEPAGE, and
/// memset), or an anonymous mmap (kernel-zeroed; optionally MADV_HUGEPAGE and prefaulted with
/// MADV_POPULATE_WRITE, Linux 5.14+).
final class RawBlock {
    enum Kind { case malloc, mmap }
    let pointer: UnsafeMutableRawPointer
    let bytes: Int
    let kind: Kind
    /// Whether MADV_POPULATE_WRITE worked (false on kernels before 5.14).
    private(set) var populated = false
    static let madvPopulateWrite: Int32 = 23

    init(bytes: Int, hugePages: Bool, touch: Bool) {
        var p: UnsafeMutableRawPointer?
        let alignment = hugePages ? 2 << 20 : 64
        precondition(posix_memalign(&p, alignment, max(bytes, 64)) == 0 && p != nil, "posix_memalign failed")
        pointer = p!
        self.bytes = bytes
        kind = .malloc
        if hugePages { _ = madvise(pointer, bytes, MADV_HUGEPAGE) }
        if touch { memset(pointer, 0, bytes) }
    }

    init(mappedBytes bytes: Int, hugePages: Bool, populate: Bool) {
        guard let p = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), p != MAP_FAILED else {
            fatalError("mmap of \(bytes) bytes failed")
        }
        pointer = p
        self.bytes = bytes
        kind = .mmap
        if hugePages { _ = madvise(pointer, bytes, MADV_HUGEPAGE) }
        if populate { populated = madvise(pointer, bytes, RawBlock.madvPopulateWrite) == 0 }
    }

    deinit {
        switch kind {
        case .malloc: free(pointer)
        case .mmap: munmap(pointer, bytes)
        }
    }
}
