// CAF files of compressed packets written (today: Apple Lossless, through the codec registry).
//
// It takes what the PCM writers take — raw interleaved little-endian integers, left-justified in
// 2, 3 or 4-byte containers, `validBitsPerSample` the stream's depth — and encodes whole packets
// (the encoder's frames per packet, 4,096 for ALAC) as they fill; `close()` encodes the rest as
// a shorter last packet.
//
// Layout: 'caff' header, 'desc' (the codec, its format flags, frames per packet, 0 bytes per
// packet), 'kuki' (the encoder's magic cookie), 'chan' when a layout is given, then a 'pakt'
// chunk with room reserved for the table, then 'data', last. (The data chunk always carries its
// true size, never the -1 CAF allows for a chunk being written: ffmpeg refuses variable-size
// packets in a data chunk of unknown size.)
//
// Crash safety: every `write` that completes packets first appends them to the data, then
// writes their table entries into the reserved room (past the entries the table counts, so
// unseen), then the data chunk's size, and last the table's 24-byte header (packet and
// valid-frame counts, the remainder) in one write: at every moment the table lists only packets
// wholly inside the data chunk. A writer killed at any moment leaves a valid CAF whose table lists
// every packet wholly on disk; only the frames buffered for an unfinished packet are lost. The
// reserved room holds 64 KiB of entries (about 30,000 packets, over 45 minutes of 44.1 kHz
// audio); past that the table on disk stops growing during writes (the file stays valid, listing
// the packets of the first 45 minutes), and `close()` writes a complete table after the data
// and turns the reserved one into a 'free' chunk. `close()` always leaves the data chunk's
// true size.
import AudioCodecs
import AudioKernels
#if canImport(Glibc)
import Glibc
#endif

public final class CAFPacketFileWriter {
    public let path: String
    public let description: AudioDataDescription
    /// Frames accepted so far, including those buffered for the next packet.
    public var framesWritten: Int64 { assembler.framesWritten }
    /// Frames in packets on disk.
    public private(set) var framesEncoded: Int64 = 0
    public let encoder: AudioPacketEncoder

    /// Room reserved for the packet table's entries.
    static let reservedTableBytes = 64 * 1024

    private var file: RawFile
    /// Frames in, packets out (PacketAssembler.swift).
    private let assembler: PacketAssembler
    /// The codec's channel `s` is the written frames' channel `channelOrder[s]` (nil: as
    /// written). Set before the first write.
    public var channelOrder: [Int]? {
        get { assembler.channelOrder }
        set { assembler.channelOrder = newValue }
    }
    /// The table's entries (variable-length packet sizes), all of them.
    private var entries: [UInt8] = []
    private var packetCount: Int64 = 0
    /// Where the 'pakt' payload starts, and how many entry bytes are on disk in the reserve.
    private let tableOffset: Int64
    private var entriesOnDisk = 0
    private var tableOverflowed = false
    private let dataHeaderOffset: Int64
    private var dataEnd: Int64
    private var closed = false

    /// Creates (or replaces) `path`. `codec` names the encoder in AudioCodecRegistry;
    /// `formatFlags` go to 'desc' (for ALAC the source depth flag); `channelLayout` is a CAF
    /// 'chan' payload. Throws 'fmt?' when the codec cannot hold the format.
    public init(path: String, codec: UInt32, description: AudioDataDescription, formatFlags: UInt32, channelLayout: [UInt8]? = nil) throws {
        func refuse(_ text: String) -> AudioFileFormatError {
            AudioFileFormatError(code: Code.unsupportedDataFormat, message: "cannot write \(quoted(path)): \(text)")
        }
        // The values every container shares, checked as AudioFileWriter checks them, so that
        // every file written here opens for reading (the settings fuzz target found a 905 MHz
        // ALAC file that was written and then refused by the reader).
        guard description.channelCount >= 1 && description.channelCount <= AudioDataDescription.maximumChannelCount else {
            throw refuse("\(description.channelCount) channels; between 1 and \(AudioDataDescription.maximumChannelCount) are supported")
        }
        guard description.sampleRate > 0 && description.sampleRate.isFinite
                && description.sampleRate <= AudioDataDescription.maximumSampleRate else {
            throw refuse("a sample rate of \(description.sampleRate) Hz; it must be above 0 and at most 10 MHz")
        }
        switch description.encoding {
        case .signed16, .signed24, .signed32: break
        default: throw refuse("\(AudioCodecRegistry.entry(for: codec)?.name ?? "this codec") stores 16 to 32-bit integer samples, not \(description.encoding)")
        }
        let encoder: AudioPacketEncoder
        do {
            encoder = try AudioCodecRegistry.encoder(for: AudioStreamSetup(codec: codec, sampleRate: description.sampleRate,
                                                                           channelCount: description.channelCount,
                                                                           bitsPerSample: description.validBitsPerSample))
        } catch let error as CodecError {
            throw refuse(error.message)
        }
        var w = ByteWriter(bigEndian: true, capacity: 256)
        w.fourCC("caff"); w.uint(1, 2); w.uint(0, 2)
        w.fourCC("desc"); w.uint(32, 8)
        w.u64(description.sampleRate.bitPattern)
        w.u32(codec); w.u32(formatFlags); w.u32(0); w.u32(UInt32(encoder.framesPerPacket))
        w.u32(UInt32(description.channelCount)); w.u32(0)
        let cookie = encoder.magicCookie
        w.fourCC("kuki"); w.uint(UInt64(cookie.count), 8); w.bytes += cookie
        if let layout = channelLayout { w.fourCC("chan"); w.uint(UInt64(layout.count), 8); w.bytes += layout }
        w.fourCC("pakt"); w.uint(UInt64(24 + CAFPacketFileWriter.reservedTableBytes), 8)
        let tableOffset = Int64(w.bytes.count)
        w.bytes += [UInt8](repeating: 0, count: 24 + CAFPacketFileWriter.reservedTableBytes)
        let dataHeaderOffset = Int64(w.bytes.count)
        w.fourCC("data"); w.u64(4); w.u32(0)   // the edit count only, so far
        let header = w.bytes
        file = try RawFile.create(path: path, header: header)
        _ = ftruncate(file.fd, off_t(header.count))
        self.path = path
        self.description = description
        self.encoder = encoder
        self.tableOffset = tableOffset
        self.dataHeaderOffset = dataHeaderOffset
        dataEnd = Int64(header.count)
        assembler = PacketAssembler(path: path, encoder: encoder, description: description)
    }

    deinit {
        if !closed { try? close() }
    }

    /// Appends `frames` interleaved frames, encoding every packet they complete; then the table
    /// on disk counts every packet on disk.
    public func write(frames: Int, from buffer: UnsafeRawPointer, atFrame frame: Int64) throws {
        var packets = 0
        defer { if packets > 0 { try? writeTable() } }
        try assembler.append(frames: frames, from: buffer, atFrame: frame, closed: closed) { bytes, frameCount in
            try store(bytes, frames: frameCount)
            packets += 1
        }
    }

    /// Encodes the buffered frames as the last packet, writes the final table and the data
    /// chunk's size, and closes the file. Closing twice does nothing.
    public func close() throws {
        guard !closed else { return }
        closed = true
        var failure: Error?
        do {
            try assembler.flush { bytes, frameCount in try store(bytes, frames: frameCount) }
            try writeTable()
            _ = ftruncate(file.fd, off_t(dataEnd))
            if tableOverflowed {
                // The complete table after the data, then the reserved table becomes free space
                // (a reader meeting two tables takes the last).
                try file.write(tableChunk(), at: dataEnd)
                try file.write(Array("free".utf8), at: tableOffset - 12)
            }
        } catch {
            failure = error
        }
        if posixClose(file.fd) != 0 && failure == nil { failure = systemError(errno, "cannot close", path: path) }
        file.fd = -1
        if let failure { throw failure }
    }

    /// Appends one encoded packet of `frames` frames to the data and its size to the table.
    private func store(_ bytes: UnsafeRawBufferPointer, frames: Int) throws {
        let size = bytes.count
        let result = file.write(bytes.baseAddress!, count: size, at: dataEnd)
        if result.errno != 0 { throw file.writeError(result.errno) }
        dataEnd += Int64(size)
        var v = UInt64(size)
        var groups: [UInt8] = [UInt8(v & 0x7F)]
        v >>= 7
        while v > 0 { groups.append(UInt8(v & 0x7F) | 0x80); v >>= 7 }
        entries += groups.reversed()
        packetCount += 1
        framesEncoded += Int64(frames)
    }

    /// The table's header: packets, valid frames, priming 0, remainder (the last packet's
    /// frames short of a whole packet).
    private func tableHeader() -> [UInt8] {
        var w = ByteWriter(bigEndian: true)
        w.u64(UInt64(packetCount))
        w.u64(UInt64(framesEncoded))
        w.u32(0)
        w.u32(UInt32(packetCount * Int64(encoder.framesPerPacket) - framesEncoded))
        return w.bytes
    }

    private func tableChunk() -> [UInt8] {
        var w = ByteWriter(bigEndian: true)
        w.fourCC("pakt")
        w.u64(UInt64(24 + entries.count))
        return w.bytes + tableHeader() + entries
    }

    /// Entries into the reserve (beyond what the header counts), the data chunk's size, then
    /// the header. Once the reserve is full only the data size moves on.
    private func writeTable() throws {
        if entries.count > CAFPacketFileWriter.reservedTableBytes { tableOverflowed = true }
        if !tableOverflowed && entries.count > entriesOnDisk {
            try file.write(Array(entries[entriesOnDisk...]), at: tableOffset + 24 + Int64(entriesOnDisk))
            entriesOnDisk = entries.count
        }
        var size = ByteWriter(bigEndian: true)
        size.u64(UInt64(dataEnd - dataHeaderOffset - 12))
        try file.write(size.bytes, at: dataHeaderOffset + 4)
        if !tableOverflowed { try file.write(tableHeader(), at: tableOffset) }
    }
}

extension CAFPacketFileWriter: StoredFrameWriter {}
