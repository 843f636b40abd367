// The property-list reader (AudioFileFormats/PropertyList) against two external references on the
// same bytes: Foundation's `PropertyListSerialization` (its writer produces the XML and binary
// files, its parser gives the expected objects) and Python's `plistlib` (a second writer, whose
// binary form differs from Foundation's: 16-byte integers, UIDs, its own uniquing). Then hostile
// binary and XML input, which must give errors naming a byte offset, never a trap.
import Foundation
import Testing
@testable import AVFAudio
import AudioFileFormats

@Suite struct PropertyListReaderTests {
    /// nil when `a` (ours) and `b` (Foundation's) are the same objects, else where they differ.
    static func difference(_ a: Any, _ b: Any, _ path: String = "root") -> String? {
        if type(of: a) == Bool.self || type(of: b) == Bool.self {
            return type(of: a) == Bool.self && type(of: b) == Bool.self && (a as! Bool) == (b as! Bool) ? nil : "\(path): \(a) vs \(b)"
        }
        if let x = a as? String {
            return (b as? String) == x ? nil : "\(path): string \(x.debugDescription) vs \(b)"
        }
        if let x = a as? Data { return (b as? Data) == x ? nil : "\(path): data \(x as NSData) vs \(b)" }
        if let x = a as? Date {
            return (b as? Date)?.timeIntervalSinceReferenceDate == x.timeIntervalSinceReferenceDate ? nil : "\(path): date \(x) vs \(b)"
        }
        if let x = a as? [String: Any] {
            guard let y = b as? [String: Any], Set(x.keys) == Set(y.keys) else { return "\(path): dict keys \(x.keys.sorted()) vs \(b)" }
            for k in x.keys.sorted() { if let d = difference(x[k]!, y[k]!, "\(path).\(k)") { return d } }
            return nil
        }
        if let x = a as? [Any] {
            guard let y = b as? [Any], x.count == y.count else { return "\(path): array of \(x.count) vs \(b)" }
            for i in x.indices { if let d = difference(x[i], y[i], "\(path)[\(i)]") { return d } }
            return nil
        }
        if type(of: a) == NSNumber.self || a is NSNumber {
            guard let x = a as? NSNumber, let y = b as? NSNumber, "\(type(of: a))" == "\(type(of: b))" else { return "\(path): \(type(of: a)) vs \(type(of: b))" }
            if x.doubleValue.isNaN && y.doubleValue.isNaN { return nil }
            return x.doubleValue == y.doubleValue && x.int64Value == y.int64Value && x.uint64Value == y.uint64Value ? nil : "\(path): \(x) vs \(y)"
        }
        return "\(path): unexpected \(type(of: a))"
    }

    /// Parses `bytes` with both readers; records a failure when they differ.
    static func expectSame(_ bytes: Data, _ label: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let reference: Any?
        do { reference = try PropertyListSerialization.propertyList(from: bytes, format: nil) } catch { reference = nil }
        let ours: Any?
        do { ours = try readPropertyList(bytes) } catch {
            ours = nil
            #expect(reference == nil, "\(label): ours refused what Foundation read: \(error)", sourceLocation: sourceLocation)
        }
        guard let ours else { return }
        guard let reference else { Issue.record("\(label): ours read what Foundation refused: \(ours)", sourceLocation: sourceLocation); return }
        if let d = difference(ours, reference) { Issue.record("\(label): \(d)", sourceLocation: sourceLocation) }
    }

    /// Every value type, at the edges of its range.
    static let everyType: [String: Any] = [
        "string": "plain", "empty": "", "markup": "a < b & c > d \"q\" 'a' ]]> <![CDATA[x]]>",
        "unicode": "Grüße, 日本語, 🎹 and a tab\there", "newlines": "line 1\nline 2\r\n",
        "integers": [0, 1, -1, 127, 128, 255, 256, 65_535, 65_536, Int(Int32.max), Int(UInt32.max), -4_294_967_296,
                     Int.max, Int.min] as [Any],
        "unsigned max": UInt64.max, "above Int64": UInt64(Int64.max) + 1,
        "reals": [0.0, -0.0, 1.5, -2.25, 1e-300, Double.leastNonzeroMagnitude, 1.7976931348623157e308, Double.pi, 0.1, Double.infinity, -Double.infinity] as [Any],
        "float": Float(1.25),
        "booleans": [true, false] as [Any],
        "dates": [Date(timeIntervalSinceReferenceDate: 0), Date(timeIntervalSinceReferenceDate: 783_098_096),
                  Date(timeIntervalSinceReferenceDate: -3_187_296_000), Date(timeIntervalSince1970: 0)] as [Any],
        "data": Data((0..<300).map { UInt8(truncatingIfNeeded: $0 &* 37) }), "empty data": Data(), "short data": Data([0xFF]),
        "nested": ["a": [1, ["b": [Data([1, 2]), "x"] as [Any]] as [String: Any]] as [Any], "empty array": [Any](), "empty dict": [String: Any]()] as [String: Any],
        "shared": ["same", "same", "same"],
    ]

    @Test("Every value type in Foundation's XML and binary output reads as Foundation's parser reads it")
    func foundationWrittenFiles() throws {
        for format in [PropertyListSerialization.PropertyListFormat.xml, .binary] {
            let bytes = try PropertyListSerialization.data(fromPropertyList: Self.everyType, format: format, options: 0)
            Self.expectSame(bytes, "\(format == .xml ? "XML" : "binary") file")
            // and the value itself, not only agreement: a few leaves through our own value type
            let value = try PropertyList.parse([UInt8](bytes))
            #expect(value["unsigned max"] == .integer(Int128(UInt64.max)))
            #expect(value["float"] == .real(1.25))
            #expect(value["unicode"] == .string("Grüße, 日本語, 🎹 and a tab\there"))
            guard case .array(let dates)? = value["dates"], dates.count == 4 else { Issue.record("no dates"); continue }
            #expect(dates[1] == .date(783_098_096))
        }
        // NaN separately (Foundation's writer writes "nan"; NaN is unequal to itself in a dictionary test)
        for format in [PropertyListSerialization.PropertyListFormat.xml, .binary] {
            let bytes = try PropertyListSerialization.data(fromPropertyList: ["nan": Double.nan], format: format, options: 0)
            Self.expectSame(bytes, "NaN")
            #expect((try readPropertyList(bytes) as? [String: Any])?["nan"].flatMap { ($0 as? NSNumber)?.doubleValue.isNaN } == true)
        }
    }

    /// XML written by hand: the forms Foundation's writer never produces but its parser accepts
    /// (and a few it refuses), each compared with Foundation's parser.
    static let handWrittenXML: [String] = [
        "<plist><string>a&amp;b&lt;c&gt;d&quot;e&apos;f</string></plist>",
        "<plist><string>&#65;&#x42;&#x1F3B9;&#233;&#xE9;</string></plist>",
        "<plist><string>x<![CDATA[<dict> & ]] ]>]]>y</string></plist>",
        "<plist><string>a<!-- c -->b</string></plist>",
        "<plist><string>&#xD800;</string></plist>",
        "<plist><string>&bogus;</string></plist>",
        "<?xml version=\"1.0\"?><!-- before --><!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n<plist version=\"1.0\">\n<!-- inside --><dict><!-- between --><key>k</key><!-- after key --><integer>1</integer></dict><!-- end --></plist>\n<!-- trailing -->\n",
        "<plist><array><integer>-5</integer><integer>+7</integer><integer>0x1F</integer><integer>-0x10</integer><integer>0XfF</integer><integer>  12</integer><integer>007</integer></array></plist>",
        "<plist><integer>18446744073709551615</integer></plist>",
        "<plist><integer>18446744073709551616</integer></plist>",
        "<plist><integer>-9223372036854775808</integer></plist>",
        "<plist><integer>-9223372036854775809</integer></plist>",
        "<plist><integer>12a</integer></plist>",
        "<plist><integer></integer></plist>",
        "<plist><array><real>nan</real><real>inf</real><real>+inf</real><real>-inf</real><real>infinity</real><real>-infinity</real><real>NaN</real><real>1e400</real><real>-1.5e-3</real><real>.5</real><real>7</real></array></plist>",
        "<plist><real> 2 </real></plist>",
        "<plist><real>0x1p3</real></plist>",
        "<plist><real>abc</real></plist>",
        "<plist><array><data>AAEC\n\tAw==</data><data> A A E C </data><data>AAE=</data><data>AA==</data><data>AAE</data><data></data><data>AA=A</data><data>AAAA====</data><data>A$AAA</data><data>AA= =</data></array></plist>",
        "<plist><data/></plist>",
        "<plist><string>&#X43;</string></plist>",
        "<plist><integer>12 </integer></plist>",
        "<plist><array><integer> 12</integer><integer>\n-0x1F</integer></array></plist>",
        "<plist><array><integer/></array></plist>",
        "<plist><array><real/></array></plist>",
        "<plist><array><date/></array></plist>",
        "<plist/>",
        "<plist><array><date>2001-01-01T00:00:00Z</date><date>2024-02-29T23:59:59Z</date><date>1900-01-01T00:00:00Z</date><date>1970-01-01T00:00:00Z</date></array></plist>",
        "<plist><date>2024-02-29T12:00:00</date></plist>",
        "<plist><date>yesterday</date></plist>",
        "<plist><array><true/><false/><true></true><string/><dict/><array/></array></plist>",
        "<plist><dict><key>a</key><integer>1</integer><key>a</key><integer>2</integer><key></key><string>empty key</string></dict></plist>",
        "<string>a bare value</string>",
        "<plist><dict><key>a</key></dict></plist>",
        "<plist><dict><string>no key</string></dict></plist>",
        "<plist><dict><key>a</key><integer>1</integer></plist>",
        "<plist><array><integer>1</integer></array>",
        "<plist><unknown/></plist>",
        "<plist></plist>",
        "",
        "\u{FEFF}<plist><string>after a byte-order mark</string></plist>",
    ]

    @Test("Hand-written XML: entities, CDATA, comments, integer, real, data and date forms, as Foundation reads them")
    func handWrittenXMLAgainstFoundation() {
        for (i, text) in Self.handWrittenXML.enumerated() { Self.expectSame(Data(text.utf8), "XML case \(i): \(text.prefix(60))") }
    }

    /// Runs python3 with `script` (which writes a plist to stdout); nil when python is missing.
    static func python(_ script: String) throws -> Data? {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", "-c", script]
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = FileHandle.nullDevice
        do { try p.run() } catch { return nil }
        let out = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return p.terminationStatus == 0 ? out : nil
    }

    @Test("Python's plistlib as a second writer: the same objects in XML and binary, 16-byte integers and UIDs")
    func pythonWrittenFiles() throws {
        let values = """
        import plistlib, sys, datetime
        shared = [1, 2]
        v = {'s': 'Grüße 🎹', 'ascii': 'abc', 'i': [0, -1, 255, 65536, -2**63, 2**63 - 1, 2**63, 2**64 - 1],
             'r': [1.5, -0.0, 1e300], 'b': [True, False], 'd': datetime.datetime(2024, 2, 29, 12, 30, 15),
             'data': bytes(range(256)), 'nested': {'x': [shared, shared, {}], 'y': []}}
        """
        for fmt in ["FMT_XML", "FMT_BINARY"] {
            guard let bytes = try Self.python(values + "\nsys.stdout.buffer.write(plistlib.dumps(v, fmt=plistlib.\(fmt)))") else {
                Issue.record("python3 with plistlib is not available"); return
            }
            Self.expectSame(bytes, "plistlib \(fmt)")
            let value = try PropertyList.parse([UInt8](bytes))
            #expect(value["d"] == .date(Double(PropertyListDateProbe.seconds2024)))
        }
        // a UID (binary only): plistlib writes marker 0x8n; we give ["CF$UID": n]
        let uid = try #require(try Self.python("import plistlib, sys\nsys.stdout.buffer.write(plistlib.dumps({'u': plistlib.UID(300)}, fmt=plistlib.FMT_BINARY))"))
        #expect(try PropertyList.parse([UInt8](uid))["u"] == .uid(300))
        let object = try #require(try readPropertyList(uid) as? [String: Any])
        #expect(((object["u"] as? [String: Any])?["CF$UID"] as? NSNumber)?.intValue == 300)
    }

    enum PropertyListDateProbe {
        /// 2024-02-29T12:30:15Z in seconds since 2001 (Foundation's calendar, computed here).
        static let seconds2024: Int = {
            var c = DateComponents()
            (c.year, c.month, c.day, c.hour, c.minute, c.second) = (2024, 2, 29, 12, 30, 15)
            var cal = Calendar(identifier: .gregorian)
            cal.timeZone = TimeZone(identifier: "UTC")!
            return Int(cal.date(from: c)!.timeIntervalSinceReferenceDate)
        }()
    }

    // MARK: hostile input

    /// A binary plist from raw objects (1-byte references, 2-byte offsets) and a trailer that the
    /// caller may override field by field.
    static func bplist(_ objects: [[UInt8]], top: UInt64 = 0, count: UInt64? = nil, tableOffset: UInt64? = nil,
                       offsetSize: UInt8 = 2, refSize: UInt8 = 1, offsets: [Int]? = nil) -> [UInt8] {
        var out = Array("bplist00".utf8)
        var starts: [Int] = []
        for o in objects { starts.append(out.count); out += o }
        let table = out.count
        for s in offsets ?? starts { for k in (0..<Int(offsetSize)).reversed() { out.append(UInt8(truncatingIfNeeded: s >> (8 * k))) } }
        func be64(_ v: UInt64) -> [UInt8] { (0..<8).reversed().map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
        out += [0, 0, 0, 0, 0, 0, offsetSize, refSize] + be64(count ?? UInt64(objects.count)) + be64(top) + be64(tableOffset ?? UInt64(table))
        return out
    }

    static func expectError(_ bytes: [UInt8], _ words: String, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            let v = try PropertyList.parse(bytes)
            Issue.record("read \(v) where an error mentioning \"\(words)\" was expected", sourceLocation: sourceLocation)
        } catch {
            #expect(error.problem.contains(words), "\(error)", sourceLocation: sourceLocation)
            #expect(error.offset >= 0 && error.offset <= bytes.count, "\(error)", sourceLocation: sourceLocation)
        }
    }

    @Test("The bplist builder makes files Foundation reads the same way (so the hostile cases below are well-formed around their flaw)")
    func builderIsSound() {
        // [ "ab", 5, { "k": true } ]
        let bytes = Self.bplist([[0xA3, 1, 2, 3], [0x52, 0x61, 0x62], [0x10, 5], [0xD1, 4, 5], [0x51, 0x6B], [0x09]])
        Self.expectSame(Data(bytes), "built")
        #expect((try? PropertyList.parse(bytes)) == .array([.string("ab"), .integer(5), .dictionary([(key: "k", value: .boolean(true))])]))
    }

    @Test("Hostile binary plists: huge counts, bad offsets and references, cycles, truncation, depth, DAG blow-up — errors, not traps")
    func hostileBinary() {
        let good = Self.bplist([[0xA1, 1], [0x10, 5]])
        #expect((try? PropertyList.parse(good)) == .array([.integer(5)]))
        // truncated: every prefix is an error (trailer gone or fields pointing past the end)
        for n in 0..<good.count { #expect((try? PropertyList.parse(Array(good.prefix(n)))) == nil, "prefix of \(n) bytes") }
        Self.expectError(Array(good.prefix(20)), "too short")
        // a trailer claiming 2^60 objects, and a count of 2^62 in an array's own count integer
        Self.expectError(Self.bplist([[0xA1, 1], [0x10, 5]], count: 1 << 60), "claims 1152921504606846976 objects")
        Self.expectError(Self.bplist([[0xAF, 0x13, 0x40, 0, 0, 0, 0, 0, 0, 0, 1]]), "claims 4611686018427387904 elements")
        Self.expectError(Self.bplist([[0x4F, 0x13, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]]), "elements")
        Self.expectError(Self.bplist([[0x5F, 0x13, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]]), "elements")
        Self.expectError(Self.bplist([[0x6E, 0x61, 0x62]]), "runs past the object area")
        // trailer fields out of range
        Self.expectError(Self.bplist([[0x10, 5]], offsetSize: 0), "offset size is 0")
        Self.expectError(Self.bplist([[0x10, 5]], refSize: 9), "reference size is 9")
        Self.expectError(Self.bplist([[0x10, 5]], top: 1), "top object 1")
        Self.expectError(Self.bplist([[0x10, 5]], tableOffset: 1 << 62), "offset table's offset")
        Self.expectError(Self.bplist([[0x10, 5]], count: 0), "claims 0 objects")
        // offsets into the header, the table or beyond; a reference beyond the objects
        Self.expectError(Self.bplist([[0x10, 5]], offsets: [2]), "outside the object area")
        Self.expectError(Self.bplist([[0x10, 5]], offsets: [10]), "outside the object area")
        Self.expectError(Self.bplist([[0x10, 5]], offsets: [60_000]), "outside the object area")
        Self.expectError(Self.bplist([[0xA1, 7], [0x10, 5]]), "object reference 7")
        // cycles: an array holding itself, and two dictionaries holding each other
        Self.expectError(Self.bplist([[0xA1, 0]]), "contains itself")
        Self.expectError(Self.bplist([[0xD1, 2, 1], [0xD1, 2, 0], [0x51, 0x6B]]), "contains itself")
        // a shared (not cyclic) object is fine
        #expect((try? PropertyList.parse(Self.bplist([[0xA2, 1, 1], [0xA0]]))) == .array([.array([]), .array([])]))
        // nesting: a chain of 600 one-element arrays (2-byte references), then exactly the limit
        func chain(_ n: Int) -> [UInt8] {
            var objects: [[UInt8]] = []
            for i in 1...n { objects.append([0xA1, UInt8(i >> 8), UInt8(i & 0xFF)]) }
            objects.append([0x10, 1])
            return Self.bplist(objects, refSize: 2)
        }
        Self.expectError(chain(600), "nesting deeper than 512")
        #expect((try? PropertyList.parse(chain(512))) != nil)
        // a DAG of 60 levels, each array holding the next twice: 2^60 paths from 122 objects
        var dag: [[UInt8]] = []
        for i in 1...60 { dag.append([0xA2, UInt8(i), UInt8(i)]) }
        dag.append([0x10, 1])
        Self.expectError(Self.bplist(dag), "expand to more than")
        // what this reader does not take: sets, null, non-string keys, 16-byte integers beyond 64 bits, UTF-8 in ASCII strings
        Self.expectError(Self.bplist([[0xC1, 1], [0x10, 5]]), "is a set")
        Self.expectError(Self.bplist([[0x00]]), "null or fill")
        Self.expectError(Self.bplist([[0xD1, 1, 1], [0x10, 5]]), "is not a string")
        Self.expectError(Self.bplist([[0x14, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0]]), "beyond")
        Self.expectError(Self.bplist([[0x52, 0xC3, 0xA9]]), "holds the byte 0xc3")
        Self.expectError(Self.bplist([[0x24, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]]), "a real of 16 bytes")
        Self.expectError(Array("bplist01".utf8) + Array(good.dropFirst(8)), "only \"00\"")
    }

    @Test("Hostile binary plists against Foundation: where Foundation reads them, we read the same; a crash-free error otherwise")
    func hostileBinaryAgainstFoundation() {
        // the ones Foundation handles without crashing or leaking into the test (no sets: they crash it)
        for (i, bytes) in [Self.bplist([[0xA1, 0]]), Self.bplist([[0xA1, 7], [0x10, 5]]), Self.bplist([[0x10, 5]], count: 1 << 60),
                           Self.bplist([[0xA2, 1, 1], [0xA0]]), Self.bplist([[0x14, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9]])].enumerated() {
            Self.expectSame(Data(bytes), "hostile binary \(i)")
        }
    }

    @Test("The aupreset fuzz target's two property-list findings read without Foundation: an error or a value, no trap, no leak to suppress")
    func savedFindings() throws {
        // the leak: a mutated binary plist Foundation's binary and text parsers both refused
        let leak = try [UInt8](Data(contentsOf: savedFuzzFinding("aupreset-fixed-leak-cfpropertylist-error")))
        do { _ = try PropertyList.parse(leak) } catch { #expect(!error.problem.isEmpty && error.offset <= leak.count, "\(error)") }
        // the crash: a set inside the plist, which this reader refuses by name
        let set = try [UInt8](Data(contentsOf: savedFuzzFinding("aupreset-fixed-crash-binary-plist-set")))
        #expect(throws: PropertyListError.self) { try PropertyList.parse(set) }
    }

    @Test("Hostile XML: nesting depth, unterminated elements and comments, huge entity numbers — errors with offsets")
    func hostileXML() {
        let deep = { (n: Int) -> [UInt8] in Array(("<plist>" + String(repeating: "<array>", count: n) + String(repeating: "</array>", count: n) + "</plist>").utf8) }
        Self.expectError(deep(513), "nesting deeper than 512")
        #expect((try? PropertyList.parse(deep(512))) != nil)
        Self.expectError(deep(100_000), "nesting deeper than 512")
        Self.expectError(Array("<plist><dict><key>a</key><string>x".utf8), "is not closed")
        Self.expectError(Array("<plist><!-- forever".utf8), "unterminated comment")
        Self.expectError(Array("<plist><string>&#99999999999;</string></plist>".utf8), "is not a Unicode character")
        Self.expectError(Array("<plist><string>&amp".utf8), "unterminated entity")
        Self.expectError(Array("<plist><string>\u{FF}</string></plist>".utf8.map { $0 == 0xC3 ? 0xFF : $0 }), "not UTF-8")
        Self.expectError(Array("<plist><string>x</string></plist>junk".utf8), "text after")
        Self.expectError(Array("<plist><array></dict></plist>".utf8), "is not closed by </array>")
        // the offset is where the problem is: the unknown element starts at byte 13
        do { _ = try PropertyList.parse(Array("<plist><dict><nope/></dict></plist>".utf8)); Issue.record("read") } catch {
            #expect(error.offset == 13, "\(error)")
        }
    }
}
