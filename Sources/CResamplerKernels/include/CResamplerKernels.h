// CResamplerKernels: the hot Float64 loops (spectrum products, and the Float32 and Float64
// exact-ratio polyphase loops) of the sample-rate converter (AudioKernels' Resampler) in C, so
// they can use AVX2 + FMA where the CPU has them while the package itself is compiled for the baseline x86-64 (no unsafeFlags: the AVX2 variants are selected per
// function with target attributes, in kernels_avx2.c).
//
// `crk_kernels()` returns a table of function pointers, chosen once by runtime CPU detection:
// the AVX2 + FMA variants (4 Float64 lanes per instruction, fused multiply-add) or the portable
// ones. Both are compiled from the same source (kernels_impl.h) and compute in the same order,
// except that the AVX2 variants fuse multiplies into adds. The engine fetches the table when it
// is created and calls through it on the render path: no per-sample dispatch.
//
// Real-time safety: no kernel allocates, locks or makes a system call (`crk_kernels` itself
// reads CPUID and the environment, and is for initialisation only).
//
// The Float64 FFT the steep stage runs is not here: it is the package's one FFT
// (AudioKernels' FFT/PermutedFFT.swift, with its C body in CFFTKernels).
#ifndef CRESAMPLERKERNELS_H
#define CRESAMPLERKERNELS_H

#include <stddef.h>

#if defined(__clang__)
#pragma clang assume_nonnull begin
#endif

#ifdef __cplusplus
extern "C" {
#endif

/// The kernels. Arrays are split complex (real, imaginary), any alignment; n is a multiple of 4.
typedef struct CRKKernels {
    /// (dr, di) = (ar, ai) * (hr, hi), bin by bin (d may be a).
    void (*multiply64)(const double *ar, const double *ai, const double *hr, const double *hi,
                       double *dr, double *di, ptrdiff_t n);
    /// (ar, ai) = (ar, ai) * (har, hai) + (br, bi) * (hbr, hbi), bin by bin.
    void (*multiplyAdd64)(double *ar, double *ai, const double *har, const double *hai,
                          const double *br, const double *bi, const double *hbr, const double *hbi, ptrdiff_t n);
    /// The polyphase stage with an exact ratio (see PolyphaseStage.produceExact): computes up to
    /// maxCount outputs into dest[c][offset...] and returns how many; *cycleIndex and *cycleBase
    /// (the position of the next output) are read and advanced.
    ///   table: `phases + 8` rows of `taps` coefficients (taps a multiple of 4), output order;
    ///   offsets: `phases + 8` input offsets of the outputs of one cycle;
    ///   period: input samples per cycle of `phases` outputs;
    ///   buffer: channel planes `capacity` apart, plane index = absolute input index - origin;
    ///   limit: an output at position pos needs pos < limit.
    ptrdiff_t (*polyExact64)(const double *table, const ptrdiff_t *offsets, ptrdiff_t taps,
                             ptrdiff_t phases, ptrdiff_t period,
                             const double *buffer, ptrdiff_t capacity, ptrdiff_t channels,
                             ptrdiff_t origin, ptrdiff_t limit,
                             double *_Nonnull const *_Nonnull dest, ptrdiff_t offset, ptrdiff_t maxCount,
                             ptrdiff_t *cycleIndex, ptrdiff_t *cycleBase);
    /// The same for Float32 samples and coefficients (the `.high` and lower levels): eight lanes
    /// per instruction in the AVX2 + FMA variant; `taps` a multiple of 4.
    ptrdiff_t (*polyExact32)(const float *table, const ptrdiff_t *offsets, ptrdiff_t taps,
                             ptrdiff_t phases, ptrdiff_t period,
                             const float *buffer, ptrdiff_t capacity, ptrdiff_t channels,
                             ptrdiff_t origin, ptrdiff_t limit,
                             float *_Nonnull const *_Nonnull dest, ptrdiff_t offset, ptrdiff_t maxCount,
                             ptrdiff_t *cycleIndex, ptrdiff_t *cycleBase);
    /// 1 for the AVX2 + FMA variants, 0 for the portable ones.
    ptrdiff_t simd;
} CRKKernels;

/// The best kernels for this CPU (AVX2 + FMA when present). Setting the environment variable
/// OPENAVFAUDIO_RESAMPLER_PORTABLE=1 selects the portable variants (for testing).
const CRKKernels *crk_kernels(void);

/// The portable variants, regardless of the CPU (for tests).
const CRKKernels *crk_kernels_portable(void);

#ifdef __cplusplus
}
#endif

#if defined(__clang__)
#pragma clang assume_nonnull end
#endif

#endif
