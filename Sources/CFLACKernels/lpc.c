// FLAC's linear-prediction restore (RFC 9639 §9.2.6) with AVX2, for one channel or for the two
// channels of a stereo frame at once (see CFLACKernels.h for the contract).
//
// Design. Each output sample is s[i] = residual[i] + (Σ c[j]·s[i−1−j]) >> shift: a serial
// dependency from one sample to the next through the newest term (multiply, add, shift, add:
// about 6 cycles), while every other term only costs multiplier throughput (one 64-bit IMUL per
// cycle on the EPYC we measure on). The Swift loop it replaces (FLACFrameDecoder.lpc) spends one
// IMUL per coefficient per sample, so at libFLAC's usual order 8 it is bound by the multiplier at
// ~8 IMULs a sample. Here:
//
//  - the four newest terms (j = 0…3) stay scalar, their samples carried in registers (the
//    newest was computed a moment ago; loading it back would wait on the store);
//  - the older terms, in groups of four coefficients, are one VPMULDQ each (four signed
//    32×32→64-bit products) on an unaligned load of four samples at least five places back
//    (long since stored, so the load does not stall on store forwarding), and a horizontal sum;
//  - for a stereo frame whose two subframes both use linear prediction, the two channels'
//    restores run in one loop: two independent dependency chains interleave, so the multiplier
//    has work while either chain waits.
//
// Orders are padded with zero coefficients to 4 + 4·G taps (G vector groups, 0…7), one copy of
// the loop per G. The samples before tap 4 + 4·G exists (i < 4 + 4·G) go through a plain scalar
// loop over the real order.
//
// Exactness. VPMULDQ multiplies the low 32 bits of each sample, sign-extended. In a valid stream
// every sample fits the subframe's bit depth, at most 32 bits (the caller takes this path only
// then), so the products and the wrapping 64-bit sums equal the scalar loop's exactly. A hostile
// stream whose samples overflow their declared depth gets wrong samples here as in the scalar
// loop (not necessarily the same wrong ones), never undefined behaviour: all arithmetic is on
// uint64_t, and the shift (0…15) is an arithmetic right shift of int64_t.
//
// Measured (4,096 samples a channel, thread CPU time, best of 30, clang -O2, load ~10; ns a
// sample, orders 8 and 7 in the two channels): the scalar loop 3.58, one channel at a time 3.34,
// the pair 2.49. The whole 16-/24-bit file read 15–19 % faster (Benchmarks/results/
// flac-decode-2026-11-28b.md).
//
// Codegen guards: clang's SLP vectoriser otherwise packs the four scalar history registers into
// a vector and emulates the 64-bit multiplies with VPMULUDQ (3× slower); empty asm statements
// keep them in general registers.
#include "CFLACKernels.h"

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include <immintrin.h>

/// The plain loop over the real order for samples first..<last.
static inline __attribute__((always_inline))
void cflac_lpc_scalar(int64_t *s, const int64_t *c, int order, int shift, ptrdiff_t first, ptrdiff_t last) {
    for (ptrdiff_t i = first; i < last; i++) {
        uint64_t sum = 0;
        for (int j = 0; j < order; j++) sum += (uint64_t)c[j] * (uint64_t)s[i - 1 - j];
        s[i] = (int64_t)((uint64_t)s[i] + (uint64_t)((int64_t)sum >> shift));
    }
}

/// One channel's padded coefficients: the four scalar taps and the G vector groups (lane l of
/// group g multiplies s[i − 8 − 4g + l], the sample 8 + 4g − l places back).
typedef struct {
    uint64_t c0, c1, c2, c3;
    __m256i v[7];
} CFLACTaps;

__attribute__((target("avx2"))) static inline __attribute__((always_inline))
void cflac_taps(CFLACTaps *t, const int64_t *c, int order, int G) {
    int64_t cc[4 + 4 * 7] = {0};
    for (int j = 0; j < order; j++) cc[j] = c[j];
    t->c0 = (uint64_t)cc[0]; t->c1 = (uint64_t)cc[1]; t->c2 = (uint64_t)cc[2]; t->c3 = (uint64_t)cc[3];
    for (int g = 0; g < G; g++)
        t->v[g] = _mm256_setr_epi64x(cc[7 + 4 * g], cc[6 + 4 * g], cc[5 + 4 * g], cc[4 + 4 * g]);
}

/// Σ over the vector groups for sample i (four 64-bit lane sums, not yet added together).
__attribute__((target("avx2"))) static inline __attribute__((always_inline))
__m256i cflac_older(const CFLACTaps *t, const int64_t *s, ptrdiff_t i, int G) {
    const int64_t *q = s + i - 8;
    __asm__("" : "+r"(q));
    __m256i acc = _mm256_mul_epi32(t->v[0], _mm256_loadu_si256((const __m256i *)q));
    for (int g = 1; g < G; g++)
        acc = _mm256_add_epi64(acc, _mm256_mul_epi32(t->v[g], _mm256_loadu_si256((const __m256i *)(q - 4 * g))));
    return acc;
}

__attribute__((target("avx2"))) static inline __attribute__((always_inline))
void cflac_lpc_one(int64_t *s, const int64_t *c, int order, int shift, ptrdiff_t n, const int G) {
    const ptrdiff_t taps = 4 + 4 * G;
    ptrdiff_t i = order > taps ? order : taps;
    cflac_lpc_scalar(s, c, order, shift, order, i < n ? i : n);
    if (i >= n) return;
    CFLACTaps t;
    cflac_taps(&t, c, order, G);
    uint64_t p1 = (uint64_t)s[i - 1], p2 = (uint64_t)s[i - 2], p3 = (uint64_t)s[i - 3], p4 = (uint64_t)s[i - 4];
    for (; i < n; i++) {
        uint64_t sum = 0;
        if (G > 0) {
            __m256i acc = cflac_older(&t, s, i, G);
            __m128i h = _mm_add_epi64(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
            h = _mm_add_epi64(h, _mm_unpackhi_epi64(h, h));
            sum = (uint64_t)_mm_cvtsi128_si64(h);
        }
        sum += t.c3 * p4 + t.c2 * p3 + t.c1 * p2;
        sum += t.c0 * p1;
        uint64_t v = (uint64_t)s[i] + (uint64_t)((int64_t)sum >> shift);
        s[i] = (int64_t)v;
        p4 = p3; p3 = p2; p2 = p1; p1 = v;
        __asm__("" : "+r"(p1), "+r"(p2), "+r"(p3), "+r"(p4));
    }
}

__attribute__((target("avx2"))) static inline __attribute__((always_inline))
void cflac_lpc_two(int64_t *a, const int64_t *ca, int orderA, int shiftA,
                   int64_t *b, const int64_t *cb, int orderB, int shiftB, ptrdiff_t n, const int G) {
    const ptrdiff_t taps = 4 + 4 * G;
    ptrdiff_t i = taps;
    if (orderA > i) i = orderA;
    if (orderB > i) i = orderB;
    cflac_lpc_scalar(a, ca, orderA, shiftA, orderA, i < n ? i : n);
    cflac_lpc_scalar(b, cb, orderB, shiftB, orderB, i < n ? i : n);
    if (i >= n) return;
    CFLACTaps ta, tb;
    cflac_taps(&ta, ca, orderA, G);
    cflac_taps(&tb, cb, orderB, G);
    uint64_t a1 = (uint64_t)a[i - 1], a2 = (uint64_t)a[i - 2], a3 = (uint64_t)a[i - 3], a4 = (uint64_t)a[i - 4];
    uint64_t b1 = (uint64_t)b[i - 1], b2 = (uint64_t)b[i - 2], b3 = (uint64_t)b[i - 3], b4 = (uint64_t)b[i - 4];
    for (; i < n; i++) {
        uint64_t sumA = 0, sumB = 0;
        if (G > 0) {
            __m256i accA = cflac_older(&ta, a, i, G), accB = cflac_older(&tb, b, i, G);
            // [A0+A1, B0+B1, A2+A3, B2+B3], then the halves added: [A, B].
            __m256i m = _mm256_add_epi64(_mm256_unpacklo_epi64(accA, accB), _mm256_unpackhi_epi64(accA, accB));
            __m128i h = _mm_add_epi64(_mm256_castsi256_si128(m), _mm256_extracti128_si256(m, 1));
            sumA = (uint64_t)_mm_cvtsi128_si64(h);
            sumB = (uint64_t)_mm_extract_epi64(h, 1);
        }
        sumA += ta.c3 * a4 + ta.c2 * a3 + ta.c1 * a2;
        sumB += tb.c3 * b4 + tb.c2 * b3 + tb.c1 * b2;
        sumA += ta.c0 * a1;
        sumB += tb.c0 * b1;
        uint64_t va = (uint64_t)a[i] + (uint64_t)((int64_t)sumA >> shiftA);
        uint64_t vb = (uint64_t)b[i] + (uint64_t)((int64_t)sumB >> shiftB);
        a[i] = (int64_t)va;
        b[i] = (int64_t)vb;
        a4 = a3; a3 = a2; a2 = a1; a1 = va;
        b4 = b3; b3 = b2; b2 = b1; b1 = vb;
        __asm__("" : "+r"(a1), "+r"(a2), "+r"(a3), "+r"(a4));
        __asm__("" : "+r"(b1), "+r"(b2), "+r"(b3), "+r"(b4));
    }
}

/// The number of vector groups for an order: the taps beyond the four scalar ones, in fours.
static inline int cflac_groups(int order) { return order <= 4 ? 0 : (order - 1) / 4; }

__attribute__((target("avx2")))
void cflac_lpc_restore_avx2(int64_t *s, const int64_t *c, int order, int shift, ptrdiff_t n) {
    if (order < 1 || order > 32 || n <= order) return;
    switch (cflac_groups(order)) {
    case 0: cflac_lpc_one(s, c, order, shift, n, 0); break;
    case 1: cflac_lpc_one(s, c, order, shift, n, 1); break;
    case 2: cflac_lpc_one(s, c, order, shift, n, 2); break;
    case 3: cflac_lpc_one(s, c, order, shift, n, 3); break;
    case 4: cflac_lpc_one(s, c, order, shift, n, 4); break;
    case 5: cflac_lpc_one(s, c, order, shift, n, 5); break;
    case 6: cflac_lpc_one(s, c, order, shift, n, 6); break;
    default: cflac_lpc_one(s, c, order, shift, n, 7); break;
    }
}

__attribute__((target("avx2")))
void cflac_lpc_restore_pair_avx2(int64_t *a, const int64_t *ca, int orderA, int shiftA,
                                 int64_t *b, const int64_t *cb, int orderB, int shiftB, ptrdiff_t n) {
    if (orderA < 1 || orderA > 32 || orderB < 1 || orderB > 32) return;
    int ga = cflac_groups(orderA), gb = cflac_groups(orderB);
    switch (ga > gb ? ga : gb) {
    case 0: cflac_lpc_two(a, ca, orderA, shiftA, b, cb, orderB, shiftB, n, 0); break;
    case 1: cflac_lpc_two(a, ca, orderA, shiftA, b, cb, orderB, shiftB, n, 1); break;
    case 2: cflac_lpc_two(a, ca, orderA, shiftA, b, cb, orderB, shiftB, n, 2); break;
    case 3: cflac_lpc_two(a, ca, orderA, shiftA, b, cb, orderB, shiftB, n, 3); break;
    case 4: cflac_lpc_two(a, ca, orderA, shiftA, b, cb, orderB, shiftB, n, 4); break;
    case 5: cflac_lpc_two(a, ca, orderA, shiftA, b, cb, orderB, shiftB, n, 5); break;
    case 6: cflac_lpc_two(a, ca, orderA, shiftA, b, cb, orderB, shiftB, n, 6); break;
    default: cflac_lpc_two(a, ca, orderA, shiftA, b, cb, orderB, shiftB, n, 7); break;
    }
}
#else
// Not x86-64: cflac_has_avx2 returns 0 there, so the Swift loop runs instead; these are plain
// scalar loops only so that a stray call is still right.
static void cflac_lpc_plain(int64_t *s, const int64_t *c, int order, int shift, ptrdiff_t n) {
    if (order < 1 || order > 32) return;
    for (ptrdiff_t i = order; i < n; i++) {
        uint64_t sum = 0;
        for (int j = 0; j < order; j++) sum += (uint64_t)c[j] * (uint64_t)s[i - 1 - j];
        s[i] = (int64_t)((uint64_t)s[i] + (uint64_t)((int64_t)sum >> shift));
    }
}
void cflac_lpc_restore_avx2(int64_t *s, const int64_t *c, int order, int shift, ptrdiff_t n) {
    cflac_lpc_plain(s, c, order, shift, n);
}
void cflac_lpc_restore_pair_avx2(int64_t *a, const int64_t *ca, int orderA, int shiftA,
                                 int64_t *b, const int64_t *cb, int orderB, int shiftB, ptrdiff_t n) {
    cflac_lpc_plain(a, ca, orderA, shiftA, n);
    cflac_lpc_plain(b, cb, orderB, shiftB, n);
}
#endif
