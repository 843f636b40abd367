// AVAudioFile writes native FLAC (`AVFormatIDKey: kAudioFormatFLAC`, a `.flac` URL) with the
// encoder written from RFC 9639 (AudioCodecs/FLAC/FLACEncoder.swift). Checked against outside
// references: every file is decoded by ffmpeg (its own FLAC decoder) back to exactly the integers
// written; the STREAMINFO MD5 equals Python hashlib's MD5 of those integers and ffmpeg's MD5 of
// what it decoded; a file whose writer never closed (copied before `close()`) holds every
// complete frame for ffmpeg and for our reader; and the files are no more than 3 % larger than
// ffmpeg's own FLAC encoder makes at its default level. Our reader must return the same samples.
// Skips the ffmpeg and Python checks visibly when the tools are missing.
import Foundation
import Testing
import AVFoundation

@Suite struct AVAudioFileFLACWritingTests {
    // MARK: tools

    static func run(_ args: [String]) -> (status: Int32, out: Data, err: Data)? {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = args
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        do { try p.run() } catch { return nil }
        final class Box: @unchecked Sendable { var data = Data() }
        let errors = Box()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async { errors.data = err.fileHandleForReading.readDataToEndOfFile(); group.leave() }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        p.waitUntilExit()
        return (p.terminationStatus, outData, errors.data)
    }

    static let hasFFmpeg: Bool = run(["ffmpeg", "-version"])?.status == 0
    static let hasPython: Bool = run(["python3", "-c", "import hashlib"])?.status == 0

    static func scratch() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flac-write-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    // MARK: signals (deterministic)

    enum Signal { case silence, noise, sines, dcStep, mixed, music }

    /// Interleaved integers within `bits`.
    static func signal(_ kind: Signal, frames: Int, channels: Int, bits: Int, seed: UInt64 = 1) -> [Int32] {
        let top = Double(Int64(1) << (bits - 1)) - 1
        let lo = -Int64(1) << (bits - 1), hi = (Int64(1) << (bits - 1)) - 1
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        func random() -> Double {   // uniform in [−1, 1)
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(Int64(bitPattern: state) >> 11) / Double(1 << 52)
        }
        var out = [Int32](repeating: 0, count: frames * channels)
        for i in 0..<frames {
            for c in 0..<channels {
                let t = Double(i)
                var v: Double
                switch kind {
                case .silence: v = 0
                case .noise: v = random() * (top + 1)
                case .sines: v = top * 0.9 * sin(2 * .pi * t * (220 + 110 * Double(c)) / 48000) * (c % 2 == 0 ? 1 : 0.5)
                case .dcStep: v = (i < frames / 2 ? 0.25 : -0.75) * top
                case .mixed:
                    switch (i / 1500) % 4 {
                    case 0: v = top * 0.7 * sin(2 * .pi * t * 441 / 44100 + Double(c))
                    case 1: v = random() * (top + 1)
                    case 2: v = 0.3 * top
                    default: v = top * 0.2 * sin(2 * .pi * t * 3000 / 44100) + random() * top * 0.01
                    }
                case .music:
                    // Notes with harmonics and decays, a bass line, a little noise; the channels
                    // share most of the content (as stereo music does).
                    let note = i / 11025
                    let f = 220 * pow(2, Double([0, 4, 7, 12, 9, 5, 2, 7][note % 8]) / 12)
                    let age = Double(i % 11025) / 44100
                    var s = 0.0
                    for h in 1...6 { s += sin(2 * .pi * f * Double(h) * t / 44100) * exp(-age * Double(h) * 2) / Double(h) }
                    let bass = sin(2 * .pi * f / 4 * t / 44100) * 0.6
                    let pan = c == 0 ? 0.8 : 0.6
                    v = top * 0.35 * (s * pan + bass * (1.4 - pan)) + random() * top * 0.0005
                }
                out[i * channels + c] = Int32(max(lo, min(hi, Int64(v.rounded()))))
            }
        }
        return out
    }

    // MARK: writing and reading

    static func settings(rate: Double, channels: Int, bits: Int) -> [String: Any] {
        [AVFormatIDKey: kAudioFormatFLAC, AVSampleRateKey: rate, AVNumberOfChannelsKey: channels, AVEncoderBitDepthHintKey: bits]
    }

    /// Writes `samples` in `chunks`-sized `write(from:)` calls (the last chunk size repeats);
    /// returns the still-open file when `keepOpen`.
    @discardableResult
    static func write(_ samples: [Int32], channels: Int, bits: Int, rate: Double = 48000, to url: URL, chunks: [Int] = [4096],
                      keepOpen: Bool = false) throws -> AVAudioFile {
        let frames = samples.count / channels
        let int32 = bits > 24
        let file = try AVAudioFile(forWriting: url, settings: settings(rate: rate, channels: channels, bits: bits),
                                   commonFormat: int32 ? .pcmFormatInt32 : .pcmFormatFloat32, interleaved: int32)
        var at = 0, k = 0
        while at < frames {
            let n = min(chunks[min(k, chunks.count - 1)], frames - at)
            k += 1
            let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: AVAudioFrameCount(max(n, 1)))!
            buffer.frameLength = AVAudioFrameCount(n)
            for i in 0..<n {
                for c in 0..<channels {
                    let v = samples[(at + i) * channels + c]
                    if int32 {
                        buffer.int32ChannelData![0][i * channels + c] = v << Int32(32 - bits)
                    } else {
                        buffer.floatChannelData![c][i] = Float(v) / Float(1 << (bits - 1))
                    }
                }
            }
            try file.write(from: buffer)
            at += n
        }
        if !keepOpen { file.close() }
        return file
    }

    /// Interleaved stereo 16-bit `samples` as a 44.1 kHz WAV (ffmpeg's input for size comparisons).
    static func writeStereo16WAV(_ samples: [Int32], to wav: URL) throws {
        let pcm = try AVAudioFile(forWriting: wav, settings: [AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: 44100,
                                                              AVNumberOfChannelsKey: 2, AVLinearPCMBitDepthKey: 16],
                                  commonFormat: .pcmFormatInt16, interleaved: true)
        let buffer = AVAudioPCMBuffer(pcmFormat: pcm.processingFormat, frameCapacity: AVAudioFrameCount(samples.count / 2))!
        buffer.frameLength = buffer.frameCapacity
        for i in samples.indices { buffer.int16ChannelData![0][i] = Int16(samples[i]) }
        try pcm.write(from: buffer)
        pcm.close()
    }

    /// Our reader's samples as integers of `bits`.
    static func readOurs(_ url: URL, bits: Int) throws -> [Int32] {
        let int32 = bits > 24
        let file = try AVAudioFile(forReading: url, commonFormat: int32 ? .pcmFormatInt32 : .pcmFormatFloat32, interleaved: int32)
        let channels = Int(file.processingFormat.channelCount)
        let frames = Int(file.length)
        guard frames > 0 else { return [] }
        let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: AVAudioFrameCount(frames))!
        try file.read(into: buffer)
        var out = [Int32](repeating: 0, count: Int(buffer.frameLength) * channels)
        for i in 0..<Int(buffer.frameLength) {
            for c in 0..<channels {
                out[i * channels + c] = int32 ? buffer.int32ChannelData![0][i * channels + c] >> Int32(32 - bits)
                    : Int32(buffer.floatChannelData![c][i] * Float(1 << (bits - 1)))
            }
        }
        return out
    }

    /// ffmpeg's decode as integers of `bits` (it delivers left-justified 32-bit samples); nil if it fails.
    static func readFFmpeg(_ url: URL, bits: Int) -> (samples: [Int32], errors: String)? {
        guard let r = run(["ffmpeg", "-v", "error", "-i", url.path, "-f", "s32le", "-c:a", "pcm_s32le", "-"]), r.status == 0 else { return nil }
        let samples = r.out.withUnsafeBytes { Array($0.bindMemory(to: Int32.self)) }.map { $0 >> Int32(32 - bits) }
        return (samples, String(decoding: r.err, as: UTF8.self))
    }

    static func streamInfoMD5(_ url: URL) throws -> String {
        let bytes = [UInt8](try Data(contentsOf: url))
        return bytes[26..<42].map { String(format: "%02x", $0) }.joined()
    }

    /// Python hashlib's MD5 of the samples as FLAC signs them: little-endian, ceil(bits/8) bytes.
    static func pythonMD5(_ samples: [Int32], bits: Int, dir: URL) throws -> String? {
        let width = (bits + 7) / 8
        var bytes = [UInt8]()
        bytes.reserveCapacity(samples.count * width)
        for v in samples { for b in 0..<width { bytes.append(UInt8(truncatingIfNeeded: v >> Int32(8 * b))) } }
        let path = dir.appendingPathComponent("md5input.raw")
        try Data(bytes).write(to: path)
        guard let r = run(["python3", "-c", "import hashlib,sys; print(hashlib.md5(open(sys.argv[1],'rb').read()).hexdigest())", path.path]),
              r.status == 0 else { return nil }
        return String(decoding: r.out, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Every check on one file: our reader, ffmpeg, MD5 (hashlib and ffmpeg's decode).
    static func checkEverywhere(_ url: URL, _ expected: [Int32], bits: Int, dir: URL, _ label: String) throws {
        let ours = try readOurs(url, bits: bits)
        let oursMatch = ours == expected
        #expect(oursMatch, "\(label): our reader returns \(ours.count) samples, \(zip(ours, expected).filter { $0 != $1 }.count) differ")
        if hasPython, let md5 = try pythonMD5(expected, bits: bits, dir: dir) {
            #expect(try streamInfoMD5(url) == md5, "\(label): STREAMINFO MD5")
        }
        guard hasFFmpeg else { return }
        let decoded = readFFmpeg(url, bits: bits)
        if bits == 32 && (decoded?.samples.isEmpty ?? true) {
            // FFmpeg decodes 32-bit FLAC only from version 6 (5.1 returns no samples and no error).
            print("SKIP ffmpeg check of \(label): this ffmpeg does not decode 32-bit FLAC")
            return
        }
        guard let (theirs, errors) = decoded else {
            Issue.record("\(label): ffmpeg could not decode the file")
            return
        }
        #expect(errors.isEmpty, "\(label): ffmpeg says \(errors)")
        let theirsMatch = theirs == expected
        #expect(theirsMatch, "\(label): ffmpeg decodes \(theirs.count) samples of \(expected.count), \(zip(theirs, expected).filter { $0 != $1 }.count) differ")
        if bits == 8 || bits == 16 || bits == 24 {
            let codec = bits == 8 ? "pcm_s8" : bits == 16 ? "pcm_s16le" : "pcm_s24le"
            if let r = run(["ffmpeg", "-v", "error", "-i", url.path, "-c:a", codec, "-f", "md5", "-"]), r.status == 0 {
                let text = String(decoding: r.out, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                #expect(text == "MD5=" + (try streamInfoMD5(url)), "\(label): ffmpeg's MD5 of its decode")
            }
        }
    }

    // MARK: tests

    @Test func roundTripsDepthsAndChannelCounts() throws {
        if !Self.hasFFmpeg { print("SKIP ffmpeg checks of written FLAC: ffmpeg is not installed") }
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        for bits in [8, 16, 20, 24] {
            for channels in [1, 2, 6] {
                let samples = Self.signal(.mixed, frames: 10_007, channels: channels, bits: bits, seed: UInt64(bits * 10 + channels))
                let url = dir.appendingPathComponent("d\(bits)c\(channels).flac")
                let file = try Self.write(samples, channels: channels, bits: bits, rate: 44100, to: url, chunks: [1000, 3333, 17, 4096])
                #expect(file.length == 10_007)
                try Self.checkEverywhere(url, samples, bits: bits, dir: dir, "\(bits)-bit \(channels) ch")
            }
        }
    }

    @Test func roundTripsSignals() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        for (kind, bits) in [(Signal.silence, 16), (.noise, 16), (.noise, 24), (.noise, 8), (.sines, 16), (.sines, 24), (.dcStep, 16), (.dcStep, 24)] {
            let samples = Self.signal(kind, frames: 20_000, channels: 2, bits: bits)
            let url = dir.appendingPathComponent("\(kind)\(bits).flac")
            try Self.write(samples, channels: 2, bits: bits, to: url)
            try Self.checkEverywhere(url, samples, bits: bits, dir: dir, "\(kind) \(bits)-bit")
        }
        // Silence costs a few bytes per frame (constant subframes).
        let silent = dir.appendingPathComponent("silence16.flac")
        let silentSize = try FileManager.default.attributesOfItem(atPath: silent.path)[.size] as! Int
        #expect(silentSize < 42 + 5 * 40)
    }

    @Test func oddLengthsAndWriteSizes() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        for frames in [1, 2, 15, 4095, 4096, 4097, 8193] {
            let samples = Self.signal(.mixed, frames: frames, channels: 2, bits: 16, seed: UInt64(frames))
            let url = dir.appendingPathComponent("len\(frames).flac")
            try Self.write(samples, channels: 2, bits: 16, to: url)
            try Self.checkEverywhere(url, samples, bits: 16, dir: dir, "\(frames) frames")
        }
        let samples = Self.signal(.music, frames: 30_001, channels: 2, bits: 16)
        let url = dir.appendingPathComponent("pieces.flac")
        try Self.write(samples, channels: 2, bits: 16, to: url, chunks: [1, 4095, 1, 7000, 13, 5000, 999, 3])
        try Self.checkEverywhere(url, samples, bits: 16, dir: dir, "odd write sizes")
    }

    @Test func reportsFLACFormats() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("f.flac")
        let file = try AVAudioFile(forWriting: url, settings: Self.settings(rate: 96000, channels: 2, bits: 24))
        let asbd = file.fileFormat.streamDescription.pointee
        #expect(asbd.mFormatID == kAudioFormatFLAC)
        #expect(asbd.mFormatFlags == kAppleLosslessFormatFlag_24BitSourceData)
        #expect(asbd.mSampleRate == 96000 && asbd.mChannelsPerFrame == 2 && asbd.mFramesPerPacket == 4096 && asbd.mBytesPerPacket == 0)
        #expect(file.processingFormat.commonFormat == .pcmFormatFloat32 && !file.processingFormat.isInterleaved)
        file.close()
        let back = try AVAudioFile(forReading: url)
        #expect(back.fileFormat.streamDescription.pointee.mFormatFlags == kAppleLosslessFormatFlag_24BitSourceData)
        #expect(back.length == 0)
        // No bit depth given: 16 bits.
        let plain = try AVAudioFile(forWriting: dir.appendingPathComponent("p.flac"),
                                    settings: [AVFormatIDKey: kAudioFormatFLAC, AVSampleRateKey: 44100, AVNumberOfChannelsKey: 1])
        #expect(plain.fileFormat.streamDescription.pointee.mFormatFlags == kAppleLosslessFormatFlag_16BitSourceData)
    }

    /// Float samples between the steps of a depth below its container's (20 bits in 24) round
    /// to the nearest step; full scale clips to the largest value.
    @Test func roundsToTheStreamDepth() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("r20.flac")
        let file = try AVAudioFile(forWriting: url, settings: Self.settings(rate: 48000, channels: 1, bits: 20))
        let step = Float(1 << 19)
        let inputs: [Float] = [1000.4 / step, 1000.6 / step, -1000.4 / step, -1000.6 / step, 1, -1]
        let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 6)!
        buffer.frameLength = 6
        for (i, v) in inputs.enumerated() { buffer.floatChannelData![0][i] = v }
        try file.write(from: buffer)
        file.close()
        #expect(try Self.readOurs(url, bits: 20) == [1000, 1001, -1000, -1001, (1 << 19) - 1, -(1 << 19)])
    }

    @Test func refusesWhatFLACCannotHold() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        func code(_ url: URL, _ settings: [String: Any]) -> Int? {
            do { _ = try AVAudioFile(forWriting: url, settings: settings); return nil } catch { return (error as NSError).code }
        }
        let flac = dir.appendingPathComponent("x.flac")
        #expect(code(dir.appendingPathComponent("x.wav"), Self.settings(rate: 48000, channels: 2, bits: 16)) == Int(kAudioFileUnsupportedDataFormatError))
        #expect(code(flac, Self.settings(rate: 48000, channels: 9, bits: 16)) == Int(kAudioFileUnsupportedDataFormatError))
        #expect(code(flac, Self.settings(rate: 48000, channels: 2, bits: 40)) == Int(kAudioFileUnsupportedDataFormatError))
        #expect(code(flac, Self.settings(rate: 44100.5, channels: 2, bits: 16)) == Int(kAudioFileUnsupportedDataFormatError))
        #expect(code(flac, [AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: 48000, AVNumberOfChannelsKey: 2]) == Int(kAudioFileUnsupportedDataFormatError))
        // FLAC cannot rewrite frames already written.
        let file = try AVAudioFile(forWriting: flac, settings: Self.settings(rate: 48000, channels: 1, bits: 16))
        let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 100)!
        buffer.frameLength = 100
        try file.write(from: buffer)
        file.framePosition = 50
        #expect(throws: NSError.self) { try file.write(from: buffer) }
        file.close()
        #expect(try AVAudioFile(forReading: flac).length == 100)
    }

    /// A writer that never closed leaves every complete frame readable: STREAMINFO counts them.
    @Test func unclosedFileHoldsEveryCompleteFrame() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let samples = Self.signal(.music, frames: 10_000, channels: 2, bits: 16)
        let url = dir.appendingPathComponent("open.flac")
        let file = try Self.write(samples, channels: 2, bits: 16, to: url, chunks: [3000], keepOpen: true)
        let copy = dir.appendingPathComponent("copy.flac")
        try FileManager.default.copyItem(at: url, to: copy)
        file.close()
        let complete = Array(samples[0..<(8192 * 2)])
        let ours = try Self.readOurs(copy, bits: 16)
        let oursComplete = ours == complete
        #expect(oursComplete, "our reader: \(ours.count / 2) frames")
        #expect(try Self.streamInfoMD5(copy) == String(repeating: "0", count: 32))
        if Self.hasFFmpeg, let (theirs, errors) = Self.readFFmpeg(copy, bits: 16) {
            let theirsComplete = theirs == complete && errors.isEmpty
            #expect(theirsComplete, "ffmpeg: \(theirs.count / 2) frames, \(errors)")
        }
        try Self.checkEverywhere(url, samples, bits: 16, dir: dir, "closed")
    }

    /// 32-bit streams (side channels of 33 bits): our reader, and ffmpeg when it is version 6 or later.
    @Test func thirtyTwoBitRoundTrip() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        for kind in [Signal.noise, .sines, .dcStep, .music] {
            let samples = Self.signal(kind, frames: 9000, channels: 2, bits: 32)
            let url = dir.appendingPathComponent("s32.flac")
            try Self.write(samples, channels: 2, bits: 32, to: url, chunks: [5000])
            try Self.checkEverywhere(url, samples, bits: 32, dir: dir, "32-bit \(kind)")
        }
    }

    /// Size against ffmpeg's FLAC encoder at its default level on the same music-like material.
    @Test func compressionComparableToFFmpeg() throws {
        guard Self.hasFFmpeg else { print("SKIP FLAC size against ffmpeg: ffmpeg is not installed"); return }
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let samples = Self.signal(.music, frames: 44100 * 20, channels: 2, bits: 16, seed: 7)
        let ours = dir.appendingPathComponent("ours.flac")
        try Self.write(samples, channels: 2, bits: 16, rate: 44100, to: ours)
        let wav = dir.appendingPathComponent("in.wav")
        try Self.writeStereo16WAV(samples, to: wav)
        let theirs = dir.appendingPathComponent("ffmpeg.flac")
        #expect(Self.run(["ffmpeg", "-v", "error", "-y", "-i", wav.path, "-c:a", "flac", theirs.path])?.status == 0)
        let ourSize = try FileManager.default.attributesOfItem(atPath: ours.path)[.size] as! Int
        let theirSize = try FileManager.default.attributesOfItem(atPath: theirs.path)[.size] as! Int
        print("FLAC size, 20 s stereo 16-bit music-like: ours \(ourSize) bytes, ffmpeg (default level) \(theirSize) bytes, ratio \(String(format: "%.4f", Double(ourSize) / Double(theirSize)))")
        #expect(Double(ourSize) <= Double(theirSize) * 1.03)
        try Self.checkEverywhere(ours, samples, bits: 16, dir: dir, "music")
    }

    /// Compression levels 0–8 (`_FLACCompressionLevelKey`, and AVEncoderAudioQualityKey mapped onto
    /// them): each file decodes bit-exactly, level 0 writes 1,152-frame packets as libFLAC's does,
    /// a higher level never writes a larger file on this material, and each level's size is
    /// printed next to ffmpeg's at the same `-compression_level` (whose levels follow libFLAC's
    /// block sizes and LPC orders).
    @Test func compressionLevels() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let samples = Self.signal(.music, frames: 44100 * 4, channels: 2, bits: 16, seed: 3)
        func write(_ extra: [String: Any], _ name: String) throws -> (size: Int, packet: UInt32) {
            let url = dir.appendingPathComponent(name)
            var settings = Self.settings(rate: 44100, channels: 2, bits: 16)
            settings.merge(extra) { $1 }
            let file = try AVAudioFile(forWriting: url, settings: settings, commonFormat: .pcmFormatFloat32, interleaved: false)
            let packet = file.fileFormat.streamDescription.pointee.mFramesPerPacket
            let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: AVAudioFrameCount(samples.count / 2))!
            buffer.frameLength = buffer.frameCapacity
            for i in 0..<(samples.count / 2) {
                for c in 0..<2 { buffer.floatChannelData![c][i] = Float(samples[i * 2 + c]) / 32768 }
            }
            try file.write(from: buffer)
            file.close()
            try Self.checkEverywhere(url, samples, bits: 16, dir: dir, name)
            return (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as! Int, packet)
        }
        var sizes: [Int: Int] = [:]
        for level in [0, 3, 5, 8] {
            let result = try write([_FLACCompressionLevelKey: level], "level\(level).flac")
            sizes[level] = result.size
            #expect(result.packet == (level <= 2 ? 1152 : 4096), "level \(level) writes \(result.packet)-frame packets")
        }
        #expect(sizes[8]! <= sizes[5]! && sizes[5]! <= sizes[0]!, "sizes by level: \(sizes.sorted { $0.key < $1.key })")
        // AVEncoderAudioQualityKey: .min is level 0, .max level 8.
        #expect(try write([AVEncoderAudioQualityKey: AVAudioQuality.min.rawValue], "min.flac") == (sizes[0]!, 1152))
        #expect(try write([AVEncoderAudioQualityKey: AVAudioQuality.max.rawValue], "max.flac") == (sizes[8]!, 4096))
        // A level outside 0…8 is refused before any file is created.
        let bad = dir.appendingPathComponent("bad.flac")
        do {
            var settings = Self.settings(rate: 44100, channels: 2, bits: 16)
            settings[_FLACCompressionLevelKey] = 9
            _ = try AVAudioFile(forWriting: bad, settings: settings)
            Issue.record("level 9 was accepted")
        } catch let error as NSError {
            #expect(error.code == Int(kAudioFileUnsupportedDataFormatError) && error.localizedDescription.contains("0 to 8"))
        }
        #expect(!FileManager.default.fileExists(atPath: bad.path))
        guard Self.hasFFmpeg else { print("SKIP FLAC level sizes against ffmpeg: ffmpeg is not installed"); return }
        let wav = dir.appendingPathComponent("in.wav")
        try Self.writeStereo16WAV(samples, to: wav)
        for level in [0, 3, 5, 8] {
            let theirs = dir.appendingPathComponent("ffmpeg\(level).flac")
            #expect(Self.run(["ffmpeg", "-v", "error", "-y", "-i", wav.path, "-c:a", "flac", "-compression_level", "\(level)", theirs.path])?.status == 0)
            let theirSize = try FileManager.default.attributesOfItem(atPath: theirs.path)[.size] as! Int
            print("FLAC level \(level): ours \(sizes[level]!) bytes, ffmpeg \(theirSize) bytes, ratio \(String(format: "%.4f", Double(sizes[level]!) / Double(theirSize)))")
            #expect(Double(sizes[level]!) <= Double(theirSize) * 1.03, "level \(level): ours \(sizes[level]!) bytes, ffmpeg's \(theirSize)")
        }
    }
}
