// Thin, non-trapping wrappers over POSIX file I/O and byte decoding.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

typealias Code = AudioFileFormatError.Code

/// Quotes a path the way error messages show it.
@inline(__always)
func quoted(_ path: String) -> String { "'\(path)'" }

func systemErrorText(_ err: Int32) -> String {
    guard let text = strerror(err) else { return "error \(err)" }
    return String(cString: text)
}

/// Maps an errno from open/read/write to Apple's code and a readable message.
func systemError(_ err: Int32, _ what: String, path: String) -> AudioFileFormatError {
    let code: Int32
    switch err {
    case ENOENT, ENOTDIR: code = Code.fileNotFound
    case EACCES, EPERM, EROFS, EISDIR, ETXTBSY: code = Code.permissions
    default: code = Code.unspecified
    }
    return AudioFileFormatError(code: code, message: "\(what) \(quoted(path)): \(systemErrorText(err))")
}

/// The OSStatus Apple's AudioFile reports when open(2) fails, as its published Core Audio SDK
/// source maps errno (`AudioFileTranslateErrno` in AudioFileObject.h): too many open files → -42,
/// no permission or a read-only file system → -54, too many links → '!pth', and everything else —
/// including a missing file or directory — 'wht?' (kAudioFileUnspecifiedError), which is what
/// AVAudioFile is seen to report for a missing file (see AVFAudio's Types/AVAudioErrors.swift).
func openErrorCode(_ err: Int32) -> Int32 {
    switch err {
    case ENFILE, EMFILE: return -42                         // kAudio_TooManyFilesOpenError
    case EPERM, EROFS, EACCES, EEXIST: return -54           // kAudio_FilePermissionError
    case EMLINK: return 0x2170_7468                         // '!pth' kAudio_BadFilePathError
    default: return Code.unspecified                        // 'wht?'
    }
}

func posixOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 { open(path, flags, mode) }
func posixClose(_ fd: Int32) -> Int32 { close(fd) }

/// An open file descriptor with positional, loop-until-done reads and writes.
struct RawFile {
    var fd: Int32
    let path: String

    static func open(path: String, forWriting: Bool) throws -> RawFile {
        // (no O_TRUNC: a file another writer holds must be refused before it is emptied)
        let flags = forWriting ? (O_RDWR | O_CREAT | O_CLOEXEC) : (O_RDONLY | O_CLOEXEC)
        var fd: Int32
        repeat { fd = posixOpen(path, flags, 0o644) } while fd < 0 && errno == EINTR
        if fd < 0 {
            let err = errno
            if err == ENOENT || err == ENOTDIR {
                let message = forWriting
                    ? "cannot create \(quoted(path)): its directory does not exist"
                    : "\(quoted(path)) does not exist"
                throw AudioFileFormatError(code: openErrorCode(err), message: message)
            }
            let what = forWriting ? "cannot create" : "cannot open"
            throw AudioFileFormatError(code: openErrorCode(err), message: "\(what) \(quoted(path)): \(systemErrorText(err))")
        }
        if !forWriting {
            var st = stat()
            if fstat(fd, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR {
                _ = posixClose(fd)
                // Apple reports 'wht?' for a directory (read(2) fails with EISDIR → default).
                throw AudioFileFormatError(code: Code.unspecified, message: "\(quoted(path)) is a directory, not an audio file")
            }
        } else {
            if let error = lockForWriting(fd, path: path) { _ = posixClose(fd); throw error }
            if ftruncate(fd, 0) != 0 {
                let err = errno
                _ = posixClose(fd)
                throw AudioFileFormatError(code: openErrorCode(err), message: "cannot create \(quoted(path)): \(systemErrorText(err))")
            }
        }
        return RawFile(fd: fd, path: path)
    }

    /// One writer per file: every writer holds an exclusive `flock` on its descriptor for as long
    /// as it is open, and a second writer on the same file (in this process or another) is refused
    /// with -54 (kAudio_FilePermissionError, what Apple reports for a file it may not create)
    /// before it touches the file — the first writer's file stays whole. Apple's ExtAudioFile
    /// takes no lock (a second writer there erases the first one's file); refusing is the safe
    /// behaviour. Readers take no lock: reading a file while it is written is supported.
    static func lockForWriting(_ fd: Int32, path: String) -> AudioFileFormatError? {
        var result: Int32
        repeat { result = flock(fd, LOCK_EX | LOCK_NB) } while result != 0 && errno == EINTR
        guard result != 0 else { return nil }
        let err = errno
        if err == EWOULDBLOCK {
            return AudioFileFormatError(code: -54, message: "cannot create \(quoted(path)): another writer has it open (one AVAudioFile may write a file at a time)")
        }
        // (file systems without flock support, e.g. some network mounts: no lock, as before)
        return nil
    }

    /// Refuses (throws) when a writer holds `path` open; nothing happens when there is no file.
    static func checkNoWriter(path: String) throws {
        var fd: Int32
        repeat { fd = posixOpen(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK, 0) } while fd < 0 && errno == EINTR
        guard fd >= 0 else { return }
        defer { _ = posixClose(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return }
        var result: Int32
        repeat { result = flock(fd, LOCK_EX | LOCK_NB) } while result != 0 && errno == EINTR
        if result != 0 && errno == EWOULDBLOCK {
            throw AudioFileFormatError(code: -54, message: "cannot create \(quoted(path)): another writer has it open (one AVAudioFile may write a file at a time)")
        }
        // (the probe's own lock, if taken, goes with its descriptor)
    }

    /// Creates the file at `path` holding `header`, atomically: the header is written to a new
    /// file beside it, which is then renamed over `path`. A process killed at any moment leaves
    /// either no new file (and whatever was at `path` before, untouched) or one with its whole
    /// header — never the empty or half-written file an `O_TRUNC` open followed by a write can
    /// leave. Falls back to opening `path` directly when it is a symbolic link (renaming would
    /// replace the link, not write through it). An existing file that may not be written is
    /// refused as before (renaming over it would succeed where Apple's open fails).
    static func create(path: String, header: [UInt8]) throws -> RawFile {
        var st = stat()
        let exists = lstat(path, &st) == 0
        if exists && (st.st_mode & S_IFMT) == S_IFLNK {
            let file = try RawFile.open(path: path, forWriting: true)
            do { try file.write(header, at: 0) } catch { _ = posixClose(file.fd); throw error }
            return file
        }
        if exists && (st.st_mode & S_IFMT) != S_IFDIR && access(path, W_OK) != 0 {
            let err = errno
            throw AudioFileFormatError(code: openErrorCode(err), message: "cannot create \(quoted(path)): \(systemErrorText(err))")
        }
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        var temporary = ""
        var fd: Int32 = -1
        for _ in 0..<16 {
            temporary = (directory.isEmpty ? "" : directory + "/") + ".\(name).avaudio-\(UInt32.random(in: 0...UInt32.max))"
            repeat { fd = posixOpen(temporary, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644) } while fd < 0 && errno == EINTR
            if fd >= 0 || errno != EEXIST { break }
        }
        if fd < 0 {
            // (the directory's own errors: missing, not writable, read-only file system)
            let file = try RawFile.open(path: path, forWriting: true)
            do { try file.write(header, at: 0) } catch { _ = posixClose(file.fd); throw error }
            return file
        }
        let file = RawFile(fd: fd, path: path)
        do {
            // (the new file is locked before it takes the name, so no second writer sees it unlocked)
            if let error = lockForWriting(fd, path: path) { throw error }
            try file.write(header, at: 0)
            // A writer holding the file at `path`: refuse rather than rename over its file.
            try checkNoWriter(path: path)
        } catch {
            _ = posixClose(fd)
            unlink(temporary)
            throw error
        }
        if rename(temporary, path) != 0 {
            let err = errno
            _ = posixClose(fd)
            unlink(temporary)
            if err == EISDIR {
                throw AudioFileFormatError(code: openErrorCode(err), message: "cannot create \(quoted(path)): it is a directory")
            }
            throw AudioFileFormatError(code: openErrorCode(err), message: "cannot create \(quoted(path)): \(systemErrorText(err))")
        }
        return file
    }

    func size() throws -> Int64 {
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw systemError(errno, "cannot get the size of", path: path) }
        return Int64(st.st_size)
    }

    /// Reads up to `count` bytes at `offset`, looping over partial reads; returns the bytes read
    /// (fewer than `count` only at end of file).
    func read(into buffer: UnsafeMutableRawPointer, count: Int, at offset: Int64) throws -> Int {
        var done = 0
        while done < count {
            // Linux transfers at most 0x7FFFF000 bytes per call; ask for at most 1 GiB at a time.
            let want = min(count - done, 1 << 30)
            let n = pread(fd, buffer + done, want, off_t(offset + Int64(done)))
            if n > 0 {
                done += n
            } else if n == 0 {
                break
            } else if errno != EINTR {
                throw systemError(errno, "cannot read", path: path)
            }
        }
        return done
    }

    /// Reads up to `count` bytes at `offset` into a new array (shorter at end of file).
    func readBytes(at offset: Int64, count: Int) throws -> [UInt8] {
        guard count > 0, offset >= 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: count)
        let n = try bytes.withUnsafeMutableBytes { try read(into: $0.baseAddress!, count: count, at: offset) }
        if n < count { bytes.removeSubrange(n...) }
        return bytes
    }

    /// Writes all `count` bytes at `offset`, looping over partial writes. On failure, reports how
    /// many bytes did reach the file.
    func write(_ buffer: UnsafeRawPointer, count: Int, at offset: Int64) -> (written: Int, errno: Int32) {
        var done = 0
        while done < count {
            let want = min(count - done, 1 << 30)
            let n = pwrite(fd, buffer + done, want, off_t(offset + Int64(done)))
            if n > 0 {
                done += n
            } else if n == 0 {
                return (done, EIO)
            } else if errno != EINTR {
                return (done, errno)
            }
        }
        return (done, 0)
    }

    func write(_ bytes: [UInt8], at offset: Int64) throws {
        let result = bytes.withUnsafeBytes { write($0.baseAddress!, count: $0.count, at: offset) }
        if result.errno != 0 { throw writeError(result.errno) }
    }

    func writeError(_ err: Int32) -> AudioFileFormatError {
        if err == ENOSPC || err == EDQUOT {
            return AudioFileFormatError(code: Code.unspecified,
                                        message: "cannot write \(quoted(path)): the disk is full (\(systemErrorText(err)))")
        }
        return systemError(err, "cannot write", path: path)
    }
}

// MARK: - Byte decoding

/// Bounds-checked field access over a header buffer. Reads past the end yield 0 rather than
/// trapping; parsers check lengths first and report a clear error.
struct Bytes {
    let bytes: [UInt8]
    let bigEndian: Bool

    init(_ bytes: [UInt8], bigEndian: Bool) {
        self.bytes = bytes
        self.bigEndian = bigEndian
    }

    var count: Int { bytes.count }

    @inline(__always)
    func u8(_ at: Int) -> UInt8 { at >= 0 && at < bytes.count ? bytes[at] : 0 }

    func uint(_ at: Int, _ width: Int) -> UInt64 {
        var value: UInt64 = 0
        for i in 0..<width {
            let b = UInt64(u8(at + (bigEndian ? i : width - 1 - i)))
            value = value << 8 | b
        }
        return value
    }

    func u16(_ at: Int) -> UInt16 { UInt16(truncatingIfNeeded: uint(at, 2)) }
    func u32(_ at: Int) -> UInt32 { UInt32(truncatingIfNeeded: uint(at, 4)) }
    func u64(_ at: Int) -> UInt64 { uint(at, 8) }
    func i16(_ at: Int) -> Int16 { Int16(bitPattern: u16(at)) }
    func i64(_ at: Int) -> Int64 { Int64(bitPattern: u64(at)) }
    /// A four-character code, always read in file order (big-endian numeric value).
    func fourCC(_ at: Int) -> UInt32 { UInt32(truncatingIfNeeded: Bytes(bytes, bigEndian: true).uint(at, 4)) }
    func slice(_ at: Int, _ n: Int) -> [UInt8] {
        guard at >= 0, n > 0, at < bytes.count else { return [] }
        return Array(bytes[at..<min(bytes.count, at + n)])
    }
}

/// Builds a header byte by byte.
struct ByteWriter {
    var bytes: [UInt8] = []
    let bigEndian: Bool

    init(bigEndian: Bool, capacity: Int = 128) {
        self.bigEndian = bigEndian
        bytes.reserveCapacity(capacity)
    }

    mutating func uint(_ value: UInt64, _ width: Int) {
        for i in 0..<width {
            let shift = UInt64(8 * (bigEndian ? width - 1 - i : i))
            bytes.append(UInt8(truncatingIfNeeded: value >> shift))
        }
    }

    mutating func u16(_ v: UInt16) { uint(UInt64(v), 2) }
    mutating func u32(_ v: UInt32) { uint(UInt64(v), 4) }
    mutating func u64(_ v: UInt64) { uint(v, 8) }
    mutating func fourCC(_ code: String) {
        let utf8 = Array(code.utf8)
        for i in 0..<4 { bytes.append(i < utf8.count ? utf8[i] : 0x20) }
    }
    mutating func append(_ other: [UInt8]) { bytes.append(contentsOf: other) }
    mutating func zeros(_ n: Int) { bytes.append(contentsOf: repeatElement(0, count: n)) }
}

/// Renders a four-character code for a message: 'RIFF', or hex bytes when not printable.
func fourCCText(_ code: UInt32) -> String {
    let bytes = withUnsafeBytes(of: code.bigEndian) { Array($0) }
    return fourCCText(bytes)
}

func fourCCText(_ bytes: [UInt8]) -> String {
    if !bytes.isEmpty && bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
        return "'" + String(decoding: bytes, as: UTF8.self) + "'"
    }
    return "bytes " + bytes.map { b in
        let hex = String(b, radix: 16, uppercase: true)
        return b < 16 ? "0" + hex : hex
    }.joined(separator: " ")
}

func isPlausibleChunkID(_ bytes: [UInt8]) -> Bool {
    bytes.count == 4 && bytes.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
}

/// The numeric value of a four-character code literal ("RIFF" → 0x52494646).
func fcc(_ text: StaticString) -> UInt32 {
    var value: UInt32 = 0
    text.withUTF8Buffer { buf in
        for b in buf.prefix(4) { value = value << 8 | UInt32(b) }
    }
    return value
}

// MARK: - 80-bit IEEE extended (AIFF sample rates)

/// Decodes an 80-bit big-endian IEEE 754 extended float (sign+exponent 16 bits, explicit 64-bit
/// significand). Infinity/NaN patterns decode to .nan; huge exponents to infinity (never traps).
func decodeExtended80(_ b: [UInt8]) -> Double {
    guard b.count >= 10 else { return .nan }
    let se = UInt16(b[0]) << 8 | UInt16(b[1])
    var mantissa: UInt64 = 0
    for i in 2..<10 { mantissa = mantissa << 8 | UInt64(b[i]) }
    let negative = se & 0x8000 != 0
    let exponent = Int(se & 0x7FFF)
    if exponent == 0x7FFF { return .nan }
    if mantissa == 0 { return negative ? -0.0 : 0.0 }
    let value = Double(sign: negative ? .minus : .plus, exponent: exponent - 16383 - 63, significand: Double(mantissa))
    return value
}

/// Encodes a finite Double as an 80-bit big-endian IEEE 754 extended float.
func encodeExtended80(_ value: Double) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: 10)
    guard value.isFinite, value != 0 else { return out }
    let sign: UInt16 = value.sign == .minus ? 0x8000 : 0
    let magnitude = abs(value)
    // magnitude = significand(1.xxx) * 2^exponent; the 64-bit mantissa holds the explicit 1.
    let exponent = Int(magnitude.exponent)
    let significand = magnitude.significand // in [1, 2)
    let mantissa = UInt64(significand * 9_223_372_036_854_775_808.0) // × 2^63, exact for doubles
    let biased = UInt16(clamping: exponent + 16383) | sign
    out[0] = UInt8(biased >> 8)
    out[1] = UInt8(truncatingIfNeeded: biased)
    for i in 0..<8 { out[2 + i] = UInt8(truncatingIfNeeded: mantissa >> UInt64(56 - 8 * i)) }
    return out
}

/// Random access to a whole stream's bytes, for the parsers that index a file on open (Ogg, MPEG
/// audio and ADTS): `body` gets the size and a reader of `count` bytes at an offset (fewer at the
/// end, none past it), over a file or over bytes in memory.
func withStreamBytes<T>(path: String, _ body: (Int64, @escaping (Int64, Int) throws -> [UInt8]) throws -> T) throws -> T {
    let file = try RawFile.open(path: path, forWriting: false)
    defer { _ = posixClose(file.fd) }
    let size = try file.size()
    return try body(size) { try file.readBytes(at: $0, count: $1) }
}

func withStreamBytes<T>(_ bytes: [UInt8], _ body: (Int64, @escaping (Int64, Int) throws -> [UInt8]) throws -> T) throws -> T {
    try body(Int64(bytes.count)) { offset, count in
        guard offset >= 0, offset < Int64(bytes.count) else { return [] }
        return Array(bytes[Int(offset)..<Int(min(Int64(bytes.count), offset + Int64(count)))])
    }
}
