// The value a property list holds, and the one entry point that reads either form of one.
//
// Property lists come in two forms that this reader accepts: XML (Apple's PropertyList-1.0 DTD,
// `PropertyListXMLReader.swift`) and binary ("bplist00", `PropertyListBinaryReader.swift`). The old
// OpenStep text form (`{ key = value; }`), which Foundation's parser also accepts, is not read:
// nothing this project loads (audio unit presets) is saved in it.
//
// Both readers treat their input as hostile: nesting is bounded (`maximumDepth`), every count and
// offset is checked against the bytes present before anything is allocated for it, and a failure
// is a `PropertyListError` naming the byte offset, never a trap.

/// One value of a property list.
public enum PropertyListValue: Equatable, Sendable {
    case string(String)
    /// `<integer>` / binary int. Held in 128 bits: XML integers run from −2⁶³ to 2⁶⁴ − 1 (an
    /// unsigned 64-bit value is allowed), binary 16-byte integers likewise.
    case integer(Int128)
    /// `<real>` / binary real (a 4-byte float is widened exactly).
    case real(Double)
    case boolean(Bool)
    /// `<date>` / binary date: seconds since 2001-01-01 00:00:00 UTC.
    case date(Double)
    case data([UInt8])
    case array([PropertyListValue])
    /// `<dict>` / binary dict, in file order; a key given twice keeps its last value (as
    /// Foundation's parser does).
    case dictionary([(key: String, value: PropertyListValue)])
    /// A binary plist UID (keyed archives' object references; no XML element of its own).
    case uid(UInt64)

    public static func == (a: PropertyListValue, b: PropertyListValue) -> Bool {
        switch (a, b) {
        case let (.string(x), .string(y)): return x == y
        case let (.integer(x), .integer(y)): return x == y
        case let (.real(x), .real(y)): return x == y || (x.isNaN && y.isNaN)
        case let (.boolean(x), .boolean(y)): return x == y
        case let (.date(x), .date(y)): return x == y
        case let (.data(x), .data(y)): return x == y
        case let (.array(x), .array(y)): return x == y
        case let (.dictionary(x), .dictionary(y)):
            return x.count == y.count && zip(x, y).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        case let (.uid(x), .uid(y)): return x == y
        default: return false
        }
    }

    /// The value stored under `key` in a dictionary (the last one when the key repeats).
    public subscript(key: String) -> PropertyListValue? {
        guard case .dictionary(let entries) = self else { return nil }
        return entries.last { $0.key == key }?.value
    }
}

/// Why bytes are not a property list, and where the reader stopped.
public struct PropertyListError: Error, CustomStringConvertible, Sendable, Equatable {
    /// Byte offset in the input at which the problem was found.
    public var offset: Int
    /// A sentence fragment saying what is wrong ("an unterminated <dict>").
    public var problem: String

    public init(offset: Int, problem: String) {
        self.offset = offset
        self.problem = problem
    }

    public var description: String { "at byte \(offset): \(problem)" }
}

public enum PropertyList {
    /// Deepest nesting of arrays and dictionaries accepted. Foundation refuses nesting of a few
    /// hundred levels as well; 512 leaves every real file room while keeping the readers'
    /// recursion far from the thread's stack limit.
    public static let maximumDepth = 512

    /// Reads a property list in binary form (bytes starting "bplist00") or XML.
    public static func parse(_ bytes: [UInt8]) throws(PropertyListError) -> PropertyListValue {
        if bytes.starts(with: PropertyListBinaryReader.magic) {
            var reader = PropertyListBinaryReader(bytes)
            return try reader.read()
        }
        if bytes.starts(with: Array("bplist".utf8)) {
            throw PropertyListError(offset: 6, problem: "a binary property list of version \"\(String(decoding: bytes[6..<min(8, bytes.count)], as: UTF8.self))\"; only \"00\" is read")
        }
        var reader = PropertyListXMLReader(bytes)
        return try reader.read()
    }
}
