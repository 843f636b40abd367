// CFLACKernels: the FLAC decoder's Rice-code loop in C, so it can use LZCNT and BMI2 where the
// CPU has them. The package is compiled for baseline x86-64, where Swift's leadingZeroBitCount
// becomes BSR (4 cycles' latency on the EPYC we measure on, plus a fix-up) and variable shifts go
// through CL; the loop's serial dependency — count the leading zeros of the bit cache, shift the
// code out, count again — is exactly that latency. With LZCNT (1 cycle) and SHLX/SHRX it is about
// half. Measured on the decode of 60 s of stereo 48 kHz (decodeFrame loop, CPU time, best of 10,
// two alternating runs each): 16-bit 55.5–58.6 → 45.6–49.0 ms, 24-bit 60.2–62.8 → 51.7–52.9 ms
// (the same loop in Swift → in C with LZCNT).
//
// The variant is chosen per function with a target attribute (cflac_rice_run_lzcnt), and
// `cflac_has_lzcnt` reports whether this CPU may run it (CPUID, read once by the caller;
// OPENAVFAUDIO_FLAC_PORTABLE=1 forces the portable variant, for testing it). The portable variant
// is the same C code compiled for the baseline. Both give identical results by construction.
//
// Safety: the loop never reads outside [base, base + count): it loads 8 bytes only while
// `position + 8 <= count`, and returns early (having decoded fewer than n codes) near the end of
// the range or at a code longer than the bits it has counted; the Swift caller decodes that code
// with its checked path and calls again. No allocation, no lock, no system call.
#ifndef CFLACKERNELS_H
#define CFLACKERNELS_H

#include <stddef.h>
#include <stdint.h>
// The encoder's kernels (their own header, included here so `import CFLACKernels` sees them).
#include "CFLACEncodeKernels.h"

#if defined(__clang__)
#pragma clang assume_nonnull begin
#endif

#ifdef __cplusplus
extern "C" {
#endif

/// The bit reader's state, as FLACBitReader keeps it: the next byte to load, up to 63 counted
/// bits left-aligned in `cache` (the bits below them are the stream's next bits or zero).
typedef struct CFLACBits {
    const uint8_t *base;
    ptrdiff_t count;
    ptrdiff_t position;
    uint64_t cache;
    ptrdiff_t bits;
} CFLACBits;

/// Decodes up to `n` Rice codes with parameter `k` (0…30) into `out`, unfolded to signed values;
/// returns how many it decoded (fewer than `n` near the end of the range or at an over-long
/// code) and leaves `state` after the last one.
ptrdiff_t cflac_rice_run_lzcnt(CFLACBits *state, int64_t *out, ptrdiff_t n, int k);
ptrdiff_t cflac_rice_run_portable(CFLACBits *state, int64_t *out, ptrdiff_t n, int k);

/// FLAC's CRC-16 of `n` bytes by carry-less multiplication (crc16.c). Call only after
/// `cflac_has_clmul` returned 1 (which also builds its tables).
uint16_t cflac_crc16_clmul(const uint8_t *p, size_t n);

/// 1 when this CPU has PCLMULQDQ and SSSE3 and OPENAVFAUDIO_FLAC_PORTABLE is not set; else 0.
/// Not thread-safe: call once (a Swift `static let`) before any cflac_crc16_clmul.
int cflac_has_clmul(void);

/// A decoded FLAC frame's samples `a[0..<n]` (and `b`) to Float32 (float.c): with `mode` 8, 9
/// or 10 the two are left/side, side/right or mid/side and become left and right; with any
/// other mode `a` alone goes to `left` (`b` and `right` unused). Each output sample is
/// (float)(int32_t)(v << shift) * scale.
void cflac_to_float_portable(const int64_t *a, const int64_t *b, int mode, ptrdiff_t n, int shift, float scale,
                             float *left, float *right);
void cflac_to_float_avx2(const int64_t *a, const int64_t *b, int mode, ptrdiff_t n, int shift, float scale,
                         float *left, float *right);

/// Linear-prediction restore (RFC 9639 §9.2.6, lpc.c): `s[order..<n]` hold residuals and become
/// samples, s[i] += (Σ c[j]·s[i−1−j]) >> shift, in wrapping 64-bit arithmetic. `order` 1…32,
/// `shift` 0…15; nothing happens when n <= order or the order is out of range. Exact only when
/// every sample fits 32 bits (true of a valid stream of depth ≤ 32): the older terms multiply
/// the samples' low 32 bits. Call only after `cflac_has_avx2` returned 1.
void cflac_lpc_restore_avx2(int64_t *s, const int64_t *c, int order, int shift, ptrdiff_t n);
/// The same for two channels of one frame (`n` samples each) in one loop.
void cflac_lpc_restore_pair_avx2(int64_t *a, const int64_t *ca, int orderA, int shiftA,
                                 int64_t *b, const int64_t *cb, int orderB, int shiftB, ptrdiff_t n);

/// 1 when this CPU has AVX2 and OPENAVFAUDIO_FLAC_PORTABLE is not set; else 0.
int cflac_has_avx2(void);

/// 1 when this CPU has LZCNT and BMI2 and OPENAVFAUDIO_FLAC_PORTABLE is not set; else 0.
int cflac_has_lzcnt(void);

#ifdef __cplusplus
}
#endif

#if defined(__clang__)
#pragma clang assume_nonnull end
#endif

#endif
