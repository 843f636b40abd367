// MD5 (RFC 1321), written from the RFC for FLAC's STREAMINFO signature of the unencoded audio
// (RFC 9639 §8.2). Not for security: FLAC uses it only to detect decoding errors.
//
// The message is processed in 64-byte blocks of sixteen little-endian words through four rounds
// of sixteen steps; the sines table T[i] = floor(2^32 · |sin(i + 1)|) is computed once from its
// definition. The message is padded with a 1 bit, zeros to 56 mod 64 bytes, and its length in
// bits as a little-endian 64-bit number.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An incremental MD5 digest.
public struct MD5 {
    private var state: (UInt32, UInt32, UInt32, UInt32) = (0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476)
    private var block = [UInt8](repeating: 0, count: 64)
    private var blockFill = 0
    private var length: UInt64 = 0

    private static let table: [UInt32] = (0..<64).map { i in
        UInt32(truncatingIfNeeded: Int64((abs(sin(Double(i + 1))) * 4_294_967_296.0).rounded(.down)))
    }
    private static let shifts: [UInt32] = [7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21]

    public init() {}

    /// Adds `count` bytes.
    public mutating func update(_ p: UnsafeRawPointer, count: Int) {
        let bytes = p.assumingMemoryBound(to: UInt8.self)
        length &+= UInt64(count)
        var i = 0
        if blockFill > 0 {
            while i < count && blockFill < 64 {
                block[blockFill] = bytes[i]
                blockFill += 1
                i += 1
            }
            if blockFill == 64 {
                block.withUnsafeBytes { compress($0.baseAddress!) }
                blockFill = 0
            }
        }
        while count - i >= 64 {
            compress(UnsafeRawPointer(bytes + i))
            i += 64
        }
        while i < count {
            block[blockFill] = bytes[i]
            blockFill += 1
            i += 1
        }
    }

    public mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { if let b = $0.baseAddress { update(b, count: $0.count) } }
    }

    /// The 16-byte digest of everything added (the state is left finished).
    public mutating func finish() -> [UInt8] {
        let bits = length &* 8
        var tail: [UInt8] = [0x80]
        let fillAfter = (blockFill + 1) % 64
        tail += [UInt8](repeating: 0, count: fillAfter <= 56 ? 56 - fillAfter : 120 - fillAfter)
        for k in 0..<8 { tail.append(UInt8(truncatingIfNeeded: bits >> UInt64(8 * k))) }
        let savedLength = length
        update(tail)
        length = savedLength
        var out: [UInt8] = []
        for word in [state.0, state.1, state.2, state.3] {
            for k in 0..<4 { out.append(UInt8(truncatingIfNeeded: word >> UInt32(8 * k))) }
        }
        return out
    }

    private mutating func compress(_ p: UnsafeRawPointer) {
        @inline(__always) func x(_ j: Int) -> UInt32 { UInt32(littleEndian: p.loadUnaligned(fromByteOffset: 4 * j, as: UInt32.self)) }
        var (a, b, c, d) = state
        MD5.table.withUnsafeBufferPointer { t in
            for i in 0..<64 {
                var f: UInt32
                let g: Int
                switch i >> 4 {
                case 0: f = (b & c) | (~b & d); g = i
                case 1: f = (d & b) | (~d & c); g = (5 * i + 1) & 15
                case 2: f = b ^ c ^ d; g = (3 * i + 5) & 15
                default: f = c ^ (b | ~d); g = (7 * i) & 15
                }
                f = f &+ a &+ t[i] &+ x(g)
                let s = MD5.shifts[(i >> 4) << 2 | (i & 3)]
                a = d
                d = c
                c = b
                b = b &+ (f << s | f >> (32 - s))
            }
        }
        state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d)
    }
}
