// MP4/M4A files of one audio track of compressed packets written (ISO/IEC 14496-12): Apple
// Lossless ('alac' sample entry) and FLAC ('fLaC' + 'dfLa'), encoded by AudioCodecs' encoders.
//
// It takes what the PCM writers take — raw interleaved little-endian integers, left-justified in
// 1 to 4-byte containers — and encodes whole packets as they fill (the encoder's frames per
// packet: 4,096 for ALAC and FLAC at levels 3–8); `close()` encodes the rest as a shorter last
// packet, whose `stts` duration is its true length, so the file's length is exact.
//
// Design note — valid at every moment. An MP4's index (`moov`) is one nested box whose sizes
// all change when a packet is added, so it cannot be extended in place the way CAF's packet
// table is; instead it is rewritten whole after every `write` that completes packets, into room
// reserved before the data, and made visible by a single 8-byte write:
//
//     ftyp | slot A (R bytes) | slot B (R bytes) | free (8) | mdat (size 0) | packets…
//
// Each slot holds either a `free` box of R bytes, or a `moov` followed by a `free` box filling
// the rest of the slot. One slot is live. An update writes the new `moov`'s body and its trailing
// `free` header into the other slot (still a `free` box to readers, who skip it), then that
// slot's 8-byte `moov` header (now there are two `moov`s: readers — ffmpeg, Apple's, ours — take
// the first, and both are complete and describe data on disk), then turns the old slot's header
// into `free` of R bytes. A writer killed between any two of these writes leaves a file with a
// complete `moov` describing packets wholly on disk.
//
// The data box is written with size 0 ("extends to the end of the file", §4.2.2) while writing,
// so packets appended and not yet listed are simply unlisted bytes inside it — never junk after
// it. `close()` gives it its true size in the 16 bytes of `free`(8) + `mdat` header: a 32-bit
// `mdat` after the 8-byte `free`, or past 4 GiB a 64-bit `mdat` (size 1 + largesize) in the same
// 16 bytes, as ffmpeg's muxer does with its 'wide' box.
//
// The reserve. Each slot holds `reservedBytes` (64 KiB by default, like CAF's reserved table):
// the `moov` is about 600 bytes plus 4 per packet (`stsz`) and 4 per 16 packets (`stco`), so
// about 15,000 packets — 23 minutes of 44.1 kHz audio, 10 at 96 kHz. Past that, as CAF's writer
// does, the `moov` on disk stops growing during writes (the file stays valid, listing the packets
// of those first minutes — what a killed writer then recovers), and `close()` writes the
// complete `moov` after the data, gives the data box its true size (two `moov`s: the stale first
// one wins for a moment), then turns the live slot into `free`. (Fragments — an `mvex` in the
// `moov` and a `moof` + `mdat` per write — would keep every write recoverable however long the
// file; they are not written here.)
import AudioCodecs
import AudioKernels
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

public final class MP4PacketFileWriter {
    public let path: String
    public let description: AudioDataDescription
    /// Frames accepted so far, including those buffered for the next packet.
    public var framesWritten: Int64 { assembler.framesWritten }
    /// Frames in packets the `moov` on disk lists (after `close()`, all of them).
    public private(set) var framesEncoded: Int64 = 0
    public let encoder: AudioPacketEncoder
    /// Bytes reserved for each of the two `moov` slots.
    public let reservedBytes: Int
    /// True once the `moov` outgrew its reserve (see the note at the top).
    public private(set) var overflowed = false

    static let packetsPerChunk = 16

    private var file: RawFile
    /// Frames in, packets out (PacketAssembler.swift).
    private let assembler: PacketAssembler
    /// The codec's channel `s` is the written frames' channel `channelOrder[s]` (nil: as
    /// written). Set before the first write.
    public var channelOrder: [Int]? {
        get { assembler.channelOrder }
        set { assembler.channelOrder = newValue }
    }
    private let codec: UInt32
    private var packetSizes: [UInt32] = []
    private var packetFrames: [UInt32] = []
    private var track: MP4TrackDescription
    private let slotOffsets: [Int64]
    private var liveSlot = 0
    private let mdatHeaderOffset: Int64
    private let dataStart: Int64
    private var dataEnd: Int64
    private var closed = false

    /// Creates (or replaces) `path`. `codec` is 'alac' or 'flac' (Core Audio's IDs); `encoder`
    /// makes its packets (for FLAC a FLACPacketEncoder); `m4a` chooses the 'M4A ' brand over
    /// 'isom'. Throws 'fmt?' when the format cannot be stored, and the PCM writers' errors when
    /// the file cannot be created. `channelLayout` (a big-endian AudioChannelLayout, as CAF's
    /// 'chan' holds it) goes into an ALAC sample entry's `chan` box, as Apple's M4A files carry
    /// the layout; FLAC's entry has no place for one.
    public init(path: String, codec: UInt32, encoder: AudioPacketEncoder, description: AudioDataDescription, m4a: Bool,
                channelLayout: [UInt8]? = nil, reservedBytes: Int = 64 * 1024) throws {
        func refuse(_ text: String) -> AudioFileFormatError {
            AudioFileFormatError(code: Code.unsupportedDataFormat, message: "cannot write \(quoted(path)): \(text)")
        }
        switch description.encoding {
        case .signed8, .signed16, .signed24, .signed32: break
        default: throw refuse("MP4 packets are encoded from integer samples, not \(description.encoding)")
        }
        guard description.sampleRate == description.sampleRate.rounded(), description.sampleRate >= 1,
              description.sampleRate <= Double(UInt32.max) else {
            throw refuse("an MP4 track's timescale is a whole number of Hz, not \(description.sampleRate)")
        }
        let rate = UInt32(description.sampleRate)
        var track = MP4TrackDescription(sampleEntryType: "", sampleEntryChildren: [], sampleRate: rate,
                                        channelCount: description.channelCount, bitsPerSample: description.validBitsPerSample)
        switch codec {
        case MP4SampleEntryParser.codecALAC:
            var cookie = encoder.magicCookie
            if let layout = channelLayout {
                // A 'chan' atom (size, type, version and flags, the layout) after the cookie's
                // own atoms; alacEntryChildren carries it into the entry.
                let size = UInt32(12 + layout.count)
                cookie += [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)] + Array("chan".utf8) + [0, 0, 0, 0] + layout
            }
            guard let children = MP4MovieBuilder.alacEntryChildren(cookie: cookie) else {
                throw refuse("the Apple Lossless encoder's magic cookie holds no ALACSpecificConfig")
            }
            track.sampleEntryType = "alac"
            track.sampleEntryChildren = children
        case MP4SampleEntryParser.codecFLAC:
            track.sampleEntryType = "fLaC"
            // The 34-byte STREAMINFO body (the cookie is the whole metadata block, header included).
            let cookie = encoder.magicCookie
            track.sampleEntryChildren = MP4MovieBuilder.flacEntryChildren(streamInfo: (encoder as? FLACPacketEncoder)?.streamInfo(totalSamples: 0)
                                                                              ?? Array(cookie.count == 38 ? cookie.dropFirst(4) : cookie[...]))
        default:
            throw refuse("\(AudioCodecRegistry.fourCharacterName(codec)) packets are not written to MP4 files by this library (Apple Lossless and FLAC are)")
        }
        let reserve = max(1024, reservedBytes)
        var header = MP4MovieBuilder.fileType(m4a: m4a)
        let slotA = Int64(header.count)
        let slotB = slotA + Int64(reserve)
        let mdatHeaderOffset = slotB + Int64(reserve)
        let dataStart = mdatHeaderOffset + 16
        let moov = MP4MovieBuilder.movie(track, packetSizes: [], packetFrames: [], dataStart: dataStart, packetsPerChunk: Self.packetsPerChunk)
        guard moov.count <= reserve - 8 else { throw refuse("the empty moov (\(moov.count) bytes) does not fit the \(reserve)-byte reserve") }
        header += moov
        header += MP4MovieBuilder.freeHeader(size: reserve - moov.count)
        header += [UInt8](repeating: 0, count: reserve - moov.count - 8)
        header += MP4MovieBuilder.freeHeader(size: reserve)
        header += [UInt8](repeating: 0, count: reserve - 8)
        header += MP4MovieBuilder.freeHeader(size: 8)
        header += [0, 0, 0, 0] + Array("mdat".utf8)             // size 0: to the end of the file
        file = try RawFile.create(path: path, header: header)
        _ = ftruncate(file.fd, off_t(header.count))               // another file may have stood here
        self.path = path
        self.description = description
        self.encoder = encoder
        self.codec = codec
        self.track = track
        self.reservedBytes = reserve
        slotOffsets = [slotA, slotB]
        self.mdatHeaderOffset = mdatHeaderOffset
        self.dataStart = dataStart
        dataEnd = dataStart
        assembler = PacketAssembler(path: path, encoder: encoder, description: description)
    }

    deinit {
        if !closed { try? close() }
    }

    /// Appends `frames` interleaved frames, encoding every packet they complete; then the `moov`
    /// on disk lists every packet on disk (until the reserve overflows).
    public func write(frames: Int, from buffer: UnsafeRawPointer, atFrame frame: Int64) throws {
        var packets = 0
        defer { if packets > 0 { try? publish() } }
        try assembler.append(frames: frames, from: buffer, atFrame: frame, closed: closed) { bytes, frameCount in
            try store(bytes, frames: frameCount)
            packets += 1
        }
    }

    /// Encodes the buffered frames as the last packet, writes the final `moov` and the data box's
    /// true size, and closes the file. Closing twice does nothing.
    public func close() throws {
        guard !closed else { return }
        closed = true
        var failure: Error?
        do {
            try assembler.flush { bytes, frameCount in try store(bytes, frames: frameCount) }
            try publish()
            _ = ftruncate(file.fd, off_t(dataEnd))
            if overflowed {
                // The complete moov after the data (inside the size-0 data box until the next write).
                let moov = movie()
                try file.write(moov, at: dataEnd)
                try writeDataBoxSize()
                try file.write(MP4MovieBuilder.freeHeader(size: reservedBytes), at: slotOffsets[liveSlot])
                framesEncoded = framesWritten
            } else {
                try writeDataBoxSize()
            }
        } catch {
            failure = error
        }
        if posixClose(file.fd) != 0 && failure == nil { failure = systemError(errno, "cannot close", path: path) }
        file.fd = -1
        if let failure { throw failure }
    }

    /// The `free` + `mdat` headers with the data's true size (16 bytes in one write).
    private func writeDataBoxSize() throws {
        let size = UInt64(dataEnd - mdatHeaderOffset)
        var w = ByteWriter(bigEndian: true)
        if size - 8 <= UInt64(UInt32.max) {
            w.u32(8); w.fourCC("free")
            w.u32(UInt32(size - 8)); w.fourCC("mdat")
        } else {
            w.u32(1); w.fourCC("mdat"); w.u64(size)
        }
        try file.write(w.bytes, at: mdatHeaderOffset)
    }

    /// Appends one encoded packet of `frames` frames to the data and to the sample tables.
    private func store(_ bytes: UnsafeRawBufferPointer, frames: Int) throws {
        let result = file.write(bytes.baseAddress!, count: bytes.count, at: dataEnd)
        if result.errno != 0 { throw file.writeError(result.errno) }
        dataEnd += Int64(bytes.count)
        packetSizes.append(UInt32(bytes.count))
        packetFrames.append(UInt32(frames))
    }

    private func movie() -> [UInt8] {
        if let flac = encoder as? FLACPacketEncoder {
            // STREAMINFO kept current: the frame sizes and the total the table lists.
            let total = packetFrames.reduce(Int64(0)) { $0 + Int64($1) }
            track.sampleEntryChildren = MP4MovieBuilder.flacEntryChildren(streamInfo: flac.streamInfo(totalSamples: total))
        }
        return MP4MovieBuilder.movie(track, packetSizes: packetSizes, packetFrames: packetFrames, dataStart: dataStart,
                                     packetsPerChunk: Self.packetsPerChunk)
    }

    /// Makes the `moov` on disk list every packet on disk, through the slot not live (see the
    /// note at the top). Once the reserve is outgrown it does nothing until `close()`.
    private func publish() throws {
        guard !overflowed else { return }
        let moov = movie()
        guard moov.count == reservedBytes || moov.count <= reservedBytes - 8 else {
            overflowed = true
            return
        }
        let target = slotOffsets[1 - liveSlot]
        var body = Array(moov[8...])
        if moov.count < reservedBytes { body += MP4MovieBuilder.freeHeader(size: reservedBytes - moov.count) }
        try file.write(body, at: target + 8)
        try file.write(Array(moov[0..<8]), at: target)
        try file.write(MP4MovieBuilder.freeHeader(size: reservedBytes), at: slotOffsets[liveSlot])
        liveSlot = 1 - liveSlot
        framesEncoded = packetFrames.reduce(Int64(0)) { $0 + Int64($1) }
    }
}

extension MP4PacketFileWriter: StoredFrameWriter {}
