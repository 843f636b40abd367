// CMixKernels: the mixer's summing loop in C, so it can use AVX2 + FMA where the CPU has them
// (the package is compiled for baseline x86-64; the AVX2 variant is selected per function with a
// target attribute, in mix_avx2.c) and issue software prefetches, which Swift cannot express.
//
// Why prefetch: a mixer with many inputs reads many independent streams (64 players lending
// their buffers = 64 streams) in short runs of one render cycle each (512 frames = 2 KiB). The
// hardware prefetchers track only a handful of streams and need a few misses to lock on, so at
// small block sizes most loads miss all the way to DRAM and the loop waits. The kernel therefore
// hints each input 2 KiB ahead of where it reads (`CMK_PREFETCH_FRAMES`): for a player lending
// its buffer, that is exactly the next cycle's audio. A prefetch never faults, so hinting past the
// end of an input's memory is harmless.
//
// Real-time safety: no allocation, no lock, no system call (`cmk_kernels` reads CPUID and the
// environment once, at initialisation).
#ifndef CMIXKERNELS_H
#define CMIXKERNELS_H

#include <stddef.h>

#if defined(__clang__)
#pragma clang assume_nonnull begin
#endif

#ifdef __cplusplus
extern "C" {
#endif

/// One input of a stereo mix: left and right source channels (the same pointer for a mono input
/// spread to both sides) and their gains.
typedef struct CMKStereoInput {
    const float *left;
    const float *right;
    float gainLeft;
    float gainRight;
} CMKStereoInput;

typedef struct CMKKernels {
    /// left[i] += Σ_k inputs[k].gainLeft · inputs[k].left[i], right likewise, for i < frames.
    /// Inputs are summed four at a time, ((a + b) + (c + d)), in the order given, so the result
    /// depends on the inputs and their order only, never on `frames` (chunk-size determinism).
    void (*mixStereo)(float *left, float *right, const CMKStereoInput *inputs, ptrdiff_t count, ptrdiff_t frames);
    /// 1 when the AVX2 + FMA variant was selected.
    int isSimd;
} CMKKernels;

/// The best variant for this CPU (OPENAVFAUDIO_MIX_PORTABLE=1 forces the portable one).
const CMKKernels *cmk_kernels(void);
/// The portable variant (tests compare the two).
const CMKKernels *cmk_kernels_portable(void);

#ifdef __cplusplus
}
#endif

#if defined(__clang__)
#pragma clang assume_nonnull end
#endif

#endif
