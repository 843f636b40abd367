// The FLAC decoder's fast paths against ffmpeg's decoder, case by case: every LPC order 1…32 and
// fixed order 0…4 (each its own specialised loop), every stereo decorrelation mode, every bit
// depth 4…32, frames that end exactly where the buffer ends (where the bit reader leaves its
// 8-byte loads for byte-at-a-time ones), the Float32 conversion with the stereo decorrelation
// fused into it, and the CRC-16 (carry-less multiply and sliced table) against the bitwise
// definition.
// The streams come from ffmpeg's encoder (forced predictor orders and stereo modes) or, for the
// depths ffmpeg cannot encode, from ours; the reference samples are always ffmpeg's decode of the
// same bytes (left-justified in 32 bits), and the source samples too. Skips visibly when ffmpeg
// is missing.
import Foundation
import Testing
import AudioCodecs

@Suite struct FLACDecoderFastPathTests {
    static let ffmpeg: Bool = {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["ffmpeg", "-version"]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        do { try p.run() } catch { return false }
        p.waitUntilExit()
        return p.terminationStatus == 0
    }()

    /// Runs a command; returns its standard output, or throws with its standard error.
    @discardableResult
    static func run(_ args: [String]) throws -> Data {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = args
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        final class Box: @unchecked Sendable { var data = Data() }
        let output = Box()
        let reader = Thread { output.data = out.fileHandleForReading.readDataToEndOfFile() }
        reader.start()
        let message = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        while !reader.isFinished { usleep(1000) }
        if p.terminationStatus != 0 {
            throw CodecError(.corrupt, "\(args.joined(separator: " ")) failed: \(String(decoding: message, as: UTF8.self).suffix(400))")
        }
        return output.data
    }

    static func directory() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flac-fast-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// A deterministic test signal: two tones plus noise, the second channel correlated with the
    /// first (so every stereo mode is worth something), at `bits` bits, interleaved.
    static func signal(frames: Int, channels: Int, bits: Int, seed: UInt64 = 1) -> [Int64] {
        var s = seed | 1
        let top = Double((Int64(1) << (bits - 1)) - 1)
        var x = [Int64](repeating: 0, count: frames * channels)
        for i in 0..<frames {
            let t = Double(i)
            let a = 0.5 * sin(t / 7.3) + 0.2 * sin(t / 2.1 + 1)
            for c in 0..<channels {
                s = s &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let noise = Double(Int64(bitPattern: s) >> 40) / Double(1 << 23) * 0.01
                let v = (c == 0 ? a : 0.7 * a + 0.1 * sin(t / 3.3)) + noise
                x[i * channels + c] = Int64((v * top).rounded())
            }
        }
        return x
    }

    /// A WAV file of `x` (interleaved) in 16- or 24-bit PCM, for ffmpeg's encoder.
    static func wav(_ x: [Int64], channels: Int, bits: Int, rate: Int = 44100) -> Data {
        let width = bits / 8
        var d = Data()
        func u32(_ v: Int) { withUnsafeBytes(of: UInt32(v).littleEndian) { d.append(contentsOf: $0) } }
        func u16(_ v: Int) { withUnsafeBytes(of: UInt16(v).littleEndian) { d.append(contentsOf: $0) } }
        d.append(contentsOf: Array("RIFF".utf8)); u32(36 + x.count * width)
        d.append(contentsOf: Array("WAVEfmt ".utf8)); u32(16); u16(1); u16(channels); u32(rate)
        u32(rate * channels * width); u16(channels * width); u16(bits)
        d.append(contentsOf: Array("data".utf8)); u32(x.count * width)
        for v in x {
            for b in 0..<width { d.append(UInt8(truncatingIfNeeded: v >> (8 * b))) }
        }
        return d
    }

    /// ffmpeg's decode of `flac`: interleaved samples, left-justified in 32 bits.
    static func ffmpegDecode(_ flac: URL) throws -> [Int32] {
        let raw = try run(["ffmpeg", "-loglevel", "error", "-i", flac.path, "-f", "s32le", "-c:a", "pcm_s32le", "-"])
        return raw.withUnsafeBytes { Array($0.bindMemory(to: Int32.self)) }
    }

    /// Decodes `bytes` with our decoder and compares it with ffmpeg's decode and with the source;
    /// returns the decoder's statistics.
    @discardableResult
    static func check(_ flac: URL, source: [Int64], channels: Int, bits: Int, _ label: String) throws -> FLACFrameDecoder.Statistics {
        let bytes = try Data(contentsOf: flac)
        let reference = try ffmpegDecode(flac)
        let (info, decoded, statistics) = try bytes.withUnsafeBytes { try FLACDecoder.decode($0) }
        #expect(info.bitsPerSample == bits && info.channelCount == channels, "\(label)")
        let frames = source.count / channels
        #expect(reference.count == source.count, "\(label): ffmpeg decoded \(reference.count) samples, expected \(source.count)")
        guard decoded.count == channels, decoded.allSatisfy({ $0.count == frames }), reference.count == source.count else {
            Issue.record("\(label): decoded \(decoded.map(\.count)) frames per channel, expected \(frames)")
            return statistics
        }
        var againstFFmpeg = 0, againstSource = 0
        for i in 0..<frames {
            for c in 0..<channels {
                let ours = Int64(decoded[c][i])
                if ours << (32 - bits) != Int64(reference[i * channels + c]) { againstFFmpeg += 1 }
                if ours != source[i * channels + c] { againstSource += 1 }
            }
        }
        #expect(againstFFmpeg == 0, "\(label): \(againstFFmpeg) samples differ from ffmpeg's decode")
        #expect(againstSource == 0, "\(label): \(againstSource) samples differ from the source")
        try checkFloat32(bytes, reference: reference, channels: channels, bits: bits, label)
        return statistics
    }

    /// The Float32 output (what AVAudioFile reads): frames decoded with the stereo decorrelation
    /// deferred and fused into `convertToFloat32`, against ffmpeg's samples put through the same
    /// scaling (left-justified in the PCM container, over its full scale). Every other frame is
    /// converted in two halves with `samples(channel:)` asked for in between, which must give
    /// the decorrelated integers and leave the second half's conversion right.
    static func checkFloat32(_ bytes: Data, reference: [Int32], channels: Int, bits: Int, _ label: String) throws {
        let container = bits <= 8 ? 8 : bits <= 16 ? 16 : bits <= 24 ? 24 : 32
        let scale = 1 / Float(Int64(1) << Int64(container - 1))
        let frames = reference.count / channels
        let out = (0..<channels).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: frames + 65536) }
        defer { out.forEach { $0.deallocate() } }
        var wrongIntegers = 0
        try bytes.withUnsafeBytes { raw in
            let (info, _, audioOffset) = try FLACStreamHeader.parse(raw)
            let decoder = FLACFrameDecoder(info: info)
            var offset = audioOffset, done = 0, index = 0
            try out.withUnsafeBufferPointer { planes in
                let planes = UnsafePointer(planes.baseAddress!)
                while offset < raw.count {
                    let (h, length) = try decoder.decodeFrame(raw, at: offset, deferringDecorrelation: true)
                    let n = min(h.blockSize, frames - done)
                    if index % 2 == 0 {
                        decoder.convertToFloat32(from: 0, count: n, shift: container - bits, scale: scale, into: planes, at: done)
                    } else {
                        let half = n / 2
                        decoder.convertToFloat32(from: 0, count: half, shift: container - bits, scale: scale, into: planes, at: done)
                        for c in 0..<channels {
                            let s = decoder.samples(channel: c)
                            for i in 0..<n where s[i] << (32 - bits) != Int64(reference[(done + i) * channels + c]) { wrongIntegers += 1 }
                        }
                        decoder.convertToFloat32(from: half, count: n - half, shift: container - bits, scale: scale, into: planes, at: done + half)
                    }
                    done += n
                    offset += length
                    index += 1
                }
            }
            #expect(done == frames, "\(label): \(done) frames converted, expected \(frames)")
        }
        var wrong = 0
        for i in 0..<frames {
            for c in 0..<channels {
                let expected = Float(Int32(truncatingIfNeeded: Int64(reference[i * channels + c]) >> (32 - container))) * scale
                if out[c][i].bitPattern != expected.bitPattern { wrong += 1 }
            }
        }
        #expect(wrong == 0, "\(label): \(wrong) Float32 samples differ from ffmpeg's decode scaled")
        #expect(wrongIntegers == 0, "\(label): \(wrongIntegers) samples differ after a deferred decorrelation")
    }

    /// ffmpeg-encoded stereo 16-bit and mono 24-bit streams with the predictor forced to
    /// `type` ("fixed" or "levinson") of exactly `order`.
    static func forcedOrder(_ type: String, _ order: Int) throws {
        let dir = try directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for (channels, bits) in [(2, 16), (1, 24)] {
            let x = signal(frames: 9000, channels: channels, bits: bits, seed: UInt64(order + 1))
            let input = dir.appendingPathComponent("in\(bits).wav"), out = dir.appendingPathComponent("\(type)\(order)-\(bits).flac")
            try wav(x, channels: channels, bits: bits).write(to: input)
            try run(["ffmpeg", "-loglevel", "error", "-y", "-i", input.path, "-c:a", "flac", "-lpc_type", type,
                     "-min_prediction_order", "\(order)", "-max_prediction_order", "\(order)", out.path])
            let stats = try check(out, source: x, channels: channels, bits: bits, "\(type) order \(order), \(bits)-bit")
            if type == "fixed" {
                #expect(stats.fixed > 0 && stats.lpc == 0, "\(type) \(order) \(bits)-bit: \(stats)")
            } else {
                #expect(stats.lpc > 0 && stats.largestLPCOrder == order, "\(type) \(order) \(bits)-bit: \(stats)")
            }
        }
    }

    @Test(arguments: 1...32)
    func everyLPCOrderDecodesLikeFFmpeg(order: Int) throws {
        guard Self.ffmpeg else { print("SKIP FLAC LPC order \(order): ffmpeg is not installed"); return }
        try Self.forcedOrder("levinson", order)
    }

    @Test(arguments: 0...4)
    func everyFixedOrderDecodesLikeFFmpeg(order: Int) throws {
        guard Self.ffmpeg else { print("SKIP FLAC fixed order \(order): ffmpeg is not installed"); return }
        try Self.forcedOrder("fixed", order)
    }

    /// Stereo frames whose two linear-prediction subframes run their restores in one loop
    /// (CFLACKernels/lpc.c), each channel's order chosen on its own (ffmpeg's exhaustive order
    /// search over 1…32 on two unlike channels; every pair of orders is checked directly in
    /// FLACLPCKernelTests), and with wasted bits (samples multiples of 8,
    /// which the pair applies after the restore), at 16 and 24 bits, independent channels and
    /// left/side.
    @Test func stereoPairsOfPredictorsDecodeLikeFFmpeg() throws {
        guard Self.ffmpeg else { print("SKIP FLAC stereo predictor pairs: ffmpeg is not installed"); return }
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for bits in [16, 24] {
            for wasted in [0, 3] {
                var x = Self.signal(frames: 12000, channels: 2, bits: bits, seed: UInt64(bits + wasted))
                // The right channel: a different, noisier signal, so its best order differs.
                var s: UInt64 = 77
                for i in 0..<12000 {
                    s = s &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    let t = Double(i)
                    let v = 0.3 * sin(t / 1.7) + 0.2 * sin(t / 13.1) + Double(Int64(bitPattern: s) >> 40) / Double(1 << 23) * 0.05
                    x[2 * i + 1] = Int64((v * Double((Int64(1) << (bits - 1)) - 1)).rounded())
                }
                if wasted > 0 { x = x.map { ($0 >> Int64(wasted)) << Int64(wasted) } }
                let input = dir.appendingPathComponent("pair.wav")
                try Self.wav(x, channels: 2, bits: bits).write(to: input)
                for mode in [0, 1] {
                    let out = dir.appendingPathComponent("pair\(bits)-\(wasted)-\(mode).flac")
                    try Self.run(["ffmpeg", "-loglevel", "error", "-y", "-i", input.path, "-c:a", "flac", "-ch_mode", "\(mode)",
                                  "-lpc_type", "levinson", "-min_prediction_order", "1", "-max_prediction_order", "32",
                                  "-prediction_order_method", "search", out.path])
                    let label = "pair \(bits)-bit wasted \(wasted) ch_mode \(mode)"
                    let stats = try Self.check(out, source: x, channels: 2, bits: bits, label)
                    #expect(stats.lpc > 0, "\(label): \(stats)")
                    if wasted > 0 { #expect(stats.wastedBits > 0, "\(label): \(stats)") }
                }
            }
        }
    }

    /// ffmpeg's -ch_mode: 0 independent, 1 left/side, 2 right/side, 3 mid/side (channel
    /// assignments 1, 8, 9, 10), at 16 and 24 bits.
    @Test func everyStereoModeDecodesLikeFFmpeg() throws {
        guard Self.ffmpeg else { print("SKIP FLAC stereo modes: ffmpeg is not installed"); return }
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for bits in [16, 24] {
            let x = Self.signal(frames: 20000, channels: 2, bits: bits, seed: 9)
            let input = dir.appendingPathComponent("in.wav")
            try Self.wav(x, channels: 2, bits: bits).write(to: input)
            for (mode, assignment) in [(0, 1), (1, 8), (2, 9), (3, 10)] {
                let out = dir.appendingPathComponent("mode\(mode).flac")
                try Self.run(["ffmpeg", "-loglevel", "error", "-y", "-i", input.path, "-c:a", "flac", "-ch_mode", "\(mode)", out.path])
                let stats = try Self.check(out, source: x, channels: 2, bits: bits, "ch_mode \(mode), \(bits)-bit")
                #expect(stats.assignments[assignment] > 0 && stats.assignments.reduce(0, +) == stats.assignments[assignment],
                        "ch_mode \(mode) \(bits)-bit: \(stats.assignments)")
            }
        }
    }

    /// Every depth FLAC allows, 4…32 bits (side channels up to 33 bits), stereo: streams from
    /// our encoder (ffmpeg encodes only 16 and 24), decoded by ffmpeg and by us.
    @Test func everyBitDepthDecodesLikeFFmpeg() throws {
        guard Self.ffmpeg else { print("SKIP FLAC bit depths: ffmpeg is not installed"); return }
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var refusedByFFmpeg: [Int] = []
        for bits in 4...32 {
            let frames = 10000
            var x = Self.signal(frames: frames, channels: 2, bits: bits, seed: UInt64(bits))
            // Full-scale opposite extremes in a stretch: side channels reach bits + 1.
            let top = (Int64(1) << (bits - 1)) - 1
            for i in 5000..<5100 { x[2 * i] = i % 2 == 0 ? top : -top - 1; x[2 * i + 1] = i % 2 == 0 ? -top - 1 : top }
            let url = dir.appendingPathComponent("depth\(bits).flac")
            try Self.stream(x, channels: 2, bits: bits).write(to: url)
            let decodedByFFmpeg = ((try? Self.ffmpegDecode(url)) ?? []).count == x.count
            if decodedByFFmpeg {
                try Self.check(url, source: x, channels: 2, bits: bits, "\(bits)-bit")
            } else {
                // ffmpeg 5.1 has no 32-bit FLAC decoder (added in 6.0; it reports an error and
                // writes nothing): the source is the reference then.
                refusedByFFmpeg.append(bits)
                let (_, decoded, _) = try Data(contentsOf: url).withUnsafeBytes { try FLACDecoder.decode($0) }
                var wrong = 0
                for i in 0..<frames { for c in 0..<2 where Int64(decoded[c][i]) != x[2 * i + c] { wrong += 1 } }
                #expect(wrong == 0, "\(bits)-bit: \(wrong) samples differ from the source")
            }
        }
        #expect(refusedByFFmpeg.allSatisfy { $0 > 24 }, "ffmpeg refused \(refusedByFFmpeg)")
        if !refusedByFFmpeg.isEmpty { print("NOTE FLAC depths \(refusedByFFmpeg) checked against the source only: this ffmpeg does not decode them") }
    }

    /// A native FLAC stream of `x` (interleaved) from our encoder: "fLaC", STREAMINFO, frames.
    static func stream(_ x: [Int64], channels: Int, bits: Int, rate: Int = 44100, blockSize: Int = 4096) throws -> Data {
        let encoder = try FLACEncoder(sampleRate: rate, channelCount: channels, bitsPerSample: bits, blockSize: blockSize)
        let frames = x.count / channels
        var body = Data()
        var at = 0, number: Int64 = 0
        while at < frames {
            let n = min(blockSize, frames - at)
            for c in 0..<channels { for i in 0..<n { encoder.samples(channel: c)[i] = x[(at + i) * channels + c] } }
            body.append(contentsOf: encoder.encodeFrame(count: n, frameNumber: number))
            at += n
            number += 1
        }
        // STREAMINFO (RFC 9639 §8.2): block sizes, frame sizes unknown (0), rate, channels − 1,
        // bits − 1, total samples, MD5 zero (= not computed).
        var info = [UInt8](repeating: 0, count: 34)
        info[0] = UInt8(blockSize >> 8); info[1] = UInt8(blockSize & 0xFF)
        info[2] = UInt8(blockSize >> 8); info[3] = UInt8(blockSize & 0xFF)
        let packed = UInt64(rate) << 44 | UInt64(channels - 1) << 41 | UInt64(bits - 1) << 36 | UInt64(frames)
        for b in 0..<8 { info[10 + b] = UInt8(truncatingIfNeeded: packed >> (56 - 8 * b)) }
        var d = Data(Array("fLaC".utf8))
        d.append(contentsOf: [0x80, 0, 0, 34])
        d.append(contentsOf: info)
        d.append(body)
        return d
    }

    /// Each frame alone in a buffer of exactly its length decodes as it does inside the stream
    /// (the bit reader's last 8 bytes go byte by byte, never past the end), and every cut of
    /// it throws instead of reading on.
    @Test func framesEndingAtTheBuffersEnd() throws {
        guard Self.ffmpeg else { print("SKIP FLAC buffer-end frames: ffmpeg is not installed"); return }
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for (bits, order) in [(16, 8), (24, 32)] {
            let x = Self.signal(frames: 3 * 1152 + 77, channels: 2, bits: bits, seed: 4)
            let input = dir.appendingPathComponent("in.wav"), out = dir.appendingPathComponent("end.flac")
            try Self.wav(x, channels: 2, bits: bits).write(to: input)
            try Self.run(["ffmpeg", "-loglevel", "error", "-y", "-i", input.path, "-c:a", "flac", "-frame_size", "1152",
                          "-max_prediction_order", "\(order)", out.path])
            let bytes = [UInt8](try Data(contentsOf: out))
            let (info, _, audioOffset) = try bytes.withUnsafeBytes { try FLACStreamHeader.parse($0) }
            let whole = FLACFrameDecoder(info: info), alone = FLACFrameDecoder(info: info)
            var offset = audioOffset, frames = 0
            while offset < bytes.count {
                let (header, length) = try bytes.withUnsafeBytes { try whole.decodeFrame($0, at: offset) }
                let exact = UnsafeMutableRawBufferPointer.allocate(byteCount: length, alignment: 1)
                defer { exact.deallocate() }
                exact.copyBytes(from: bytes[offset..<(offset + length)])
                let (h2, l2) = try alone.decodeFrame(UnsafeRawBufferPointer(exact), at: 0)
                #expect(h2 == header && l2 == length)
                var differ = 0
                for c in 0..<2 {
                    for i in 0..<header.blockSize where whole.samples(channel: c)[i] != alone.samples(channel: c)[i] { differ += 1 }
                }
                #expect(differ == 0, "\(bits)-bit frame \(frames): \(differ) samples differ when the frame ends the buffer")
                for cut in stride(from: length - 1, to: length - 40, by: -1) {
                    #expect(throws: CodecError.self, "\(bits)-bit frame \(frames) cut to \(cut) of \(length) bytes") {
                        _ = try alone.decodeFrame(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(exact)[..<cut]), at: 0)
                    }
                }
                offset += length
                frames += 1
            }
            #expect(frames == 4)
            try Self.check(out, source: x, channels: 2, bits: bits, "\(bits)-bit 1152-sample frames")
        }
    }

    /// The CRC-16 equals the polynomial's bitwise definition (x^16 + x^15 + x^2 + 1, MSB first,
    /// initial 0) for every length 0…330 at four alignments: with the carry-less multiply kernel
    /// (by default on x86-64 CPUs with PCLMULQDQ) every path of it — under 32 bytes, one fold at a
    /// time (32…127), four folds in flight (128 and up, one step and several), each remainder of
    /// 16 and 64 — and with OPENAVFAUDIO_FLAC_PORTABLE=1 the table sliced eight bytes at a time.
    @Test func slicedCRC16MatchesTheDefinition() {
        var s: UInt64 = 12345
        let bytes = (0..<340).map { _ -> UInt8 in
            s = s &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: s >> 56)
        }
        func bitwise(_ p: ArraySlice<UInt8>) -> UInt16 {
            var c: UInt16 = 0
            for b in p {
                c ^= UInt16(b) << 8
                for _ in 0..<8 { c = c & 0x8000 != 0 ? (c << 1) ^ 0x8005 : c << 1 }
            }
            return c
        }
        var wrong = 0
        bytes.withUnsafeBufferPointer { p in
            for start in 0..<4 {
                for n in 0...330 where FLACChecksums.crc16(p.baseAddress! + start, n) != bitwise(bytes[start..<(start + n)]) { wrong += 1 }
            }
        }
        #expect(wrong == 0)
        // The check value of the CRC-16/UMTS (BUYPASS) parameters FLAC uses, "123456789" → 0xFEE8.
        let check = Array("123456789".utf8)
        #expect(check.withUnsafeBufferPointer { FLACChecksums.crc16($0.baseAddress!, 9) } == 0xFEE8)
    }
}
