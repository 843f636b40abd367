// CAF files whose audio is in compressed packets (Apple Lossless, FLAC, AAC, …): the 'desc'
// chunk names the codec with mBytesPerPacket 0 (variable-size packets) and mFramesPerPacket the
// packet length (0 when that varies too), 'kuki' holds the codec's magic cookie, and 'pakt' lists
// the packets:
//
//     mNumberPackets    Int64     mNumberValidFrames  Int64
//     mPrimingFrames    Int32     mRemainderFrames    Int32
//     then per packet: its size in bytes when mBytesPerPacket is 0, then its frame count when
//     mFramesPerPacket is 0, each a variable-length integer (7 bits a byte, most significant
//     first, the top bit set on every byte but the last).
//
// The packets lie back to back after the 'data' chunk's 4-byte edit count. The result is a
// PacketIndex (the packet layer's container-neutral view). Damage is tolerated where the audio
// before it is intact: a table or data chunk cut short (a truncated download, a writer killed
// mid-write) keeps the packets wholly present, with a warning; a table that cannot be parsed at
// all, or a compressed CAF without one, is an error naming what is wrong.
//
// (Field meanings: Apple's Core Audio Format Specification, "Packet Table Chunk".)

/// A compressed CAF stream: its PacketIndex and what the façade reports about it.
public struct CAFPacketStream: Sendable {
    public var index: PacketIndex
    /// The 'desc' chunk's mFormatFlags (for ALAC and FLAC: the source bit depth, 1 = 16-bit,
    /// 2 = 20, 3 = 24, 4 = 32).
    public var formatFlags: UInt32
    /// The 'desc' chunk's mFramesPerPacket (0: each packet says).
    public var framesPerPacket: Int
    /// The raw 'chan' payload, when the file has one.
    public var channelLayoutData: [UInt8]?
}

/// The most a 'kuki' chunk may hold (Apple's cookies are tens of bytes; FLAC's a few KB).
let cafMaximumCookieBytes: Int64 = 1 << 20

/// Reads a CAF file's packet structure. Returns nil when the file is not a CAF, or holds
/// uncompressed audio (linear PCM, µ-law, A-law: the PCM reader's business).
public func readCAFPacketStream(path: String) throws -> CAFPacketStream? {
    let file = try RawFile.open(path: path, forWriting: false)
    defer { _ = posixClose(file.fd) }
    let fileSize = try file.size()
    let head = try file.readBytes(at: 0, count: 8)
    guard head.count == 8, Bytes(head, bigEndian: true).fourCC(0) == fcc("caff") else { return nil }
    let ctx = ParseContext(file: file, fileSize: fileSize)

    var desc: Bytes?
    var cookie: [UInt8] = []
    var layout: [UInt8]?
    var pakt: [UInt8]?
    var paktClaim: Int64 = 0
    var dataStart: Int64?
    var dataEnd: Int64 = fileSize
    var warnings: [String] = []
    var uncompressed = false
    try walkCAFChunks(ctx) { chunk in
        let size = chunk.size
        let payload = chunk.dataOffset
        let available = fileSize - payload
        switch chunk.id {
        case fcc("desc"):
            guard size >= 32 else { throw ctx.badChunk("has a 'desc' chunk of \(size) bytes; it needs 32") }
            let bytes = try file.readBytes(at: payload, count: 32)
            guard bytes.count == 32 else { throw ctx.invalid("ends inside its 'desc' chunk") }
            desc = Bytes(bytes, bigEndian: true)
            let id = desc!.fourCC(8)
            if id == fcc("lpcm") || id == fcc("ulaw") || id == fcc("alaw") { uncompressed = true; return nil }
        case fcc("kuki"):
            guard size >= 0 && size <= cafMaximumCookieBytes && size <= available else {
                throw ctx.badChunk("has a 'kuki' (magic cookie) chunk of \(size) bytes, which the file cannot hold or is absurd")
            }
            cookie = try file.readBytes(at: payload, count: Int(size))
        case fcc("chan"):
            if size >= 12 && size <= Int64(cafMaximumChannelLayoutBytes) && size <= available {
                layout = try file.readBytes(at: payload, count: Int(size))
            } else {
                warnings.append("the 'chan' chunk of \(size) bytes is not a channel layout; ignored")
            }
        case fcc("pakt"):
            guard size >= 24 else { throw ctx.badChunk("has a 'pakt' (packet table) chunk of \(size) bytes; it needs at least 24") }
            paktClaim = size
            let present = min(size, available)
            guard present <= Int64(Int32.max) else {
                throw ctx.badChunk("has a 'pakt' chunk of \(size) bytes, more than this reader indexes")
            }
            pakt = try file.readBytes(at: payload, count: Int(present))
            if Int64(pakt!.count) < size { warnings.append("the packet table is cut short (\(pakt!.count) of \(size) bytes)") }
        case fcc("data"):
            guard desc != nil else { throw ctx.invalid("is not a valid CAF file: its 'data' chunk comes before the 'desc' chunk") }
            dataStart = payload + 4   // after the edit count
            if size >= 4, size <= available { dataEnd = payload + size }
            else if size > available { warnings.append("the data chunk claims \(size) bytes but only \(available) follow") }
            if size < 0 || size > available { return nil }  // runs to the end of the file
        default:
            break
        }
        return size
    }
    if uncompressed { return nil }
    guard let d = desc else { throw ctx.invalid("is not a valid CAF file: it has no 'desc' chunk") }
    guard let start = dataStart else { throw ctx.invalid("is not a valid CAF file: it has no 'data' chunk") }

    let rate = Double(bitPattern: d.u64(0))
    let codec = d.fourCC(8)
    let flags = d.u32(12)
    let bytesPerPacket = Int64(d.u32(16))
    let framesPerPacket = Int64(d.u32(20))
    let channels = Int64(d.u32(24))
    let bits = Int(d.u32(28))
    try checkFormatValues(ctx, channels: channels, sampleRate: rate, format: "CAF")

    var index = PacketIndex(codec: codec, sampleRate: rate, channelCount: Int(channels), bitsPerSample: bits, magicCookie: cookie)
    var validFrames: Int64?
    if bytesPerPacket != 0 && framesPerPacket != 0 && pakt == nil {
        // Constant packets: no table needed.
        let count = max(0, dataEnd - start) / bytesPerPacket
        guard count <= Int64(Int32.max) else { throw ctx.unsupported("holds more packets than this reader indexes") }
        index.packets.reserveCapacity(Int(count))
        for i in 0..<count {
            index.packets.append(StoredPacket(offset: start + i * bytesPerPacket, byteCount: Int(bytesPerPacket), frameCount: Int(framesPerPacket)))
        }
    } else {
        guard let table = pakt, table.count >= 24 else {
            throw ctx.invalid("holds \(fourCCText(codec)) packets of varying size but no packet table ('pakt' chunk) to find them")
        }
        let t = Bytes(table, bigEndian: true)
        let declared = t.i64(0)
        let valid = t.i64(8)
        let priming = Int64(Int32(bitPattern: t.u32(16)))
        let remainder = Int64(Int32(bitPattern: t.u32(20)))
        guard declared >= 0, valid >= -1, priming >= 0, remainder >= 0 else {
            throw ctx.badChunk("has a packet table with impossible counts (\(declared) packets, \(valid) valid frames, \(priming) priming, \(remainder) remainder)")
        }
        // Each entry takes at least one byte (two when both size and frames vary): a count
        // beyond that is damage, and never sizes an allocation.
        let perEntry = Int64((bytesPerPacket == 0 ? 1 : 0) + (framesPerPacket == 0 ? 1 : 0))
        let entriesPresent = perEntry == 0 ? declared : min(declared, Int64(table.count - 24) / perEntry)
        guard declared <= (perEntry == 0 ? max(0, dataEnd - start) : Int64(paktClaim - 24) / perEntry) else {
            throw ctx.badChunk("has a packet table announcing \(declared) packets, more than its \(paktClaim) bytes can list")
        }
        index.packets.reserveCapacity(Int(entriesPresent))
        var cursor = 24
        func varint() -> Int64? {
            var v: Int64 = 0
            for _ in 0..<9 {
                guard cursor < table.count else { return nil }
                let b = table[cursor]
                cursor += 1
                v = v << 7 | Int64(b & 0x7F)
                if b & 0x80 == 0 { return v }
            }
            return nil
        }
        var offset = start
        var cutShort = false
        for _ in 0..<declared {
            var size = bytesPerPacket, frames = framesPerPacket
            if bytesPerPacket == 0 { guard let v = varint() else { cutShort = true; break }; size = v }
            if framesPerPacket == 0 { guard let v = varint() else { cutShort = true; break }; frames = v }
            guard size <= Int64(Int32.max), frames <= Int64(Int32.max) else {
                throw ctx.badChunk("has a packet table entry of \(size) bytes and \(frames) frames, which no packet holds")
            }
            if offset + size > dataEnd { cutShort = true; break }
            index.packets.append(StoredPacket(offset: offset, byteCount: Int(size), frameCount: Int(frames)))
            offset += size
        }
        index.primingFrames = priming
        if cutShort {
            warnings.append("\(index.packets.count) of the \(declared) packets the table lists are present; reading those")
        } else {
            index.remainderFrames = remainder
            validFrames = valid
        }
    }
    if let v = validFrames, v >= 0, v != index.validFrameCount {
        warnings.append("the packet table declares \(v) valid frames but its packets, priming and remainder make \(index.validFrameCount)")
    }
    index.warnings = warnings
    return CAFPacketStream(index: index, formatFlags: flags, framesPerPacket: Int(framesPerPacket), channelLayoutData: layout)
}
