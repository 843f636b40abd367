// Partitioned Rice coding of prediction residuals (RFC 9639 §9.2.7).
//
// A subframe's residual is split into 2^p equal partitions (the first one shorter by the
// predictor order), each with its own Rice parameter k, or an escape: k's field all ones, then 5
// bits of width and every residual as a plain signed number of that width. Residuals are folded
// to unsigned (0, −1, 1, −2 … → 0, 1, 2, 3 …) and coded as u >> k in unary, then k low bits.
//
// Choice: the sums and ORs of the folded values are gathered once for the finest partitioning
// allowed (p ≤ 6, 2^p dividing the block, each partition longer than the order); coarser
// partitionings merge neighbours. For a partition of m values summing to S, parameter k costs
// exactly m + S bits at k = 0 and about m·(k + 1) + (S >> k) − m/2 bits above: the quotients
// Σ(u >> k) fall short of S >> k by the dropped fractions, about ½ each. (libFLAC's estimate
// subtracts the same m/2. Without it every k ≥ 1 looked m/2 bits dearer than it is, which chose
// k = 0 and coarse partitionings too often: the 60 s benchmark material coded 0.9 % larger than
// libFLAC's level 5, and slightly smaller with it — Benchmarks/results/flac-encode-2026-11-28.md.)
// k = ⌊log2(S / m)⌋ is tried with its two neighbours; an escape costs 5 + m·width. The
// partitioning with the fewest estimated bits wins. The parameter field is 4 bits (method 0)
// unless some k exceeds 14, then 5 bits (method 1, k up to 30). The sums and the search run in C
// (cflac_partition_sums, cflac_rice_plan in CFLACEncodeKernels.h): 127 partition prices per
// residual at p ≤ 6, twice per channel of every frame.

import CFLACKernels

/// How one residual is to be written (the C kernel's plan: no arrays, so choosing one allocates
/// nothing).
struct FLACRicePlan {
    var c = CFLACRicePlan()
    var partitionOrder: Int { Int(c.partitionOrder) }
    var wideParameters: Bool { c.wideParameters != 0 }
    /// Estimated bits of the whole residual section, method and order fields included.
    var bits: Int { Int(c.bits) }
    /// Partition p's Rice parameter, or −1 for an escape.
    func parameter(_ p: Int) -> Int { withUnsafeBytes(of: c.parameters) { Int($0.load(fromByteOffset: p, as: Int8.self)) } }
    /// Partition p's escape width in bits (when its parameter is −1).
    func escapeWidth(_ p: Int) -> Int { withUnsafeBytes(of: c.escapeBits) { Int($0[p]) } }
}

/// Scratch for choosing Rice plans, sized for the largest partition order.
struct FLACResidualCoder {
    /// The finest partition order priced: 6, as libFLAC's levels 6–8 (its level 5 stops at 5).
    /// Orders 7 and 8 (partitions of 32 and 16 samples in a 4,096-sample block) saved 2 bytes of
    /// 6,256,226 on the benchmark's 60 s material and took 3/4 of the partition search's time (it
    /// prices 2^(p+1) − 1 partitions); stopping at 5 would cost 1,715 bytes more (2026-11-28).
    static let maximumPartitionOrder = 6
    private var sums = [UInt64](repeating: 0, count: 1 << maximumPartitionOrder)
    /// Per partition: the OR of its folded values (as wide as the largest).
    private var ors = [UInt64](repeating: 0, count: 1 << maximumPartitionOrder)

    @inline(__always) static func fold(_ v: Int64) -> UInt64 { UInt64(bitPattern: (v << 1) ^ (v >> 63)) }

    /// The cheapest plan for residuals `r[order..<n]`.
    mutating func plan(_ r: UnsafePointer<Int64>, count n: Int, order: Int) -> FLACRicePlan {
        var top = 0
        while top < Self.maximumPartitionOrder, n % (1 << (top + 1)) == 0, n >> (top + 1) > order { top += 1 }
        var plan = FLACRicePlan()
        sums.withUnsafeMutableBufferPointer { sums in
            ors.withUnsafeMutableBufferPointer { ors in
                // Per finest partition: the sum and the OR of the folded values (the OR is as wide
                // as the largest, which is all the escape width needs); then every coarser order.
                cflac_partition_sums(FLACEncoder.kernelsUseAVX2, r, n, Int32(order), Int32(1 << top), sums.baseAddress!, ors.baseAddress!)
                cflac_rice_plan(sums.baseAddress!, ors.baseAddress!, Int32(top), n, Int32(order), &plan.c)
            }
        }
        return plan
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
            let k = plan.parameter(p)
            if k < 0 {
                let width = plan.escapeWidth(p)
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
