// CSamplerKernels: the sampler's per-voice inner loops in C, so they can use AVX2 + FMA where the
// CPU has them (the package is compiled for baseline x86-64; the AVX2 variants are selected per
// function with a target attribute in voice_avx2.c, chosen once at run time in dispatch.c).
//
// * cubic: 4-point (Catmull-Rom) interpolation of a sample at a fixed-point phase (32.32: the
//   integer part indexes the sample, the fraction is the position between points). Every point
//   read, s[i−1] … s[i+2], must lie inside the sample for the whole run (the caller splits runs at
//   loop ends and sample starts). The phase of frame k is phase + k·incr in integer arithmetic,
//   so a voice's samples do not depend on where a render cycle splits its runs.
// * cubic16: the same over 16-bit points (a SoundFont's `smpl` data kept as the file stores it:
//   half the memory of Float, and no conversion pass at load). Each point is converted and scaled
//   by 1/32768 before the arithmetic above: int16 → float is exact and the scale a power of two,
//   so the result is bit for bit what `cubic` gives on the points converted at load.
// * biquad: the voice's low-pass, direct form I (state x1, x2, y1, y2), from x into y (x is left as
//   it was: the caller keeps a block's input to find the state at any frame of it). The AVX2
//   variant runs eight frames at a time from the recursion unrolled; its rounding then depends on
//   where a call starts, so the caller starts calls at fixed places (SamplerSynth+Voices.swift).
// * mix: out += x · (gain + k·step) on both sides, the gains a linear ramp from the values at the
//   run's first frame.
//
// Real-time safety: no allocation, no lock, no system call (`csk_kernels` reads CPUID and the
// environment once, at initialisation).
#ifndef CSAMPLERKERNELS_H
#define CSAMPLERKERNELS_H

#include <stddef.h>
#include <stdint.h>

#if defined(__clang__)
#pragma clang assume_nonnull begin
#endif

#ifdef __cplusplus
extern "C" {
#endif

/// Floats of a low-pass's prepared coefficients (CSKKernels.biquadPrepare).
#define CSK_BIQUAD_COEFFICIENTS 80

typedef struct CSKKernels {
    /// out[k] = cubic(s, phase + k·incr) for k < n; returns phase + n·incr.
    uint64_t (*cubic)(const float *samples, float *out, ptrdiff_t n, uint64_t phase, uint64_t incr);
    /// out[k] = cubic(s / 32768, phase + k·incr) for k < n; returns phase + n·incr.
    uint64_t (*cubic16)(const int16_t *samples, float *out, ptrdiff_t n, uint64_t phase, uint64_t incr);
    /// y = b0·x + b1·x1 + b0·x2 − a1·y1 − a2·y2 (b2 = b0: a low-pass), from x into y (distinct
    /// buffers); state = {x1, x2, y1, y2}; `coefficients`: what `biquadPrepare` made of a1, a2.
    void (*biquad)(const float *x, float *y, ptrdiff_t n, float b0, float b1, float a1, float a2, float *state,
                   const float *coefficients);
    /// Fills `coefficients` (CSK_BIQUAD_COEFFICIENTS floats) for `biquad` with these a1, a2.
    void (*biquadPrepare)(float a1, float a2, float *coefficients);
    /// left[k] += x[k]·(gainLeft + (offset + k)·stepLeft), right likewise, for k < n.
    void (*mix)(const float *x, float *left, float *right, ptrdiff_t n, float gainLeft, float stepLeft,
                float gainRight, float stepRight, ptrdiff_t offset);
    int isAVX2;
} CSKKernels;

/// The best variant for this CPU (OPENAVFAUDIO_SAMPLER_PORTABLE=1 forces the portable one).
const CSKKernels *csk_kernels(void);
const CSKKernels *csk_kernels_portable(void);

#ifdef __cplusplus
}
#endif

#if defined(__clang__)
#pragma clang assume_nonnull end
#endif

#endif
