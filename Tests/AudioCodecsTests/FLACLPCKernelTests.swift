// The FLAC decoder's AVX2 linear-prediction restore (CFLACKernels/lpc.c) against RFC 9639
// §9.2.6 written out plainly here: a signal's residuals are computed by the definition
// (e[i] = x[i] − (Σ c[j]·x[i−1−j]) >> shift, wrapping 64-bit), and the kernel must turn them back
// into exactly x. Every order 1…32 alone and every pair of orders (the stereo loop pads both
// channels to the larger one's taps), at 16, 24 and 32 bits with stretches of full-scale
// extremes (the kernel multiplies the samples' low 32 bits, so 32-bit samples at ±2^31 are its
// edge), random 15-bit coefficients and shifts 0…15, and block lengths around the loop's
// warm-up (n ≤ order, n just past 4 + 4·groups). The decoder-level checks against ffmpeg's
// decoding are in FLACDecoderFastPathTests (every order at 16-bit stereo and 24-bit mono, every
// depth 4…32). Skips visibly without AVX2 (the Swift loop runs then).
import Testing
import CFLACKernels

@Suite struct FLACLPCKernelTests {
    static let avx2 = cflac_has_avx2() != 0

    /// A correlated signal within `bits` bits, with a stretch alternating between the extremes.
    static func signal(_ n: Int, bits: Int, seed: UInt64) -> [Int64] {
        var s = seed | 1
        var previous: Int64 = 0
        let limit = (Int64(1) << Int64(bits - 1)) - 1
        return (0..<n).map { i in
            s = s &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            if i % 300 >= 280 { return i % 2 == 0 ? limit : -limit - 1 }
            let step = Int64(bitPattern: s) >> (64 - max(2, bits - 3))
            previous = min(limit, max(-limit - 1, previous &+ step))
            return previous
        }
    }

    struct Case {
        var x: [Int64], residual: [Int64], c: [Int64], shift: Int
    }

    /// Random coefficients (15-bit signed, the widest FLAC codes) and shift, and x's residuals.
    static func make(_ x: [Int64], order: Int, seed: UInt64) -> Case {
        var s = seed | 1
        func next() -> UInt64 { s = s &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407; return s >> 33 }
        let c = (0..<order).map { _ in Int64(next() % 32768) - 16384 }
        let shift = Int(next() % 16)
        var e = x
        for i in order..<x.count {
            var sum: Int64 = 0
            for j in 0..<order { sum &+= c[j] &* x[i - 1 - j] }
            e[i] = x[i] &- (sum >> Int64(shift))
        }
        return Case(x: x, residual: e, c: c, shift: shift)
    }

    @Test func everyOrderAloneRestoresTheSignal() {
        guard Self.avx2 else { print("SKIP FLAC LPC kernel: AVX2 unavailable (no AVX2 on this CPU, or OPENAVFAUDIO_FLAC_PORTABLE set)"); return }
        var wrong: [String] = []
        for bits in [16, 24, 32] {
            let x = Self.signal(1000, bits: bits, seed: UInt64(bits))
            for order in 1...32 {
                let k = Self.make(x, order: order, seed: UInt64(order * 100 + bits))
                for n in Set([order, order + 1, 4 + 4 * max(0, (order - 1) / 4) + 1, 37, 1000]) where n <= x.count {
                    var s = Array(k.residual[0..<n])
                    s.withUnsafeMutableBufferPointer { p in
                        cflac_lpc_restore_avx2(p.baseAddress!, k.c, Int32(order), Int32(k.shift), n)
                    }
                    if s != Array(x[0..<n]) { wrong.append("\(bits)-bit order \(order) n \(n)") }
                }
            }
        }
        #expect(wrong.isEmpty, "restored samples differ: \(wrong.prefix(20))")
    }

    @Test func everyPairOfOrdersRestoresBothSignals() {
        guard Self.avx2 else { print("SKIP FLAC LPC kernel: AVX2 unavailable (no AVX2 on this CPU, or OPENAVFAUDIO_FLAC_PORTABLE set)"); return }
        var wrong: [String] = []
        for bits in [16, 24, 32] {
            let n = 300
            let xa = Self.signal(n, bits: bits, seed: UInt64(bits) * 7), xb = Self.signal(n, bits: bits, seed: UInt64(bits) * 11 + 3)
            let a = (1...32).map { Self.make(xa, order: $0, seed: UInt64($0 * 31 + bits)) }
            let b = (1...32).map { Self.make(xb, order: $0, seed: UInt64($0 * 57 + bits)) }
            for orderA in 1...32 {
                for orderB in 1...32 {
                    let ka = a[orderA - 1], kb = b[orderB - 1]
                    // Full length, and a block barely past both warm-ups.
                    for length in [n, max(orderA, orderB) + 2] {
                        var sa = Array(ka.residual[0..<length]), sb = Array(kb.residual[0..<length])
                        sa.withUnsafeMutableBufferPointer { pa in
                            sb.withUnsafeMutableBufferPointer { pb in
                                cflac_lpc_restore_pair_avx2(pa.baseAddress!, ka.c, Int32(orderA), Int32(ka.shift),
                                                            pb.baseAddress!, kb.c, Int32(orderB), Int32(kb.shift), length)
                            }
                        }
                        if sa != Array(xa[0..<length]) || sb != Array(xb[0..<length]) {
                            wrong.append("\(bits)-bit orders \(orderA)/\(orderB) n \(length)")
                        }
                    }
                }
            }
        }
        #expect(wrong.isEmpty, "restored samples differ: \(wrong.prefix(20))")
    }
}
