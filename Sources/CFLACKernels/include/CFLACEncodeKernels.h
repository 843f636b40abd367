// CFLACEncodeKernels: the FLAC encoder's per-sample loops in C (FLACEncoder,
// FLACLinearPredictor, FLACResidualCoder and FLACBitWriter call them), each compiled twice from
// one body — for the baseline x86-64 and with AVX2 (+ FMA, BMI2, LZCNT) — and chosen at run time
// (`cflac_encode_has_avx2`, read once by the caller; OPENAVFAUDIO_FLAC_PORTABLE=1 forces the
// baseline, for testing it). Both variants give identical results: every integer kernel is exact,
// and the autocorrelation adds its products in the same order in both (explicit 8-lane vectors,
// no compiler reassociation).
//
// Why C: the loops are where the encoder's time goes (2026-11-27 profile: fixed predictors 16 %,
// Rice partition sums 18 %, LPC residual 10 %, autocorrelation 13 %, bit writing 7 %), and the
// package is compiled for baseline x86-64 without unsafe flags, so Swift code cannot use AVX2;
// a C function can, through a target attribute.
//
// Samples and residuals are int64_t, as the Swift encoder keeps them (a side channel of 32-bit
// samples needs 33 bits). Kernels that multiply take `narrow` = 1 when every sample fits in 32
// bits, which lets the products use 32 × 32 → 64-bit multiplies (VPMULDQ).
//
// Safety: every kernel reads x[0..<n] (and the coefficient array) and writes r[0..<n] or the
// output arrays its comment names; the bit writer never writes past `capacity` (it stops and
// returns how many codes it wrote; the Swift caller grows the buffer and calls again). No
// allocation, no lock, no system call (but getenv once, in cflac_encode_has_avx2).
#ifndef CFLACENCODEKERNELS_H
#define CFLACENCODEKERNELS_H

#include <stddef.h>
#include <stdint.h>

#if defined(__clang__)
#pragma clang assume_nonnull begin
#endif

#ifdef __cplusplus
extern "C" {
#endif

/// Whether x[0..<n] are all equal (returns 1) and, in `ored`, the bitwise OR of them all (its
/// trailing zeros are the block's wasted bits, §9.2.2).
int cflac_scan(int avx2, const int64_t *x, ptrdiff_t n, uint64_t *ored);

/// The sums of |residual| of the fixed predictors of orders 0…4 (RFC 9639 §9.2.5) over
/// x[4..<n] into `sums[0...4]`.
void cflac_fixed_sums(int avx2, const int64_t *x, ptrdiff_t n, uint64_t *sums);

/// The residual of the fixed predictor of `order` (0…4) for x[order..<n] into r[order..<n];
/// returns 1 when every residual is within ±(2^31 − 1), else 0.
int cflac_fixed_residual(int avx2, const int64_t *x, ptrdiff_t n, int order, int64_t *r);

/// The LPC residual with the decoder's arithmetic (§9.2.6): r[i] = x[i] − (Σ c[j]·x[i−1−j] >> shift)
/// for i in order..<n; returns 1 when every residual is within ±(2^31 − 1), else 0. `narrow`:
/// every |x| < 2^31 and every |c| < 2^15 (products then fit 32 × 32 → 64-bit multiplies).
int cflac_lpc_residual(int avx2, const int64_t *x, ptrdiff_t n, const int64_t *c, int order, int shift, int narrow, int64_t *r);

/// Per partition p of `partitions` (a power of two dividing n), over r[max(p·n/partitions, order)..<(p+1)·n/partitions]:
/// the sum of the folded residuals (0, −1, 1, −2 … → 0, 1, 2, 3 …) into sums[p], and their
/// bitwise OR (whose width is the largest one's) into ors[p].
void cflac_partition_sums(int avx2, const int64_t *r, ptrdiff_t n, int order, int partitions, uint64_t *sums, uint64_t *ors);

/// A partitioned Rice plan (§9.2.7): the partition order, whether 5-bit parameters are needed
/// (some k > 14), the estimated bits of the whole residual section (method and order fields
/// included), and per partition the parameter k or −1 for an escape with `escapeBits[p]` bits.
typedef struct CFLACRicePlan {
    int partitionOrder;
    int wideParameters;
    int64_t bits;
    int8_t parameters[256];
    uint8_t escapeBits[256];
} CFLACRicePlan;

/// The cheapest plan by estimate for a residual of n values after `order` warm-up samples, from
/// the per-partition sums and ORs of the folded values at partition order `top` (≤ 8; as
/// cflac_partition_sums gave them; both arrays are overwritten while merging): every order
/// top…0 is priced; for a partition of m values summing to S, k = 0 costs m + S bits and k ≥ 1
/// about m·(k + 1) + (S >> k) − m/2, for k = ⌊log2(S/m)⌋ and its two neighbours (k ≤ 30); an
/// escape costs 5 + m·width (width ≤ 31). Ties keep the finer order.
void cflac_rice_plan(uint64_t *sums, uint64_t *ors, int top, ptrdiff_t n, int order, CFLACRicePlan *best);

/// x[i] = s[i] · w[i] for i < n, then autoc[lag] = Σ_{i ≥ lag} x[i]·x[i−lag] for lag 0…maxLag,
/// all in float (eight lanes; the order of additions in encode.c), returned as double.
void cflac_window_autocorrelation(int avx2, const int64_t *s, const float *w, ptrdiff_t n, int maxLag, float *x, double *autoc);

/// The encoder's bit writer state, as FLACBitWriter keeps it: `pending` (< 32) bits in the low
/// end of `accumulator`, `count` whole bytes stored in `bytes` of `capacity`.
typedef struct CFLACWriter {
    uint8_t *bytes;
    ptrdiff_t capacity;
    ptrdiff_t count;
    uint64_t accumulator;
    ptrdiff_t pending;
} CFLACWriter;

/// Writes r[0..<n] as Rice codes with parameter k (0…30) (§9.2.7.1: the folded value's quotient
/// in unary, a one, k low bits); returns how many it wrote (fewer than n only when the buffer
/// would overflow).
ptrdiff_t cflac_write_rice(int avx2, CFLACWriter *w, const int64_t *r, ptrdiff_t n, int k);

/// 1 when this CPU has AVX2, FMA, BMI2 and LZCNT and OPENAVFAUDIO_FLAC_PORTABLE is not set; else 0.
int cflac_encode_has_avx2(void);

/// MD5 (RFC 1321 §3.4) compression of `blocks` 64-byte blocks into `state[4]`, with the sines
/// table `table[64]` (T[i] = floor(2^32 · |sin(i + 1)|), which the Swift MD5 computes).
void cflac_md5_blocks(uint32_t *state, const uint8_t *data, ptrdiff_t blocks, const uint32_t *table);

#ifdef __cplusplus
}
#endif

#if defined(__clang__)
#pragma clang assume_nonnull end
#endif

#endif
