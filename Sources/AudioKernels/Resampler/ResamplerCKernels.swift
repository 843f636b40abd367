// The render path's calls into CResamplerKernels (the Float64 spectrum products and the
// exact-ratio polyphase loops, with AVX2 + FMA variants chosen at init).
//
// Swift's `@_noLocks` checking (ResamplerRealTimeSafety.swift) rejects any call it cannot see
// into, which includes every C function. These wrappers are vouched for by hand: each calls one
// kernel through the table `crk_kernels()` returned at init, and the kernels only do arithmetic
// on the buffers they are given (no allocation, lock or system call; see the C header). Not
// inlined, or the call would land back in the caller's analysis; against a transform of a few
// thousand points, the extra jump is nothing.

internal import CResamplerKernels

enum ResamplerCKernels {
    @_semantics("no_performance_analysis") @inline(never)
    static func multiply(_ k: UnsafePointer<CRKKernels>, _ ar: UnsafePointer<Double>, _ ai: UnsafePointer<Double>,
                         _ hr: UnsafePointer<Double>, _ hi: UnsafePointer<Double>,
                         _ dr: UnsafeMutablePointer<Double>, _ di: UnsafeMutablePointer<Double>, _ n: Int) {
        k.pointee.multiply64(ar, ai, hr, hi, dr, di, n)
    }

    @_semantics("no_performance_analysis") @inline(never)
    static func multiplyAdd(_ k: UnsafePointer<CRKKernels>, _ ar: UnsafeMutablePointer<Double>, _ ai: UnsafeMutablePointer<Double>,
                            _ har: UnsafePointer<Double>, _ hai: UnsafePointer<Double>,
                            _ br: UnsafePointer<Double>, _ bi: UnsafePointer<Double>,
                            _ hbr: UnsafePointer<Double>, _ hbi: UnsafePointer<Double>, _ n: Int) {
        k.pointee.multiplyAdd64(ar, ai, har, hai, br, bi, hbr, hbi, n)
    }

    /// See `CRKKernels.polyExact64`; returns (outputs written, next cycle index, next cycle base).
    @_semantics("no_performance_analysis") @inline(never)
    static func polyExact(_ k: UnsafePointer<CRKKernels>, table: UnsafePointer<Double>, offsets: UnsafePointer<Int>,
                          taps: Int, phases: Int, period: Int, buffer: UnsafePointer<Double>, capacity: Int,
                          channels: Int, origin: Int, limit: Int,
                          dest: UnsafePointer<UnsafeMutablePointer<Double>>, offset: Int, maxCount: Int,
                          cycleIndex: Int, cycleBase: Int) -> (count: Int, cycleIndex: Int, cycleBase: Int) {
        var j = cycleIndex, base = cycleBase
        let n = k.pointee.polyExact64(table, offsets, taps, phases, period, buffer, capacity, channels, origin, limit,
                                      dest, offset, maxCount, &j, &base)
        return (n, j, base)
    }

    /// See `CRKKernels.polyExact32`; returns (outputs written, next cycle index, next cycle base).
    @_semantics("no_performance_analysis") @inline(never)
    static func polyExact32(_ k: UnsafePointer<CRKKernels>, table: UnsafePointer<Float>, offsets: UnsafePointer<Int>,
                            taps: Int, phases: Int, period: Int, buffer: UnsafePointer<Float>, capacity: Int,
                            channels: Int, origin: Int, limit: Int,
                            dest: UnsafePointer<UnsafeMutablePointer<Float>>, offset: Int, maxCount: Int,
                            cycleIndex: Int, cycleBase: Int) -> (count: Int, cycleIndex: Int, cycleBase: Int) {
        var j = cycleIndex, base = cycleBase
        let n = k.pointee.polyExact32(table, offsets, taps, phases, period, buffer, capacity, channels, origin, limit,
                                      dest, offset, maxCount, &j, &base)
        return (n, j, base)
    }
}
