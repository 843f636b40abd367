import AudioKernels

// AIFF and AIFF-C.

/// AIFF-C compression types this module reads, with the encoding and byte order they mean.
/// `nil` encoding means "integer, size from the COMM sample size".
private func aifcCompression(_ type: UInt32) -> (encoding: SampleEncoding?, bigEndian: Bool, fixedBits: Int?)? {
    switch type {
    case fcc("NONE"), fcc("twos"): return (nil, true, nil)
    case fcc("sowt"): return (nil, false, nil)
    case fcc("in24"): return (.signed24, true, 24)
    case fcc("in32"): return (.signed32, true, 32)
    case fcc("42ni"), fcc("42n1"): return (.signed24, false, 24) // libsndfile writes '42n1'
    case fcc("23ni"): return (.signed32, false, 32)
    case fcc("fl32"), fcc("FL32"): return (.float32, true, 32)
    case fcc("fl64"), fcc("FL64"): return (.float64, true, 64)
    case fcc("ulaw"), fcc("ULAW"): return (.ulaw, true, 8)
    case fcc("alaw"), fcc("ALAW"): return (.alaw, true, 8)
    case fcc("raw "): return (.unsigned8, true, 8)
    default: return nil
    }
}

func parseAIFF(_ ctx: ParseContext, head: [UInt8]) throws -> ParsedLayout {
    guard head.count >= 12 else {
        throw ctx.invalid("is not a valid AIFF file: it ends after \(head.count) bytes, inside the 12-byte header")
    }
    let fields = Bytes(head, bigEndian: true)
    let form = fields.fourCC(8)
    let isAIFC: Bool
    switch form {
    case fcc("AIFF"): isAIFC = false
    case fcc("AIFC"): isAIFC = true
    default:
        throw AudioFileFormatError(code: Code.unsupportedFileType,
                                   message: "\(quoted(ctx.path)) is an IFF file of type \(fourCCText(form)), not AIFF ('AIFF' or 'AIFC')")
    }
    let kind = isAIFC ? "AIFF-C" : "AIFF"

    var comm: Bytes?
    var ssndOffset: Int64?
    var ssndClaim: Int64 = 0

    try walkChunks32(ctx, from: 12, bigEndian: true) { chunk in
        switch chunk.id {
        case fcc("COMM"):
            if comm == nil {
                let needed: UInt32 = isAIFC ? 22 : 18
                guard chunk.size >= needed else {
                    throw ctx.badChunk("has a COMM chunk of \(chunk.size) bytes; an \(kind) COMM chunk needs at least \(needed)")
                }
                let bytes = try ctx.file.readBytes(at: chunk.dataOffset, count: Int(min(chunk.size, 22 + 256)))
                guard bytes.count >= Int(needed) else { throw ctx.invalid("ends inside its COMM chunk") }
                comm = Bytes(bytes, bigEndian: true)
            }
        case fcc("SSND"):
            if ssndOffset == nil {
                guard chunk.size >= 8 else {
                    throw ctx.badChunk("has an SSND chunk of \(chunk.size) bytes; it needs at least 8 for its offset and block size")
                }
                let header = Bytes(try ctx.file.readBytes(at: chunk.dataOffset, count: 8), bigEndian: true)
                guard header.count == 8 else { throw ctx.invalid("ends inside its SSND chunk header") }
                let offset = Int64(header.u32(0))
                guard offset <= Int64(chunk.size) - 8 else {
                    throw ctx.badChunk("has an SSND chunk whose data offset (\(offset)) lies beyond the chunk's \(chunk.size) bytes")
                }
                ssndOffset = chunk.dataOffset + 8 + offset
                ssndClaim = Int64(chunk.size) - 8 - offset
            }
        default:
            break
        }
        if comm != nil && ssndOffset != nil { return nil }
        return Int64(chunk.size)
    }

    guard let c = comm else {
        throw ctx.invalid("is not a valid \(kind) file: it has no COMM chunk (the file is \(ctx.fileSize) bytes long)")
    }
    let channels = Int64(c.i16(0))
    let frames = Int64(c.u32(2))
    let sampleSize = Int(c.i16(6))
    let rate = decodeExtended80(c.slice(8, 10))
    try checkFormatValues(ctx, channels: channels, sampleRate: rate, format: kind)

    var encoding: SampleEncoding
    var bigEndian = true
    var validBits = sampleSize
    var fixedBits: Int?
    var compression: SampleEncoding?
    if isAIFC {
        let type = c.fourCC(18)
        guard let known = aifcCompression(type) else {
            throw ctx.unsupported("uses AIFF-C compression \(fourCCText(type)), which this reader does not decode (only NONE, twos, sowt, in24, in32, 42ni, 23ni, fl32, fl64, ulaw, alaw, raw)")
        }
        compression = known.encoding
        bigEndian = known.bigEndian
        fixedBits = known.fixedBits
    }
    if let e = compression {
        encoding = e
        // µ-law and A-law files often give the decoded size (16) in COMM; the storage is 8 bits.
        if e.isFloat || !e.isLinearPCM || e == .unsigned8 {
            validBits = fixedBits ?? e.bytesPerSample * 8
        } else if sampleSize < 1 || sampleSize > e.bytesPerSample * 8 {
            validBits = e.bytesPerSample * 8
        }
    } else {
        guard sampleSize >= 1 else {
            throw ctx.invalid("has an invalid \(kind) header: it declares \(sampleSize) bits per sample")
        }
        guard let e = integerEncoding(bytes: (sampleSize + 7) / 8, unsigned8: false) else {
            throw ctx.unsupported("holds \(sampleSize)-bit integer samples; integer samples wider than 32 bits are not supported")
        }
        encoding = e
    }

    let description = AudioDataDescription(sampleRate: rate, channelCount: Int(channels), encoding: encoding,
                                           bigEndian: bigEndian, validBitsPerSample: validBits)
    guard let offset = ssndOffset else {
        if frames == 0 {
            // AIFF allows omitting SSND when there are no sample frames.
            return ParsedLayout(container: isAIFC ? .aifc : .aiff, description: description, dataOffset: ctx.fileSize,
                                claimedDataBytes: 0, claimedFrames: 0, dataChunkName: "SSND chunk")
        }
        throw ctx.invalid("is not a valid \(kind) file: its COMM chunk announces \(frames) frames but it has no SSND chunk")
    }
    return ParsedLayout(container: isAIFC ? .aifc : .aiff, description: description, dataOffset: offset,
                        claimedDataBytes: ssndClaim, claimedFrames: frames, dataChunkName: "SSND chunk")
}
