// The property-list reader alone (AudioFileFormats/PropertyList, XML and binary), below the preset
// model the aupreset target reaches it through: every input, not only the ones shaped as presets,
// so the reader's own edges (trailer fields, offset tables, reference sizes, count integers,
// cycles, depth, entities, base64, dates) are what the mutations explore.
//
// Checks beyond "no crash, no hang, no leak, no huge allocation": an input is either a value or
// an error naming a byte offset inside the input with a non-empty problem; a value's nesting stays
// within PropertyList.maximumDepth.
import AudioFileFormats

extension FuzzTarget {
    static let plist = FuzzTarget(name: "plist", structure: nil) { fuzzPropertyList($0) }
}

func fuzzPropertyList(_ bytes: [UInt8]) {
    do {
        let value = try PropertyList.parse(bytes)
        func depth(_ v: PropertyListValue) -> Int {
            switch v {
            case .array(let items): return 1 + (items.map(depth).max() ?? 0)
            case .dictionary(let entries): return 1 + (entries.map { depth($0.value) }.max() ?? 0)
            default: return 0
            }
        }
        let d = depth(value)
        if d > PropertyList.maximumDepth { fuzzFailure("plist: a value nested \(d) levels deep was read") }
    } catch {
        if error.problem.isEmpty { fuzzFailure("plist: an error without a problem") }
        if error.offset < 0 || error.offset > bytes.count { fuzzFailure("plist: an error at byte \(error.offset) of \(bytes.count)") }
    }
}
