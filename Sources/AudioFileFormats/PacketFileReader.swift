// Reads a file whose audio is in compressed packets (CAF, MP4/M4A/MOV or Ogg, with any codec in
// AudioCodecRegistry: today Apple Lossless, FLAC and Vorbis) as the PCM readers deliver theirs: raw interleaved little-endian
// integers, left-justified in 2, 3 or 4-byte containers, `validBitsPerSample` the stream's depth.
//
// The container parser gives a PacketIndex; the registry gives a decoder. The reader keeps the
// decoded samples of one packet: sequential reads decode each packet once, and a seek decodes
// only the packet it lands in (every ALAC and FLAC packet decodes on its own; a codec needing
// pre-roll, Vorbis, decodes the packets before it too: AudioFloatPacketDecoder.prerollPackets).
// A float decoder's samples (Vorbis) are delivered as Float32 (`.float32`, validBitsPerSample 32). Positions are in the
// trimmed timeline: frame 0 is the first frame after the priming frames, and `frameCount`
// (the index's validFrameCount) stops before the remainder.
//
// A packet that decodes to fewer frames than the table says (ALAC's short last packet, which
// the table counts as whole and the remainder trims) reads as silence past its end; a damaged
// packet fails the read that needs it with a sentence naming the file, the packet and the damage.
//
// Threads: reads are serialised by a lock (the decoder and the held packet are shared state).
#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import AudioCodecs
import AudioKernels

public final class PacketFileReader: @unchecked Sendable {
    public let path: String
    public let index: PacketIndex
    /// What the container says beyond the index (CAF: format flags, frames per packet, layout).
    public let stream: CAFPacketStream
    public let description: AudioDataDescription
    public let frameCount: Int64
    public let warnings: [String]

    private var file: RawFile
    private let decoder: AudioPacketDecoder
    /// Packets a decoder must see before the one wanted after a seek (Vorbis: 1; FLAC, ALAC: 0).
    private let preroll: Int
    /// Each packet's first frame in the decoded (untrimmed) timeline.
    private let packetStarts: [Int64]
    private let capacity: Int
    private let samples: UnsafeMutablePointer<Int32>
    private var packetBytes: [UInt8] = []
    /// The order frames are read out in, when it differs from the decoder's: read channel `c` is
    /// the decoder's channel `channelOrder[c]` (ALAC's fixed order against the layout the file
    /// declares; AVAudioFile+ALACChannelOrder.swift). Nil: the decoder's order.
    public var channelOrder: [Int]? {
        get { state.withLock { _ in order } }
        set { state.withLock { _ in order = newValue.flatMap { $0.count == decoder.channelCount && Set($0) == Set(0..<decoder.channelCount) ? $0 : nil } } }
    }
    private var order: [Int]?
    /// The packet whose samples `samples` holds, and how many frames it decoded to.
    private let state = Mutex<(packet: Int, frames: Int)>((-1, 0))

    /// The packet structure of a compressed CAF, of an MP4/M4A/MOV file's first audio track
    /// (MP4PacketReader) or of an Ogg file's first stream (OggPacketReader; the CAF-only facts are derived: format flags 0, so the file format takes
    /// the source depth from the decoder, and the frames per packet every packet but the last
    /// shares, else 0). Nil when the file is neither.
    static func packetStream(path: String) throws -> CAFPacketStream? {
        let file = try RawFile.open(path: path, forWriting: false)
        let head = (try? file.readBytes(at: 0, count: 8)) ?? []
        _ = posixClose(file.fd)
        let index: PacketIndex
        if MP4PacketReader.sniff(head) {
            index = try MP4PacketReader.packetIndex(path: path)
        } else if OggPacketReader.sniff(head) {
            index = try OggPacketReader.packetIndex(path: path)
        } else if MPEGAudioStreamReader.sniff(head) {
            index = try MPEGAudioStreamReader.packetIndex(path: path)
        } else {
            return try readCAFPacketStream(path: path)
        }
        let counts = Set(index.packets.dropLast().map(\.frameCount))
        let perPacket = counts.count == 1 ? counts.first! : counts.isEmpty ? (index.packets.first?.frameCount ?? 0) : 0
        // An ALAC entry's `chan` box (MP4SampleEntry appends it to the 24-byte config): its
        // layout, after the box header and version/flags, as CAF's 'chan' would hold it.
        var layout: [UInt8]?
        let cookie = index.magicCookie
        if index.codec == 0x616C_6163, cookie.count >= 24 + 12 + 12, Array(cookie[28..<32]) == Array("chan".utf8) {
            let size = Int(cookie[24]) << 24 | Int(cookie[25]) << 16 | Int(cookie[26]) << 8 | Int(cookie[27])
            if size >= 12 + 12, 24 + size <= cookie.count { layout = Array(cookie[36..<(24 + size)]) }
        }
        if index.codec == OggVorbisMapping.codec { layout = OggVorbisMapping.channelLayoutData(channels: index.channelCount) }
        return CAFPacketStream(index: index, formatFlags: 0, framesPerPacket: perPacket, channelLayoutData: layout)
    }

    /// Opens a compressed CAF or MP4/M4A/MOV file. Throws AudioFileFormatError: 'typ?' when the
    /// file is neither, 'fmt?' when no decoder exists for its codec, 'dta?' on damage.
    public init(path: String) throws {
        guard let stream = try PacketFileReader.packetStream(path: path) else {
            throw AudioFileFormatError(code: Code.unsupportedFileType, message: "\(quoted(path)) is not a CAF, MP4 or Ogg file of compressed packets")
        }
        var index = stream.index
        let decoder: AudioPacketDecoder
        do {
            decoder = try AudioCodecRegistry.decoder(for: AudioStreamSetup(codec: index.codec, sampleRate: index.sampleRate, channelCount: index.channelCount,
                                                                            bitsPerSample: index.bitsPerSample, magicCookie: index.magicCookie))
        } catch let error as CodecError {
            let code = error.kind == .unsupported ? Code.unsupportedDataFormat : Code.invalidFile
            throw AudioFileFormatError(code: code, message: "\(quoted(path)): \(error.message)")
        }
        let encoding: SampleEncoding
        let preroll = (decoder as? AudioFloatPacketDecoder)?.prerollPackets ?? 0
        switch decoder.bitsPerSample {
        case ...8: encoding = .signed8
        case ...16: encoding = .signed16
        case ...24: encoding = .signed24
        default: encoding = decoder is AudioFloatPacketDecoder ? .float32 : .signed32
        }
        // A packet decodes to at most the decoder's maximum (ALAC: the cookie's frame length):
        // a table claiming more is damaged, and is not let make the length absurd.
        let most = max(1, decoder.maximumFramesPerPacket)
        var clamped = 0
        for k in index.packets.indices where index.packets[k].frameCount > most || index.packets[k].frameCount < 0 {
            index.packets[k].frameCount = min(max(0, index.packets[k].frameCount), most)
            clamped += 1
        }
        if clamped > 0 {
            index.warnings.append("\(clamped) packet table entries claim more frames than a packet of this stream holds (\(most)); counted as \(most)")
        }
        // The last packet may decode to fewer frames than the table counts it for (ALAC's
        // partial last packet) while the table's remainder does not say so (ffmpeg's CAF writer
        // records whole packets and no remainder): decode it once, so the length ends where the
        // audio does — where every decoder's output ends.
        if preroll == 0, let last = index.packets.last, last.byteCount > 0, last.byteCount <= 1 << 24, let file = try? RawFile.open(path: path, forWriting: false) {
            defer { _ = posixClose(file.fd) }
            var bytes = [UInt8](repeating: 0, count: last.byteCount)
            let scratch = UnsafeMutablePointer<Int32>.allocate(capacity: max(1, decoder.maximumFramesPerPacket) * decoder.channelCount)
            defer { scratch.deallocate() }
            if (try? bytes.withUnsafeMutableBytes { try PacketFileReader.readPacket(index, index.packets.count - 1, from: file, into: $0.baseAddress!) }) == last.byteCount,
               let decoded = try? bytes.withUnsafeBytes({ try decoder.decode($0, into: scratch, frameCapacity: max(1, decoder.maximumFramesPerPacket)) }),
               decoded < last.frameCount {
                index.remainderFrames = max(index.remainderFrames, Int64(last.frameCount - decoded))
            }
            decoder.reset()
        }
        self.path = path
        self.index = index
        self.stream = stream
        self.decoder = decoder
        self.preroll = preroll
        self.description = AudioDataDescription(sampleRate: decoder.sampleRate, channelCount: decoder.channelCount, encoding: encoding,
                                                bigEndian: false, validBitsPerSample: decoder.bitsPerSample,
                                                channelLayoutData: stream.channelLayoutData)
        frameCount = index.validFrameCount
        warnings = index.warnings
        var starts: [Int64] = []
        starts.reserveCapacity(index.packets.count)
        var at: Int64 = 0
        for p in index.packets { starts.append(at); at += Int64(p.frameCount) }
        packetStarts = starts
        capacity = max(1, decoder.maximumFramesPerPacket)
        // The file first: an init that throws runs no deinit, so nothing may be allocated before
        // the last throwing call.
        file = try RawFile.open(path: path, forWriting: false)
        samples = .allocate(capacity: capacity * decoder.channelCount)
    }

    deinit {
        close()
        samples.deallocate()
    }

    public func close() {
        state.withLock { _ in
            if file.fd >= 0 { _ = posixClose(file.fd); file.fd = -1 }
        }
    }

    public var isClosed: Bool { state.withLock { _ in file.fd < 0 } }

    /// Reads up to `frames` frames from (trimmed) frame `frame` into `buffer`; returns the
    /// frames read (0 at or past the end).
    public func read(frames: Int, startingAt frame: Int64, into buffer: UnsafeMutableRawPointer) throws -> Int {
        let wanted = try framesToRead(frames, at: frame, of: frameCount, path: path)
        guard wanted > 0 else { return 0 }
        return try state.withLock { held -> Int in
            guard file.fd >= 0 else {
                throw AudioFileFormatError(code: Code.notOpen, message: "cannot read \(quoted(path)): the file has been closed")
            }
            let channels = decoder.channelCount
            let width = description.encoding.bytesPerSample
            let shift = Int32(width * 8 - decoder.bitsPerSample)
            var done = 0
            let first = frame + index.primingFrames
            var k = packetStarts.lastIndex(before: first + 1)
            while done < wanted && k < packetStarts.count {
                if held.packet != k {
                    // A codec with pre-roll decodes from `preroll` packets earlier, unless the
                    // packet before is the one just decoded (sequential reading).
                    if preroll > 0 && held.packet != k - 1 {
                        held = (-1, 0)
                        decoder.reset()
                        for j in max(0, k - preroll)..<k { _ = try decodePacket(j) }
                    }
                    held = (-1, 0)
                    held = (k, try decodePacket(k))
                }
                let table = index.packets[k].frameCount
                let from = Int(first + Int64(done) - packetStarts[k])
                let n = min(wanted - done, table - from)
                guard n > 0 else { k += 1; continue }
                var out = buffer + done * channels * width
                let order = self.order
                for i in from..<(from + n) {
                    let row = samples + i * channels
                    let decoded = i < held.frames
                    for c in 0..<channels {
                        let v = decoded ? row[order?[c] ?? c] << shift : 0
                        switch width {
                        case 1: out.storeBytes(of: Int8(truncatingIfNeeded: v), as: Int8.self)
                        case 2: out.storeBytes(of: Int16(truncatingIfNeeded: v).littleEndian, as: Int16.self)
                        case 3:
                            let u = UInt32(bitPattern: v)
                            out.storeBytes(of: UInt8(truncatingIfNeeded: u), as: UInt8.self)
                            (out + 1).storeBytes(of: UInt8(truncatingIfNeeded: u >> 8), as: UInt8.self)
                            (out + 2).storeBytes(of: UInt8(truncatingIfNeeded: u >> 16), as: UInt8.self)
                        default: out.storeBytes(of: v.littleEndian, as: Int32.self)
                        }
                        out += width
                    }
                }
                done += n
                k += 1
            }
            return done
        }
    }

    /// Reads packet `k`'s bytes into `buffer` (at least its byteCount), gathering its pieces when
    /// they are not contiguous (an Ogg packet spanning pages); returns the bytes read.
    static func readPacket(_ index: PacketIndex, _ k: Int, from file: RawFile, into buffer: UnsafeMutableRawPointer) throws -> Int {
        let p = index.packets[k]
        guard let pieces = index.pieces[k] else { return try file.read(into: buffer, count: p.byteCount, at: p.offset) }
        var done = 0
        for piece in pieces where done + piece.byteCount <= p.byteCount {
            let got = try file.read(into: buffer + done, count: piece.byteCount, at: piece.offset)
            done += got
            if got < piece.byteCount { break }
        }
        return done
    }

    /// Reads and decodes packet `k` into `samples`; returns the frames it decoded to.
    private func decodePacket(_ k: Int) throws -> Int {
        let p = index.packets[k]
        if packetBytes.count < p.byteCount { packetBytes = [UInt8](repeating: 0, count: p.byteCount) }
        let got = try packetBytes.withUnsafeMutableBytes { try PacketFileReader.readPacket(index, k, from: file, into: $0.baseAddress!) }
        guard got == p.byteCount else {
            throw AudioFileFormatError(code: Code.invalidFile,
                                       message: "cannot read \(quoted(path)): packet \(k) (\(p.byteCount) bytes at byte \(p.offset)) is cut short; the file was truncated")
        }
        do {
            return try packetBytes.withUnsafeBytes { raw in
                try decoder.decode(UnsafeRawBufferPointer(rebasing: raw[0..<p.byteCount]), into: samples, frameCapacity: capacity)
            }
        } catch let error as CodecError {
            throw AudioFileFormatError(code: Code.invalidFile, message: "cannot read \(quoted(path)) at packet \(k) (byte \(p.offset)): \(error.message)")
        }
    }
}
