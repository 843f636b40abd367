// The Apple Lossless magic cookie: ALACSpecificConfig, the 24 big-endian bytes that tell a
// decoder the packet length, the sample depth, the entropy coder's tuning and the channel count.
//
// Layout (Apple's public ALAC format description, ALACAudioTypes.h):
//
//     frameLength        UInt32   frames per packet (4,096 by default)
//     compatibleVersion  UInt8    0
//     bitDepth           UInt8    16, 20, 24 or 32
//     pb                 UInt8    rice "history multiplier" (40)
//     mb                 UInt8    rice initial history (10)
//     kb                 UInt8    rice parameter limit (14)
//     numChannels        UInt8    1…8
//     maxRun             UInt16   255 (unused by the decoder)
//     maxFrameBytes      UInt32   largest packet, 0 when unknown
//     avgBitRate         UInt32   bits per second, 0 when unknown
//     sampleRate         UInt32
//
// Containers store it bare (MP4's 'alac' box payload after its version/flags), or wrapped in
// atoms: CAF's 'kuki' as written by Apple is a 12-byte 'frma' atom naming 'alac', then an 'alac'
// atom (size, 'alac', 4 bytes of version/flags, the 24 bytes), optionally a 'chan' atom and a
// terminator; ffmpeg writes the 'alac' atom alone. `parse` accepts all three.

public struct ALACSpecificConfig: Equatable, Sendable {
    public var frameLength: UInt32
    public var compatibleVersion: UInt8
    public var bitDepth: UInt8
    public var pb: UInt8
    public var mb: UInt8
    public var kb: UInt8
    public var channelCount: UInt8
    public var maxRun: UInt16
    public var maxFrameBytes: UInt32
    public var averageBitRate: UInt32
    public var sampleRate: UInt32

    /// The size of the bare structure.
    public static let byteCount = 24
    /// Apple's default tuning of the adaptive Golomb coder.
    public static let defaultPB: UInt8 = 40, defaultMB: UInt8 = 10, defaultKB: UInt8 = 14
    public static let defaultMaxRun: UInt16 = 255
    /// The most frames a packet may declare: far above Apple's 4,096, low enough that a hostile
    /// cookie cannot make the decoder allocate more than a few MB per channel.
    public static let maximumFrameLength: UInt32 = 1 << 16

    public init(frameLength: UInt32 = 4096, bitDepth: UInt8, channelCount: UInt8, sampleRate: UInt32,
                maxFrameBytes: UInt32 = 0, averageBitRate: UInt32 = 0) {
        self.frameLength = frameLength
        compatibleVersion = 0
        self.bitDepth = bitDepth
        pb = Self.defaultPB
        mb = Self.defaultMB
        kb = Self.defaultKB
        self.channelCount = channelCount
        maxRun = Self.defaultMaxRun
        self.maxFrameBytes = maxFrameBytes
        self.averageBitRate = averageBitRate
        self.sampleRate = sampleRate
    }

    /// Parses a cookie, bare or wrapped in 'frma'/'alac' atoms, and checks that a decoder can
    /// use it. Throws CodecError (never traps) on a short or inconsistent cookie.
    public static func parse(_ cookie: [UInt8]) throws -> ALACSpecificConfig {
        var start = 0
        func fourCC(at o: Int) -> String? {
            guard o + 8 <= cookie.count else { return nil }
            return String(decoding: cookie[(o + 4)..<(o + 8)], as: UTF8.self)
        }
        // A 'frma' atom (size, 'frma', the data format) comes first in Apple's CAF cookies.
        if fourCC(at: start) == "frma" { start += 12 }
        // Then an 'alac' atom: size, 'alac', version/flags, the config.
        if fourCC(at: start) == "alac" { start += 12 }
        guard cookie.count - start >= byteCount else {
            throw CodecError(.truncated, "Apple Lossless: the magic cookie holds \(max(0, cookie.count - start)) bytes of ALACSpecificConfig; it needs 24")
        }
        let b = Array(cookie[start..<(start + byteCount)])
        func u32(_ o: Int) -> UInt32 { UInt32(b[o]) << 24 | UInt32(b[o + 1]) << 16 | UInt32(b[o + 2]) << 8 | UInt32(b[o + 3]) }
        var c = ALACSpecificConfig(frameLength: u32(0), bitDepth: b[5], channelCount: b[9], sampleRate: u32(20),
                                   maxFrameBytes: u32(12), averageBitRate: u32(16))
        c.compatibleVersion = b[4]
        c.pb = b[6]
        c.mb = b[7]
        c.kb = b[8]
        c.maxRun = UInt16(b[10]) << 8 | UInt16(b[11])
        guard c.compatibleVersion == 0 else {
            throw CodecError(.unsupported, "Apple Lossless: the magic cookie is of version \(c.compatibleVersion); only version 0 exists")
        }
        guard [16, 20, 24, 32].contains(c.bitDepth) else {
            throw CodecError(.corrupt, "Apple Lossless: the magic cookie declares \(c.bitDepth)-bit samples; ALAC stores 16, 20, 24 or 32 bits")
        }
        guard (1...8).contains(c.channelCount) else {
            throw CodecError(.corrupt, "Apple Lossless: the magic cookie declares \(c.channelCount) channels; ALAC stores 1 to 8")
        }
        guard c.frameLength >= 1 && c.frameLength <= maximumFrameLength else {
            throw CodecError(.corrupt, "Apple Lossless: the magic cookie declares \(c.frameLength) frames per packet; this decoder takes 1 to \(maximumFrameLength)")
        }
        guard c.kb >= 1 && c.kb <= 31 else {
            throw CodecError(.corrupt, "Apple Lossless: the magic cookie declares a Rice limit (kb) of \(c.kb); it must be 1 to 31")
        }
        return c
    }

    /// The bare 24 bytes (what an MP4 'alac' box holds after its version and flags).
    public var bytes: [UInt8] {
        var out: [UInt8] = []
        func u32(_ v: UInt32) { out += [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        u32(frameLength)
        out += [compatibleVersion, bitDepth, pb, mb, kb, channelCount, UInt8(maxRun >> 8), UInt8(maxRun & 0xFF)]
        u32(maxFrameBytes)
        u32(averageBitRate)
        u32(sampleRate)
        return out
    }

    /// The cookie as Apple's CAF writer stores it in 'kuki': a 'frma' atom, the 'alac' atom with
    /// the config, and a terminating atom (size 8, type 0).
    public var cafCookie: [UInt8] {
        var out: [UInt8] = [0, 0, 0, 12] + Array("frma".utf8) + Array("alac".utf8)
        out += [0, 0, 0, 36] + Array("alac".utf8) + [0, 0, 0, 0] + bytes
        out += [0, 0, 0, 8, 0, 0, 0, 0]
        return out
    }
}
