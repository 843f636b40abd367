// G.711 bytes as storage formats. They behave as 16-bit integers: a byte decodes to the 16-bit
// linear value of G.711's reference decoder, and anything stored is first brought to 16 bits by the
// usual rules (float × 32768 rounded and clipped; wider integers rounded) and then companded.
// So float → µ-law → float is exactly `audioop.ulaw2lin(audioop.lin2ulaw(x16, 2), 2) / 32768`.

/// G.711 µ-law bytes.
enum ULawStorage: IntegerSampleStorage {
    static var byteCount: Int { 1 }
    static var bits: Int { 16 }

    @inline(__always)
    static func loadInteger(_ p: UnsafeRawPointer) -> Int32 {
        Int32(G711.linear(fromULaw: p.load(as: UInt8.self)))
    }

    @inline(__always)
    static func store(integer x: Int32, to p: UnsafeMutableRawPointer) {
        p.storeBytes(of: G711.ulaw(fromLinear: Int16(truncatingIfNeeded: x)), as: UInt8.self)
    }
}

/// G.711 A-law bytes.
enum ALawStorage: IntegerSampleStorage {
    static var byteCount: Int { 1 }
    static var bits: Int { 16 }

    @inline(__always)
    static func loadInteger(_ p: UnsafeRawPointer) -> Int32 {
        Int32(G711.linear(fromALaw: p.load(as: UInt8.self)))
    }

    @inline(__always)
    static func store(integer x: Int32, to p: UnsafeMutableRawPointer) {
        p.storeBytes(of: G711.alaw(fromLinear: Int16(truncatingIfNeeded: x)), as: UInt8.self)
    }
}
