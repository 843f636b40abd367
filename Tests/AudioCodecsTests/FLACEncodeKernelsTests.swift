// The FLAC encoder's C kernels (CFLACEncodeKernels.h) against their definitions written out
// plainly here (RFC 9639 §9.2.5–§9.2.7, the autocorrelation's sum), in both variants: the
// baseline and, where this CPU has it, AVX2 — the two must agree to the bit, since the encoder
// picks one per machine and its output must not depend on which. The signals cover what the
// encoder feeds them: 16-bit program-like values, 33-bit side channels (the wide path), and
// residuals at and past the 32-bit limit (the range check).
import Foundation
import Testing
import AudioCodecs
import CFLACKernels

@Suite struct FLACEncodeKernelsTests {
    static let variants: [Int32] = cflac_encode_has_avx2() != 0 ? [0, 1] : [0]

    static func signal(_ n: Int, bits: Int, seed: UInt64) -> [Int64] {
        var s = seed | 1
        var previous: Int64 = 0
        return (0..<n).map { _ in
            s = s &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            // A random walk (correlated, like audio) kept within the depth.
            let step = Int64(bitPattern: s) >> (64 - max(2, bits - 3))
            let limit = (Int64(1) << Int64(bits - 1)) - 1
            previous = min(limit, max(-limit - 1, previous &+ step))
            return previous
        }
    }

    @Test func fixedSumsAndResiduals() {
        for bits in [16, 24, 33] {
            let x = Self.signal(4096, bits: bits, seed: UInt64(bits))
            let n = x.count
            func e(_ order: Int, _ i: Int) -> Int64 {
                switch order {
                case 0: return x[i]
                case 1: return x[i] - x[i - 1]
                case 2: return x[i] - 2 * x[i - 1] + x[i - 2]
                case 3: return x[i] - 3 * x[i - 1] + 3 * x[i - 2] - x[i - 3]
                default: return x[i] - 4 * x[i - 1] + 6 * x[i - 2] - 4 * x[i - 3] + x[i - 4]
                }
            }
            let expectedSums = (0...4).map { o in (4..<n).reduce(UInt64(0)) { $0 + e(o, $1).magnitude } }
            for v in Self.variants {
                var sums = [UInt64](repeating: 0, count: 5)
                cflac_fixed_sums(v, x, n, &sums)
                #expect(sums == expectedSums, "bits \(bits), variant \(v)")
                for order in 0...4 {
                    var r = [Int64](repeating: 0, count: n)
                    let ok = cflac_fixed_residual(v, x, n, Int32(order), &r)
                    let expected = (order..<n).map { e(order, $0) }
                    #expect(Array(r[order...]) == expected)
                    #expect((ok != 0) == expected.allSatisfy { $0.magnitude <= UInt64(Int32.max) })
                }
            }
        }
    }

    @Test func lpcResidualNarrowAndWide() {
        for (bits, order) in [(16, 1), (16, 8), (17, 5), (16, 12), (24, 12), (16, 20), (33, 8)] {
            let x = Self.signal(4096, bits: bits, seed: UInt64(order * 100 + bits))
            let n = x.count
            var s = UInt64(order) | 1
            let c: [Int64] = (0..<order).map { _ in
                s = s &* 6_364_136_223_846_793_005 &+ 1
                return Int64(bitPattern: s) >> 52   // 12-bit signed
            }
            let shift = 10
            let expected: [Int64] = (order..<n).map { i in
                var sum: Int64 = 0
                for j in 0..<order { sum &+= c[j] &* x[i - 1 - j] }
                return x[i] &- (sum >> Int64(shift))
            }
            let inRange = expected.allSatisfy { $0.magnitude <= UInt64(Int32.max) }
            for v in Self.variants {
                var r = [Int64](repeating: 0, count: n)
                let ok = cflac_lpc_residual(v, x, n, c, Int32(order), Int32(shift), bits <= 32 ? 1 : 0, &r)
                #expect(Array(r[order...]) == expected, "bits \(bits), order \(order), variant \(v)")
                #expect((ok != 0) == inRange)
            }
        }
    }

    @Test func residualRangeLimitIsExclusiveOfMinus2To31() {
        // ±(2^31 − 1) pass; −2^31 does not (RFC 9639 §9.2.7 lets decoders assume it never occurs).
        for v in Self.variants {
            var r = [Int64](repeating: 0, count: 8)
            #expect(cflac_fixed_residual(v, [0, Int64(Int32.max), -Int64(Int32.max), 0, 0, 0, 0, 0], 8, 0, &r) == 1)
            #expect(cflac_fixed_residual(v, [0, Int64(Int32.min), 0, 0, 0, 0, 0, 0], 8, 0, &r) == 0)
        }
    }

    @Test func partitionSumsAndOrs() {
        let r = Self.signal(4096, bits: 14, seed: 7)
        for (order, partitions) in [(0, 1), (8, 16), (32, 64), (4, 256)] {
            let size = r.count / partitions
            var expectedSums = [UInt64](), expectedOrs = [UInt64]()
            for p in 0..<partitions {
                let folded = (max(p * size, order)..<((p + 1) * size)).map { UInt64(bitPattern: (r[$0] << 1) ^ (r[$0] >> 63)) }
                expectedSums.append(folded.reduce(0, +))
                expectedOrs.append(folded.reduce(0, |))
            }
            for v in Self.variants {
                var sums = [UInt64](repeating: 0, count: partitions), ors = sums
                cflac_partition_sums(v, r, r.count, Int32(order), Int32(partitions), &sums, &ors)
                #expect(sums == expectedSums && ors == expectedOrs, "order \(order), \(partitions) partitions, variant \(v)")
            }
        }
    }

    @Test func windowedAutocorrelationMatchesEightLaneSums() {
        for n in [4096, 1001, 7] {
            let s = Self.signal(n, bits: 16, seed: UInt64(n))
            let w = (0..<n).map { Float(0.5 + 0.5 * Double($0 % 17) / 17) }
            let x = (0..<n).map { Float(s[$0]) * w[$0] }
            let maxLag = min(8, n - 1)
            var expected = [Double]()
            for lag in 0...maxLag {
                // The documented order of additions, in Float: lane j takes i ≡ lag + j (mod 8),
                // the tail lane 0, then ((0 + 1) + (2 + 3)) + ((4 + 5) + (6 + 7)).
                var lanes = [Float](repeating: 0, count: 8)
                var i = lag
                while i + 7 < n {
                    for j in 0..<8 { lanes[j] += x[i + j] * x[i + j - lag] }
                    i += 8
                }
                while i < n { lanes[0] += x[i] * x[i - lag]; i += 1 }
                let sum: Float = ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]))
                expected.append(Double(sum))
                // And close to the exact sum in Double (Float's rounding only steers the choice of
                // coefficients; the relative error of a sum of 4,096 products stays far below 1e-4).
                var exact = 0.0
                for i in lag..<n { exact += Double(x[i]) * Double(x[i - lag]) }
                #expect(abs(Double(sum) - exact) <= 1e-4 * max(1, abs(exact), expected[0]), "n \(n), lag \(lag)")
            }
            for v in Self.variants {
                var scratch = [Float](repeating: 0, count: n), autoc = [Double](repeating: 0, count: maxLag + 1)
                cflac_window_autocorrelation(v, s, w, n, Int32(maxLag), &scratch, &autoc)
                #expect(scratch == x)
                #expect(autoc == expected, "n \(n), variant \(v)")
            }
        }
    }

    @Test func riceRunWritesWhatTheOneCodeWriterWrites() {
        // Small and large residuals, including codes longer than 32 and 64 bits, and a buffer
        // that starts small so the run stops and grows it on the way.
        var values = Self.signal(3000, bits: 12, seed: 3)
        values += [1 << 20, -(1 << 21), 5_000_000, 0, -1, 77, -300_000]
        for k in [0, 1, 4, 11, 14, 30] {
            var reference = FLACBitWriter(capacity: 64)
            var run = FLACBitWriter(capacity: 64)
            defer { reference.deallocate(); run.deallocate() }
            reference.write(0b101, 3)
            run.write(0b101, 3)
            for v in values { reference.writeRice(UInt64(bitPattern: (v << 1) ^ (v >> 63)), k) }
            values.withUnsafeBufferPointer { run.writeRiceRun($0.baseAddress!, count: $0.count, parameter: k) }
            reference.alignAndFlush()
            run.alignAndFlush()
            #expect(run.count == reference.count && memcmp(run.bytes, reference.bytes, run.count) == 0, "k \(k)")
        }
    }
}

extension FLACEncodeKernelsTests {
    @Test func scanFindsConstantBlocksAndCommonZeroBits() {
        for v in Self.variants {
            var ored: UInt64 = 0
            #expect(cflac_scan(v, [Int64](repeating: -7, count: 100), 100, &ored) == 1)
            let x: [Int64] = (0..<100).map { Int64($0 - 50) * 12 }
            #expect(cflac_scan(v, x, 100, &ored) == 0)
            #expect(ored.trailingZeroBitCount == 2)
        }
    }

    /// The plan against the documented estimate priced by brute force: every partition order,
    /// every k ≤ 30 near the optimum, and the escape.
    @Test func ricePlanIsTheCheapestByTheDocumentedEstimate() {
        for (seed, order, bits) in [(1, 8, 12), (2, 0, 3), (3, 32, 20), (4, 2, 1)] {
            let n = 4096
            let r = Self.signal(n, bits: bits, seed: UInt64(seed)).map { $0 - (bits == 1 ? 0 : 1) }
            // The encoder's finest order: partitions longer than the predictor order, at most 8.
            var top = 0
            while top < 8, n >> (top + 1) > order { top += 1 }
            var sums = [UInt64](repeating: 0, count: 256), ors = sums
            cflac_partition_sums(0, r, n, Int32(order), Int32(1 << top), &sums, &ors)
            var expectedBest = Int64.max, expectedOrder = -1
            for level in stride(from: top, through: 0, by: -1) {
                let count = 1 << level, size = n >> level
                var body: Int64 = 0, largest = 0
                for p in 0..<count {
                    let folded = (max(p * size, order)..<((p + 1) * size)).map { UInt64(bitPattern: (r[$0] << 1) ^ (r[$0] >> 63)) }
                    let m = Int64(folded.count), S = folded.reduce(0, +), o = folded.reduce(0, |)
                    // The kernel tries ⌊log2(S/m)⌋ ± 1; the estimate is convex in k, so that is its minimum.
                    var rice = Int64.max, bestK = 0
                    for k in 0...30 {
                        let cost = m * Int64(k + 1) + Int64(S >> UInt64(k)) - (k == 0 ? 0 : m >> 1)
                        if cost < rice { rice = cost; bestK = k }
                    }
                    let width = o == 0 ? 0 : 64 - o.leadingZeroBitCount
                    let escape = width <= 31 ? 5 + m * Int64(width) : Int64.max
                    if escape < rice { body += escape } else { body += rice; largest = max(largest, bestK) }
                }
                let total = 6 + body + Int64(count * (largest > 14 ? 5 : 4))
                if total < expectedBest { expectedBest = total; expectedOrder = level }
            }
            var plan = CFLACRicePlan()
            cflac_rice_plan(&sums, &ors, Int32(top), n, Int32(order), &plan)
            #expect(plan.bits == expectedBest && Int(plan.partitionOrder) == expectedOrder, "seed \(seed)")
        }
    }
}
