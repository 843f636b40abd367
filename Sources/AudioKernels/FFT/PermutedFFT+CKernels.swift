// The permuted FFT's calls into its C body (CFFTKernels: the Float64 passes, with AVX2 + FMA
// variants chosen at init).
//
// Swift's `@_noLocks` checking (FFTRealTimeSafety.swift, ResamplerRealTimeSafety.swift) rejects
// any call it cannot see into, which includes every C function. These wrappers are vouched for
// by hand: each calls one kernel through the table `cfft_kernels()` returned at init, and the
// kernels only do arithmetic on the buffers and tables they are given (no allocation, lock or
// system call; see the C header). Not inlined, or the call would land back in the caller's
// analysis; against a transform of a few thousand points, the extra jump is nothing.

internal import CFFTKernels

enum FFTCKernels {
    @_semantics("no_performance_analysis") @inline(never)
    static func forward(_ k: UnsafePointer<CFFTKernelTable>, _ plan: UnsafePointer<CFFTPlan>,
                        _ sr: UnsafePointer<Double>, _ si: UnsafePointer<Double>,
                        _ re: UnsafeMutablePointer<Double>, _ im: UnsafeMutablePointer<Double>) {
        k.pointee.forward64(plan, sr, si, re, im)
    }

    @_semantics("no_performance_analysis") @inline(never)
    static func inverse(_ k: UnsafePointer<CFFTKernelTable>, _ plan: UnsafePointer<CFFTPlan>,
                        _ re: UnsafeMutablePointer<Double>, _ im: UnsafeMutablePointer<Double>) {
        k.pointee.inverse64(plan, re, im)
    }
}
