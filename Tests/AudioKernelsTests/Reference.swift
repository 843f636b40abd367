// An independent, deliberately naive model of every conversion, written from the rules in the
// task (Core Audio's scaling, G.711 per Sun's g711.c) without looking at how the kernels do it:
// bytes are assembled one at a time, all arithmetic is in Double or Int64, rounding uses
// `rounded(.toNearestOrEven)`, and G.711 uses the textbook search-based coder. The tests compare
// the kernels with this model sample by sample.

import AudioKernels

/// A file format: encoding and byte order.
struct FileFormat: CustomStringConvertible, Sendable, Hashable {
    let encoding: SampleEncoding
    let bigEndian: Bool

    var bytes: Int { encoding.bytesPerSample }
    var description: String { "\(encoding)\(bytes > 1 ? (bigEndian ? " BE" : " LE") : "")" }

    /// Every encoding in both byte orders (one-byte encodings too: the flag must be ignored).
    static let all: [FileFormat] = [SampleEncoding.unsigned8, .signed8, .signed16, .signed24, .signed32,
                                    .float32, .float64, .ulaw, .alaw]
        .flatMap { [FileFormat(encoding: $0, bigEndian: false), FileFormat(encoding: $0, bigEndian: true)] }
}

/// One sample as a number, before it is stored anywhere.
enum Value: Equatable, CustomStringConvertible {
    /// An integer of `bits` bits (G.711 values are 16-bit linear).
    case int(Int64, bits: Int)
    case float(Double)

    var description: String {
        switch self {
        case .int(let v, let b): return "int\(b)(\(v))"
        case .float(let d): return "float(\(d))"
        }
    }
}

/// One processing sample.
enum Processed: CustomStringConvertible {
    case f32(Float), f64(Double), i16(Int16), i32(Int32)

    var description: String {
        switch self {
        case .f32(let x): return "f32(\(x) \(String(x.bitPattern, radix: 16)))"
        case .f64(let x): return "f64(\(x))"
        case .i16(let x): return "i16(\(x))"
        case .i32(let x): return "i32(\(x))"
        }
    }

    /// Equality that treats every NaN as equal to every NaN (the kernels need not keep payloads
    /// through float32 ↔ float64, and neither does IEEE).
    func same(_ other: Processed) -> Bool {
        switch (self, other) {
        case (.f32(let a), .f32(let b)): return a.isNaN ? b.isNaN : a.bitPattern == b.bitPattern
        case (.f64(let a), .f64(let b)): return a.isNaN ? b.isNaN : a.bitPattern == b.bitPattern
        case (.i16(let a), .i16(let b)): return a == b
        case (.i32(let a), .i32(let b)): return a == b
        default: return false
        }
    }

    var asValue: Value {
        switch self {
        case .f32(let x): return .float(Double(x))
        case .f64(let x): return .float(x)
        case .i16(let x): return .int(Int64(x), bits: 16)
        case .i32(let x): return .int(Int64(x), bits: 32)
        }
    }
}

extension ProcessingSampleType {
    static let all: [ProcessingSampleType] = [.float32, .float64, .int16, .int32]
}

enum Reference {
    // MARK: bytes

    /// Assembles an unsigned integer from `bytes` in the given order.
    static func unsignedInteger(_ bytes: ArraySlice<UInt8>, bigEndian: Bool) -> UInt64 {
        var v: UInt64 = 0
        let ordered = bigEndian ? Array(bytes) : Array(bytes.reversed())
        for b in ordered { v = v << 8 | UInt64(b) }
        return v
    }

    static func bytes(of v: UInt64, count: Int, bigEndian: Bool) -> [UInt8] {
        let little = (0 ..< count).map { UInt8(truncatingIfNeeded: v >> (8 * UInt64($0))) }
        return bigEndian ? little.reversed() : little
    }

    /// Reads one stored sample.
    static func read(_ bytes: ArraySlice<UInt8>, _ format: FileFormat) -> Value {
        let be = format.bigEndian
        switch format.encoding {
        case .unsigned8: return .int(Int64(bytes.first!) - 128, bits: 8)
        case .signed8: return .int(Int64(Int8(bitPattern: bytes.first!)), bits: 8)
        case .signed16, .signed24, .signed32:
            let bits = format.bytes * 8
            let u = unsignedInteger(bytes, bigEndian: be)
            let signed = u >= (1 << (bits - 1)) ? Int64(u) - (1 << bits) : Int64(u)
            return .int(signed, bits: bits)
        case .float32: return .float(Double(Float(bitPattern: UInt32(unsignedInteger(bytes, bigEndian: be)))))
        case .float64: return .float(Double(bitPattern: unsignedInteger(bytes, bigEndian: be)))
        case .ulaw: return .int(Int64(G711Reference.ulawDecode(bytes.first!)), bits: 16)
        case .alaw: return .int(Int64(G711Reference.alawDecode(bytes.first!)), bits: 16)
        }
    }

    // MARK: numeric rules

    static func power(_ e: Int) -> Double { Double(sign: .plus, exponent: e, significand: 1) }

    /// Float → `bits`-bit integer: scale, round half to even, clip; NaN → 0.
    static func quantize(_ x: Double, bits: Int) -> Int64 {
        if x.isNaN { return 0 }
        let r = (x * power(bits - 1)).rounded(.toNearestOrEven)
        let top = power(bits - 1)
        if r >= top { return (1 << (bits - 1)) - 1 }
        if r < -top { return -(1 << (bits - 1)) }
        return Int64(r)
    }

    /// Integer width change: exact widening, rounding (half to even) and clipping narrowing.
    static func resize(_ v: Int64, from: Int, to: Int) -> Int64 {
        if to >= from { return v << (to - from) }
        let r = (Double(v) / power(from - to)).rounded(.toNearestOrEven)
        return min(Int64(r), (1 << (to - 1)) - 1)
    }

    /// `value` as an integer of `bits` bits, by the rules.
    static func integer(_ value: Value, bits: Int) -> Int64 {
        switch value {
        case .int(let v, let b): return resize(v, from: b, to: bits)
        case .float(let d): return quantize(d, bits: bits)
        }
    }

    /// `value` as a Double in [-1, 1) (exact for every integer).
    static func double(_ value: Value) -> Double {
        switch value {
        case .int(let v, let b): return Double(v) / power(b - 1)
        case .float(let d): return d
        }
    }

    /// What a processing buffer of type `t` must hold for `value`.
    static func processed(_ value: Value, as t: ProcessingSampleType) -> Processed {
        switch t {
        // One rounding, from the exact Double: what IEEE float32 conversion of the true value gives.
        case .float32: return .f32(Float(double(value)))
        case .float64: return .f64(double(value))
        case .int16: return .i16(Int16(integer(value, bits: 16)))
        case .int32: return .i32(Int32(integer(value, bits: 32)))
        }
    }

    /// The bytes `format` must hold for `value`.
    static func stored(_ value: Value, as format: FileFormat) -> [UInt8] {
        let be = format.bigEndian
        switch format.encoding {
        case .unsigned8: return [UInt8(integer(value, bits: 8) + 128)]
        case .signed8: return [UInt8(bitPattern: Int8(integer(value, bits: 8)))]
        case .signed16, .signed24, .signed32:
            let bits = format.bytes * 8
            return bytes(of: UInt64(bitPattern: integer(value, bits: bits)), count: format.bytes, bigEndian: be)
        case .float32:
            return bytes(of: UInt64(Float(double(value)).bitPattern), count: 4, bigEndian: be)
        case .float64:
            return bytes(of: double(value).bitPattern, count: 8, bigEndian: be)
        case .ulaw: return [G711Reference.ulawEncode(Int16(integer(value, bits: 16)))]
        case .alaw: return [G711Reference.alawEncode(Int16(integer(value, bits: 16)))]
        }
    }
}

/// G.711 as in Sun's g711.c, transcribed literally: the decoders from the formulas, the encoders
/// with the segment search over the table of segment ends.
enum G711Reference {
    static let segUEnd: [Int] = [0x3F, 0x7F, 0xFF, 0x1FF, 0x3FF, 0x7FF, 0xFFF, 0x1FFF]
    static let segAEnd: [Int] = [0x1F, 0x3F, 0x7F, 0xFF, 0x1FF, 0x3FF, 0x7FF, 0xFFF]

    static func search(_ value: Int, _ table: [Int]) -> Int {
        for (i, end) in table.enumerated() where value <= end { return i }
        return table.count
    }

    static func ulawDecode(_ byte: UInt8) -> Int16 {
        let u = Int(~byte)
        var t = ((u & 0x0F) << 3) + 0x84
        t <<= (u & 0x70) >> 4
        return Int16((u & 0x80) != 0 ? 0x84 - t : t - 0x84)
    }

    static func alawDecode(_ byte: UInt8) -> Int16 {
        let a = Int(byte ^ 0x55)
        var t = (a & 0x0F) << 4
        let seg = (a & 0x70) >> 4
        switch seg {
        case 0: t += 8
        case 1: t += 0x108
        default: t += 0x108; t <<= seg - 1
        }
        return Int16((a & 0x80) != 0 ? t : -t)
    }

    /// `linear2ulaw(pcm >> 2)` as audioop calls it for 16-bit input.
    static func ulawEncode(_ pcm: Int16) -> UInt8 {
        var v = Int(pcm) >> 2
        let mask: Int
        if v < 0 { v = -v; mask = 0x7F } else { mask = 0xFF }
        if v > 8159 { v = 8159 }
        v += 0x84 >> 2
        let seg = search(v, segUEnd)
        if seg >= 8 { return UInt8(0x7F ^ mask) }
        let uval = (seg << 4) | ((v >> (seg + 1)) & 0x0F)
        return UInt8(uval ^ mask)
    }

    /// `linear2alaw(pcm >> 3)` as audioop calls it for 16-bit input.
    static func alawEncode(_ pcm: Int16) -> UInt8 {
        var v = Int(pcm) >> 3
        let mask: Int
        if v >= 0 { mask = 0xD5 } else { mask = 0x55; v = -v - 1 }
        let seg = search(v, segAEnd)
        if seg >= 8 { return UInt8(0x7F ^ mask) }
        var aval = seg << 4
        aval |= seg < 2 ? (v >> 1) & 0x0F : (v >> seg) & 0x0F
        return UInt8(aval ^ mask)
    }
}
