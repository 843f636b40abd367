// CALACKernels: the Apple Lossless encoder's hot loops in C — chiefly the adaptive FIR predictor run
// forwards (samples → residuals, the coefficients adapting as the decoder's will) and the
// adaptive-Golomb bit count of a run of residuals. ALACEncoder runs both for every predictor it
// considers, so they are most of its time; in Swift the predictor's inner loops (Int16
// coefficients widened per tap, bounds-free but with overflow-checked index arithmetic around the
// wrapping maths) ran several times slower than this plain C. The arithmetic is exactly
// ALACPredictor.residuals and ALACEncoder.codeResiduals (both stay in Swift, the reference the
// tests compare these against): 32-bit wrapping sums (done in uint32_t, so no signed-overflow
// undefined behaviour), the same sign-extension, the same adaptation order. Around them: the
// autocorrelation for the linear predictors, the split of interleaved samples into shifted
// channels and low bytes, and the writing of residuals and low bytes into the packet.
//
// Safety: each kernel reads and writes only the ranges its comment names; no allocation, no
// lock, no system call.
#ifndef CALACKERNELS_H
#define CALACKERNELS_H

#include <stddef.h>
#include <stdint.h>

#if defined(__clang__)
#pragma clang assume_nonnull begin
#endif

#ifdef __cplusplus
extern "C" {
#endif

/// The residuals that ALAC's adaptive predictor of `order` (1…30; 0 copies, 31 is the first
/// difference) with denominator shift `denShift` leaves of `input`, a channel `bits` wide.
/// `coefs` starts as the predictor's coefficients and ends as they adapted to the last sample.
void calac_residuals(const int32_t *input, int32_t *res, ptrdiff_t count, int16_t *coefs, int order, int bits, int denShift);

/// The bits the adaptive-Golomb code (initial history 10, pb 40, kb 14) spends on `count`
/// residuals with `escapeBits`-bit escapes. A coding decoders disagree on (a value of 0xFFFF
/// coded one lower after a zero run) adds 2^40, pricing it out (see ALACEncoder.codeResiduals).
int64_t calac_cost(const int32_t *res, ptrdiff_t count, int escapeBits);

/// ALACBitWriter's state: bytes out so far, and `cacheBits` (0…7) pending bits in the low
/// end of `cache`.
typedef struct CALACBitWriter {
    uint8_t *base;
    ptrdiff_t capacity;
    ptrdiff_t byteCount;
    uint64_t cache;
    int cacheBits;
} CALACBitWriter;

/// Writes `count` residuals with the adaptive-Golomb code exactly as ALACEncoder.codeResiduals
/// writes them into an ALACBitWriter. Returns 0, or −1 when the output would pass `capacity`
/// (the bytes written up to it are then meaningless).
int calac_write_residuals(CALACBitWriter *w, const int32_t *res, ptrdiff_t count, int escapeBits);

/// calac_write_residuals, stopping instead at a coding decoders disagree on (the one calac_cost
/// prices at 2^40): returns 0, −1 when the output would pass `capacity`, −2 at such a coding. On
/// −1 or −2 the writer's state is meaningless; the caller restores its own copy. The encoder
/// writes its chosen coding with this and no longer counts it first: a capacity set to the
/// escape's size stops a coding that turns out larger than the escape.
int calac_write_residuals_checked(CALACBitWriter *w, const int32_t *res, ptrdiff_t count, int escapeBits);

/// Writes `count` values of `bits` bits each (8 or 16: the low bytes a shift kept back, which
/// ALAC stores verbatim, in the order given). Returns 0, or −1 when the output would pass
/// `capacity`.
int calac_write_fixed(CALACBitWriter *w, const uint16_t *values, ptrdiff_t count, int bits);

/// Splits `count` frames of `channels` (1 or 2) channels, starting at `samples[0]` (frame i's
/// first channel at `samples[i * stride]`), into `shift`-bit-shifted channels `u` (and `v` for
/// a pair) and, when `shift` > 0, their low `shift` bits into `low` (interleaved for a pair:
/// frame i's at 2i and 2i + 1), as ALAC's "bytes shifted" stores them. `v` is untouched for one
/// channel, `low` when `shift` is 0.
void calac_split(const int32_t *samples, ptrdiff_t stride, ptrdiff_t count, int channels, int shift,
                 int32_t *u, int32_t *v, uint16_t *low);

/// The autocorrelation r[lag] = Σ x[i]·x[i − lag] for lag 0…maxLag (at most 32), in double.
void calac_autocorrelation(const int32_t *x, ptrdiff_t count, int maxLag, double *r);

#ifdef __cplusplus
}
#endif

#if defined(__clang__)
#pragma clang assume_nonnull end
#endif

#endif
