// The 32-bit header of an MPEG-1/2/2.5 audio frame (ISO/IEC 11172-3 §2.4.2.3, ISO/IEC 13818-3;
// MPEG 2.5 is Fraunhofer's extension, version bits 00): 11 sync bits, version, layer, protection
// (0: a 16-bit CRC follows the header), bit-rate index, sample-rate index, padding, private,
// channel mode, mode extension, copyright, original, emphasis.
//
// A frame's length follows from the header: Layer I: (12 × bit rate / rate + padding) × 4
// bytes; Layers II and III: 144 × bit rate / rate + padding (72 × for Layer III at MPEG-2/2.5,
// whose frames hold 576 samples rather than 1,152). Bit-rate index 0 ("free format") gives no
// length; such streams are refused with a sentence saying so (finding their frames needs a
// search for the next sync word, which this reader does not do).

struct MPEGAudioFrameHeader: Equatable {
    /// 1, 2, or 25 (MPEG 2.5).
    var version: Int
    var layer: Int
    var hasCRC: Bool
    /// Bits per second.
    var bitRate: Int
    var sampleRate: Int
    var padding: Bool
    /// 0 stereo, 1 joint stereo, 2 dual channel, 3 single channel.
    var channelMode: Int
    var channelCount: Int { channelMode == 3 ? 1 : 2 }

    var samplesPerFrame: Int { layer == 1 ? 384 : layer == 2 || version == 1 ? 1152 : 576 }

    var frameLength: Int {
        if layer == 1 { return (12 * bitRate / sampleRate + (padding ? 1 : 0)) * 4 }
        let coefficient = layer == 3 && version != 1 ? 72 : 144
        return coefficient * bitRate / sampleRate + (padding ? 1 : 0)
    }

    /// Core Audio's format ID: kAudioFormatMPEGLayer1/2/3 ('.mp1', '.mp2', '.mp3').
    var formatID: UInt32 { [0x2E6D_7031, 0x2E6D_7032, 0x2E6D_7033][layer - 1] }

    /// Bytes of Layer III side information after the header (and CRC): where a Xing/Info tag starts.
    var sideInfoSize: Int { version == 1 ? (channelCount == 1 ? 17 : 32) : (channelCount == 1 ? 9 : 17) }

    static let bitRates: [[Int]] = [
        [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],   // MPEG-1 Layer I
        [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],      // MPEG-1 Layer II
        [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],       // MPEG-1 Layer III
        [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],      // MPEG-2/2.5 Layer I
        [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],           // MPEG-2/2.5 Layers II, III
    ]
    static let sampleRates: [Int: [Int]] = [1: [44_100, 48_000, 32_000], 2: [22_050, 24_000, 16_000], 25: [11_025, 12_000, 8_000]]

    enum Parse: Equatable {
        case header(MPEGAudioFrameHeader)
        /// A valid header with bit-rate index 0.
        case freeFormat
        case invalid
    }

    /// Parses four bytes.
    static func parse(_ b0: UInt8, _ b1: UInt8, _ b2: UInt8, _ b3: UInt8) -> Parse {
        guard b0 == 0xFF, b1 & 0xE0 == 0xE0 else { return .invalid }
        let versionBits = Int(b1 >> 3) & 3, layerBits = Int(b1 >> 1) & 3
        guard versionBits != 1, layerBits != 0 else { return .invalid }
        let version = versionBits == 3 ? 1 : versionBits == 2 ? 2 : 25
        let layer = 4 - layerBits
        let rateIndex = Int(b2 >> 4), srIndex = Int(b2 >> 2) & 3
        guard rateIndex != 15, srIndex != 3, b3 & 3 != 2 else { return .invalid }   // emphasis 2 is reserved
        guard rateIndex != 0 else { return .freeFormat }
        let table = version == 1 ? layer - 1 : layer == 1 ? 3 : 4
        return .header(MPEGAudioFrameHeader(version: version, layer: layer, hasCRC: b1 & 1 == 0, bitRate: bitRates[table][rateIndex] * 1000,
                                            sampleRate: sampleRates[version]![srIndex], padding: b2 & 2 != 0, channelMode: Int(b3 >> 6)))
    }

    /// True when `other` can follow `self` in one stream (same version, layer and rate; the
    /// bit rate, padding and mode may change).
    func matches(_ other: MPEGAudioFrameHeader) -> Bool {
        version == other.version && layer == other.layer && sampleRate == other.sampleRate
    }
}
