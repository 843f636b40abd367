// The linear-PCM integer storage formats: 8-bit unsigned and signed, 16-, 24- and 32-bit signed in
// either byte order. Each only says how to move its raw value in and out of memory; the scaling
// rules come from `IntegerSampleStorage`'s defaults (see SampleScaling.swift).

/// 8-bit offset binary: 0 is the most negative value, 128 silence, 255 the most positive (WAV).
enum UInt8Storage: IntegerSampleStorage {
    static var byteCount: Int { 1 }
    static var bits: Int { 8 }

    @inline(__always)
    static func loadInteger(_ p: UnsafeRawPointer) -> Int32 {
        // Removing the offset of 128 gives the two's-complement value, so (x - 128) / 128 is the
        // float: 0 → -1.0, 128 → 0, 255 → 127/128.
        Int32(p.load(as: UInt8.self)) &- 128
    }

    @inline(__always)
    static func store(integer x: Int32, to p: UnsafeMutableRawPointer) {
        p.storeBytes(of: UInt8(truncatingIfNeeded: x &+ 128), as: UInt8.self)
    }
}

/// 8-bit two's complement (AIFF, Sun .au).
enum Int8Storage: IntegerSampleStorage {
    static var byteCount: Int { 1 }
    static var bits: Int { 8 }

    @inline(__always)
    static func loadInteger(_ p: UnsafeRawPointer) -> Int32 { Int32(p.load(as: Int8.self)) }

    @inline(__always)
    static func store(integer x: Int32, to p: UnsafeMutableRawPointer) {
        p.storeBytes(of: Int8(truncatingIfNeeded: x), as: Int8.self)
    }
}

/// 16-bit two's complement in byte order `E`.
enum Int16Storage<E: ByteOrder>: IntegerSampleStorage {
    static var byteCount: Int { 2 }
    static var bits: Int { 16 }

    @inline(__always)
    static func loadInteger(_ p: UnsafeRawPointer) -> Int32 { Int32(E.load(p, as: Int16.self)) }

    @inline(__always)
    static func store(integer x: Int32, to p: UnsafeMutableRawPointer) {
        E.store(Int16(truncatingIfNeeded: x), to: p)
    }
}

/// 24-bit two's complement packed in three bytes, in byte order `E`.
enum Int24Storage<E: ByteOrder>: IntegerSampleStorage {
    static var byteCount: Int { 3 }
    static var bits: Int { 24 }

    @inline(__always)
    static func loadInteger(_ p: UnsafeRawPointer) -> Int32 {
        // Three single-byte loads: a 4-byte load would read past the end of the last sample.
        // (Byte loads also vectorise best: the loop vectoriser sees three interleaved byte
        // streams and unpacks whole vectors of them.) The bytes are assembled into the top 24
        // bits of a word and shifted down arithmetically, which sign-extends bit 23 for free.
        let b0 = UInt32(p.load(fromByteOffset: 0, as: UInt8.self))
        let b1 = UInt32(p.load(fromByteOffset: 1, as: UInt8.self))
        let b2 = UInt32(p.load(fromByteOffset: 2, as: UInt8.self))
        let word = E.isBigEndian ? (b0 << 24 | b1 << 16 | b2 << 8) : (b2 << 24 | b1 << 16 | b0 << 8)
        return Int32(bitPattern: word) >> 8
    }

    @inline(__always)
    static func store(integer x: Int32, to p: UnsafeMutableRawPointer) {
        let low = UInt8(truncatingIfNeeded: x)
        let middle = UInt8(truncatingIfNeeded: x >> 8)
        let high = UInt8(truncatingIfNeeded: x >> 16)
        p.storeBytes(of: E.isBigEndian ? high : low, toByteOffset: 0, as: UInt8.self)
        p.storeBytes(of: middle, toByteOffset: 1, as: UInt8.self)
        p.storeBytes(of: E.isBigEndian ? low : high, toByteOffset: 2, as: UInt8.self)
    }
}

/// 32-bit two's complement in byte order `E`.
enum Int32Storage<E: ByteOrder>: IntegerSampleStorage {
    static var byteCount: Int { 4 }
    static var bits: Int { 32 }

    @inline(__always)
    static func loadInteger(_ p: UnsafeRawPointer) -> Int32 { E.load(p, as: Int32.self) }

    @inline(__always)
    static func store(integer x: Int32, to p: UnsafeMutableRawPointer) { E.store(x, to: p) }
}
