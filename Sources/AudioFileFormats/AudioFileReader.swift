import AudioKernels

/// Reads the audio of a WAV (RIFF/RIFX), RF64, BW64, AIFF, AIFF-C, CAF or AU file as raw
/// interleaved bytes, exactly as stored (see `description` for how to interpret them).
///
/// The container is detected from the file's first bytes, never from its name. A header that
/// claims more audio than the file holds is not an error: the reader uses the frames present and
/// records a note in `warnings`. Reads are positional (`pread` straight into the caller's buffer),
/// so one reader may serve reads from several threads as long as none of them calls `close()`.
public final class AudioFileReader {
    public let path: String
    public let container: AudioContainerType
    public let description: AudioDataDescription
    /// Whole frames actually present in the file.
    public let frameCount: Int64
    /// Byte offset of the first frame.
    public let dataOffset: Int64
    /// Notes about tolerated damage (e.g. a data chunk longer than the file), one sentence each.
    public let warnings: [String]

    private var file: RawFile
    private let bytesPerFrame: Int64

    public init(path: String) throws {
        let file = try RawFile.open(path: path, forWriting: false)
        do {
            let fileSize = try file.size()
            let layout = try parseContainer(file, fileSize: fileSize)
            let bpf = Int64(layout.description.bytesPerFrame)
            var warnings = layout.warnings
            let available = max(0, fileSize - layout.dataOffset)
            var dataBytes = available
            if let claimed = layout.claimedDataBytes {
                if claimed > available {
                    warnings.append("the \(layout.dataChunkName) claims \(claimed) bytes but only \(available) follow; reading the \(available) present")
                } else {
                    dataBytes = claimed
                }
            }
            var frames = dataBytes / bpf
            if let claimedFrames = layout.claimedFrames {
                if claimedFrames > frames {
                    warnings.append("the header claims \(claimedFrames) frames but only \(frames) are present; reading the \(frames) present")
                } else {
                    frames = claimedFrames
                }
            }
            self.path = path
            self.file = file
            self.container = layout.container
            self.description = layout.description
            self.dataOffset = layout.dataOffset
            self.frameCount = frames
            self.bytesPerFrame = bpf
            self.warnings = warnings
        } catch {
            _ = posixClose(file.fd)
            throw error
        }
    }

    deinit {
        if file.fd >= 0 { _ = posixClose(file.fd) }
    }

    /// Whether `close()` has been called.
    public var isClosed: Bool { file.fd < 0 }

    /// Reads up to `frames` frames starting at frame `frame` into `buffer` (which must hold
    /// `frames * description.bytesPerFrame` bytes), as raw interleaved bytes. Returns the number
    /// of frames read: fewer than asked at the end of the audio, 0 at or past the end.
    public func read(frames: Int, startingAt frame: Int64, into buffer: UnsafeMutableRawPointer) throws -> Int {
        guard file.fd >= 0 else {
            throw AudioFileFormatError(code: Code.notOpen, message: "cannot read \(quoted(path)): the file has been closed")
        }
        let wanted = try framesToRead(frames, at: frame, of: frameCount, path: path)
        guard wanted > 0 else { return 0 }
        let count = Int64(wanted)
        // Both products are bounded by the data size, which fits in the file.
        let got = try file.read(into: buffer, count: Int(count * bytesPerFrame), at: dataOffset + frame * bytesPerFrame)
        return got / Int(bytesPerFrame)
    }

    /// Closes the file. Further reads throw; closing twice does nothing.
    public func close() {
        if file.fd >= 0 {
            _ = posixClose(file.fd)
            file.fd = -1
        }
    }
}

// MARK: - Container detection

/// What a container parser found.
struct ParsedLayout {
    var container: AudioContainerType
    var description: AudioDataDescription
    var dataOffset: Int64
    /// Audio bytes the header claims; nil means "to the end of the file".
    var claimedDataBytes: Int64?
    /// Frames the header claims independently of the data size (AIFF's COMM chunk).
    var claimedFrames: Int64?
    var warnings: [String] = []
    var dataChunkName: String
}

func parseContainer(_ file: RawFile, fileSize: Int64) throws -> ParsedLayout {
    let path = file.path
    if fileSize == 0 {
        throw AudioFileFormatError(code: Code.invalidFile, message: "\(quoted(path)) is empty (0 bytes): it holds no audio file header")
    }
    let head = try file.readBytes(at: 0, count: 12)
    let magic = Bytes(head, bigEndian: true).fourCC(0)
    let ctx = ParseContext(file: file, fileSize: fileSize)
    if head.count >= 4 {
        switch magic {
        case fcc("RIFF"), fcc("RIFX"), fcc("RF64"), fcc("BW64"):
            return try parseWAV(ctx, head: head)
        case fcc("FORM"):
            return try parseAIFF(ctx, head: head)
        case fcc("caff"):
            return try parseCAF(ctx, head: head)
        case fcc(".snd"), fcc("dns."):
            return try parseAU(ctx, head: head)
        default:
            break
        }
    }
    let start = fourCCText(Array(head.prefix(4)))
    if let hinted = AudioContainerType(path: path) {
        let expected: String
        switch hinted {
        case .wav: expected = "'RIFF'"
        case .rf64: expected = "'RF64'"
        case .bw64: expected = "'BW64'"
        case .aiff, .aifc: expected = "'FORM'"
        case .caf: expected = "'caff'"
        case .au: expected = "'.snd'"
        }
        throw AudioFileFormatError(code: Code.unsupportedFileType,
                                   message: "\(quoted(path)) is not \(article(hinted)) \(hinted) file: it starts with \(start) instead of \(expected)")
    }
    throw AudioFileFormatError(code: Code.unsupportedFileType,
                               message: "\(quoted(path)) is not an audio file this library reads (WAV, RF64, BW64, AIFF, AIFF-C, CAF, AU): it starts with \(start)")
}

func article(_ type: AudioContainerType) -> String {
    switch type {
    case .aiff, .aifc, .au, .rf64: return "an"
    default: return "a"
    }
}

struct ParseContext {
    let file: RawFile
    let fileSize: Int64
    var path: String { file.path }

    func invalid(_ text: String) -> AudioFileFormatError {
        AudioFileFormatError(code: Code.invalidFile, message: "\(quoted(path)) \(text)")
    }
    func badChunk(_ text: String) -> AudioFileFormatError {
        AudioFileFormatError(code: Code.invalidChunk, message: "\(quoted(path)) \(text)")
    }
    func unsupported(_ text: String) -> AudioFileFormatError {
        AudioFileFormatError(code: Code.unsupportedDataFormat, message: "\(quoted(path)) \(text)")
    }
}

/// Checks the values every container shares for sanity.
func checkFormatValues(_ ctx: ParseContext, channels: Int64, sampleRate: Double, format: String) throws {
    if channels <= 0 {
        throw ctx.invalid("has an invalid \(format) header: it declares \(channels) channels")
    }
    if channels > Int64(AudioDataDescription.maximumChannelCount) {
        throw ctx.unsupported("declares \(channels) channels; at most \(AudioDataDescription.maximumChannelCount) are supported")
    }
    if !(sampleRate > 0) || !sampleRate.isFinite {
        throw ctx.invalid("has an invalid \(format) header: its sample rate is \(sampleRate) Hz")
    }
    if sampleRate > AudioDataDescription.maximumSampleRate {
        throw ctx.unsupported("declares a sample rate of \(sampleRate) Hz; at most 10 MHz is supported")
    }
}

/// The integer encoding for `bits` significant bits in containers of `bytes` bytes.
func integerEncoding(bytes: Int, unsigned8: Bool) -> SampleEncoding? {
    switch bytes {
    case 1: return unsigned8 ? .unsigned8 : .signed8
    case 2: return .signed16
    case 3: return .signed24
    case 4: return .signed32
    default: return nil
    }
}

// MARK: - Chunk walking (CAF: 64-bit sizes, no padding)

/// A CAF chunk header: a four-character type and a signed 64-bit big-endian size (Apple's Core
/// Audio Format Specification: −1 is allowed only for an audio data chunk that runs to the end of
/// the file, written by a writer that does not know its length).
struct CAFChunk {
    var id: UInt32
    var headerOffset: Int64
    var dataOffset: Int64 { headerOffset + 12 }
    var size: Int64
}

/// Walks a CAF file's chunks, from after its 8-byte file header, for the CAF reader, the packet
/// table reader and the instrument-chunk reader. `visit` returns how many payload bytes the chunk
/// occupies (normally its size) to continue, or nil to stop. The walk also stops at a negative
/// length (a data chunk running to the end: nothing can follow it), when the next header would
/// not fit in the file, when a chunk would run past the end, and after `limit` chunks, so hostile
/// sizes cost at most `limit` 12-byte reads.
func walkCAFChunks(_ ctx: ParseContext, limit: Int = 100_000, visit: (CAFChunk) throws -> Int64?) throws {
    var pos: Int64 = 8
    var visited = 0
    while pos <= ctx.fileSize - 12 && visited < limit {
        visited += 1
        let header = try ctx.file.readBytes(at: pos, count: 12)
        guard header.count == 12 else { return }
        let fields = Bytes(header, bigEndian: true)
        let chunk = CAFChunk(id: fields.fourCC(0), headerOffset: pos, size: fields.i64(4))
        guard let length = try visit(chunk), length >= 0 else { return }
        let (next, overflow) = chunk.dataOffset.addingReportingOverflow(length)
        if overflow || next > ctx.fileSize { return }
        pos = next
    }
}

// MARK: - Chunk walking (RIFF and AIFF: 32-bit sizes, word-aligned)

struct Chunk32 {
    var id: UInt32
    var headerOffset: Int64
    var dataOffset: Int64 { headerOffset + 8 }
    var size: UInt32
}

/// Walks the chunks from `start` to the end of the file. `visit` returns how many payload bytes the
/// chunk occupies (normally its size) to continue, or nil to stop. Odd sizes are padded to even,
/// unless the file visibly omits the pad byte (then the next chunk ID starts right after).
func walkChunks32(_ ctx: ParseContext, from start: Int64, bigEndian: Bool,
                  visit: (Chunk32) throws -> Int64?) throws {
    var pos = start
    var visited = 0
    while pos <= ctx.fileSize - 8 && visited < 100_000 {
        visited += 1
        let header = try ctx.file.readBytes(at: pos, count: 8)
        guard header.count == 8 else { return }
        let fields = Bytes(header, bigEndian: bigEndian)
        let chunk = Chunk32(id: fields.fourCC(0), headerOffset: pos, size: fields.u32(4))
        guard let length = try visit(chunk), length >= 0 else { return }
        let (end, overflow) = chunk.dataOffset.addingReportingOverflow(length)
        if overflow || end >= ctx.fileSize { return }
        var next = end
        if length & 1 == 1 {
            next = end + 1
            let probe = try ctx.file.readBytes(at: end, count: 5)
            if probe.count == 5 && !isPlausibleChunkID(Array(probe[1..<5])) && isPlausibleChunkID(Array(probe[0..<4])) {
                next = end // the writer left out the pad byte
            }
        }
        pos = next
    }
}
