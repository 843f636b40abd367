// Partitioned Rice coding of prediction residuals (RFC 9639 §9.2.7).
//
// A subframe's residual is split into 2^p equal partitions (the first one shorter by the
// predictor order), each with its own Rice parameter k, or an escape: k's field all ones, then 5
// bits of width and every residual as a plain signed number of that width. Residuals are folded
// to unsigned (0, −1, 1, −2 … → 0, 1, 2, 3 …) and coded as u >> k in unary, then k low bits.
//
// Choice: the sums and maxima of the folded values are gathered once for the finest partitioning
// allowed (p ≤ 8, 2^p dividing the block, each partition longer than the order); coarser
// partitionings merge neighbours. For a partition of m values summing to S, parameter k costs
// exactly m + S bits at k = 0 and about m·(k + 1) + (S >> k) − m/2 bits above: the quotients
// Σ(u >> k) fall short of S >> k by the dropped fractions, about ½ each (libFLAC's estimate
// subtracts the same m/2; without it every k ≥ 1 looked m/2 bits dearer than it is, which chose
// k = 0 and coarse partitionings too often: 6,315,282 → see Benchmarks/results/flac-encode-2026-11-28.md).
// k near log2(S / m) is tried with its two neighbours; an escape
// costs 5 + m·width. The partitioning with the fewest estimated bits wins. The parameter field is
// 4 bits (method 0) unless some k exceeds 14, then 5 bits (method 1, k up to 30).

/// How one residual is to be written.
struct FLACRicePlan {
    var partitionOrder = 0
    var wideParameters = false
    /// Per partition: the Rice parameter, or −1 for an escape.
    var parameters: [Int] = []
    /// Per partition: the escape width in bits (when parameters[i] == −1).
    var escapeBits: [Int] = []
    /// Estimated bits of the whole residual section, method and order fields included.
    var bits = 0
}

import CFLACKernels

/// Scratch for choosing Rice plans, sized for the largest partition order.
struct FLACResidualCoder {
    static let maximumPartitionOrder = 8
    private var sums = [UInt64](repeating: 0, count: 1 << maximumPartitionOrder)
    /// Per partition: the OR of its folded values (as wide as the largest).
    private var maxima = [UInt64](repeating: 0, count: 1 << maximumPartitionOrder)

    @inline(__always) static func fold(_ v: Int64) -> UInt64 { UInt64(bitPattern: (v << 1) ^ (v >> 63)) }

    /// The cheapest plan for residuals `r[order..<n]`.
    mutating func plan(_ r: UnsafePointer<Int64>, count n: Int, order: Int) -> FLACRicePlan {
        var top = 0
        while top < Self.maximumPartitionOrder, n % (1 << (top + 1)) == 0, n >> (top + 1) > order { top += 1 }
        let finest = 1 << top
        sums.withUnsafeMutableBufferPointer { sums in
            maxima.withUnsafeMutableBufferPointer { ors in
                // Per finest partition: the sum and the OR of the folded values (the OR is as wide
                // as the largest, which is all the escape width needs).
                cflac_partition_sums(FLACEncoder.kernelsUseAVX2, r, n, Int32(order), Int32(finest), sums.baseAddress!, ors.baseAddress!)
            }
        }
        var best = FLACRicePlan()
        best.bits = Int.max
        var level = top
        var count = finest
        while true {
            var candidate = FLACRicePlan()
            candidate.partitionOrder = level
            candidate.parameters = [Int](repeating: 0, count: count)
            candidate.escapeBits = [Int](repeating: 0, count: count)
            var body = 0
            var largestK = 0
            for p in 0..<count {
                let m = (n >> level) - (p == 0 ? order : 0)
                let (k, riceBits) = Self.bestParameter(sum: sums[p], count: m)
                let width = maxima[p] == 0 ? 0 : 64 - maxima[p].leadingZeroBitCount
                let escapeBits = width <= 31 ? 5 + m * width : Int.max
                if escapeBits < riceBits {
                    candidate.parameters[p] = -1
                    candidate.escapeBits[p] = width
                    body += escapeBits
                } else {
                    candidate.parameters[p] = k
                    largestK = max(largestK, k)
                    body += riceBits
                }
            }
            candidate.wideParameters = largestK > 14
            candidate.bits = 6 + body + count * (candidate.wideParameters ? 5 : 4)
            if candidate.bits < best.bits { best = candidate }
            if level == 0 { break }
            // Merge neighbours for the next coarser level.
            count >>= 1
            for p in 0..<count {
                sums[p] = sums[2 * p] &+ sums[2 * p + 1]
                maxima[p] = maxima[2 * p] | maxima[2 * p + 1]
            }
            level -= 1
        }
        return best
    }

    /// The Rice parameter with the fewest estimated bits for `count` folded values summing to `sum`.
    @inline(__always)
    static func bestParameter(sum: UInt64, count m: Int) -> (Int, Int) {
        guard m > 0 else { return (0, 0) }
        let mean = sum / UInt64(m)
        let guess = mean == 0 ? 0 : 63 - mean.leadingZeroBitCount
        var bestK = 0, bestBits = Int.max
        for k in min(max(0, guess - 1), 30)...min(guess + 1, 30) {
            let q = sum >> UInt64(k)
            let bits = q > UInt64(Int.max / 2) ? Int.max / 2 : m * (k + 1) + Int(q) - (k == 0 ? 0 : m >> 1)
            if bits < bestBits { bestBits = bits; bestK = k }
        }
        return (bestK, bestBits)
    }

    /// Writes the residual section for `r[order..<n]` as `plan` says.
    static func write(_ r: UnsafePointer<Int64>, count n: Int, order: Int, plan: FLACRicePlan, to w: inout FLACBitWriter) {
        w.write(plan.wideParameters ? 1 : 0, 2)
        w.write(UInt32(plan.partitionOrder), 4)
        let parameterBits = plan.wideParameters ? 5 : 4
        let escape: UInt32 = plan.wideParameters ? 31 : 15
        let size = n >> plan.partitionOrder
        var i = order
        for p in 0..<(1 << plan.partitionOrder) {
            let end = (p + 1) * size
            let k = plan.parameters[p]
            if k < 0 {
                let width = plan.escapeBits[p]
                w.write(escape, parameterBits)
                w.write(UInt32(width), 5)
                if width > 0 {
                    while i < end { w.writeSigned(r[i], width); i += 1 }
                }
                i = end
            } else {
                w.write(UInt32(k), parameterBits)
                w.writeRiceRun(r + i, count: end - i, parameter: k)
                i = end
            }
        }
    }
}
