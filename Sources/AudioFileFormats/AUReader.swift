import AudioKernels

// Sun/NeXT audio: '.snd', a 24-byte big-endian header (the DEC variant 'dns.' is little-endian
// throughout, samples included).

let auUnknownSize: UInt32 = 0xFFFF_FFFF

func auEncoding(_ code: UInt32) -> SampleEncoding? {
    switch code {
    case 1: return .ulaw
    case 2: return .signed8
    case 3: return .signed16
    case 4: return .signed24
    case 5: return .signed32
    case 6: return .float32
    case 7: return .float64
    case 27: return .alaw
    default: return nil
    }
}

func auEncodingCode(_ encoding: SampleEncoding) -> UInt32? {
    switch encoding {
    case .ulaw: return 1
    case .signed8: return 2
    case .signed16: return 3
    case .signed24: return 4
    case .signed32: return 5
    case .float32: return 6
    case .float64: return 7
    case .alaw: return 27
    case .unsigned8: return nil
    }
}

func parseAU(_ ctx: ParseContext, head: [UInt8]) throws -> ParsedLayout {
    let bigEndian = Bytes(head, bigEndian: true).fourCC(0) == fcc(".snd")
    let bytes = try ctx.file.readBytes(at: 0, count: 24)
    guard bytes.count == 24 else {
        throw ctx.invalid("is not a valid AU file: it ends after \(bytes.count) bytes, inside the 24-byte header")
    }
    let h = Bytes(bytes, bigEndian: bigEndian)
    let dataOffset = Int64(h.u32(4))
    let dataSize = h.u32(8)
    let encodingCode = h.u32(12)
    let rate = Double(h.u32(16))
    let channels = Int64(h.u32(20))
    guard dataOffset >= 24 else {
        throw ctx.invalid("has an invalid AU header: the audio is said to start at byte \(dataOffset), inside the 24-byte header")
    }
    guard dataOffset <= ctx.fileSize else {
        throw ctx.invalid("is truncated: its AU header says the audio starts at byte \(dataOffset) but the file is only \(ctx.fileSize) bytes long")
    }
    try checkFormatValues(ctx, channels: channels, sampleRate: rate, format: "AU")
    guard let encoding = auEncoding(encodingCode) else {
        throw ctx.unsupported("holds AU encoding \(encodingCode), which this reader does not decode (only 1 µ-law, 2–5 8/16/24/32-bit integer, 6 float, 7 double, 27 A-law)")
    }
    let description = AudioDataDescription(sampleRate: rate, channelCount: Int(channels), encoding: encoding,
                                           bigEndian: bigEndian)
    return ParsedLayout(container: .au, description: description, dataOffset: dataOffset,
                        claimedDataBytes: dataSize == auUnknownSize ? nil : Int64(dataSize),
                        claimedFrames: nil, dataChunkName: "AU header")
}
