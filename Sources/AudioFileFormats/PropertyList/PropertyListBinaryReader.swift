// The binary form of a property list ("bplist00"), as Apple describes it in CFBinaryPList.c's
// public format comment (read, nothing copied):
//
//   header   "bplist00"
//   objects  one marker byte each, high nibble the type, low nibble a size or count
//              0000 1000 / 0000 1001   false / true
//              0001 nnnn               integer of 2^nnnn bytes, big-endian (1, 2 and 4 bytes
//                                      unsigned, 8 and 16 bytes signed)
//              0010 nnnn               real of 2^nnnn bytes (4: Float32, 8: Float64)
//              0011 0011               date: Float64 seconds since 2001-01-01 UTC
//              0100 nnnn               data, nnnn bytes
//              0101 nnnn               ASCII string, nnnn bytes
//              0110 nnnn               UTF-16 big-endian string, nnnn code units
//              1000 nnnn               UID of nnnn + 1 bytes
//              1010 nnnn               array: nnnn object references
//              1100 nnnn               set: nnnn object references
//              1101 nnnn               dict: nnnn key references, then nnnn value references
//            a count nibble of 1111 means the count follows as an integer object (0001 nnnn …)
//   offset table  one offset per object, each `offsetIntSize` bytes, big-endian
//   trailer  the last 32 bytes: 6 unused bytes, offsetIntSize, objectRefSize, then the object
//            count, the top object's number and the offset table's offset, 8 bytes each
//
// An object reference is an object's number (objectRefSize bytes), an index into the offset
// table. Hostile input is met with: every trailer field checked against the file's length before
// use (an object count of 2⁶⁰ fails before anything is allocated: the offset table would not fit);
// every reference checked against the object count and every offset against the object area;
// every count checked against the bytes left before anything is allocated for it; a container
// that contains itself (a cycle: the same object twice on the current path) refused; nesting
// bounded by `PropertyList.maximumDepth`; and the values produced bounded (`maximumValues`)
// because a file may share one container many times (object references form a DAG) and so
// describe a tree exponentially larger than itself.
//
// Not read (errors): sets (no property list this project reads contains one, and Foundation on
// Linux crashed bridging them, Fuzz/findings/aupreset-fixed-crash-binary-plist-set), the null
// and fill markers, dictionary keys that are not strings, integers beyond −2⁶³ … 2⁶⁴ − 1, ASCII
// strings holding bytes above 0x7F. A UTF-16 string with an unpaired surrogate is read with
// U+FFFD in its place (what bridging Foundation's string to Swift gives).

struct PropertyListBinaryReader {
    static let magic = Array("bplist00".utf8)

    private let b: [UInt8]
    private var offsetSize = 0, refSize = 0, objectCount = 0, tableOffset = 0
    private var onPath: [Bool] = []
    private var budget = 0

    init(_ bytes: [UInt8]) { b = bytes }

    /// Values a file of `n` bytes may produce: a tree whose containers are not shared has at most
    /// one value per object reference, so fewer than n; four times that leaves room for writers
    /// that share a container a few times (Python's plistlib writes a repeated list once).
    static func maximumValues(_ n: Int) -> Int { 4 * n + 64 }

    mutating func read() throws(PropertyListError) -> PropertyListValue {
        guard b.count >= 8 + 1 + 32 else { throw PropertyListError(offset: b.count, problem: "a binary property list of \(b.count) bytes is too short for its header, one object and its 32-byte trailer") }
        let t = b.count - 32
        offsetSize = Int(b[t + 6])
        refSize = Int(b[t + 7])
        let count = uint(t + 8, 8), top = uint(t + 16, 8), table = uint(t + 24, 8)
        guard (1...8).contains(offsetSize) else { throw PropertyListError(offset: t + 6, problem: "the trailer's offset size is \(offsetSize) bytes, not 1 … 8") }
        guard (1...8).contains(refSize) else { throw PropertyListError(offset: t + 7, problem: "the trailer's object reference size is \(refSize) bytes, not 1 … 8") }
        guard table >= 9, table < UInt64(t) else { throw PropertyListError(offset: t + 24, problem: "the offset table's offset \(table) is outside the object area (9 … \(t - 1))") }
        tableOffset = Int(table)
        guard count >= 1, count <= UInt64((t - tableOffset) / offsetSize) else {
            throw PropertyListError(offset: t + 8, problem: "the trailer claims \(count) objects, but the offset table's \(t - tableOffset) bytes hold \((t - tableOffset) / offsetSize)")
        }
        objectCount = Int(count)
        guard top < count else { throw PropertyListError(offset: t + 16, problem: "the top object \(top) is not one of the \(count) objects") }
        onPath = [Bool](repeating: false, count: objectCount)
        budget = Self.maximumValues(b.count)
        return try object(Int(top), depth: 0, from: t + 16)
    }

    /// Big-endian unsigned integer of `n` ≤ 8 bytes at `at` (the caller has checked the range).
    private func uint(_ at: Int, _ n: Int) -> UInt64 {
        var v: UInt64 = 0
        for i in at..<at + n { v = v << 8 | UInt64(b[i]) }
        return v
    }

    private func fail(_ offset: Int, _ problem: String) -> PropertyListError { PropertyListError(offset: offset, problem: problem) }

    /// Bytes `at ..< at + n` must lie in the object area.
    private func need(_ at: Int, _ n: Int, _ what: String) throws(PropertyListError) {
        guard n >= 0, at <= tableOffset, n <= tableOffset - at else {
            throw fail(at, "\(what) of \(n) bytes runs past the object area (which ends at byte \(tableOffset))")
        }
    }

    /// The object numbered `ref`; `from` is where the reference was read (for errors).
    private mutating func object(_ ref: Int, depth: Int, from: Int) throws(PropertyListError) -> PropertyListValue {
        guard ref < objectCount else { throw fail(from, "object reference \(ref) is beyond the \(objectCount) objects") }
        let entry = tableOffset + ref * offsetSize
        let offset64 = uint(entry, offsetSize)
        guard offset64 >= 8, offset64 < UInt64(tableOffset) else {
            throw fail(entry, "object \(ref)'s offset \(offset64) is outside the object area (8 … \(tableOffset - 1))")
        }
        budget -= 1
        guard budget >= 0 else { throw fail(entry, "the objects expand to more than \(Self.maximumValues(b.count)) values (containers shared over and over)") }
        let at = Int(offset64)
        let marker = b[at]
        let low = Int(marker & 0x0F)
        switch marker >> 4 {
        case 0x0:
            switch marker {
            case 0x08: return .boolean(false)
            case 0x09: return .boolean(true)
            default: throw fail(at, "object \(ref) has the marker 0x\(String(marker, radix: 16)) (null or fill), which is no property list value")
            }
        case 0x1:
            return .integer(try integer(at))
        case 0x2:
            guard low == 2 || low == 3 else { throw fail(at, "a real of \(1 << low) bytes (only 4 and 8 exist)") }
            try need(at + 1, 1 << low, "a real")
            return .real(low == 2 ? Double(Float(bitPattern: UInt32(uint(at + 1, 4)))) : Double(bitPattern: uint(at + 1, 8)))
        case 0x3:
            guard marker == 0x33 else { throw fail(at, "the marker 0x\(String(marker, radix: 16)) (only 0x33 is a date)") }
            try need(at + 1, 8, "a date")
            return .date(Double(bitPattern: uint(at + 1, 8)))
        case 0x4:
            let (start, n) = try sized(at, unit: 1, "data")
            return .data(Array(b[start..<start + n]))
        case 0x5:
            let (start, n) = try sized(at, unit: 1, "an ASCII string")
            let bytes = b[start..<start + n]
            if let bad = bytes.firstIndex(where: { $0 >= 0x80 }) { throw fail(bad, "the ASCII string of object \(ref) holds the byte 0x\(String(b[bad], radix: 16))") }
            return .string(String(decoding: bytes, as: UTF8.self))
        case 0x6:
            let (start, n) = try sized(at, unit: 2, "a UTF-16 string")
            var units: [UInt16] = []
            units.reserveCapacity(n)
            for i in 0..<n { units.append(UInt16(b[start + 2 * i]) << 8 | UInt16(b[start + 2 * i + 1])) }
            return .string(String(decoding: units, as: UTF16.self))
        case 0x8:
            guard low < 8 else { throw fail(at, "a UID of \(low + 1) bytes (at most 8 are read)") }
            try need(at + 1, low + 1, "a UID")
            return .uid(uint(at + 1, low + 1))
        case 0xA, 0xD:
            guard depth < PropertyList.maximumDepth else { throw fail(at, "nesting deeper than \(PropertyList.maximumDepth) levels") }
            guard !onPath[ref] else { throw fail(at, "object \(ref) contains itself (a cycle of references)") }
            onPath[ref] = true
            defer { onPath[ref] = false }
            let isDict = marker >> 4 == 0xD
            let (start, n) = try sized(at, unit: isDict ? 2 * refSize : refSize, isDict ? "a dictionary" : "an array")
            if !isDict {
                var items: [PropertyListValue] = []
                items.reserveCapacity(n)
                for i in 0..<n {
                    let r = start + i * refSize
                    items.append(try object(try reference(r), depth: depth + 1, from: r))
                }
                return .array(items)
            }
            var entries: [(key: String, value: PropertyListValue)] = []
            entries.reserveCapacity(n)
            var index: [String: Int] = [:]
            for i in 0..<n {
                let kr = start + i * refSize, vr = start + (n + i) * refSize
                guard case .string(let key) = try object(try reference(kr), depth: depth + 1, from: kr) else {
                    throw fail(kr, "key \(i) of the dictionary at byte \(at) is not a string")
                }
                let value = try object(try reference(vr), depth: depth + 1, from: vr)
                if let j = index[key] { entries[j].value = value } else { index[key] = entries.count; entries.append((key, value)) }
            }
            return .dictionary(entries)
        case 0xC:
            throw fail(at, "object \(ref) is a set, which this reader does not read")
        default:
            throw fail(at, "object \(ref) has the unknown marker 0x\(String(marker, radix: 16))")
        }
    }

    private func reference(_ at: Int) throws(PropertyListError) -> Int {
        let r = uint(at, refSize)
        guard r < UInt64(objectCount) else { throw fail(at, "object reference \(r) is beyond the \(objectCount) objects") }
        return Int(r)
    }

    /// An integer object at `at`: 1, 2 and 4 bytes unsigned, 8 and 16 bytes signed.
    private func integer(_ at: Int) throws(PropertyListError) -> Int128 {
        let low = Int(b[at] & 0x0F)
        guard low <= 4 else { throw fail(at, "an integer of 2^\(low) bytes (at most 16 exist)") }
        let n = 1 << low
        try need(at + 1, n, "an integer")
        switch n {
        case 1, 2, 4: return Int128(uint(at + 1, n))
        case 8: return Int128(Int64(bitPattern: uint(at + 1, 8)))
        default:
            let v = Int128(Int64(bitPattern: uint(at + 1, 8))) << 64 | Int128(uint(at + 9, 8))
            guard v >= Int128(Int64.min), v <= Int128(UInt64.max) else { throw fail(at, "a 16-byte integer beyond −2⁶³ … 2⁶⁴ − 1") }
            return v
        }
    }

    /// The start and count of a sized object at `at` whose elements are `unit` bytes: the count
    /// is the marker's low nibble, or the integer object after it when that nibble is 0xF. The
    /// elements must fit in the object area.
    private func sized(_ at: Int, unit: Int, _ what: String) throws(PropertyListError) -> (start: Int, count: Int) {
        var count = Int(b[at] & 0x0F)
        var start = at + 1
        if count == 0xF {
            try need(start, 1, "the count of \(what)")
            guard b[start] >> 4 == 0x1 else { throw fail(start, "the count of \(what) is not an integer object") }
            let v = try integer(start)
            start += 1 + (1 << Int(b[start] & 0x0F))
            guard v >= 0, v <= Int128(tableOffset) else { throw fail(at, "\(what) claims \(v) elements, more than the file's bytes") }
            count = Int(v)
        }
        try need(start, count * unit, what)
        return (start, count)
    }
}
