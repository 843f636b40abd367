import Foundation
import Testing
@testable import AudioFileFormats
import AudioKernels

// MARK: - Temporary files

/// A fresh directory per test (tests run in parallel), removed when the value is released.
final class TempDir {
    let url: URL
    init() {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("AudioFileFormatsTests-\(UUID().uuidString)", isDirectory: true)
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: url) }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    @discardableResult
    func write(_ name: String, _ bytes: [UInt8]) -> String {
        let p = path(name)
        try! Data(bytes).write(to: URL(fileURLWithPath: p)) // not atomic: no fsync per fixture
        return p
    }
}

func fileBytes(_ path: String) -> [UInt8] {
    (try? [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))) ?? []
}

// MARK: - Deterministic data

/// xorshift64*: reproducible pseudo-random bytes.
struct TestRandom {
    var state: UInt64
    init(seed: UInt64) { state = seed | 1 }
    mutating func next() -> UInt64 {
        state ^= state >> 12; state ^= state << 25; state ^= state >> 27
        return state &* 2_685_821_657_736_338_717
    }
    mutating func bytes(_ n: Int) -> [UInt8] { (0..<n).map { _ in UInt8(truncatingIfNeeded: next() >> 32) } }
    mutating func int(_ range: Range<Int>) -> Int { range.lowerBound + Int(next() % UInt64(range.count)) }
}

// MARK: - Header construction for malformed-file tests

struct LE {
    var bytes: [UInt8] = []
    let big: Bool
    init(big: Bool = false) { self.big = big }
    mutating func s(_ text: String) { bytes += Array(text.utf8) }
    mutating func u(_ v: UInt64, _ n: Int) {
        for i in 0..<n { bytes.append(UInt8(truncatingIfNeeded: v >> UInt64(8 * (big ? n - 1 - i : i)))) }
    }
    mutating func u16(_ v: Int) { u(UInt64(truncatingIfNeeded: v), 2) }
    mutating func u32(_ v: Int) { u(UInt64(truncatingIfNeeded: v), 4) }
    mutating func u32(_ v: UInt32) { u(UInt64(v), 4) }
    mutating func u64(_ v: UInt64) { u(v, 8) }
    mutating func raw(_ b: [UInt8]) { bytes += b }
}

/// A canonical 44-byte-header WAV with the given fmt fields and data.
func makeWAV(tag: Int = 1, channels: Int = 1, rate: Int = 8000, blockAlign: Int? = nil, bits: Int = 16,
             fmtExtra: [UInt8] = [], fmtSizeOverride: Int? = nil, dataSize: Int? = nil, data: [UInt8] = [],
             magic: String = "RIFF", riffSize: Int? = nil) -> [UInt8] {
    let big = magic == "RIFX"
    var w = LE(big: big)
    let fmtSize = 16 + fmtExtra.count
    w.s(magic); w.u32(riffSize ?? (4 + 8 + fmtSize + 8 + data.count)); w.s("WAVE")
    w.s("fmt "); w.u32(fmtSizeOverride ?? fmtSize)
    w.u16(tag); w.u16(channels); w.u32(rate)
    let align = blockAlign ?? channels * ((bits + 7) / 8)
    w.u32(rate * align); w.u16(align); w.u16(bits)
    w.raw(fmtExtra)
    w.s("data"); w.u32(dataSize ?? data.count)
    w.raw(data)
    return w.bytes
}

func makeAIFF(channels: Int = 1, frames: Int = 0, bits: Int = 16, rate: [UInt8] = encodeExtended80(44100),
              compression: String? = nil, data: [UInt8] = [], commSizeOverride: Int? = nil,
              ssndOffset: Int = 0, includeSSND: Bool = true) -> [UInt8] {
    var w = LE(big: true)
    let isAIFC = compression != nil
    var comm = LE(big: true)
    comm.u16(channels); comm.u32(frames); comm.u16(bits); comm.raw(rate)
    if let c = compression { comm.s(c); comm.raw([0, 0]) }
    var body = LE(big: true)
    body.s(isAIFC ? "AIFC" : "AIFF")
    body.s("COMM"); body.u32(commSizeOverride ?? comm.bytes.count); body.raw(comm.bytes)
    if includeSSND {
        body.s("SSND"); body.u32(8 + ssndOffset + data.count); body.u32(ssndOffset); body.u32(0)
        body.raw([UInt8](repeating: 0, count: ssndOffset)); body.raw(data)
    }
    w.s("FORM"); w.u32(body.bytes.count); w.raw(body.bytes)
    return w.bytes
}

func makeCAF(rate: Double = 44100, format: String = "lpcm", flags: UInt32 = 0, bytesPerPacket: Int = 2,
             framesPerPacket: Int = 1, channels: Int = 1, bits: Int = 16, descSize: Int = 32,
             dataSize: Int64? = nil, data: [UInt8] = [], version: Int = 1, dataFirst: Bool = false,
             extraChunks: [UInt8] = []) -> [UInt8] {
    var w = LE(big: true)
    w.s("caff"); w.u16(version); w.u16(0)
    var desc = LE(big: true)
    desc.s("desc"); desc.u64(UInt64(descSize))
    desc.u64(rate.bitPattern); desc.s(format); desc.u32(flags); desc.u32(bytesPerPacket)
    desc.u32(framesPerPacket); desc.u32(channels); desc.u32(bits)
    var dat = LE(big: true)
    dat.s("data"); dat.u64(UInt64(bitPattern: dataSize ?? Int64(4 + data.count))); dat.u32(0); dat.raw(data)
    if dataFirst { w.raw(dat.bytes); w.raw(desc.bytes) } else { w.raw(desc.bytes); w.raw(extraChunks); w.raw(dat.bytes) }
    return w.bytes
}

func makeAU(offset: Int = 24, size: UInt32? = nil, encoding: Int = 3, rate: Int = 8000, channels: Int = 1,
            data: [UInt8] = []) -> [UInt8] {
    var w = LE(big: true)
    w.s(".snd"); w.u32(offset); w.u32(size ?? UInt32(data.count)); w.u32(encoding); w.u32(rate); w.u32(channels)
    if offset > 24 { w.raw([UInt8](repeating: 0, count: offset - 24)) }
    w.raw(data)
    return w.bytes
}

// MARK: - Reading helpers

/// Reads every frame of `reader` (in a few calls, to exercise positional reads).
func readAll(_ reader: AudioFileReader) throws -> [UInt8] {
    let bpf = reader.description.bytesPerFrame
    var out = [UInt8](repeating: 0xEE, count: Int(reader.frameCount) * bpf)
    var frame: Int64 = 0
    let step = max(1, Int(reader.frameCount / 3) + 1)
    while frame < reader.frameCount {
        let n = try out.withUnsafeMutableBytes { buf in
            try reader.read(frames: step, startingAt: frame, into: buf.baseAddress! + Int(frame) * bpf)
        }
        if n == 0 { break }
        frame += Int64(n)
    }
    return out
}

/// Expects `body` to throw an AudioFileFormatError with `code`; returns it.
@discardableResult
func expectError(_ code: Int32, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation,
                 _ body: () throws -> Void) -> AudioFileFormatError? {
    do {
        try body()
        Issue.record("expected error \(AudioFileFormatError.codeName(code)) but nothing was thrown. \(comment.map { "\($0)" } ?? "")",
                     sourceLocation: sourceLocation)
        return nil
    } catch let error as AudioFileFormatError {
        #expect(error.code == code, "got \(error) instead of \(AudioFileFormatError.codeName(code)). \(comment.map { "\($0)" } ?? "")",
                sourceLocation: sourceLocation)
        #expect(!error.message.isEmpty, sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("unexpected error type: \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

// MARK: - Sample decoding (independent of AudioKernels, for comparing with other readers)

/// G.711 µ-law → 16-bit linear (Sun's g711.c, as CPython's audioop and libsndfile).
func ulawToLinear(_ byte: UInt8) -> Int32 {
    let u = ~byte
    var t = (Int32(u & 0x0F) << 3) + 0x84
    t <<= Int32((u & 0x70) >> 4)
    return (u & 0x80) != 0 ? 0x84 - t : t - 0x84
}

/// G.711 A-law → 16-bit linear.
func alawToLinear(_ byte: UInt8) -> Int32 {
    let a = byte ^ 0x55
    var t = Int32(a & 0x0F) << 4
    let seg = Int32((a & 0x70) >> 4)
    switch seg {
    case 0: t += 8
    case 1: t += 0x108
    default: t += 0x108; t <<= seg - 1
    }
    return (a & 0x80) != 0 ? t : -t
}

/// One sample as a signed integer in its container (unsigned 8-bit re-centred), or a float as Double.
enum Sample: Equatable, CustomStringConvertible {
    case int(Int64)
    case float(Double)
    var description: String {
        switch self {
        case .int(let v): return "\(v)"
        case .float(let v): return "\(v)"
        }
    }
}

/// Decodes raw bytes per `d`. `leftJustify32`: integers scaled to a full Int32 (libsndfile's and
/// sox's convention; G.711 decoded to 16 bits then << 16). Otherwise integers stay in their
/// container (unsigned 8-bit as 0...255, scipy's convention; G.711 decoded to 16-bit linear).
func decodeSamples(_ raw: [UInt8], _ d: AudioDataDescription, leftJustify32: Bool) -> [Sample] {
    let bps = d.encoding.bytesPerSample
    var out: [Sample] = []
    out.reserveCapacity(raw.count / bps)
    var i = 0
    while i + bps <= raw.count {
        var u: UInt64 = 0
        for k in 0..<bps {
            let b = UInt64(raw[i + (d.bigEndian ? k : bps - 1 - k)])
            u = u << 8 | b
        }
        switch d.encoding {
        case .unsigned8: out.append(.int(leftJustify32 ? (Int64(u) - 128) << 24 : Int64(u)))
        case .signed8: out.append(.int(Int64(Int8(truncatingIfNeeded: u)) << (leftJustify32 ? 24 : 0)))
        case .signed16: out.append(.int(Int64(Int16(truncatingIfNeeded: u)) << (leftJustify32 ? 16 : 0)))
        case .signed24:
            // scipy also left-justifies 3-byte samples into int32.
            out.append(.int(Int64(Int32(truncatingIfNeeded: u << 8))))
        case .signed32: out.append(.int(Int64(Int32(truncatingIfNeeded: u))))
        case .float32: out.append(.float(Double(Float(bitPattern: UInt32(u)))))
        case .float64: out.append(.float(Double(bitPattern: u)))
        case .ulaw: out.append(.int(Int64(ulawToLinear(UInt8(u))) << (leftJustify32 ? 16 : 0)))
        case .alaw: out.append(.int(Int64(alawToLinear(UInt8(u))) << (leftJustify32 ? 16 : 0)))
        }
        i += bps
    }
    return out
}

// MARK: - External tools

enum Tools {
    struct Result {
        var status: Int32
        var output: Data
        var errorText: String
    }

    /// Runs a program found on PATH; stderr goes to a temporary file so large outputs cannot block.
    static func run(_ arguments: [String]) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        let errURL = FileManager.default.temporaryDirectory.appendingPathComponent("aff-stderr-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let errHandle = try FileHandle(forWritingTo: errURL)
        process.standardError = errHandle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try? errHandle.close()
        let errText = (try? String(contentsOf: errURL, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(at: errURL)
        return Result(status: process.terminationStatus, output: data, errorText: errText)
    }

    static func succeeds(_ arguments: [String]) -> Bool {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/env") else { return false }
        return (try? run(arguments))?.status == 0
    }

    static let python = succeeds(["python3", "-c", "import wave, json, base64"])
    static let scipy = python && succeeds(["python3", "-c", "import scipy.io.wavfile"])
    static let soundfile = python && succeeds(["python3", "-c", "import soundfile"])
    static let sox = succeeds(["sox", "--version"])

    /// CPython's own test audio files (Lib/test/audiodata), when the installed Python ships them.
    static let cpythonAudioData: String? = {
        guard python, let r = try? run(["python3", "-c",
            "import os, test; print(os.path.join(os.path.dirname(test.__file__), 'audiodata'))"]), r.status == 0 else { return nil }
        let dir = String(decoding: r.output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return FileManager.default.fileExists(atPath: dir + "/pluck-pcm16.wav") ? dir : nil
    }()

    /// scipy's WAV test files (scipy/io/tests/data), when the installed scipy ships them.
    static let scipyTestData: String? = {
        guard scipy, let r = try? run(["python3", "-c",
            "import os, scipy.io; print(os.path.join(os.path.dirname(scipy.io.__file__), 'tests', 'data'))"]), r.status == 0 else { return nil }
        let dir = String(decoding: r.output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return FileManager.default.fileExists(atPath: dir + "/test-44100Hz-le-1ch-4bytes.wav") ? dir : nil
    }()

    /// Runs a Python script with arguments and parses its stdout as JSON.
    static func pythonJSON(_ script: String, _ arguments: [String]) throws -> Any {
        let r = try run(["python3", "-W", "ignore", "-c", script] + arguments)
        guard r.status == 0 else {
            throw AudioFileFormatError(code: -1, message: "python3 failed (\(r.status)): \(r.errorText)")
        }
        return try JSONSerialization.jsonObject(with: r.output)
    }
}

/// Compares decoded samples with JSON numbers from Python.
func compareSamples(_ mine: [Sample], _ theirs: [Any], _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(mine.count == theirs.count, "\(what): \(mine.count) samples vs \(theirs.count)", sourceLocation: sourceLocation)
    var mismatches = 0
    for (i, (a, b)) in zip(mine, theirs).enumerated() {
        let ok: Bool
        switch a {
        case .int(let v): ok = (b as? NSNumber)?.int64Value == v
        case .float(let v): ok = (b as? String).flatMap { Double($0) } == v // exact hex from Python
        }
        if !ok {
            mismatches += 1
            if mismatches <= 3 {
                Issue.record("\(what): sample \(i) is \(a) here but \(b) in the other reader", sourceLocation: sourceLocation)
            }
        }
    }
}
