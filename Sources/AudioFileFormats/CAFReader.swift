import AudioKernels

// Apple Core Audio Format: 'caff', version 1, chunks with 64-bit big-endian sizes.

let cafFlagIsFloat: UInt32 = 1
let cafFlagIsLittleEndian: UInt32 = 2
/// Largest 'chan' chunk accepted (a layout for 1024 channels needs 12 + 20 × 1024 bytes).
let cafMaximumChannelLayoutBytes = 12 + 20 * 4096

func parseCAF(_ ctx: ParseContext, head: [UInt8]) throws -> ParsedLayout {
    guard head.count >= 8 else {
        throw ctx.invalid("is not a valid CAF file: it ends after \(head.count) bytes, inside the 8-byte header")
    }
    let fields = Bytes(head, bigEndian: true)
    let version = fields.u16(4)
    guard version == 1 else {
        throw ctx.unsupported("is a CAF file of version \(version); only version 1 is supported")
    }

    var desc: Bytes?
    var layout: [UInt8]?
    var dataOffset: Int64?
    var dataClaim: Int64?
    var warnings: [String] = []

    try walkCAFChunks(ctx) { chunk in
        let type = chunk.id
        var size = chunk.size
        let payload = chunk.dataOffset
        if dataOffset != nil && (size < 0 || payload.addingReportingOverflow(size).overflow || payload + size > ctx.fileSize) {
            // Bytes after the audio that do not form a chunk: what a writer killed between writing
            // samples and updating the data size leaves (libsndfile and sox ignore them too).
            warnings.append("\(ctx.fileSize - chunk.headerOffset) bytes after the data chunk do not form a chunk; ignored")
            return nil
        }
        switch type {
        case fcc("desc"):
            guard size >= 32 else {
                throw ctx.badChunk("has a 'desc' chunk of \(size) bytes; it needs 32")
            }
            let bytes = try ctx.file.readBytes(at: payload, count: 32)
            guard bytes.count == 32 else { throw ctx.invalid("ends inside its 'desc' chunk") }
            desc = Bytes(bytes, bigEndian: true)
        case fcc("chan"):
            guard size >= 12 && size <= Int64(cafMaximumChannelLayoutBytes) else {
                throw ctx.badChunk("has a 'chan' chunk of \(size) bytes; a channel layout takes 12 to \(cafMaximumChannelLayoutBytes) bytes")
            }
            let bytes = try ctx.file.readBytes(at: payload, count: Int(size))
            guard bytes.count == Int(size) else { throw ctx.invalid("ends inside its 'chan' chunk") }
            layout = bytes
        case fcc("data"):
            guard desc != nil else {
                throw ctx.invalid("is not a valid CAF file: its 'data' chunk comes before the 'desc' chunk")
            }
            dataOffset = payload + 4 // after the edit count
            if size == -1 || size == 0 {
                // -1: written by a streaming writer (or one still open); 0: a writer that stopped early.
                dataClaim = nil
                if size == 0 {
                    warnings.append("the data chunk size is 0 (the writer did not finish its header); reading to the end of the file")
                }
                size = -1
            } else if size < 4 {
                throw ctx.badChunk("has a 'data' chunk of \(size) bytes; it needs at least 4 for the edit count")
            } else {
                dataClaim = size - 4
            }
        default:
            if size < 0 {
                throw ctx.badChunk("has a \(fourCCText(type)) chunk with a negative size (\(size))")
            }
        }
        return size   // negative: the data chunk runs to the end of the file, and the walk stops
    }

    guard let d = desc else {
        throw ctx.invalid("is not a valid CAF file: it has no 'desc' chunk (the file is \(ctx.fileSize) bytes long)")
    }
    guard let offset = dataOffset else {
        throw ctx.invalid("is not a valid CAF file: it has no 'data' chunk (the file is \(ctx.fileSize) bytes long)")
    }

    let rate = Double(bitPattern: d.u64(0))
    let formatID = d.fourCC(8)
    let flags = d.u32(12)
    let bytesPerPacket = Int64(d.u32(16))
    let framesPerPacket = d.u32(20)
    let channels = Int64(d.u32(24))
    let bits = Int(d.u32(28))
    try checkFormatValues(ctx, channels: channels, sampleRate: rate, format: "CAF")

    let encoding: SampleEncoding
    var validBits = bits
    switch formatID {
    case fcc("lpcm"):
        guard framesPerPacket == 1 else {
            throw ctx.unsupported("declares linear PCM with \(framesPerPacket) frames per packet; only 1 is supported")
        }
        guard bytesPerPacket > 0, bytesPerPacket % channels == 0 else {
            throw ctx.invalid("has an invalid CAF 'desc': \(bytesPerPacket) bytes per packet do not divide into \(channels) channels")
        }
        let sampleBytes = Int(bytesPerPacket / channels)
        guard bits >= 1 else {
            throw ctx.invalid("has an invalid CAF 'desc': it declares \(bits) bits per channel")
        }
        guard bits <= sampleBytes * 8 else {
            throw ctx.invalid("has an invalid CAF 'desc': \(bits) bits per channel do not fit in \(sampleBytes)-byte samples")
        }
        if flags & cafFlagIsFloat != 0 {
            switch sampleBytes {
            case 4: encoding = .float32
            case 8: encoding = .float64
            default:
                throw ctx.unsupported("holds \(sampleBytes * 8)-bit floating-point samples; only 32- and 64-bit floats are supported")
            }
            validBits = sampleBytes * 8
        } else {
            guard let e = integerEncoding(bytes: sampleBytes, unsigned8: false) else {
                throw ctx.unsupported("holds integer samples of \(sampleBytes) bytes; integer samples wider than 32 bits are not supported")
            }
            encoding = e
        }
    case fcc("ulaw"), fcc("alaw"):
        guard framesPerPacket == 1, bytesPerPacket == channels || bytesPerPacket == 0 else {
            throw ctx.unsupported("declares \(formatID == fcc("ulaw") ? "µ-law" : "A-law") with \(bytesPerPacket) bytes and \(framesPerPacket) frames per packet; expected one byte per channel and 1 frame per packet")
        }
        encoding = formatID == fcc("ulaw") ? .ulaw : .alaw
        validBits = 8
    default:
        throw ctx.unsupported("holds \(fourCCText(formatID)) audio, which this reader does not decode (only linear PCM, µ-law and A-law)")
    }

    let description = AudioDataDescription(sampleRate: rate, channelCount: Int(channels), encoding: encoding,
                                           bigEndian: flags & cafFlagIsLittleEndian == 0, validBitsPerSample: validBits,
                                           channelLayoutData: layout)
    return ParsedLayout(container: .caf, description: description, dataOffset: offset,
                        claimedDataBytes: dataClaim, claimedFrames: nil, warnings: warnings, dataChunkName: "data chunk")
}
