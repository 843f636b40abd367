// ISO base media boxes (ISO/IEC 14496-12 §4.2): the bounds-checked cursor and box walker every
// other MP4 file uses.
//
// A box is a 32-bit big-endian size, a four-character type, then (size 1) a 64-bit size, or
// (size 0) "to the end of the enclosing box/file". Inside a box already read into memory every
// child must fit in its parent and be at least its own header long, so a walk always advances
// and can neither loop nor read outside its parent: a size that breaks this is an error naming
// the box. Nothing here allocates more than the bytes in hand justify (a child list is at most
// one entry per 8 bytes of its parent).

/// What went wrong, before the public entry point adds the file's name.
struct MP4Problem: Error {
    var code: Int32
    var message: String
    init(_ message: String, code: Int32 = AudioFileFormatError.Code.invalidFile) {
        self.code = code
        self.message = message
    }
}

/// One box inside a byte array: its type and where its payload lies.
struct MP4Box {
    var type: UInt32
    /// Offset of the box's header in the array.
    var start: Int
    /// The payload's range in the array (after the 8- or 16-byte header).
    var payload: Range<Int>
    var name: String { fourCCText(type) }
}

/// Big-endian reads that throw instead of reading past `end`.
struct MP4Cursor {
    let bytes: [UInt8]
    var position: Int
    let end: Int
    /// The box being read, for error messages.
    let box: String

    init(_ bytes: [UInt8], _ range: Range<Int>, box: String) {
        self.bytes = bytes
        position = range.lowerBound
        end = min(range.upperBound, bytes.count)
        self.box = box
    }

    var remaining: Int { max(0, end - position) }

    mutating func need(_ n: Int) throws {
        guard n >= 0, n <= remaining else {
            throw MP4Problem("the \(box) box ends \(n - remaining) bytes before its fields do")
        }
    }
    mutating func skip(_ n: Int) throws { try need(n); position += n }
    mutating func uint(_ n: Int) throws -> UInt64 {
        try need(n)
        var v: UInt64 = 0
        for i in 0..<n { v = v << 8 | UInt64(bytes[position + i]) }
        position += n
        return v
    }
    mutating func u8() throws -> Int { Int(try uint(1)) }
    mutating func u16() throws -> Int { Int(try uint(2)) }
    mutating func u24() throws -> Int { Int(try uint(3)) }
    mutating func u32() throws -> UInt32 { UInt32(try uint(4)) }
    mutating func u64() throws -> UInt64 { try uint(8) }
    mutating func take(_ n: Int) throws -> [UInt8] {
        try need(n)
        defer { position += n }
        return Array(bytes[position..<position + n])
    }
    /// A full box's version and flags (§4.2.2).
    mutating func versionAndFlags() throws -> (version: Int, flags: Int) {
        let v = try u32()
        return (Int(v >> 24), Int(v & 0xFF_FFFF))
    }
    /// Throws unless `count` entries of `entrySize` bytes fit in what is left: a table's entry
    /// count is never trusted beyond the bytes that hold the table.
    func checkTable(count: UInt64, entrySize: Int) throws {
        guard count <= UInt64(remaining / max(1, entrySize)) else {
            throw MP4Problem("the \(box) box claims \(count) entries of \(entrySize) bytes but holds only \(remaining) bytes")
        }
    }
}

/// The boxes directly inside `range` of `bytes`. Throws when a box's size is impossible.
func mp4Children(_ bytes: [UInt8], _ range: Range<Int>, parent: String) throws -> [MP4Box] {
    var boxes: [MP4Box] = []
    var offset = range.lowerBound
    let end = min(range.upperBound, bytes.count)
    while end - offset >= 8 {
        var c = MP4Cursor(bytes, offset..<end, box: parent)
        let size32 = try c.u32()
        let type = try c.u32()
        var size = UInt64(size32)
        if size32 == 1 {
            guard c.remaining >= 8 else { throw MP4Problem("a box in \(parent) ends inside its 64-bit size") }
            size = try c.u64()
        } else if size32 == 0 {
            size = UInt64(end - offset)
        }
        let header = c.position - offset
        guard size >= UInt64(header) else {
            throw MP4Problem("the \(fourCCText(type)) box in \(parent) has size \(size), less than its own header")
        }
        guard size <= UInt64(end - offset) else {
            throw MP4Problem("the \(fourCCText(type)) box in \(parent) claims \(size) bytes but only \(end - offset) remain in \(parent)")
        }
        boxes.append(MP4Box(type: type, start: offset, payload: c.position..<(offset + Int(size))))
        offset += Int(size)
    }
    // Fewer than 8 trailing bytes: padding some writers leave (QuickTime's 4-byte terminator).
    return boxes
}

extension Array where Element == MP4Box {
    func first(_ type: StaticString) -> MP4Box? { let t = fcc(type); return first { $0.type == t } }
    func all(_ type: StaticString) -> [MP4Box] { let t = fcc(type); return filter { $0.type == t } }
}

/// The first box along `path` (e.g. ["mdia", "minf", "stbl"]) under `range`, or nil.
func mp4Find(_ bytes: [UInt8], _ range: Range<Int>, _ path: [StaticString], parent: String) throws -> MP4Box? {
    var range = range
    var found: MP4Box?
    var name = parent
    for step in path {
        guard let box = try mp4Children(bytes, range, parent: name).first(step) else { return nil }
        found = box
        range = box.payload
        name = box.name
    }
    return found
}
