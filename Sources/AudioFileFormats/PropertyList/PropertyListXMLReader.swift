// The XML form of a property list (Apple's PropertyList-1.0 DTD): `<plist>` holding one value
// among `<dict>` (`<key>` then a value, repeated), `<array>`, `<string>`, `<integer>`, `<real>`,
// `<true/>`, `<false/>`, `<date>` and `<data>`.
//
// What is accepted, and what it rests on (Foundation's parser on Linux, swift-corelibs-foundation,
// was run on each case as the reference; the tests compare both readers on the same bytes):
// - before and after the value: the XML declaration and other `<?…?>` instructions, `<!DOCTYPE …>`,
//   comments and whitespace; a bare value without the `<plist>` element around it is read too;
// - text: the five predefined entities (&amp; &lt; &gt; &quot; &apos;), numeric references
//   (`&#65;`, `&#x41;` — a lowercase x only; a surrogate or a value beyond U+10FFFF is an error,
//   as in Foundation) and
//   CDATA sections; a comment inside text is an error (Foundation refuses it too); the text must
//   be UTF-8 (a UTF-8 byte-order mark is skipped; other encodings named in the declaration are not
//   read — no audio unit preset uses them);
// - `<integer>`: optional leading whitespace (trailing whitespace is refused, as by Foundation),
//   an optional sign and decimal digits or "0x"/"0X" hex digits, from −2⁶³ to 2⁶⁴ − 1 (beyond is an overflow error, as in Foundation);
// - `<real>`: a decimal number or nan / inf / infinity with an optional sign, no surrounding
//   whitespace and no hex form (both refused by Foundation); a decimal beyond Double's range
//   reads as ±infinity (as Foundation's strtod);
// - `<data>`: base64 as Foundation's decoder reads it (each rule measured on it): characters
//   outside the alphabet are skipped, "=" counts as a zero digit and does not end the data, each
//   group of four digits gives three bytes less the "=" signs just before its end (a run broken by
//   any character but whitespace restarts), and an unfinished last group is dropped; `<data/>` is
//   an error (Foundation: "empty <data>") while `<data></data>` is no bytes;
// - `<date>`: "YYYY-MM-DDTHH:MM:SSZ" only (`PropertyListDate`).
// Nesting deeper than `PropertyList.maximumDepth` is an error; every error names the byte offset.

struct PropertyListXMLReader {
    private let b: [UInt8]
    private var pos = 0

    init(_ bytes: [UInt8]) { b = bytes }

    mutating func read() throws(PropertyListError) -> PropertyListValue {
        if b.starts(with: [0xEF, 0xBB, 0xBF]) { pos = 3 }
        try skipMisc()
        guard pos < b.count else { throw fail("no property list: the text holds no element") }
        let start = pos
        let tag = try openTag()
        let value: PropertyListValue
        if tag.name == "plist" {
            guard !tag.empty else { throw PropertyListError(offset: start, problem: "an empty <plist/> holds no value") }
            try skipMisc()
            value = try element(depth: 0)
            try skipMisc()
            try closeTag("plist", openedAt: start)
        } else {
            value = try elementBody(tag, at: start, depth: 0)
        }
        try skipMisc()
        guard pos == b.count else { throw fail("text after the property list's last element") }
        return value
    }

    // MARK: markup

    private func fail(_ problem: String, at offset: Int? = nil) -> PropertyListError {
        PropertyListError(offset: offset ?? pos, problem: problem)
    }

    private func starts(_ s: String) -> Bool {
        var i = pos
        for c in s.utf8 {
            guard i < b.count, b[i] == c else { return false }
            i += 1
        }
        return true
    }

    private static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }

    private mutating func skipSpace() { while pos < b.count, Self.isSpace(b[pos]) { pos += 1 } }

    /// Moves past `terminator`, or fails naming what was left open.
    private mutating func skip(past terminator: String, what: String) throws(PropertyListError) {
        let start = pos
        let t = Array(terminator.utf8)
        while pos + t.count <= b.count {
            if b[pos] == t[0], Array(b[pos..<pos + t.count]) == t { pos += t.count; return }
            pos += 1
        }
        throw fail("an unterminated \(what)", at: start)
    }

    /// Whitespace, comments, processing instructions and the DOCTYPE declaration.
    private mutating func skipMisc() throws(PropertyListError) {
        while true {
            skipSpace()
            if starts("<!--") { pos += 4; try skip(past: "-->", what: "comment") }
            else if starts("<?") { pos += 2; try skip(past: "?>", what: "processing instruction") }
            else if starts("<!DOCTYPE") { try skipDoctype() }
            else { return }
        }
    }

    /// `<!DOCTYPE …>`, with an internal subset in brackets if present.
    private mutating func skipDoctype() throws(PropertyListError) {
        let start = pos
        var bracket = false
        var quote: UInt8?
        while pos < b.count {
            let c = b[pos]
            pos += 1
            if let q = quote { if c == q { quote = nil }; continue }
            switch c {
            case UInt8(ascii: "\""), UInt8(ascii: "'"): quote = c
            case UInt8(ascii: "["): bracket = true
            case UInt8(ascii: "]"): bracket = false
            case UInt8(ascii: ">") where !bracket: return
            default: break
            }
        }
        throw fail("an unterminated <!DOCTYPE", at: start)
    }

    private static func isNameByte(_ c: UInt8) -> Bool {
        (c >= 0x61 && c <= 0x7A) || (c >= 0x41 && c <= 0x5A) || (c >= 0x30 && c <= 0x39)
            || c == UInt8(ascii: "_") || c == UInt8(ascii: "-") || c == UInt8(ascii: ".") || c == UInt8(ascii: ":")
    }

    /// `<name attributes…>` or `<name …/>`, at `pos`.
    private mutating func openTag() throws(PropertyListError) -> (name: String, empty: Bool) {
        guard pos < b.count, b[pos] == UInt8(ascii: "<") else { throw fail("an element was expected") }
        let start = pos
        pos += 1
        let nameStart = pos
        while pos < b.count, Self.isNameByte(b[pos]) { pos += 1 }
        guard pos > nameStart else { throw fail("a malformed tag", at: start) }
        let name = String(decoding: b[nameStart..<pos], as: UTF8.self)
        var quote: UInt8?
        while pos < b.count {
            let c = b[pos]
            pos += 1
            if let q = quote { if c == q { quote = nil }; continue }
            if c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") { quote = c }
            else if c == UInt8(ascii: ">") { return (name, pos - 2 >= nameStart && b[pos - 2] == UInt8(ascii: "/")) }
            else if c == UInt8(ascii: "<") { break }
        }
        throw fail("an unterminated <\(name)> tag", at: start)
    }

    /// `</name>` at `pos` (whitespace allowed before the ">").
    private mutating func closeTag(_ name: String, openedAt: Int) throws(PropertyListError) {
        guard starts("</\(name)") else { throw fail("<\(name)> (opened at byte \(openedAt)) is not closed by </\(name)>") }
        pos += 2 + name.utf8.count
        skipSpace()
        guard pos < b.count, b[pos] == UInt8(ascii: ">") else { throw fail("a malformed </\(name)> tag") }
        pos += 1
    }

    // MARK: values

    /// The element at `pos`.
    private mutating func element(depth: Int) throws(PropertyListError) -> PropertyListValue {
        let start = pos
        let tag = try openTag()
        return try elementBody(tag, at: start, depth: depth)
    }

    private mutating func elementBody(_ tag: (name: String, empty: Bool), at start: Int, depth: Int) throws(PropertyListError) -> PropertyListValue {
        switch tag.name {
        case "dict":
            guard depth < PropertyList.maximumDepth else { throw fail("nesting deeper than \(PropertyList.maximumDepth) levels", at: start) }
            if tag.empty { return .dictionary([]) }
            var entries: [(key: String, value: PropertyListValue)] = []
            var index: [String: Int] = [:]
            while true {
                try skipMisc()
                if starts("</") { try closeTag("dict", openedAt: start); return .dictionary(entries) }
                let keyStart = pos
                let keyTag = try openTag()
                guard keyTag.name == "key" else { throw fail("<\(keyTag.name)> where a <key> belongs in a <dict>", at: keyStart) }
                let key = keyTag.empty ? "" : try text("key", openedAt: keyStart)
                try skipMisc()
                if starts("</") { throw fail("the <key> \"\(key)\" has no value") }
                let value = try element(depth: depth + 1)
                if let i = index[key] { entries[i].value = value } else { index[key] = entries.count; entries.append((key, value)) }
            }
        case "array":
            guard depth < PropertyList.maximumDepth else { throw fail("nesting deeper than \(PropertyList.maximumDepth) levels", at: start) }
            if tag.empty { return .array([]) }
            var items: [PropertyListValue] = []
            while true {
                try skipMisc()
                if starts("</") { try closeTag("array", openedAt: start); return .array(items) }
                items.append(try element(depth: depth + 1))
            }
        case "true", "false":
            if !tag.empty { try closeTag(tag.name, openedAt: start) }
            return .boolean(tag.name == "true")
        case "string":
            return .string(tag.empty ? "" : try text("string", openedAt: start))
        case "integer":
            let t = tag.empty ? "" : try text("integer", openedAt: start)
            return .integer(try integer(t, at: start))
        case "real":
            let t = tag.empty ? "" : try text("real", openedAt: start)
            guard let d = Self.real(t) else { throw fail("<real>\(t.prefix(40))</real> is not a number", at: start) }
            return .real(d)
        case "date":
            let t = tag.empty ? "" : try text("date", openedAt: start)
            guard let d = PropertyListDate.parse(t[...]) else { throw fail("<date>\(t.prefix(40))</date> is not of the form YYYY-MM-DDTHH:MM:SSZ", at: start) }
            return .date(d)
        case "data":
            guard !tag.empty else { throw fail("an empty <data/>", at: start) }
            return .data(Self.base64(try text("data", openedAt: start)))
        case "key":
            throw fail("a <key> outside a <dict>", at: start)
        default:
            throw fail("<\(tag.name.prefix(40))> is not a property list element", at: start)
        }
    }

    /// The character data up to `</name>` (entities replaced, CDATA sections taken as they are),
    /// then the closing tag.
    private mutating func text(_ name: String, openedAt: Int) throws(PropertyListError) -> String {
        var out: [UInt8] = []
        while true {
            guard pos < b.count else { throw fail("<\(name)> (opened at byte \(openedAt)) is not closed", at: openedAt) }
            let c = b[pos]
            if c == UInt8(ascii: "<") {
                if starts("<![CDATA[") {
                    pos += 9
                    let s = pos
                    try skip(past: "]]>", what: "CDATA section")
                    out += b[s..<pos - 3]
                    continue
                }
                if starts("</") { break }
                throw fail("markup inside <\(name)> (only text, entities and CDATA belong there)")
            }
            if c == UInt8(ascii: "&") {
                try entity(into: &out)
                continue
            }
            out.append(c)
            pos += 1
        }
        try closeTag(name, openedAt: openedAt)
        guard let s = String(validating: out, as: UTF8.self) else { throw fail("<\(name)> (at byte \(openedAt)) is not UTF-8 text", at: openedAt) }
        return s
    }

    /// `&name;` or `&#…;` at `pos`, appended as UTF-8.
    private mutating func entity(into out: inout [UInt8]) throws(PropertyListError) {
        let start = pos
        var end = pos + 1
        while end < b.count, end - start <= 12, b[end] != UInt8(ascii: ";") { end += 1 }
        guard end < b.count, b[end] == UInt8(ascii: ";") else { throw fail("an unterminated entity reference") }
        let name = String(decoding: b[start + 1..<end], as: UTF8.self)
        pos = end + 1
        switch name {
        case "amp": out.append(UInt8(ascii: "&"))
        case "lt": out.append(UInt8(ascii: "<"))
        case "gt": out.append(UInt8(ascii: ">"))
        case "quot": out.append(UInt8(ascii: "\""))
        case "apos": out.append(UInt8(ascii: "'"))
        default:
            var digits = Substring(name)
            guard digits.first == "#" else { throw fail("the unknown entity &\(name);", at: start) }
            digits = digits.dropFirst()
            var radix = 10
            if digits.first == "x" { radix = 16; digits = digits.dropFirst() }
            guard !digits.isEmpty, digits.allSatisfy({ $0.isHexDigit && (radix == 16 || $0.isNumber) }),
                  let code = UInt32(digits, radix: radix), let scalar = Unicode.Scalar(code) else {
                throw fail("&\(name); is not a Unicode character", at: start)
            }
            out += Array(String(Character(scalar)).utf8)
        }
    }

    private func integer(_ t: String, at start: Int) throws(PropertyListError) -> Int128 {
        var s = Substring(t)
        while let c = s.first, c == " " || c == "\t" || c == "\n" || c == "\r" { s = s.dropFirst() }
        var negative = false
        if s.first == "-" || s.first == "+" { negative = s.first == "-"; s = s.dropFirst() }
        var radix: Int128 = 10
        if s.hasPrefix("0x") || s.hasPrefix("0X") { radix = 16; s = s.dropFirst(2) }
        guard !s.isEmpty else { throw fail("an empty <integer>", at: start) }
        var magnitude: Int128 = 0
        for c in s {
            guard let d = c.hexDigitValue, Int128(d) < radix else { throw fail("<integer>\(t.prefix(40))</integer> is not an integer", at: start) }
            magnitude = magnitude * radix + Int128(d)
            guard magnitude <= Int128(UInt64.max) else { throw fail("<integer>\(t.prefix(40))</integer> overflows 64 bits", at: start) }
        }
        let v = negative ? -magnitude : magnitude
        guard v >= Int128(Int64.min) else { throw fail("<integer>\(t.prefix(40))</integer> is below −2⁶³", at: start) }
        return v
    }

    static func real(_ t: String) -> Double? {
        switch t.lowercased() {
        case "nan", "+nan", "-nan": return .nan
        case "inf", "+inf", "infinity", "+infinity": return .infinity
        case "-inf", "-infinity": return -.infinity
        default:
            guard !t.isEmpty, t.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E || $0 == 0x45 || $0 == 0x65 }) else {
                return nil
            }
            return Double(t)
        }
    }

    /// Base64 as Foundation's decoder reads it (see the note at the top): "=" is a zero digit
    /// that trims the group it ends, other characters outside the alphabet are skipped.
    static func base64(_ t: String) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(t.utf8.count / 4 * 3)
        var acc: UInt32 = 0, n = 0, equals = 0
        for c in t.utf8 {
            let v: UInt32
            switch c {
            case 0x41...0x5A: v = UInt32(c - 0x41); equals = 0
            case 0x61...0x7A: v = UInt32(c - 0x61 + 26); equals = 0
            case 0x30...0x39: v = UInt32(c - 0x30 + 52); equals = 0
            case UInt8(ascii: "+"): v = 62; equals = 0
            case UInt8(ascii: "/"): v = 63; equals = 0
            case UInt8(ascii: "="): v = 0; equals += 1
            case 0x20, 0x09, 0x0A, 0x0D, 0x0B, 0x0C: continue
            default: equals = 0; continue
            }
            acc = acc << 6 | v
            n += 1
            if n == 4 {
                out.append(UInt8(truncatingIfNeeded: acc >> 16))
                if equals < 2 { out.append(UInt8(truncatingIfNeeded: acc >> 8)) }
                if equals < 1 { out.append(UInt8(truncatingIfNeeded: acc)) }
                acc = 0; n = 0
            }
        }
        return out
    }
}
