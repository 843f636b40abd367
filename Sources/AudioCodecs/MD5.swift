// MD5 (RFC 1321), written from the RFC for FLAC's STREAMINFO signature of the unencoded audio
// (RFC 9639 §8.2). Not for security: FLAC uses it only to detect decoding errors.
//
// The message is processed in 64-byte blocks of sixteen little-endian words through four rounds
// of sixteen steps; the sines table T[i] = floor(2^32 · |sin(i + 1)|) is computed once from its
// definition, and the rounds run in C (cflac_md5_blocks, CFLACEncodeKernels.h). The message is padded with a 1 bit, zeros to 56 mod 64 bytes, and its length in
// bits as a little-endian 64-bit number.

import CFLACKernels
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
        if count - i >= 64 {
            let blocks = (count - i) / 64
            compress(UnsafeRawPointer(bytes + i), blocks: blocks)
            i += 64 * blocks
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

    /// One 64-byte block through the four rounds (RFC 1321 §3.4), in C (CFLACEncodeKernels.h):
    /// the FLAC writer hashes every sample it encodes, and the C loop, unrolled with constant
    /// indices, is several times faster than the same loop here.
    private mutating func compress(_ p: UnsafeRawPointer) {
        compress(p, blocks: 1)
    }

    private mutating func compress(_ p: UnsafeRawPointer, blocks: Int) {
        withUnsafeMutableBytes(of: &state) { s in
            MD5.table.withUnsafeBufferPointer { t in
                cflac_md5_blocks(s.baseAddress!.assumingMemoryBound(to: UInt32.self), p.assumingMemoryBound(to: UInt8.self), blocks, t.baseAddress!)
            }
        }
    }
}
