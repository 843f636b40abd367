// Property-list values (AudioFileFormats' reader) as the Foundation objects
// `PropertyListSerialization.propertyList(from:options:format:)` gives on Linux, so that code
// written against Foundation's parser reads ours unchanged.
//
// The types, checked by running Foundation's parser (swift-corelibs-foundation) on the same
// bytes (PropertyListReaderTests compares the two on every value type, XML and binary):
// strings → String, integers and reals → NSNumber (integers as Int64, or UInt64 above Int64.max;
// a binary 4-byte real → NSNumber holding its Double value), booleans → Bool, data → Data, dates
// → Date, arrays → [Any], dictionaries → [String: Any]. (Foundation's dictionaries come back typed
// [AnyHashable: Any] with String keys; every reader here casts them `as? [String: Any]`, which
// both satisfy alike.) A binary UID, which Foundation gives as a private CFKeyedArchiverUID, is
// given as the dictionary ["CF$UID": n] that stands for a UID in the XML form of keyed archives.
//
// We read property lists ourselves because Foundation's parser leaks on damaged binary input
// (Fuzz/lsan-suppressions.txt's history) and crashed on sets.
import AudioFileFormats
import Foundation

extension PropertyListValue {
    /// The value as Foundation objects (see the note at the top of the file).
    var foundationObject: Any {
        switch self {
        case .string(let s): return s
        case .integer(let i):
            if let v = Int64(exactly: i) { return NSNumber(value: v) }
            return NSNumber(value: UInt64(truncatingIfNeeded: i))
        case .real(let d): return NSNumber(value: d)
        case .boolean(let b): return b
        case .date(let t): return Date(timeIntervalSinceReferenceDate: t)
        case .data(let d): return Data(d)
        case .array(let items): return items.map(\.foundationObject)
        case .dictionary(let entries):
            var d: [String: Any] = Dictionary(minimumCapacity: entries.count)
            for (k, v) in entries { d[k] = v.foundationObject }
            return d
        case .uid(let u): return ["CF$UID": NSNumber(value: u)] as [String: Any]
        }
    }
}

/// Reads a property list (XML or binary) into Foundation objects, as
/// `PropertyListSerialization.propertyList(from:options:format:)` would.
func readPropertyList(_ data: Data) throws(PropertyListError) -> Any {
    try PropertyList.parse([UInt8](data)).foundationObject
}
