// CFFTKernels: the Float64 body of AudioKernels' permuted FFT (FFT/PermutedFFT.swift), in C so
// it can use AVX2 + FMA where the CPU has them while the package itself is compiled for the
// baseline x86-64 (no unsafeFlags: the AVX2 variants are selected per function with target
// attributes, in kernels_avx2.c).
//
// There is one FFT in the package (Sources/AudioKernels/FFT); this target is not a second one:
// it runs the same passes as `PermutedFFT`'s Swift body, on tables `PermutedFFT` builds, and
// leaves the spectrum in the same scrambled order (digit reversal, the last radix-4 pass stored
// transposed 4 at a time). `PermutedFFT<Double>` calls it; `PermutedFFT<Float>` runs in Swift.
//
// `cfft_kernels()` returns a table of function pointers, chosen once by runtime CPU detection:
// the AVX2 + FMA variants (4 Float64 lanes per instruction, fused multiply-add) or the portable
// ones. Both are compiled from the same source (kernels_impl.h) and compute in the same order,
// except that the AVX2 variants fuse multiplies into adds.
//
// Real-time safety: no kernel allocates, locks or makes a system call (`cfft_kernels` itself
// reads CPUID and the environment, and is for initialisation only).
#ifndef CFFTKERNELS_H
#define CFFTKERNELS_H

#include <stddef.h>

#if defined(__clang__)
#pragma clang assume_nonnull begin
#endif

#ifdef __cplusplus
extern "C" {
#endif

/// Tables of a power-of-two complex FFT of size n >= 16 (owned by the caller, PermutedFFT).
typedef struct CFFTPlan {
    ptrdiff_t n;
    /// log2(n) is odd: the first forward pass (last inverse pass) is radix 2.
    ptrdiff_t hasRadix2Pass;
    /// Radix-2 twiddles: n/2 real parts, then n/2 imaginary parts.
    const double *twiddles2;
    /// Number of radix-4 passes with span >= 4, and their spans, largest first.
    ptrdiff_t passCount;
    const ptrdiff_t *spans;
    /// Where each pass's twiddles start in twiddles4 (6 x spans[p] values per pass).
    const ptrdiff_t *offsets;
    /// Per pass p, at twiddles4 + offsets[p], for each j = 0, 4, 8, ... < spans[p]: the four
    /// values from j of w1r, w1i, w2r, w2i, w3r, w3i (24 values; the Swift body's table has six
    /// runs spans[p] long instead).
    const double *twiddles4;
} CFFTPlan;

/// The kernels. Arrays are split complex (real, imaginary), any alignment.
typedef struct CFFTKernelTable {
    /// Natural order (sr, si) in, scrambled spectrum out in (re, im); the source may be the
    /// destination, else it is left untouched.
    void (*forward64)(const CFFTPlan *plan, const double *sr, const double *si, double *re, double *im);
    /// Scrambled spectrum in, natural order out, scaled by n, in place.
    void (*inverse64)(const CFFTPlan *plan, double *re, double *im);
    /// 1 for the AVX2 + FMA variants, 0 for the portable ones.
    ptrdiff_t simd;
} CFFTKernelTable;

/// The best kernels for this CPU (AVX2 + FMA when present). Setting the environment variable
/// OPENAVFAUDIO_RESAMPLER_PORTABLE=1 selects the portable variants (for testing; the same switch
/// as the resampler's other C kernels).
const CFFTKernelTable *cfft_kernels(void);

/// The portable variants, regardless of the CPU (for tests).
const CFFTKernelTable *cfft_kernels_portable(void);

#ifdef __cplusplus
}
#endif

#if defined(__clang__)
#pragma clang assume_nonnull end
#endif

#endif
