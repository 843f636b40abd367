// Reading Standard MIDI Files.
//
// Bounded work and memory: every length read from the file (chunk lengths, variable-length
// quantities, sysex and meta lengths) is checked against the bytes actually present before
// anything is allocated, and events are appended as they are parsed (never reserved from a count
// the header claims), so a file can make the reader allocate at most a small multiple of its own
// size. Every error names the chunk and the byte offset where it was found.
//
// What the reader accepts, and where it rests:
//   * The header chunk "MThd" with length ≥ 6 (extra header bytes are skipped, as SMF 1.0 asks
//     of readers so that the header can grow); format 0, 1 or 2.
//   * Then the number of "MTrk" chunks the header announces; chunks of other types are skipped
//     (SMF 1.0: "your programs should expect alien chunks and treat them as if they weren't
//     there"), and kept in `unknownChunks`. Bytes after the last announced track are ignored,
//     as `mido` ignores them.
//   * Running status (a data byte where a status byte is expected repeats the last channel status).
//     Sysex events cancel it (SMF 1.0); meta events leave it in effect, as `mido` does and as
//     many files in the wild rely on.
//   * A track ends where its chunk ends; an end-of-track meta event before that is kept like any
//     other event and the bytes after it are read too (as `mido` reads them).
public enum SMFReader {
    /// Parses a whole file.
    public static func read(_ bytes: [UInt8]) throws -> StandardMIDIFile {
        try bytes.withUnsafeBufferPointer { try read(UnsafeRawBufferPointer($0)) }
    }

    /// Parses a whole file from raw bytes.
    public static func read(_ bytes: UnsafeRawBufferPointer) throws -> StandardMIDIFile {
        var r = ByteCursor(bytes: bytes, chunk: "file")
        guard bytes.count >= 14 else {
            throw SMFError(chunk: "file", offset: 0, reason: "\(bytes.count) bytes is too short for a Standard MIDI File (the header chunk alone is 14)")
        }
        let id = try r.bytes(4)
        guard id == Array("MThd".utf8) else {
            throw SMFError(chunk: "file", offset: 0, reason: "no MThd header chunk (the file starts with \(hex(id)))")
        }
        r.chunk = "MThd"
        let headerLength = Int(try r.uint32())
        guard headerLength >= 6 else { throw SMFError(chunk: "MThd", offset: 4, reason: "header chunk length \(headerLength) is shorter than 6") }
        guard headerLength <= bytes.count - 8 else {
            throw SMFError(chunk: "MThd", offset: 4, reason: "header chunk length \(headerLength) runs past the end of the file (\(bytes.count) bytes)")
        }
        let format = Int(try r.uint16())
        guard format <= 2 else { throw SMFError(chunk: "MThd", offset: 8, reason: "format \(format) is not 0, 1 or 2") }
        let trackCount = Int(try r.uint16())
        let divisionWord = try r.uint16()
        let division = SMFDivision(word: divisionWord)
        switch division {
        case .ticksPerQuarterNote(let t):
            guard t > 0 else { throw SMFError(chunk: "MThd", offset: 12, reason: "division of 0 ticks per quarter note") }
        case .smpte(let fps, let tpf):
            guard [24, 25, 29, 30].contains(fps), tpf > 0 else {
                throw SMFError(chunk: "MThd", offset: 12, reason: "SMPTE division of \(fps) frames per second and \(tpf) ticks per frame is not valid")
            }
        }
        r.offset = 8 + headerLength
        var file = StandardMIDIFile(format: format, division: division, tracks: [])
        while file.tracks.count < trackCount {
            let chunkStart = r.offset
            r.chunk = "chunk after track \(file.tracks.count)"
            guard r.remaining >= 8 else {
                throw SMFError(chunk: "MTrk #\(file.tracks.count)", offset: chunkStart,
                               reason: "the header announces \(trackCount) tracks but the file ends after \(file.tracks.count)")
            }
            let type = try r.bytes(4)
            let length = Int(try r.uint32())
            guard length <= r.remaining else {
                throw SMFError(chunk: type == Array("MTrk".utf8) ? "MTrk #\(file.tracks.count)" : "chunk \(printable(type))", offset: chunkStart + 4,
                               reason: "chunk length \(length) runs past the end of the file (\(r.remaining) bytes left)")
            }
            if type == Array("MTrk".utf8) {
                let name = "MTrk #\(file.tracks.count)"
                let track = try readTrack(bytes, start: r.offset, end: r.offset + length, chunk: name)
                file.tracks.append(track)
            } else {
                file.unknownChunks.append((afterTrack: file.tracks.count, type: type, data: Array(bytes[r.offset ..< r.offset + length])))
            }
            r.offset += length
        }
        return file
    }

    static func readTrack(_ bytes: UnsafeRawBufferPointer, start: Int, end: Int, chunk: String) throws -> SMFTrack {
        var r = ByteCursor(bytes: UnsafeRawBufferPointer(rebasing: bytes[0 ..< end]), chunk: chunk)
        r.offset = start
        var events: [SMFEvent] = []
        var tick: UInt64 = 0
        var runningStatus: UInt8 = 0
        while r.offset < end {
            let eventStart = r.offset
            tick &+= UInt64(try r.variableLength())
            guard r.remaining > 0 else { throw SMFError(chunk: chunk, offset: r.offset, reason: "the track ends after a delta time, without an event") }
            var status = r.peek()
            if status < 0x80 {
                guard runningStatus != 0 else {
                    throw SMFError(chunk: chunk, offset: r.offset, reason: "data byte 0x\(hex1(status)) without a running status (event at byte \(eventStart))")
                }
                status = runningStatus
            } else {
                r.offset += 1
            }
            switch status {
            case 0xFF:
                let type = try r.byte()
                guard type < 0x80 else { throw SMFError(chunk: chunk, offset: r.offset - 1, reason: "meta event type 0x\(hex1(type)) is not below 0x80") }
                let length = try r.variableLength()
                let data = try r.bytes(length, what: "meta event 0x\(hex1(type))")
                events.append(SMFEvent(tick: tick, kind: .meta(type: type, data: data)))
            case 0xF0, 0xF7:
                let length = try r.variableLength()
                let data = try r.bytes(length, what: "system exclusive event")
                events.append(SMFEvent(tick: tick, kind: .sysex(escape: status == 0xF7, data: data)))
                runningStatus = 0
            case 0x80 ... 0xEF:
                runningStatus = status
                let d1 = try r.dataByte()
                let d2: UInt8 = SMFEvent.dataLength(status: status) == 2 ? try r.dataByte() : 0
                events.append(SMFEvent(tick: tick, kind: .channel(status: status, data1: d1, data2: d2)))
            default:
                throw SMFError(chunk: chunk, offset: r.offset - 1, reason: "status byte 0x\(hex1(status)) (a system message) cannot appear in a file track")
            }
        }
        return SMFTrack(events: events)
    }
}

/// Reads big-endian integers and variable-length quantities with bounds checks.
struct ByteCursor {
    let bytes: UnsafeRawBufferPointer
    var chunk: String
    var offset = 0
    init(bytes: UnsafeRawBufferPointer, chunk: String) { self.bytes = bytes; self.chunk = chunk }

    var remaining: Int { bytes.count - offset }
    func peek() -> UInt8 { bytes[offset] }

    mutating func byte() throws -> UInt8 {
        guard offset < bytes.count else { throw SMFError(chunk: chunk, offset: offset, reason: "unexpected end of the chunk") }
        defer { offset += 1 }
        return bytes[offset]
    }
    mutating func dataByte() throws -> UInt8 {
        let b = try byte()
        guard b < 0x80 else { throw SMFError(chunk: chunk, offset: offset - 1, reason: "byte 0x\(hex1(b)) where a data byte (below 0x80) is expected") }
        return b
    }
    mutating func uint16() throws -> UInt16 { UInt16(try byte()) << 8 | UInt16(try byte()) }
    mutating func uint32() throws -> UInt32 { UInt32(try uint16()) << 16 | UInt32(try uint16()) }
    mutating func bytes(_ n: Int, what: String = "data") throws -> [UInt8] {
        guard n <= remaining else {
            throw SMFError(chunk: chunk, offset: offset, reason: "\(what) of \(n) bytes runs past the end of the chunk (\(remaining) bytes left)")
        }
        defer { offset += n }
        return Array(bytes[offset ..< offset + n])
    }
    /// A variable-length quantity: at most four bytes (SMF 1.0: the largest is 0x0FFFFFFF).
    mutating func variableLength() throws -> Int {
        let start = offset
        var value = 0
        for _ in 0 ..< 4 {
            let b = try byte()
            value = value << 7 | Int(b & 0x7F)
            if b & 0x80 == 0 { return value }
        }
        throw SMFError(chunk: chunk, offset: start, reason: "variable-length quantity longer than four bytes")
    }
}

func hex1(_ b: UInt8) -> String { let s = String(b, radix: 16, uppercase: true); return s.count == 1 ? "0" + s : s }
func hex(_ bytes: [UInt8]) -> String { bytes.map { hex1($0) }.joined(separator: " ") }
func printable(_ bytes: [UInt8]) -> String {
    bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) ? "\"" + String(decoding: bytes, as: UTF8.self) + "\"" : hex(bytes)
}
