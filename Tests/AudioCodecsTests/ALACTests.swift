// The Apple Lossless codec on its own: the magic cookie in its three wrappings, the encoder and
// decoder agreeing on every bit for every depth (16/20/24/32) and channel count (1–8), partial
// packets, silence (zero runs), full-scale noise (escaped elements) and extreme values; and
// hostile bytes giving CodecErrors, never traps. (Agreement with an independent implementation
// — ffmpeg's — is tested through AVAudioFile in AVAudioFileALACTests.)
import Foundation
import Testing
@testable import AudioCodecs

@Suite struct ALACTests {
    static let config = ALACSpecificConfig(bitDepth: 24, channelCount: 2, sampleRate: 48_000)

    @Test func cookieParsesBareAndWrapped() throws {
        let bare = Self.config.bytes
        #expect(bare.count == 24)
        #expect(try ALACSpecificConfig.parse(bare) == Self.config)
        #expect(try ALACSpecificConfig.parse(Self.config.cafCookie) == Self.config)
        // ffmpeg's wrapping: the 'alac' atom alone (size 36, 'alac', version/flags, config).
        let atom: [UInt8] = [0, 0, 0, 36] + Array("alac".utf8) + [0, 0, 0, 0] + bare
        #expect(try ALACSpecificConfig.parse(atom) == Self.config)
        let parsed = try ALACSpecificConfig.parse(bare)
        #expect(parsed.frameLength == 4096 && parsed.pb == 40 && parsed.mb == 10 && parsed.kb == 14 && parsed.maxRun == 255)
    }

    @Test func damagedCookiesAreErrors() {
        for n in [0, 1, 12, 23] {
            #expect(throws: CodecError.self) { try ALACSpecificConfig.parse(Array(Self.config.bytes.prefix(n))) }
        }
        #expect(throws: CodecError.self) { try ALACSpecificConfig.parse(Array(Self.config.cafCookie.prefix(30))) }
        var depth = Self.config.bytes; depth[5] = 17
        #expect(throws: CodecError.self) { try ALACSpecificConfig.parse(depth) }
        var channels = Self.config.bytes; channels[9] = 0
        #expect(throws: CodecError.self) { try ALACSpecificConfig.parse(channels) }
        var length = Self.config.bytes; length[0] = 0xFF
        #expect(throws: CodecError.self) { try ALACSpecificConfig.parse(length) }
        var kb = Self.config.bytes; kb[8] = 0
        #expect(throws: CodecError.self) { try ALACSpecificConfig.parse(kb) }
    }

    /// A container that disagrees with the cookie about the channel count is refused, and the
    /// refused decoder leaks nothing (the mp4 fuzz target found 128 bytes leaked on this path:
    /// scratch allocated before the throw; LeakSanitizer checks it in the ASan run).
    @Test func channelCountDisagreementIsAnErrorAndLeaksNothing() {
        for _ in 0..<3 {
            #expect(throws: CodecError.self) {
                try ALACDecoder(setup: AudioStreamSetup(codec: 0x616C_6163, sampleRate: 48_000, channelCount: 3, magicCookie: Self.config.bytes))
            }
        }
        #expect((try? ALACDecoder(setup: AudioStreamSetup(codec: 0x616C_6163, sampleRate: 48_000, channelCount: 2, magicCookie: Self.config.bytes))) != nil)
    }

    /// Deterministic test signals of `bits`: tone plus noise, silence, full-scale noise, extremes.
    static func signal(_ kind: Int, frames: Int, channels: Int, bits: Int, seed: UInt64) -> [Int32] {
        var state = seed &* 6364136223846793005 &+ 1442695040888963407
        func next() -> Int64 { state = state &* 6364136223846793005 &+ 1442695040888963407; return Int64(bitPattern: state >> 1) }
        let top = Int64(1) << Int64(bits - 1)
        var out = [Int32](repeating: 0, count: frames * channels)
        for i in 0..<frames {
            for c in 0..<channels {
                var v: Int64
                switch kind {
                case 0: v = Int64(Double(top) * 0.6 * sin(Double(i) * 0.01 * Double(c + 1))) + next() % max(2, top >> 10)
                case 1: v = (i / 500) % 2 == 0 ? 0 : next() % 3
                case 2: v = next() % top
                default: v = (i + c) % 2 == 0 ? top - 1 : -top
                }
                out[i * channels + c] = Int32(truncatingIfNeeded: min(max(v, -top), top - 1))
            }
        }
        return out
    }

    @Test(arguments: [16, 20, 24, 32])
    func encoderAndDecoderAgreeOnEveryBit(_ bits: Int) throws {
        for channels in 1...8 {
            for kind in 0..<4 {
                let setup = AudioStreamSetup(codec: 0x616C_6163, sampleRate: 44_100, channelCount: channels, bitsPerSample: bits)
                let encoder = try AudioCodecRegistry.encoder(for: setup)
                let decoder = try AudioCodecRegistry.decoder(for: AudioStreamSetup(codec: 0x616C_6163, sampleRate: 44_100, channelCount: channels,
                                                                                  magicCookie: encoder.magicCookie))
                #expect(decoder.bitsPerSample == bits && decoder.channelCount == channels)
                for frames in [4096, 1, 37, 4095] {
                    let input = Self.signal(kind, frames: frames, channels: channels, bits: bits, seed: UInt64(bits * 100 + channels * 10 + kind))
                    var packet = [UInt8](repeating: 0, count: encoder.maximumPacketSize)
                    let size = try input.withUnsafeBufferPointer { i in
                        try packet.withUnsafeMutableBytes { try encoder.encode(i.baseAddress!, frameCount: frames, into: $0.baseAddress!) }
                    }
                    #expect(size > 0 && size <= encoder.maximumPacketSize)
                    var output = [Int32](repeating: 0, count: 4096 * channels)
                    let got = try packet.withUnsafeBytes { p in
                        try output.withUnsafeMutableBufferPointer {
                            try decoder.decode(UnsafeRawBufferPointer(rebasing: p[0..<size]), into: $0.baseAddress!, frameCapacity: 4096)
                        }
                    }
                    #expect(got == frames)
                    #expect(Array(output.prefix(frames * channels)) == input, "\(bits)-bit, \(channels) ch, signal \(kind), \(frames) frames")
                    if kind == 1 && frames == 4096 && bits <= 24 {
                        // silence and near-silence compress far below the raw size
                        #expect(size < frames * channels * bits / 8 / 4)
                    }
                }
            }
        }
    }

    @Test func hostilePacketsThrowNeverTrap() throws {
        let encoder = try ALACEncoder(setup: AudioStreamSetup(codec: 0x616C_6163, sampleRate: 44_100, channelCount: 2, bitsPerSample: 16))
        let decoder = try ALACDecoder(setup: AudioStreamSetup(codec: 0x616C_6163, sampleRate: 44_100, channelCount: 2, magicCookie: encoder.magicCookie))
        let input = Self.signal(0, frames: 4096, channels: 2, bits: 16, seed: 9)
        var packet = [UInt8](repeating: 0, count: encoder.maximumPacketSize)
        let size = try input.withUnsafeBufferPointer { i in try packet.withUnsafeMutableBytes { try encoder.encode(i.baseAddress!, frameCount: 4096, into: $0.baseAddress!) } }
        let good = Array(packet.prefix(size))
        var output = [Int32](repeating: 0, count: 4096 * 2)
        var state: UInt64 = 12345
        func random(_ n: Int) -> Int { state = state &* 6364136223846793005 &+ 1442695040888963407; return Int(state >> 33) % n }
        var thrown = 0
        for trial in 0..<3000 {
            var bytes = good
            switch trial % 3 {
            case 0: for _ in 0..<(1 + random(6)) { bytes[random(bytes.count)] ^= UInt8(1 + random(255)) }
            case 1: bytes = Array(bytes.prefix(random(bytes.count)))
            default: bytes = (0..<random(200)).map { _ in UInt8(random(256)) }
            }
            do {
                let n = try bytes.withUnsafeBytes { p in try output.withUnsafeMutableBufferPointer { try decoder.decode(p, into: $0.baseAddress!, frameCapacity: 4096) } }
                #expect(n >= 0 && n <= 4096)
            } catch is CodecError {
                thrown += 1
            }
        }
        #expect(thrown > 1000)
    }
}
