// The file I/O suite: encode and decode of long stereo files through the public API
// (AVAudioFile + AVAudioPCMBuffer), timed like the peers time soundfile.read / soundfile.write.
//
//   avaudio-bench io [--seconds 600] [--runs 3] [--warmup 1] [--json] [--dir /tmp/avaudio-bench]
//                    [--only wav16,wav24,...] [--input FILE ...]
//   avaudio-bench io --serve      line protocol for Benchmarks/compare_io.py (see `IOServer`)
//
// Workloads (10 minutes of program material by default):
//   * Encode: AVAudioFile(forWriting:settings:) + one write(from:) of the whole deinterleaved
//     Float32 buffer + close(); file creation and close are inside the timed region, as they are
//     for soundfile.write.
//   * Decode: AVAudioFile(forReading:) + AVAudioPCMBuffer(pcmFormat:frameCapacity:) for the
//     whole file + read(into:). The buffer is allocated inside the timed region because
//     soundfile.read allocates its numpy array inside its call; the "prealloc" variant times
//     open + read into a buffer allocated (and touched) beforehand. Releasing the buffer is
//     outside the timed region in both (compare_io.py does the same for the peers).
//   * Checks: the decode of our own encode equals the source within 1 LSB (exactly, for float);
//     compare_io.py also checks our decode against libsndfile's decode of the same bytes.
import AVFAudio

/// One file format of the suite.
struct IOFormat {
    let key: String
    let label: String
    let fileExtension: String
    let bits: Int
    let isFloat: Bool
    let bigEndian: Bool
    let sampleRate: Double

    static let all: [IOFormat] = [
        IOFormat(key: "wav16", label: "WAV 16-bit", fileExtension: "wav", bits: 16, isFloat: false, bigEndian: false, sampleRate: 48_000),
        IOFormat(key: "wav24", label: "WAV 24-bit", fileExtension: "wav", bits: 24, isFloat: false, bigEndian: false, sampleRate: 48_000),
        IOFormat(key: "wavf32", label: "WAV float32", fileExtension: "wav", bits: 32, isFloat: true, bigEndian: false, sampleRate: 48_000),
        // CAF and AIFF as Apple tools write them by default: big-endian integers.
        IOFormat(key: "caf16", label: "CAF 16-bit 44.1k", fileExtension: "caf", bits: 16, isFloat: false, bigEndian: true, sampleRate: 44_100),
        IOFormat(key: "aiff16", label: "AIFF 16-bit 44.1k", fileExtension: "aiff", bits: 16, isFloat: false, bigEndian: true, sampleRate: 44_100),
        // Native FLAC (lossless: the encode is the FLACEncoder, the decode the FLAC reader).
        IOFormat(key: "flac16", label: "FLAC 16-bit", fileExtension: "flac", bits: 16, isFloat: false, bigEndian: false, sampleRate: 48_000),
        IOFormat(key: "flac24", label: "FLAC 24-bit", fileExtension: "flac", bits: 24, isFloat: false, bigEndian: false, sampleRate: 48_000),
    ]

    static func named(_ key: String) throws -> IOFormat {
        guard let f = all.first(where: { $0.key == key }) else {
            throw BenchError("unknown format '\(key)'; known: \(all.map(\.key).joined(separator: ", "))")
        }
        return f
    }

    /// AVAudioFile settings for writing this format at `sampleRate`.
    func settings(sampleRate rate: Double, channels: Int) -> [String: Any] {
        if fileExtension == "flac" {
            return [AVFormatIDKey: kAudioFormatFLAC, AVSampleRateKey: rate, AVNumberOfChannelsKey: channels, AVEncoderBitDepthHintKey: bits]
        }
        return [
            AVFormatIDKey: kAudioFormatLinearPCM,
            AVSampleRateKey: rate,
            AVNumberOfChannelsKey: channels,
            AVLinearPCMBitDepthKey: bits,
            AVLinearPCMIsFloatKey: isFloat,
            AVLinearPCMIsBigEndianKey: bigEndian,
        ]
    }

    /// One least significant bit of this format, as a float sample (0 for float formats).
    var lsb: Double { isFloat ? 0 : 1 / Double(1 << (bits - 1)) }
}

// MARK: the workloads (public API only)

enum IOWork {
    static func url(_ path: String) -> URL { URL(fileURLWithPath: path) }

    /// Creates `path`, writes all of `source` in one call, closes.
    static func encode(_ source: AVAudioPCMBuffer, to path: String, format: IOFormat) throws {
        let file = try AVAudioFile(forWriting: url(path),
                                   settings: format.settings(sampleRate: source.format.sampleRate,
                                                             channels: Int(source.format.channelCount)))
        try file.write(from: source)
        file.close()
    }

    /// Opens `path`, allocates a buffer for the whole file (standard deinterleaved Float32, or
    /// interleaved Float32 – libsndfile's layout – with `interleaved`), reads it all.
    static func decode(_ path: String, interleaved: Bool = false) throws -> AVAudioPCMBuffer {
        let file = interleaved
            ? try AVAudioFile(forReading: url(path), commonFormat: .pcmFormatFloat32, interleaved: true)
            : try AVAudioFile(forReading: url(path))
        guard let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: AVAudioFrameCount(file.length)) else {
            throw BenchError("cannot allocate a buffer of \(file.length) frames for \(path)")
        }
        try file.read(into: buffer)
        file.close()
        return buffer
    }

    /// Opens `path` and reads it all into `buffer` (allocated by the caller, large enough).
    static func decode(_ path: String, into buffer: AVAudioPCMBuffer) throws {
        let file = try AVAudioFile(forReading: url(path))
        try file.read(into: buffer)
        file.close()
    }

    /// Frames and rate of a file, without reading its audio.
    static func info(_ path: String) throws -> (frames: Int, sampleRate: Double, channels: Int, format: String) {
        let file = try AVAudioFile(forReading: url(path))
        defer { file.close() }
        return (Int(file.length), file.fileFormat.sampleRate, Int(file.fileFormat.channelCount), "\(file.fileFormat)")
    }

    /// A standard buffer able to hold `path` (touched, so its pages exist).
    static func bufferFor(_ path: String) throws -> AVAudioPCMBuffer {
        let file = try AVAudioFile(forReading: url(path))
        defer { file.close() }
        guard let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: AVAudioFrameCount(file.length)) else {
            throw BenchError("cannot allocate a buffer of \(file.length) frames for \(path)")
        }
        return buffer
    }

    /// The largest |a - b| over the first min(frameLength) frames of every channel.
    static func maxDifference(_ a: AVAudioPCMBuffer, _ b: AVAudioPCMBuffer) -> Double {
        let n = Int(min(a.frameLength, b.frameLength))
        let channels = Int(min(a.format.channelCount, b.format.channelCount))
        var worst: Float = 0
        for c in 0 ..< channels {
            let x = a.floatChannelData![c], y = b.floatChannelData![c]
            for i in 0 ..< n { worst = max(worst, abs(x[i] - y[i])) }
        }
        return Double(worst)
    }

    /// Writes the buffer as raw native-endian float32, channel after channel (for numpy).
    static func dumpPlanar(_ buffer: AVAudioPCMBuffer, to path: String) throws {
        guard let f = fopen(path, "wb") else { throw BenchError("cannot create \(path)") }
        defer { fclose(f) }
        let n = Int(buffer.frameLength)
        for c in 0 ..< Int(buffer.format.channelCount) {
            guard fwrite(buffer.floatChannelData![c], 4, n, f) == n else { throw BenchError("cannot write \(path)") }
        }
    }

    static func fileSize(_ path: String) -> Int {
        var st = stat()
        return stat(path, &st) == 0 ? Int(st.st_size) : -1
    }
}

/// Times `body`, keeping each run's result alive until just before the next run starts, so that
/// releasing it is never inside a timed region.
func measureKeeping<T>(warmup: Int, runs: Int, _ body: () throws -> T) rethrows -> (samples: [Sample], last: T) {
    var keep: T?
    for _ in 0 ..< warmup {
        keep = nil
        keep = try body()
    }
    var samples: [Sample] = []
    for _ in 0 ..< max(1, runs) {
        keep = nil
        samples.append(try timeOnce { keep = try body() })
    }
    return (samples, keep!)
}

// MARK: the stand-alone suite

enum IOSuite {
    static func run(_ args: Arguments) throws {
        if args.flag("--serve") {
            try IOServer().serve()
            return
        }
        let options = try SuiteOptions(args)
        let inputs = args.values("--input")
        var results: [BenchResult] = []
        if !inputs.isEmpty {
            for path in inputs { results += try decodeRows(path, label: "Decode \(path)", options: options) }
            report(results, json: options.json)
            return
        }
        let keys = args.string("--only").map { $0.split(separator: ",").map(String.init) } ?? IOFormat.all.map(\.key)
        let formats = try keys.map(IOFormat.named)
        mkdir(options.dir, 0o755)
        var sources: [Double: AVAudioPCMBuffer] = [:]
        for format in formats {
            let source: AVAudioPCMBuffer
            if let s = sources[format.sampleRate] {
                source = s
            } else {
                let t = Clock.wall()
                source = Material.make(seconds: options.seconds, sampleRate: format.sampleRate)
                note("[io] generated \(fixed(options.seconds, 0)) s of stereo material at \(Int(format.sampleRate)) Hz in \(fixed(Clock.wall() - t, 2)) s")
                sources = [format.sampleRate: source]   // keep one source alive at a time
            }
            let path = "\(options.dir)/\(format.key).\(format.fileExtension)"
            let tag = "\(format.label) \(minutes(options.seconds))"
            // Encode.
            let enc = try measure(warmup: options.warmup, runs: options.runs) {
                try IOWork.encode(source, to: path, format: format)
            }
            let decoded = try IOWork.decode(path)
            let diff = IOWork.maxDifference(decoded, source)
            let lsbs = format.isFloat ? diff : diff / format.lsb
            let ok = decoded.frameLength == source.frameLength && (format.isFloat ? diff == 0 : lsbs <= 1)
            results.append(BenchResult(suite: "io", workload: "Encode \(tag)", audioSeconds: options.seconds, samples: enc,
                                       metrics: [("file_MB", .number(Double(IOWork.fileSize(path)) / 1e6)),
                                                 ("roundtrip_max_diff", .number(diff)),
                                                 ("roundtrip_lsb", .number(lsbs)),
                                                 ("roundtrip_ok", .bool(ok))]))
            if !ok { note("[io] FAILED round trip of \(path): max diff \(diff) (\(lsbs) LSB), frames \(decoded.frameLength)/\(source.frameLength)") }
            // Decode.
            results += try decodeRows(path, label: "Decode \(tag)", options: options)
            if !options.json { report(Array(results.suffix(4)), json: false) }
        }
        if options.json { report(results, json: true) }
    }

    static func minutes(_ seconds: Double) -> String {
        seconds.truncatingRemainder(dividingBy: 60) == 0 ? "\(Int(seconds / 60))min" : "\(fixed(seconds, 1))s"
    }

    /// Decode rows for one file: allocation inside the timed region, and into a buffer made beforehand.
    static func decodeRows(_ path: String, label: String, options: SuiteOptions) throws -> [BenchResult] {
        let info = try IOWork.info(path)
        let seconds = Double(info.frames) / info.sampleRate
        let size = Double(IOWork.fileSize(path))
        let (samples, decoded) = try measureKeeping(warmup: options.warmup, runs: options.runs) { try IOWork.decode(path) }
        let frames = Int(decoded.frameLength)
        let prealloc = try IOWork.bufferFor(path)
        let pre = try measure(warmup: options.warmup, runs: options.runs) { try IOWork.decode(path, into: prealloc) }
        let alloc = try measureKeeping(warmup: options.warmup, runs: options.runs) { try IOWork.bufferFor(path) }.samples
        let common: [(String, JSONValue)] = [("frames", .int(frames)), ("file_MB", .number(size / 1e6))]
        return [
            BenchResult(suite: "io", workload: label, audioSeconds: seconds, samples: samples,
                        metrics: common + [("MB_per_s", .number((size / 1e6 / median(samples.map(\.wall))).rounded()))]),
            BenchResult(suite: "io", workload: label + " (prealloc)", audioSeconds: seconds, samples: pre, metrics: common),
            BenchResult(suite: "io", workload: label + " (buffer alloc only)", audioSeconds: seconds, samples: alloc, metrics: []),
        ]
    }
}

// MARK: the line protocol for compare_io.py

/// Reads one command per line on standard input and answers each with one JSON line, so that a
/// driver can interleave our runs with the peers' runs in one process tree:
///
///     generate OUT.f32 SECONDS RATE  write Material as raw planar float32 (channel 0, then 1)
///     source FILE                    decode FILE (untimed) as the encode source
///     decode FILE                    one timed decode, buffer allocated inside the timed region
///     decode-interleaved FILE        `decode` into an interleaved Float32 buffer (libsndfile's layout)
///     decode-prealloc FILE           one timed decode into a buffer allocated beforehand
///     encode FILE FORMATKEY          one timed encode of the source (wav16, wav24, wavf32, caf16, aiff16)
///     dump FILE OUT.f32              decode FILE and write it as raw planar float32
///     quit
///
/// Timed answers: {"ok": true, "wall": s, "cpu": s, "frames": n}; failures: {"ok": false, "error": "..."}.
/// Paths must not contain spaces.
final class IOServer {
    private var source: AVAudioPCMBuffer?
    private var preallocated: [String: AVAudioPCMBuffer] = [:]
    private var lastDecoded: AVAudioPCMBuffer?

    func serve() throws {
        setvbuf(stdout, nil, _IOLBF, 0)
        while let line = readLine() {
            let words = line.split(separator: " ").map(String.init)
            guard let command = words.first else { continue }
            if command == "quit" { break }
            let answer: JSONValue
            do {
                answer = try handle(command, Array(words.dropFirst()))
            } catch {
                answer = .object([("ok", .bool(false)), ("error", .string("\(error)"))])
            }
            print(answer.text)
            fflush(stdout)
        }
    }

    private func timed(_ sample: Sample, _ extra: [(String, JSONValue)] = []) -> JSONValue {
        .object([("ok", .bool(true)), ("wall", .number(sample.wall)), ("cpu", .number(sample.cpu))] + extra)
    }

    private func handle(_ command: String, _ a: [String]) throws -> JSONValue {
        func need(_ n: Int) throws {
            guard a.count == n else { throw BenchError("\(command) takes \(n) arguments, got \(a.count)") }
        }
        switch command {
        case "generate":
            try need(3)
            guard let seconds = Double(a[1]), let rate = Double(a[2]) else { throw BenchError("generate OUT SECONDS RATE") }
            let buffer = Material.make(seconds: seconds, sampleRate: rate)
            try IOWork.dumpPlanar(buffer, to: a[0])
            return .object([("ok", .bool(true)), ("frames", .int(Int(buffer.frameLength)))])
        case "source":
            try need(1)
            source = nil
            let s = try IOWork.decode(a[0])
            source = s
            return .object([("ok", .bool(true)), ("frames", .int(Int(s.frameLength))), ("rate", .number(s.format.sampleRate))])
        case "decode", "decode-interleaved":
            try need(1)
            lastDecoded = nil       // released outside the timed region
            var kept: AVAudioPCMBuffer?
            let interleaved = command == "decode-interleaved"
            let sample = try timeOnce { kept = try IOWork.decode(a[0], interleaved: interleaved) }
            lastDecoded = kept
            return timed(sample, [("frames", .int(Int(kept!.frameLength)))])
        case "decode-prealloc":
            try need(1)
            let buffer: AVAudioPCMBuffer
            if let b = preallocated[a[0]] {
                buffer = b
            } else {
                preallocated = [:]
                buffer = try IOWork.bufferFor(a[0])
                preallocated[a[0]] = buffer
            }
            let sample = try timeOnce { try IOWork.decode(a[0], into: buffer) }
            return timed(sample, [("frames", .int(Int(buffer.frameLength)))])
        case "encode":
            try need(2)
            guard let source else { throw BenchError("encode needs a source: send 'source FILE' first") }
            let format = try IOFormat.named(a[1])
            let sample = try timeOnce { try IOWork.encode(source, to: a[0], format: format) }
            return timed(sample, [("bytes", .int(IOWork.fileSize(a[0])))])
        case "dump":
            try need(2)
            lastDecoded = nil
            let b = try IOWork.decode(a[0])
            try IOWork.dumpPlanar(b, to: a[1])
            return .object([("ok", .bool(true)), ("frames", .int(Int(b.frameLength)))])
        case "release":
            lastDecoded = nil
            preallocated = [:]
            return .object([("ok", .bool(true))])
        default:
            throw BenchError("unknown command '\(command)'")
        }
    }
}
