// CEffectKernels: the distortion's oversampling filters and anti-aliased soft clip in C, so they
// can use AVX2 (eight Float lanes) where the CPU has it; the package is compiled for baseline
// x86-64, where Swift's SIMD stops at four lanes. The AVX2 variant is selected per function with
// a target attribute (effects_avx2.c) and chosen once at run time (dispatch.c).
//
// Bit-exactness: every kernel evaluates the same IEEE operations in the same order as the
// Swift loops it replaced (DistortionProcessor), with floating-point contraction off (no fused
// multiply-adds), and +, ×, ÷ and √ are correctly rounded at any vector width: the output is
// the same, bit for bit, with either variant and as before.
//
// Real-time safety: no allocation, no lock, no system call (`cek_kernels` reads CPUID and the
// environment once, at initialisation).
#ifndef CEFFECTKERNELS_H
#define CEFFECTKERNELS_H

#include <stddef.h>

#if defined(__clang__)
#pragma clang assume_nonnull begin
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef struct CEKKernels {
    /// A linear-phase FIR given as pairs of taps (groups of four pairs):
    /// out[t] = Σ_p coef[p]·(a[t − offA[p]] + b[t − offB[p]]), t < n, accumulated group by group
    /// as in `DistortionFIR.apply`. `out` must not overlap `a` or `b`.
    void (*fir)(float *out, ptrdiff_t n, const float *a, const float *b,
                const ptrdiff_t *offA, const ptrdiff_t *offB, const float *coef, ptrdiff_t count);
    /// The soft clip x/√(1+x²) with first-order antiderivative anti-aliasing over the two phases
    /// of a 2×-oversampled stream: for t < m,
    ///   rootE[t] = √(1+we[t]²), rootO[t+1] = √(1+wo[t]²), rootO[0] = √(1+wo[−1]²),
    ///   ye[t] = (we[t] + wo[t−1]) / (rootE[t] + rootO[t]),
    ///   yo[t] = (wo[t] + we[t]) / (rootO[t+1] + rootE[t]).
    /// `wo[-1]` must be readable; rootE and rootO hold m and m + 1 floats of scratch.
    void (*softClip)(const float *we, const float *wo, float *rootE, float *rootO,
                     float *ye, float *yo, ptrdiff_t m);
    /// 1 when the AVX2 variant was selected.
    int isSimd;
} CEKKernels;

/// The best variant for this CPU (OPENAVFAUDIO_EFFECTS_PORTABLE=1 forces the portable one).
const CEKKernels *cek_kernels(void);
/// The portable variant (tests compare the two).
const CEKKernels *cek_kernels_portable(void);

#ifdef __cplusplus
}
#endif

#if defined(__clang__)
#pragma clang assume_nonnull end
#endif

#endif
