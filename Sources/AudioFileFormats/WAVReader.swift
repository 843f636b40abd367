import AudioKernels

// WAV (RIFF little-endian, RIFX big-endian), RF64 and BW64.

let waveFormatPCM: UInt16 = 1
let waveFormatIEEEFloat: UInt16 = 3
let waveFormatALaw: UInt16 = 6
let waveFormatMuLaw: UInt16 = 7
let waveFormatExtensible: UInt16 = 0xFFFE

/// Bytes 8...15 of the KSDATAFORMAT_SUBTYPE_* GUIDs (the part after Data1, Data2, Data3).
let waveSubformatGUIDTail: [UInt8] = [0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71]

private func waveFormatName(_ tag: UInt16) -> String {
    switch tag {
    case 0x0002: return "Microsoft ADPCM"
    case 0x0011: return "IMA ADPCM"
    case 0x0031: return "GSM 6.10"
    case 0x0050: return "MPEG"
    case 0x0055: return "MPEG Layer 3"
    case 0x0092: return "Dolby AC-3 SPDIF"
    case 0x00FF, 0x1610: return "AAC"
    case 0x2000: return "Dolby AC-3"
    case 0xF1AC: return "FLAC"
    default: return "format tag 0x" + String(tag, radix: 16, uppercase: true)
    }
}

func parseWAV(_ ctx: ParseContext, head: [UInt8]) throws -> ParsedLayout {
    let magic = Bytes(head, bigEndian: true).fourCC(0)
    let bigEndian = magic == fcc("RIFX")
    let is64 = magic == fcc("RF64") || magic == fcc("BW64")
    let container: AudioContainerType = magic == fcc("RF64") ? .rf64 : magic == fcc("BW64") ? .bw64 : .wav
    let kind = container == .wav ? "WAV" : "\(container) (WAV)"
    guard head.count >= 12 else {
        throw ctx.invalid("is not a valid \(kind) file: it ends after \(head.count) bytes, inside the 12-byte header")
    }
    let fields = Bytes(head, bigEndian: bigEndian)
    let form = fields.fourCC(8)
    guard form == fcc("WAVE") else {
        throw AudioFileFormatError(code: Code.unsupportedFileType,
                                   message: "\(quoted(ctx.path)) is a RIFF file of type \(fourCCText(form)), not a WAV file ('WAVE')")
    }
    let riffSize = fields.u32(4)

    var warnings: [String] = []
    var ds64Data: UInt64?
    var ds64Table: [UInt32: UInt64] = [:]
    var fmt: Bytes?
    var dataOffset: Int64?
    var dataClaim: Int64?

    try walkChunks32(ctx, from: 12, bigEndian: bigEndian) { chunk in
        var length = Int64(chunk.size)
        switch chunk.id {
        case fcc("ds64"):
            guard chunk.size >= 24 else {
                throw ctx.badChunk("has a 'ds64' chunk of \(chunk.size) bytes; it needs at least 24")
            }
            let payload = Bytes(try ctx.file.readBytes(at: chunk.dataOffset, count: Int(min(chunk.size, 28 + 12 * 64))),
                                bigEndian: bigEndian)
            guard payload.count >= 24 else {
                throw ctx.invalid("ends inside its 'ds64' chunk")
            }
            ds64Data = payload.u64(8)
            if payload.count >= 28 {
                let entries = min(Int(payload.u32(24)), (payload.count - 28) / 12)
                for i in 0..<max(0, entries) {
                    ds64Table[payload.fourCC(28 + 12 * i)] = payload.u64(28 + 12 * i + 4)
                }
            }
        case fcc("fmt "):
            if fmt == nil {
                guard chunk.size >= 16 else {
                    throw ctx.badChunk("has a 'fmt ' chunk of \(chunk.size) bytes, shorter than the 16 bytes every WAV format needs")
                }
                let bytes = try ctx.file.readBytes(at: chunk.dataOffset, count: Int(min(chunk.size, 1024)))
                guard bytes.count >= 16 else {
                    throw ctx.invalid("ends inside its 'fmt ' chunk")
                }
                fmt = Bytes(bytes, bigEndian: bigEndian)
            }
        case fcc("data"):
            guard dataOffset == nil else { break }
            dataOffset = chunk.dataOffset
            if chunk.size == 0xFFFF_FFFF {
                if is64, let size = ds64Data {
                    dataClaim = Int64(clamping: size)
                } else {
                    dataClaim = nil
                    warnings.append(is64
                        ? "the data chunk size is 0xFFFFFFFF but there is no 'ds64' chunk; reading to the end of the file"
                        : "the data chunk size is 0xFFFFFFFF (unknown); reading to the end of the file")
                }
            } else if chunk.size == 0 && ctx.fileSize > chunk.dataOffset
                        && (riffSize == 0 || riffSize == 0xFFFF_FFFF || Int64(riffSize) + 8 <= chunk.dataOffset) {
                // A writer that stopped before patching its header: the RIFF size does not
                // account for anything after the data chunk header, yet bytes follow.
                dataClaim = nil
                warnings.append("the data chunk size is 0 but \(ctx.fileSize - chunk.dataOffset) bytes follow (the writer did not finish its header); reading them")
            } else {
                dataClaim = Int64(chunk.size)
            }
            guard let claim = dataClaim, fmt == nil else { return nil }
            length = claim
        default:
            if is64 && chunk.size == 0xFFFF_FFFF, let size = ds64Table[chunk.id] {
                length = Int64(clamping: size)
            }
        }
        return length
    }

    guard let format = fmt else {
        throw ctx.invalid("is not a valid \(kind) file: it has no 'fmt ' chunk (the file is \(ctx.fileSize) bytes long)")
    }
    guard let offset = dataOffset else {
        throw ctx.invalid("is not a valid \(kind) file: it has no 'data' chunk (the file is \(ctx.fileSize) bytes long)")
    }
    let description = try parseWAVFormat(ctx, format, bigEndian: bigEndian)
    return ParsedLayout(container: container, description: description, dataOffset: offset,
                        claimedDataBytes: dataClaim, claimedFrames: nil, warnings: warnings, dataChunkName: "data chunk")
}

/// Decodes a WAVEFORMATEX / WAVEFORMATEXTENSIBLE 'fmt ' payload.
func parseWAVFormat(_ ctx: ParseContext, _ fmt: Bytes, bigEndian: Bool) throws -> AudioDataDescription {
    var tag = fmt.u16(0)
    let channels = Int64(fmt.u16(2))
    let rate = Double(fmt.u32(4))
    let blockAlign = Int(fmt.u16(12))
    let containerBits = Int(fmt.u16(14))
    var validBits = containerBits
    var channelMask: UInt32?

    if tag == waveFormatExtensible {
        guard fmt.count >= 40 else {
            throw ctx.badChunk("has a WAVE_FORMAT_EXTENSIBLE 'fmt ' chunk of \(fmt.count) bytes; it needs 40")
        }
        let declaredValid = Int(fmt.u16(18))
        if declaredValid != 0 { validBits = declaredValid }
        channelMask = fmt.u32(20)
        let data1 = fmt.u32(24)
        let data2 = fmt.u16(28)
        let data3 = fmt.u16(30)
        guard data1 <= 0xFFFF, data2 == 0, data3 == 0x0010, fmt.slice(32, 8) == waveSubformatGUIDTail else {
            let guid = fmt.slice(24, 16).map { b in (b < 16 ? "0" : "") + String(b, radix: 16) }.joined()
            throw ctx.unsupported("has a WAVE_FORMAT_EXTENSIBLE sub-format GUID (\(guid)) this reader does not know; only PCM, IEEE float, A-law and µ-law are supported")
        }
        tag = UInt16(data1)
    }

    guard [waveFormatPCM, waveFormatIEEEFloat, waveFormatMuLaw, waveFormatALaw].contains(tag) else {
        throw ctx.unsupported("holds \(waveFormatName(tag)) audio, which this reader does not decode (only PCM, IEEE float, A-law and µ-law)")
    }
    try checkFormatValues(ctx, channels: channels, sampleRate: rate, format: "WAV")
    if containerBits == 0 {
        throw ctx.invalid("has an invalid WAV header: it declares 0 bits per sample")
    }
    if validBits > containerBits {
        throw ctx.invalid("has an invalid WAV header: it declares \(validBits) valid bits in \(containerBits)-bit samples")
    }

    // Bytes per sample: from the block alignment when it is consistent, else from the bit depth.
    let minimumBytes = (containerBits + 7) / 8
    var sampleBytes = minimumBytes
    if blockAlign != 0 {
        guard blockAlign % Int(channels) == 0, blockAlign / Int(channels) >= minimumBytes else {
            throw ctx.invalid("has an invalid WAV header: its block alignment of \(blockAlign) bytes does not fit \(channels) channels of \(containerBits)-bit samples (expected \(Int(channels) * minimumBytes))")
        }
        sampleBytes = blockAlign / Int(channels)
    }

    let encoding: SampleEncoding
    switch tag {
    case waveFormatPCM:
        guard let e = integerEncoding(bytes: sampleBytes, unsigned8: true) else {
            throw ctx.unsupported("holds \(containerBits)-bit integer samples in \(sampleBytes)-byte containers; integer samples wider than 32 bits are not supported")
        }
        encoding = e
    case waveFormatIEEEFloat:
        switch (sampleBytes, containerBits) {
        case (4, 32): encoding = .float32
        case (8, 64): encoding = .float64
        default:
            throw ctx.unsupported("holds \(containerBits)-bit floating-point samples; only 32- and 64-bit floats are supported")
        }
        validBits = containerBits
    case waveFormatMuLaw, waveFormatALaw:
        guard sampleBytes == 1 else {
            throw ctx.unsupported("holds \(containerBits)-bit \(tag == waveFormatMuLaw ? "µ-law" : "A-law") samples; only 8-bit is supported")
        }
        encoding = tag == waveFormatMuLaw ? .ulaw : .alaw
        validBits = 8
    default:
        throw ctx.unsupported("holds \(waveFormatName(tag)) audio, which this reader does not decode (only PCM, IEEE float, A-law and µ-law)")
    }
    return AudioDataDescription(sampleRate: rate, channelCount: Int(channels), encoding: encoding,
                                bigEndian: bigEndian, validBitsPerSample: validBits, channelMask: channelMask)
}
