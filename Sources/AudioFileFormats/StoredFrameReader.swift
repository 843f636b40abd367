// What the decode path above the containers needs from a file: its stored sample layout, its
// length, and positional reads of raw interleaved frames. PCM containers (AudioFileReader) read
// them from the file; native FLAC (FLACFileReader) and compressed packets in CAF or MP4
// (PacketFileReader) decode them.

public protocol StoredFrameReader: AnyObject {
    var path: String { get }
    /// How `read` delivers frames.
    var description: AudioDataDescription { get }
    /// Frames in the file.
    var frameCount: Int64 { get }
    /// Notes about tolerated damage, one sentence each.
    var warnings: [String] { get }
    /// Reads up to `frames` frames from frame `frame` into `buffer`; returns the frames read.
    func read(frames: Int, startingAt frame: Int64, into buffer: UnsafeMutableRawPointer) throws -> Int
    /// Reads up to `frames` frames from frame `frame` straight into one Float32 array per
    /// channel, scaled as the sample conversion of `description`'s encoding scales them; nil
    /// when the reader has no such path (the caller then converts what `read` gives). For
    /// readers that produce samples rather than copy them (FLAC), this skips a copy.
    func readFloat32(frames: Int, startingAt frame: Int64, into channels: UnsafePointer<UnsafeMutablePointer<Float>>) throws -> Int?
    var isClosed: Bool { get }
    func close()
}

extension StoredFrameReader {
    /// No direct Float32 path by default: the caller converts what `read` gives.
    public func readFloat32(frames: Int, startingAt frame: Int64, into channels: UnsafePointer<UnsafeMutablePointer<Float>>) throws -> Int? { nil }
}

/// How many frames a read of `frames` from `frame` delivers in a stream of `frameCount` frames (0
/// at or past the end); throws 'pos?' naming `path` for a negative position or count. The
/// readers' shared prologue.
func framesToRead(_ frames: Int, at frame: Int64, of frameCount: Int64, path: String) throws -> Int {
    guard frame >= 0, frames >= 0 else {
        throw AudioFileFormatError(code: Code.position,
                                   message: "cannot read \(frames) frames at frame \(frame) of \(quoted(path)): positions and counts must not be negative")
    }
    guard frame < frameCount, frames > 0 else { return 0 }
    return Int(min(Int64(frames), frameCount - frame))
}

extension AudioFileReader: StoredFrameReader {}
extension FLACFileReader: StoredFrameReader {}
extension PacketFileReader: StoredFrameReader {}

/// Opens `path` with the reader its first bytes call for (never its name): a native FLAC stream,
/// a CAF, MP4 or Ogg file of compressed packets (PacketFileReader), else the PCM containers.
public func openStoredFrameReader(path: String) throws -> StoredFrameReader {
    let file = try RawFile.open(path: path, forWriting: false)
    var head = [UInt8](repeating: 0, count: 8)
    let got = (try? head.withUnsafeMutableBytes { try file.read(into: $0.baseAddress!, count: 8, at: 0) }) ?? 0
    _ = posixClose(file.fd)
    if got >= 4 && FLACFileReader.sniff(Array(head[0..<4])) { return try FLACFileReader(path: path) }
    if got >= 4 && Array(head[0..<4]) == Array("caff".utf8), try readCAFPacketStream(path: path) != nil { return try PacketFileReader(path: path) }
    if got == 8 && MP4PacketReader.sniff(head) { return try PacketFileReader(path: path) }
    if got >= 4 && OggPacketReader.sniff(head) { return try PacketFileReader(path: path) }
    // Raw MPEG audio and ADTS: indexed, then refused for want of a decoder, with the codec named.
    if got >= 4 && MPEGAudioStreamReader.sniff(head) { return try PacketFileReader(path: path) }
    return try AudioFileReader(path: path)
}
