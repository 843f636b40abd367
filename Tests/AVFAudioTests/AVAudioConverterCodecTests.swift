// AVAudioConverter encoding PCM → Apple Lossless / FLAC packets and decoding them back, with
// Apple's packet semantics: encoded with several output packet capacities, the packets (their
// descriptions contiguous, sizes within maximumOutputPacketSize, all but the last holding 4,096
// frames) decode with a second converter to exactly the samples encoded, whatever the output
// buffer's capacity (1, 17, 4,096, 100,000 frames); packets of files ffmpeg encoded (ALAC in CAF,
// 24-bit FLAC), split by ffprobe's packet table, decode to exactly ffmpeg's own decoding
// (skipped, saying so, without ffmpeg); FLAC 96 kHz 24-bit → Float32 48 kHz in one converter
// equals decoding and then resampling with a PCM converter; and the errors Apple's codes name.
import Foundation
import Testing
import AVFoundation

@Suite struct AVAudioConverterCodecTests {
    /// A compressed format as a client describes it (flags: the source depth; 0 = unsaid).
    static func compressed(_ codec: AudioFormatID, rate: Double, channels: UInt32, flags: AudioFormatFlags, framesPerPacket: UInt32 = 4096) -> AVAudioFormat {
        var asbd = AudioStreamBasicDescription(mSampleRate: rate, mFormatID: codec, mFormatFlags: flags, mBytesPerPacket: 0,
                                               mFramesPerPacket: framesPerPacket, mBytesPerFrame: 0, mChannelsPerFrame: channels,
                                               mBitsPerChannel: 0, mReserved: 0)
        // More than two channels need a layout (as on Apple platforms): ALAC's 5.1 order here.
        return AVAudioFormat(streamDescription: &asbd, channelLayout: channels > 2 ? surround : nil)!
    }

    static let surround = AVAudioChannelLayout(layoutTag: kAudioChannelLayoutTag_MPEG_5_1_D)!

    /// Interleaved Int32 PCM (`bits` significant, left-justified) of a tone, a chirp and noise per
    /// channel: what the lossless codecs must give back exactly.
    static func source(frames: Int, channels: Int, rate: Double, bits: Int) -> AVAudioPCMBuffer {
        let format = channels > 2 ? AVAudioFormat(commonFormat: .pcmFormatInt32, sampleRate: rate, interleaved: true, channelLayout: surround)
            : AVAudioFormat(commonFormat: .pcmFormatInt32, sampleRate: rate, channels: AVAudioChannelCount(channels), interleaved: true)!
        let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(frames))!
        buffer.frameLength = AVAudioFrameCount(frames)
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        let p = buffer.int32ChannelData![0]
        let top = Double(1 << (bits - 1)) - 1
        for i in 0..<frames {
            for c in 0..<channels {
                seed = seed &* 6364136223846793005 &+ 1442695040888963407
                let noise = Double(Int64(bitPattern: seed) >> 40) / Double(1 << 23)
                let t = Double(i) / rate
                let v = 0.6 * sin(2 * .pi * (330 + 110 * Double(c)) * t + 0.002 * Double(i % 5000) * t) + 0.05 * noise
                p[i * channels + c] = Int32((v * top).rounded()) << Int32(32 - bits)
            }
        }
        return buffer
    }

    /// The interleaved samples of an interleaved Int32 or Int16 buffer, as Int32.
    static func samples(_ buffer: AVAudioPCMBuffer) -> [Int32] {
        let n = Int(buffer.frameLength) * Int(buffer.format.channelCount)
        if let p = buffer.int16ChannelData { return (0..<n).map { Int32(p[0][$0]) } }
        return Array(UnsafeBufferPointer(start: buffer.int32ChannelData![0], count: n))
    }

    struct Encoded {
        var packets: [[UInt8]] = []
        var frames: [Int] = []
        var statuses: [AVAudioConverterOutputStatus] = []
        var cookie: Data?
        var maximumPacketSize = 0
    }

    /// Encodes `input` fed in `chunk`-frame buffers (a `.noDataNow` after every third one, to
    /// exercise `.inputRanDry`) into buffers of `packetCapacity` packets; checks each output's
    /// packet descriptions as it goes.
    static func encode(_ input: AVAudioPCMBuffer, to format: AVAudioFormat, chunk: Int, packetCapacity: AVAudioPacketCount) throws -> Encoded {
        let converter = try #require(AVAudioConverter(from: input.format, to: format))
        var result = Encoded(cookie: converter.magicCookie, maximumPacketSize: converter.maximumOutputPacketSize)
        let total = Int(input.frameLength), channels = Int(input.format.channelCount)
        var fed = 0, calls = 0
        let output = AVAudioCompressedBuffer(format: format, packetCapacity: packetCapacity, maximumPacketSize: converter.maximumOutputPacketSize)
        for _ in 0..<10_000 {
            var error: NSError?
            let status = converter.convert(to: output, error: &error) { _, status in
                calls += 1
                if calls % 4 == 0 { status.pointee = .noDataNow; return nil }
                guard fed < total else { status.pointee = .endOfStream; return nil }
                let n = min(chunk, total - fed)
                let piece = AVAudioPCMBuffer(pcmFormat: input.format, frameCapacity: AVAudioFrameCount(n))!
                piece.frameLength = AVAudioFrameCount(n)
                piece.int32ChannelData![0].update(from: input.int32ChannelData![0] + fed * channels, count: n * channels)
                fed += n
                status.pointee = .haveData
                return piece
            }
            #expect(error == nil, "\(error.map { "\($0)" } ?? "")")
            result.statuses.append(status)
            #expect(output.packetCount <= packetCapacity)
            var offset: Int64 = 0
            for k in 0..<Int(output.packetCount) {
                let d = output.packetDescriptions![k]
                #expect(d.mStartOffset == offset)
                #expect(d.mDataByteSize > 0 && Int(d.mDataByteSize) <= converter.maximumOutputPacketSize)
                #expect(d.mVariableFramesInPacket == 0)
                result.packets.append(Array(UnsafeRawBufferPointer(start: output.data + Int(d.mStartOffset), count: Int(d.mDataByteSize))))
                offset += Int64(d.mDataByteSize)
            }
            #expect(Int64(output.byteLength) == offset)
            if status == .haveData { #expect(output.packetCount > 0) }
            if status == .endOfStream { #expect(output.packetCount == 0); break }
            if status == .error { break }
        }
        return result
    }

    /// Decodes `packets` (`perBuffer` to an input buffer) into `outFormat` buffers of
    /// `capacity` frames; returns the concatenated output and the statuses.
    static func decode(_ packets: [[UInt8]], from format: AVAudioFormat, cookie: Data?, to outFormat: AVAudioFormat,
                       capacity: Int, perBuffer: Int = 3, dryEvery: Int = 0, converter given: AVAudioConverter? = nil) throws -> (buffers: [AVAudioPCMBuffer], statuses: [AVAudioConverterOutputStatus], error: NSError?) {
        let converter = try given ?? #require(AVAudioConverter(from: format, to: outFormat))
        converter.magicCookie = cookie
        let largest = max(1, packets.map(\.count).max() ?? 1)
        var next = 0, calls = 0
        var buffers: [AVAudioPCMBuffer] = [], statuses: [AVAudioConverterOutputStatus] = []
        for _ in 0..<1_000_000 {
            let out = AVAudioPCMBuffer(pcmFormat: outFormat, frameCapacity: AVAudioFrameCount(capacity))!
            var error: NSError?
            let status = converter.convert(to: out, error: &error) { wanted, status in
                #expect(wanted >= 1)
                calls += 1
                if dryEvery > 0 && calls % dryEvery == 0 { status.pointee = .noDataNow; return nil }
                guard next < packets.count else { status.pointee = .endOfStream; return nil }
                let n = min(perBuffer, packets.count - next)
                let buffer = AVAudioCompressedBuffer(format: format, packetCapacity: AVAudioPacketCount(n), maximumPacketSize: largest)
                var offset = 0
                for k in 0..<n {
                    let bytes = packets[next + k]
                    bytes.withUnsafeBytes { (buffer.data + offset).copyMemory(from: $0.baseAddress!, byteCount: bytes.count) }
                    buffer.packetDescriptions![k] = AudioStreamPacketDescription(mStartOffset: Int64(offset), mVariableFramesInPacket: 0, mDataByteSize: UInt32(bytes.count))
                    offset += bytes.count
                }
                buffer.packetCount = AVAudioPacketCount(n)
                buffer.byteLength = UInt32(offset)
                next += n
                status.pointee = .haveData
                return buffer
            }
            statuses.append(status)
            if status == .error { return (buffers, statuses, error) }
            if out.frameLength > 0 { buffers.append(out) }
            if status == .endOfStream { #expect(out.frameLength == 0); break }
        }
        return (buffers, statuses, nil)
    }

    static let int32Stereo = AVAudioFormat(commonFormat: .pcmFormatInt32, sampleRate: 44_100, channels: 2, interleaved: true)!

    // MARK: Round trips

    @Test(arguments: [(kAudioFormatAppleLossless, 16), (kAudioFormatAppleLossless, 24), (kAudioFormatFLAC, 16), (kAudioFormatFLAC, 24)],
          [AVAudioPacketCount(1), 2, 5])
    func encodesAndDecodesBitExactly(_ codec: (AudioFormatID, Int), packetCapacity: AVAudioPacketCount) throws {
        let (id, bits) = codec
        let frames = 3 * 4096 + 1234
        let input = Self.source(frames: frames, channels: 2, rate: 44_100, bits: bits)
        let flags = bits == 16 ? kAppleLosslessFormatFlag_16BitSourceData : kAppleLosslessFormatFlag_24BitSourceData
        let format = Self.compressed(id, rate: 44_100, channels: 2, flags: flags)
        let encoded = try Self.encode(input, to: format, chunk: 1000, packetCapacity: packetCapacity)
        // 4 packets: three of 4,096 frames and the 1,234 left, flushed by .endOfStream.
        #expect(encoded.packets.count == 4)
        #expect(encoded.statuses.last == .endOfStream)
        #expect(encoded.statuses.contains(.inputRanDry))
        #expect(encoded.packets.allSatisfy { $0.count <= encoded.maximumPacketSize })
        let total = encoded.packets.reduce(0) { $0 + $1.count }
        #expect(total < frames * 2 * bits / 8, "lossless coding of a tone compresses: \(total) bytes")
        let decoded = try Self.decode(encoded.packets, from: format, cookie: encoded.cookie, to: Self.int32Stereo, capacity: 1000)
        #expect(decoded.error == nil)
        let got = decoded.buffers.flatMap(Self.samples)
        #expect(got == Self.samples(input))
        #expect(decoded.statuses.last == .endOfStream)
    }

    @Test(arguments: [kAudioFormatAppleLossless, kAudioFormatFLAC])
    func outputCapacityDoesNotChangeTheSamples(_ id: AudioFormatID) throws {
        let input = Self.source(frames: 2 * 4096 + 700, channels: 2, rate: 44_100, bits: 16)
        let format = Self.compressed(id, rate: 44_100, channels: 2, flags: kAppleLosslessFormatFlag_16BitSourceData)
        let encoded = try Self.encode(input, to: format, chunk: 4096, packetCapacity: 8)
        let expected = Self.samples(input)
        let int16 = AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 44_100, channels: 2, interleaved: true)!
        for capacity in [1, 17, 4096, 100_000] {
            let decoded = try Self.decode(encoded.packets, from: format, cookie: encoded.cookie, to: int16, capacity: capacity, perBuffer: 1)
            #expect(decoded.error == nil)
            let got = decoded.buffers.flatMap(Self.samples).map { $0 << 16 }
            #expect(got == expected, "output capacity \(capacity)")
            #expect(decoded.buffers.dropLast().allSatisfy { Int($0.frameLength) == capacity }, "every output but the last is full")
        }
        // The input block running dry now and then: `.inputRanDry` with what could be decoded,
        // and the same samples in the end.
        let dry = try Self.decode(encoded.packets, from: format, cookie: encoded.cookie, to: int16, capacity: 5000, perBuffer: 1, dryEvery: 2)
        #expect(dry.error == nil)
        #expect(dry.statuses.contains(.inputRanDry))
        #expect(dry.buffers.flatMap(Self.samples).map { $0 << 16 } == expected)
    }

    /// Float32 input and flags 0 (what AVAudioFormat(settings:) gives): a 24-bit encoder, and
    /// float samples on a 24-bit grid come back exactly, deinterleaved.
    @Test func floatInputToSettingsFormat() throws {
        let frames = 5000
        let source = Self.source(frames: frames, channels: 2, rate: 48_000, bits: 24)
        let float = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!
        let toFloat = try #require(AVAudioConverter(from: source.format, to: float))
        let input = AVAudioPCMBuffer(pcmFormat: float, frameCapacity: AVAudioFrameCount(frames))!
        try toFloat.convert(to: input, from: source)
        let alac = try #require(AVAudioFormat(settings: [AVFormatIDKey: kAudioFormatAppleLossless, AVSampleRateKey: 48_000, AVNumberOfChannelsKey: 2]))
        let converter = try #require(AVAudioConverter(from: float, to: alac))
        let out = AVAudioCompressedBuffer(format: alac, packetCapacity: 4, maximumPacketSize: converter.maximumOutputPacketSize)
        var given = false, error: NSError?
        let status = converter.convert(to: out, error: &error) { _, status in
            if given { status.pointee = .endOfStream; return nil }
            given = true
            status.pointee = .haveData
            return input
        }
        #expect(status == .haveData && error == nil)
        #expect(out.packetCount == 2)
        // The cookie says 24 bits (ALACSpecificConfig: bitDepth is byte 5).
        let cookie = try #require(converter.magicCookie)
        #expect(Self.alacConfig(cookie)[5] == 24)
        var packets: [[UInt8]] = []
        for k in 0..<Int(out.packetCount) {
            let d = out.packetDescriptions![k]
            packets.append(Array(UnsafeRawBufferPointer(start: out.data + Int(d.mStartOffset), count: Int(d.mDataByteSize))))
        }
        let decoded = try Self.decode(packets, from: alac, cookie: cookie, to: float, capacity: 999)
        #expect(decoded.error == nil)
        for c in 0..<2 {
            let got = decoded.buffers.flatMap { b in (0..<Int(b.frameLength)).map { b.floatChannelData![c][$0] } }
            let want = (0..<frames).map { input.floatChannelData![c][$0] }
            #expect(got == want, "channel \(c)")
        }
    }

    // MARK: One converter: decode, resample, map channels

    /// FLAC 96 kHz 24-bit stereo → Float32 48 kHz in one converter gives exactly what decoding
    /// to Float32 at 96 kHz and then resampling with a PCM converter gives.
    @Test func flac96kTo48kFloatInOneConverter() throws {
        let frames = 96_000 / 2
        let input = Self.source(frames: frames, channels: 2, rate: 96_000, bits: 24)
        let flac = Self.compressed(kAudioFormatFLAC, rate: 96_000, channels: 2, flags: kAppleLosslessFormatFlag_24BitSourceData)
        let encoded = try Self.encode(input, to: flac, chunk: 3000, packetCapacity: 4)
        let out48 = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!
        let one = try Self.decode(encoded.packets, from: flac, cookie: encoded.cookie, to: out48, capacity: 1111)
        #expect(one.error == nil)

        let float96 = AVAudioFormat(standardFormatWithSampleRate: 96_000, channels: 2)!
        let step1 = try Self.decode(encoded.packets, from: flac, cookie: encoded.cookie, to: float96, capacity: 4096)
        let resampler = try #require(AVAudioConverter(from: float96, to: out48))
        var pieces = step1.buffers[...]
        var two: [AVAudioPCMBuffer] = []
        while true {
            let out = AVAudioPCMBuffer(pcmFormat: out48, frameCapacity: 1111)!
            var error: NSError?
            let status = resampler.convert(to: out, error: &error) { _, status in
                guard let next = pieces.popFirst() else { status.pointee = .endOfStream; return nil }
                status.pointee = .haveData
                return next
            }
            #expect(error == nil)
            if out.frameLength > 0 { two.append(out) }
            if status != .haveData { break }
        }
        for c in 0..<2 {
            let a = one.buffers.flatMap { b in (0..<Int(b.frameLength)).map { b.floatChannelData![c][$0] } }
            let b = two.flatMap { b in (0..<Int(b.frameLength)).map { b.floatChannelData![c][$0] } }
            #expect(a.count == frames / 2)
            #expect(a == b, "channel \(c)")
        }
    }

    /// Decoding with a channel map: stereo FLAC → mono Int32 taking the right channel.
    @Test func decodesWithAChannelMap() throws {
        let input = Self.source(frames: 6000, channels: 2, rate: 44_100, bits: 16)
        let flac = Self.compressed(kAudioFormatFLAC, rate: 44_100, channels: 2, flags: kAppleLosslessFormatFlag_16BitSourceData)
        let encoded = try Self.encode(input, to: flac, chunk: 6000, packetCapacity: 2)
        let mono = AVAudioFormat(commonFormat: .pcmFormatInt32, sampleRate: 44_100, channels: 1, interleaved: true)!
        let converter = try #require(AVAudioConverter(from: flac, to: mono))
        converter.channelMap = [1]
        let decoded = try Self.decode(encoded.packets, from: flac, cookie: encoded.cookie, to: mono, capacity: 500, converter: converter)
        let right = Self.samples(input).enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
        #expect(decoded.buffers.flatMap(Self.samples) == right)
    }

    // MARK: Against ffmpeg

    /// ffprobe's packet table of `url`: (byte position, size) per packet.
    static func ffprobePackets(_ url: URL) throws -> [(pos: Int, size: Int)] {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["ffprobe", "-v", "error", "-select_streams", "a:0", "-show_entries", "packet=pos,size", "-of", "compact=p=0", url.path]
        let pipe = Pipe()
        p.standardOutput = pipe
        try p.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { line in
            var fields: [String: Int] = [:]
            for kv in line.split(separator: "|") {
                let parts = kv.split(separator: "=")
                if parts.count == 2, let v = Int(parts[1]) { fields[String(parts[0])] = v }
            }
            guard let pos = fields["pos"], let size = fields["size"] else { return nil }
            return (pos, size)
        }
    }

    /// The payload of CAF chunk `type` in `bytes`.
    static func cafChunk(_ bytes: [UInt8], _ type: String) -> [UInt8]? {
        var at = 8
        while at + 12 <= bytes.count {
            let name = String(decoding: bytes[at..<at + 4], as: UTF8.self)
            let size = bytes[at + 4..<at + 12].reduce(0) { $0 << 8 | Int($1) }
            if name == type { return Array(bytes[at + 12..<min(bytes.count, at + 12 + size)]) }
            at += 12 + size
        }
        return nil
    }

    @Test(arguments: ["alac16", "alac24", "flac24"])
    func decodesFFmpegPacketsBitExactly(_ kind: String) throws {
        guard AVAudioFileALACTests.hasFFmpeg else { print("SKIP converter decoding of ffmpeg's \(kind) packets: ffmpeg is not installed"); return }
        let dir = try AVAudioFileALACTests.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let isFLAC = kind.hasPrefix("flac"), bits = kind.hasSuffix("16") ? 16 : 24
        let rate = isFLAC ? 96_000 : 44_100, frames = isFLAC ? 40_000 : 30_001
        let wav = dir.appendingPathComponent("in.wav"), file = dir.appendingPathComponent(isFLAC ? "in.flac" : "in.caf")
        try AVAudioFileALACTests.makeWAV(wav, channels: 2, frames: frames, rate: rate, bits: bits)
        let codecArguments = isFLAC ? ["-c:a", "flac"] : ["-c:a", "alac", "-sample_fmt", bits == 16 ? "s16p" : "s32p"]
        #expect(try AVAudioFileALACTests.ffmpeg(["-i", wav.path] + codecArguments + [file.path]) == 0)
        let raw = dir.appendingPathComponent("out.raw")
        #expect(try AVAudioFileALACTests.ffmpeg(["-i", file.path, "-f", "s32le", raw.path]) == 0)
        let expected = try Data(contentsOf: raw).withUnsafeBytes { Array($0.bindMemory(to: Int32.self)) }
        #expect(expected.count == frames * 2)

        let bytes = [UInt8](try Data(contentsOf: file))
        let table = try Self.ffprobePackets(file)
        #expect(!table.isEmpty)
        let packets = table.map { Array(bytes[$0.pos..<$0.pos + $0.size]) }
        // The cookie: ALAC's from CAF's 'kuki' chunk; FLAC's is the stream's metadata — the
        // file's bytes before the first frame ("fLaC", STREAMINFO and the other blocks).
        let cookie = isFLAC ? Data(bytes[0..<table[0].pos]) : Data(try #require(Self.cafChunk(bytes, "kuki")))
        let flags = bits == 16 ? kAppleLosslessFormatFlag_16BitSourceData : kAppleLosslessFormatFlag_24BitSourceData
        let format = Self.compressed(isFLAC ? kAudioFormatFLAC : kAudioFormatAppleLossless, rate: Double(rate), channels: 2, flags: flags,
                                     framesPerPacket: isFLAC ? 0 : 4096)
        let int32 = AVAudioFormat(commonFormat: .pcmFormatInt32, sampleRate: Double(rate), channels: 2, interleaved: true)!
        let decoded = try Self.decode(packets, from: format, cookie: cookie, to: int32, capacity: 3000, perBuffer: 4)
        #expect(decoded.error == nil)
        let got = decoded.buffers.flatMap(Self.samples)
        #expect(got.count == expected.count)
        #expect(got == expected)
    }

    /// The converter's packets in a container ffmpeg reads — a CAF ('desc', 'kuki', 'pakt' with
    /// the remainder, 'data') for Apple Lossless, a native FLAC stream ("fLaC", the cookie's
    /// STREAMINFO, the frames) for FLAC — decode in ffmpeg, an independent decoder, to exactly the
    /// samples encoded.
    @Test(arguments: [(kAudioFormatAppleLossless, 16, 2), (kAudioFormatAppleLossless, 24, 6), (kAudioFormatFLAC, 16, 1), (kAudioFormatFLAC, 24, 2)])
    func ffmpegDecodesTheConvertersPackets(_ codec: (AudioFormatID, Int, Int)) throws {
        guard AVAudioFileALACTests.hasFFmpeg else { print("SKIP ffmpeg decoding the converter's packets: ffmpeg is not installed"); return }
        let (id, bits, channels) = codec
        let dir = try AVAudioFileALACTests.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let frames = 2 * 4096 + 999
        let input = Self.source(frames: frames, channels: channels, rate: 48_000, bits: bits)
        let flags = bits == 16 ? kAppleLosslessFormatFlag_16BitSourceData : kAppleLosslessFormatFlag_24BitSourceData
        let format = Self.compressed(id, rate: 48_000, channels: UInt32(channels), flags: flags)
        let encoded = try Self.encode(input, to: format, chunk: 2500, packetCapacity: 2)
        let cookie = [UInt8](try #require(encoded.cookie))
        var file: [UInt8] = []
        func u32(_ v: UInt32) { file += [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: v >> UInt32($0)) } }
        func u64(_ v: UInt64) { u32(UInt32(v >> 32)); u32(UInt32(truncatingIfNeeded: v)) }
        func chunk(_ type: String, _ size: Int) { file += Array(type.utf8); u64(UInt64(size)) }
        let url: URL
        if id == kAudioFormatFLAC {
            url = dir.appendingPathComponent("ours.flac")
            file = Array("fLaC".utf8) + cookie
            for p in encoded.packets { file += p }
        } else {
            url = dir.appendingPathComponent("ours.caf")
            file = Array("caff".utf8) + [0, 1, 0, 0]
            chunk("desc", 32)
            u64(UInt64(48_000.0.bitPattern)); u32(id); u32(flags); u32(0); u32(4096); u32(UInt32(channels)); u32(0)
            chunk("kuki", cookie.count)
            file += cookie
            var sizes: [UInt8] = []
            for p in encoded.packets {
                var v = p.count, groups = [UInt8(v & 0x7F)]
                v >>= 7
                while v > 0 { groups.insert(UInt8(v & 0x7F) | 0x80, at: 0); v >>= 7 }
                sizes += groups
            }
            chunk("pakt", 24 + sizes.count)
            u64(UInt64(encoded.packets.count)); u64(UInt64(frames)); u32(0); u32(UInt32(encoded.packets.count * 4096 - frames))
            file += sizes
            let data = encoded.packets.joined()
            chunk("data", 4 + data.count)
            u32(0)
            file += data
        }
        try Data(file).write(to: url)
        let raw = dir.appendingPathComponent("out.raw")
        #expect(try AVAudioFileALACTests.ffmpeg(["-i", url.path, "-f", "s32le", raw.path]) == 0)
        let decoded = try Data(contentsOf: raw).withUnsafeBytes { Array($0.bindMemory(to: Int32.self)) }
        let expected = Self.samples(input)
        #expect(decoded.count == expected.count)
        if channels <= 2 {
            #expect(decoded == expected)
        } else {
            // ffmpeg reorders ALAC's channels (C L R Ls Rs LFE) into its own layout's order.
            let map = AVAudioFileALACTests.ffmpegChannel[channels - 1]
            var wrong = 0
            for i in 0..<min(frames, decoded.count / channels) {
                for c in 0..<channels where decoded[i * channels + map[c]] != expected[i * channels + c] { wrong += 1 }
            }
            #expect(wrong == 0)
        }
    }

    // MARK: Properties

    /// The 24-byte ALACSpecificConfig in an Apple Lossless cookie: bare (24 bytes), or wrapped
    /// in 'frma' and 'alac' atoms as this library's encoder gives it (the form older Apple CAF
    /// files hold in 'kuki'; 12 + 12 bytes of atom headers before the config).
    static func alacConfig(_ cookie: Data) -> [UInt8] {
        let bytes = [UInt8](cookie)
        if bytes.count >= 48, Array(bytes[4..<8]) == Array("frma".utf8) { return Array(bytes[24..<48]) }
        return Array(bytes.prefix(24))
    }

    @Test func codecProperties() throws {
        let pcm = AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 44_100, channels: 2, interleaved: true)!
        let alac = Self.compressed(kAudioFormatAppleLossless, rate: 44_100, channels: 2, flags: kAppleLosslessFormatFlag_16BitSourceData)
        let flac = Self.compressed(kAudioFormatFLAC, rate: 44_100, channels: 2, flags: kAppleLosslessFormatFlag_16BitSourceData)
        let encoder = try #require(AVAudioConverter(from: pcm, to: alac))
        // ALACSpecificConfig: frame length 4096, version 0, depth 16, 2 channels, rate 44,100.
        let cookie = try #require(encoder.magicCookie)
        let config = Self.alacConfig(cookie)
        #expect(config.count == 24)
        #expect(Array(config[0..<4]) == [0, 0, 0x10, 0] && config[5] == 16 && config[9] == 2)
        #expect(Array(config[20..<24]) == [0, 0, 0xAC, 0x44])
        #expect(encoder.maximumOutputPacketSize >= 4096 * 2 * 2)
        #expect(encoder.availableEncodeChannelLayoutTags?.count == 8)
        #expect(encoder.availableEncodeChannelLayoutTags?.first?.uint32Value == kAudioChannelLayoutTag_Mono)
        encoder.bitRate = 128_000
        #expect(encoder.bitRate == 0)
        #expect(encoder.bitRateStrategy == nil)
        #expect(encoder.availableEncodeBitRates == nil && encoder.applicableEncodeBitRates == nil)
        #expect(encoder.availableEncodeSampleRates == nil && encoder.applicableEncodeSampleRates == nil)
        #expect(encoder.primeInfo == AVAudioConverterPrimeInfo(leadingFrames: 0, trailingFrames: 0))
        // Setting a cookie on an encoder does not replace its own.
        encoder.magicCookie = Data([1, 2, 3])
        #expect(encoder.magicCookie == cookie)

        let flacEncoder = try #require(AVAudioConverter(from: pcm, to: flac))
        // The STREAMINFO block, marked last: 4-byte header and 34 bytes, block size 4096 twice.
        let streamInfo = try #require(flacEncoder.magicCookie)
        #expect(streamInfo.count == 38 && Array(streamInfo[0..<8]) == [0x80, 0, 0, 34, 0x10, 0, 0x10, 0])
        #expect(flacEncoder.availableEncodeChannelLayoutTags == nil)

        let decoder = try #require(AVAudioConverter(from: alac, to: pcm))
        #expect(decoder.magicCookie == nil)
        decoder.magicCookie = cookie
        #expect(decoder.magicCookie == cookie)
        #expect(decoder.availableEncodeChannelLayoutTags == nil)

        // No encoder or decoder: nil, as for compressed → compressed.
        let aac = Self.compressed(kAudioFormatMPEG4AAC, rate: 44_100, channels: 2, flags: 0, framesPerPacket: 1024)
        #expect(AVAudioConverter(from: pcm, to: aac) == nil)
        #expect(AVAudioConverter(from: aac, to: pcm) == nil)
        #expect(AVAudioConverter(from: alac, to: flac) == nil)
        // A packet size the encoder does not make.
        #expect(AVAudioConverter(from: pcm, to: Self.compressed(kAudioFormatAppleLossless, rate: 44_100, channels: 2, flags: 0, framesPerPacket: 1152)) == nil)
    }

    /// After `reset()` an encoding converter starts a new stream: the same input gives the same
    /// packets (FLAC numbers its frames from 0 again; ALAC's predictors start afresh), and a
    /// decoding converter decodes a second stream after the first one's `.endOfStream`.
    @Test(arguments: [kAudioFormatAppleLossless, kAudioFormatFLAC])
    func resetStartsANewStream(_ id: AudioFormatID) throws {
        let input = Self.source(frames: 9000, channels: 2, rate: 44_100, bits: 16)
        let format = Self.compressed(id, rate: 44_100, channels: 2, flags: kAppleLosslessFormatFlag_16BitSourceData)
        let converter = try #require(AVAudioConverter(from: input.format, to: format))
        func run() -> [[UInt8]] {
            var packets: [[UInt8]] = [], given = false
            let out = AVAudioCompressedBuffer(format: format, packetCapacity: 8, maximumPacketSize: converter.maximumOutputPacketSize)
            while true {
                var error: NSError?
                let status = converter.convert(to: out, error: &error) { _, status in
                    if given { status.pointee = .endOfStream; return nil }
                    given = true
                    status.pointee = .haveData
                    return input
                }
                for k in 0..<Int(out.packetCount) {
                    let d = out.packetDescriptions![k]
                    packets.append(Array(UnsafeRawBufferPointer(start: out.data + Int(d.mStartOffset), count: Int(d.mDataByteSize))))
                }
                if status != .haveData { break }
            }
            return packets
        }
        let first = run()
        #expect(first.count == 3)
        #expect(run().isEmpty, "after .endOfStream, nothing more until reset()")
        converter.reset()
        #expect(run() == first)

        let decoder = try #require(AVAudioConverter(from: format, to: Self.int32Stereo))
        let cookie = converter.magicCookie
        let a = try Self.decode(first, from: format, cookie: cookie, to: Self.int32Stereo, capacity: 5000, converter: decoder)
        decoder.reset()
        let b = try Self.decode(first, from: format, cookie: cookie, to: Self.int32Stereo, capacity: 777, converter: decoder)
        #expect(a.buffers.flatMap(Self.samples) == Self.samples(input))
        #expect(b.buffers.flatMap(Self.samples) == Self.samples(input))
    }

    // MARK: Errors

    static func code(_ error: NSError?) -> OSStatus? { error.map { OSStatus(truncatingIfNeeded: $0.code) } }

    @Test func errorsCarryAppleCodesAndSentences() throws {
        let pcm = AVAudioFormat(commonFormat: .pcmFormatInt32, sampleRate: 44_100, channels: 2, interleaved: true)!
        let alac = Self.compressed(kAudioFormatAppleLossless, rate: 44_100, channels: 2, flags: kAppleLosslessFormatFlag_16BitSourceData)
        let input = Self.source(frames: 5000, channels: 2, rate: 44_100, bits: 16)
        let encoded = try Self.encode(input, to: alac, chunk: 5000, packetCapacity: 4)

        // An encoder given a PCM output buffer.
        let encoder = try #require(AVAudioConverter(from: pcm, to: alac))
        var error: NSError?
        var status = encoder.convert(to: AVAudioPCMBuffer(pcmFormat: pcm, frameCapacity: 10)!, error: &error) { _, s in s.pointee = .endOfStream; return nil }
        #expect(status == .error && Self.code(error) == kAudioConverterErr_FormatNotSupported)
        #expect(error?.domain == NSOSStatusErrorDomain && error?.localizedDescription.contains("AVAudioCompressedBuffer") == true)

        // An output buffer too small for one packet.
        error = nil
        let tiny = AVAudioCompressedBuffer(format: alac, packetCapacity: 1, maximumPacketSize: 16)
        status = encoder.convert(to: tiny, error: &error) { _, s in s.pointee = .haveData; return input }
        #expect(status == .error && Self.code(error) == kAudioConverterErr_InvalidOutputSize)

        // The simple method does not encode or decode.
        #expect(throws: NSError.self) { try encoder.convert(to: AVAudioPCMBuffer(pcmFormat: pcm, frameCapacity: 10)!, from: input) }
        do { try encoder.convert(to: AVAudioPCMBuffer(pcmFormat: pcm, frameCapacity: 10)!, from: input) } catch {
            #expect(Self.code(error as NSError) == kAudio_ParamError)
        }

        // A decoder without its magic cookie.
        var decoded = try Self.decode(encoded.packets, from: alac, cookie: nil, to: pcm, capacity: 100)
        #expect(Self.code(decoded.error) == kAudioConverterErr_UnspecifiedError)
        #expect(decoded.error?.localizedDescription.contains("magic cookie") == true)

        // A cookie that describes no ALAC stream.
        decoded = try Self.decode(encoded.packets, from: alac, cookie: Data([1, 2, 3]), to: pcm, capacity: 100)
        #expect(Self.code(decoded.error) == kAudioConverterErr_UnspecifiedError)

        // A damaged packet: the decoder's complaint, not a trap.
        var damaged = encoded.packets
        for i in stride(from: 0, to: damaged[0].count, by: 3) { damaged[0][i] ^= 0xA5 }
        decoded = try Self.decode(damaged, from: alac, cookie: encoded.cookie, to: pcm, capacity: 100)
        if let e = decoded.error {
            #expect(Self.code(e) == kAudioConverterErr_UnspecifiedError && e.localizedDescription.contains("damaged"))
        } else {
            // Bits that still decode are not an error; they must not give the original samples.
            #expect(decoded.buffers.flatMap(Self.samples) != Self.samples(input))
        }
        // A truncated packet is always damage.
        var cut = encoded.packets
        cut[0] = Array(cut[0].prefix(5))
        decoded = try Self.decode(cut, from: alac, cookie: encoded.cookie, to: pcm, capacity: 100)
        #expect(Self.code(decoded.error) == kAudioConverterErr_UnspecifiedError)

        // A decoder given a PCM input buffer, and a packet description past byteLength.
        let decoder = try #require(AVAudioConverter(from: alac, to: pcm))
        decoder.magicCookie = encoded.cookie
        error = nil
        status = decoder.convert(to: AVAudioPCMBuffer(pcmFormat: pcm, frameCapacity: 100)!, error: &error) { _, s in s.pointee = .haveData; return input }
        #expect(status == .error && Self.code(error) == kAudioConverterErr_FormatNotSupported)
        decoder.reset()
        let bad = AVAudioCompressedBuffer(format: alac, packetCapacity: 1, maximumPacketSize: 100)
        bad.packetDescriptions![0] = AudioStreamPacketDescription(mStartOffset: 50, mVariableFramesInPacket: 0, mDataByteSize: 80)
        bad.packetCount = 1
        bad.byteLength = 100
        error = nil
        status = decoder.convert(to: AVAudioPCMBuffer(pcmFormat: pcm, frameCapacity: 100)!, error: &error) { _, s in s.pointee = .haveData; return bad }
        #expect(status == .error && Self.code(error) == kAudioConverterErr_InvalidInputSize)
        // A start offset so large that offset + size passes Int64.max (the codecconv fuzz target's
        // finding, Fuzz/findings/codecconv-fixed-description-offset-overflow): refused, no trap.
        for offset in [Int64.max - 10, Int64.max, -1, Int64.min] {
            decoder.reset()
            bad.packetDescriptions![0] = AudioStreamPacketDescription(mStartOffset: offset, mVariableFramesInPacket: 0, mDataByteSize: 80)
            error = nil
            status = decoder.convert(to: AVAudioPCMBuffer(pcmFormat: pcm, frameCapacity: 100)!, error: &error) { _, s in s.pointee = .haveData; return bad }
            #expect(status == .error && Self.code(error) == kAudioConverterErr_InvalidInputSize, "offset \(offset)")
            #expect(error?.localizedDescription.contains("byteLength") == true, "\(String(describing: error))")
        }
    }
}
