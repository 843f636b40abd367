// The FLAC encoder's kernels (see CFLACEncodeKernels.h): each body is an always-inline function
// instantiated twice, for the baseline and with AVX2 (the compiler vectorises the loops; the
// integer results are exact either way, and the floating-point kernel fixes its order of
// additions with explicit vectors and contraction off, so both variants agree to the bit).
#include "CFLACEncodeKernels.h"
#include <stdlib.h>
#include <string.h>

#define KERNEL static inline __attribute__((always_inline))

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#define CFLAC_X86 1
#define WIDE __attribute__((target("avx2,bmi,bmi2,lzcnt")))
#else
#define CFLAC_X86 0
#define WIDE
#endif

/// |v| as unsigned (exact for every int64_t, computed without overflow).
KERNEL uint64_t magnitude(uint64_t v) {
    uint64_t sign = (uint64_t)((int64_t)v >> 63);
    return (v ^ sign) - sign;
}

/// The folded residual: 0, −1, 1, −2 … → 0, 1, 2, 3 …
KERNEL uint64_t fold(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }

KERNEL int scan(const int64_t *x, ptrdiff_t n, uint64_t *ored) {
    const uint64_t *u = (const uint64_t *)x;
    uint64_t o = 0, differs = 0, first = u[0];
    for (ptrdiff_t i = 0; i < n; i++) {
        o |= u[i];
        differs |= u[i] ^ first;
    }
    *ored = o;
    return differs == 0;
}

// MARK: - Fixed predictors (RFC 9639 §9.2.5)

KERNEL void fixed_sums(const int64_t *x, ptrdiff_t n, uint64_t *sums) {
    uint64_t t0 = 0, t1 = 0, t2 = 0, t3 = 0, t4 = 0;
    const uint64_t *u = (const uint64_t *)x;
    for (ptrdiff_t i = 4; i < n; i++) {
        uint64_t a = u[i], b = u[i - 1], c = u[i - 2], d = u[i - 3], e = u[i - 4];
        t0 += magnitude(a);
        t1 += magnitude(a - b);
        t2 += magnitude(a - 2 * b + c);
        t3 += magnitude(a - 3 * b + 3 * c - d);
        t4 += magnitude(a - 4 * b + 6 * c - 4 * d + e);
    }
    sums[0] = t0; sums[1] = t1; sums[2] = t2; sums[3] = t3; sums[4] = t4;
}

KERNEL int fixed_residual(const int64_t *x, ptrdiff_t n, int order, int64_t *r) {
    const uint64_t *u = (const uint64_t *)x;
    uint64_t *out = (uint64_t *)r;
    uint64_t ored = 0;
    ptrdiff_t i = order;
    switch (order) {
    case 0:
        for (; i < n; i++) { uint64_t e = u[i]; out[i] = e; ored |= magnitude(e); }
        break;
    case 1:
        for (; i < n; i++) { uint64_t e = u[i] - u[i - 1]; out[i] = e; ored |= magnitude(e); }
        break;
    case 2:
        for (; i < n; i++) { uint64_t e = u[i] - 2 * u[i - 1] + u[i - 2]; out[i] = e; ored |= magnitude(e); }
        break;
    case 3:
        for (; i < n; i++) { uint64_t e = u[i] - 3 * u[i - 1] + 3 * u[i - 2] - u[i - 3]; out[i] = e; ored |= magnitude(e); }
        break;
    default:
        for (; i < n; i++) {
            uint64_t e = u[i] - 4 * u[i - 1] + 6 * u[i - 2] - 4 * u[i - 3] + u[i - 4];
            out[i] = e;
            ored |= magnitude(e);
        }
        break;
    }
    // |e| ≤ 2^31 − 1 for every e exactly when no bit from 31 up is set in the OR of magnitudes.
    return (ored >> 31) == 0;
}

// MARK: - LPC residual (§9.2.6)

KERNEL int lpc_residual(const int64_t *x, ptrdiff_t n, const int64_t *c, int order, int shift, int narrow, int64_t *r) {
    uint64_t ored = 0;
    ptrdiff_t i = order;
    if (narrow && order <= 12) {
        // Taps padded with zeros to 8 or 12: one straight-line loop per width; the samples before
        // the padded width go through the general loop below first.
        int32_t k[12] = {0};
        for (int j = 0; j < order; j++) k[j] = (int32_t)c[j];
        ptrdiff_t width = order <= 8 ? 8 : 12;
        for (; i < n && i < width; i++) {
            int64_t sum = 0;
            for (int j = 0; j < order; j++) sum += c[j] * x[i - 1 - j];
            int64_t e = x[i] - (sum >> shift);
            r[i] = e;
            ored |= magnitude((uint64_t)e);
        }
#define TAP(j) (int64_t)k##j * (int64_t)(int32_t)x[i - 1 - j]
        const int32_t k0 = k[0], k1 = k[1], k2 = k[2], k3 = k[3], k4 = k[4], k5 = k[5];
        const int32_t k6 = k[6], k7 = k[7], k8 = k[8], k9 = k[9], k10 = k[10], k11 = k[11];
        if (width == 8) {
            for (; i < n; i++) {
                int64_t sum = TAP(0) + TAP(1) + TAP(2) + TAP(3) + TAP(4) + TAP(5) + TAP(6) + TAP(7);
                int64_t e = x[i] - (sum >> shift);
                r[i] = e;
                ored |= magnitude((uint64_t)e);
            }
        } else {
            for (; i < n; i++) {
                int64_t sum = TAP(0) + TAP(1) + TAP(2) + TAP(3) + TAP(4) + TAP(5) + TAP(6) + TAP(7)
                            + TAP(8) + TAP(9) + TAP(10) + TAP(11);
                int64_t e = x[i] - (sum >> shift);
                r[i] = e;
                ored |= magnitude((uint64_t)e);
            }
        }
#undef TAP
    }
    // Wide samples (or orders above 12): wrapping 64-bit arithmetic, as the Swift encoder had it.
    for (; i < n; i++) {
        uint64_t sum = 0;
        for (int j = 0; j < order; j++) sum += (uint64_t)c[j] * (uint64_t)x[i - 1 - j];
        uint64_t e = (uint64_t)x[i] - (uint64_t)((int64_t)sum >> shift);
        r[i] = (int64_t)e;
        ored |= magnitude(e);
    }
    return (ored >> 31) == 0;
}

// MARK: - Rice partitions (§9.2.7)

KERNEL void partition_sums(const int64_t *r, ptrdiff_t n, int order, int partitions, uint64_t *sums, uint64_t *ors) {
    ptrdiff_t size = n / partitions;
    for (int p = 0; p < partitions; p++) {
        ptrdiff_t start = (ptrdiff_t)p * size, end = start + size;
        if (start < order) start = order;
        uint64_t s = 0, o = 0;
        for (ptrdiff_t i = start; i < end; i++) {
            uint64_t u = fold(r[i]);
            s += u;
            o |= u;
        }
        sums[p] = s;
        ors[p] = o;
    }
}

/// ⌊log2(S / m)⌋ for S ≥ m ≥ 1, without a division.
KERNEL int log2Quotient(uint64_t S, uint64_t m) {
    int g = (63 - __builtin_clzll(S)) - (63 - __builtin_clzll(m));
    if ((m << g) > S) g--;
    return g;
}

KERNEL void rice_plan(uint64_t *sums, uint64_t *ors, int top, ptrdiff_t n, int order, CFLACRicePlan *best) {
    CFLACRicePlan candidate;
    best->bits = INT64_MAX;
    int count = 1 << top;
    for (int level = top;; level--) {
        int64_t body = 0;
        int largestK = 0;
        for (int p = 0; p < count; p++) {
            int64_t m = (int64_t)(n >> level) - (p == 0 ? order : 0);
            uint64_t S = sums[p];
            int k = 0;
            int64_t riceBits = 0;
            if (m > 0) {
                int guess = S < (uint64_t)m ? 0 : log2Quotient(S, (uint64_t)m);
                int low = guess - 1 < 0 ? 0 : guess - 1, high = guess + 1 > 30 ? 30 : guess + 1;
                if (low > 30) low = 30;
                riceBits = INT64_MAX;
                for (int j = low; j <= high; j++) {
                    int64_t bits = m * (j + 1) + (int64_t)(S >> j) - (j == 0 ? 0 : m >> 1);
                    if (bits < riceBits) { riceBits = bits; k = j; }
                }
            }
            int width = ors[p] == 0 ? 0 : 64 - __builtin_clzll(ors[p]);
            int64_t escapeBits = width <= 31 ? 5 + m * width : INT64_MAX;
            if (escapeBits < riceBits) {
                candidate.parameters[p] = -1;
                candidate.escapeBits[p] = (uint8_t)width;
                body += escapeBits;
            } else {
                candidate.parameters[p] = (int8_t)k;
                candidate.escapeBits[p] = 0;
                if (k > largestK) largestK = k;
                body += riceBits;
            }
        }
        int wide = largestK > 14;
        int64_t total = 6 + body + (int64_t)count * (wide ? 5 : 4);
        if (total < best->bits) {
            best->bits = total;
            best->partitionOrder = level;
            best->wideParameters = wide;
            memcpy(best->parameters, candidate.parameters, (size_t)count);
            memcpy(best->escapeBits, candidate.escapeBits, (size_t)count);
        }
        if (level == 0) break;
        count >>= 1;
        for (int p = 0; p < count; p++) {
            sums[p] = sums[2 * p] + sums[2 * p + 1];
            ors[p] = ors[2 * p] | ors[2 * p + 1];
        }
    }
}

// MARK: - Window and autocorrelation

typedef float v8f __attribute__((vector_size(32), aligned(4)));

KERNEL void window_autocorrelation(const int64_t *s, const float *w, ptrdiff_t n, int maxLag, float *x, double *autoc) {
#pragma clang fp contract(off)
    for (ptrdiff_t i = 0; i < n; i++) x[i] = (float)s[i] * w[i];
    // In float, as libFLAC computes it (FLAC__real): eight lanes per vector where double had four,
    // so half the multiplies and adds; only the choice of coefficients depends on it (the encoder
    // prices the exact integer residual of whatever it picks). Lane j of lag L adds the products
    // at i = L + j + 8t in increasing t; the tail (i past the last whole vector) goes to lane 0;
    // the lanes are summed as ((0 + 1) + (2 + 3)) + ((4 + 5) + (6 + 7)). Four lags run together
    // (four independent chains, each sample loaded once for all four) over the t they all have,
    // then each finishes its own: the order of additions per lane is fixed, so the baseline and
    // the AVX2 variant agree to the bit.
    for (int group = 0; group <= maxLag; group += 4) {
        int lags = maxLag - group + 1 < 4 ? maxLag - group + 1 : 4;
        v8f acc[4] = {{0}, {0}, {0}, {0}};
        ptrdiff_t common = n - (group + lags - 1) < 0 ? 0 : (n - (group + lags - 1)) / 8;
        if (lags == 4) {
            for (ptrdiff_t t = 0; t < common; t++) {
                v8f b;
                memcpy(&b, x + 8 * t, sizeof b);
                for (int l = 0; l < 4; l++) {
                    v8f a;
                    memcpy(&a, x + group + l + 8 * t, sizeof a);
                    acc[l] += a * b;
                }
            }
        } else {
            common = 0;
        }
        for (int l = 0; l < lags; l++) {
            int lag = group + l;
            ptrdiff_t whole = n - lag < 0 ? 0 : (n - lag) / 8;
            for (ptrdiff_t t = common; t < whole; t++) {
                v8f a, b;
                memcpy(&a, x + lag + 8 * t, sizeof a);
                memcpy(&b, x + 8 * t, sizeof b);
                acc[l] += a * b;
            }
            float s0 = acc[l][0];
            for (ptrdiff_t i = lag + 8 * whole; i < n; i++) s0 += x[i] * x[i - lag];
            float sum = ((s0 + acc[l][1]) + (acc[l][2] + acc[l][3])) + ((acc[l][4] + acc[l][5]) + (acc[l][6] + acc[l][7]));
            autoc[lag] = (double)sum;
        }
    }
}

// MARK: - Bit writer

KERNEL ptrdiff_t write_rice(CFLACWriter *w, const int64_t *r, ptrdiff_t n, int k) {
    uint8_t *bytes = w->bytes;
    const ptrdiff_t capacity = w->capacity;
    ptrdiff_t count = w->count, pending = w->pending;
    uint64_t acc = w->accumulator;
    const uint64_t lowMask = (1ull << k) - 1, stop = 1ull << k;
    ptrdiff_t i = 0;
#define PUT(value, bits)                                                                         \
    do {                                                                                         \
        acc = (acc << (bits)) | (value);                                                         \
        pending += (bits);                                                                       \
        if (pending >= 32) {                                                                     \
            pending -= 32;                                                                       \
            uint32_t word = __builtin_bswap32((uint32_t)(acc >> pending));                        \
            memcpy(bytes + count, &word, 4);                                                     \
            count += 4;                                                                          \
        }                                                                                        \
    } while (0)
    for (; i < n; i++) {
        uint64_t u = fold(r[i]);
        uint64_t q = u >> k;
        // A code of q + 1 + k bits stores at most (q + 1 + k + pending) / 8 + 4 bytes.
        if (count + (ptrdiff_t)(q >> 3) + 16 > capacity) break;
        ptrdiff_t length = (ptrdiff_t)q + 1 + k;
        if (length <= 32) {
            PUT(stop | (u & lowMask), length);
        } else {
            while (q >= 32) { PUT(0, 32); q -= 32; }
            PUT(1, (ptrdiff_t)q + 1);
            if (k > 0) PUT(u & lowMask, k);
        }
    }
#undef PUT
    w->count = count;
    w->pending = pending;
    w->accumulator = acc;
    return i;
}

// MARK: - Both variants

int cflac_scan_base(const int64_t *x, ptrdiff_t n, uint64_t *ored) { return scan(x, n, ored); }
WIDE int cflac_scan_wide(const int64_t *x, ptrdiff_t n, uint64_t *ored) { return scan(x, n, ored); }
int cflac_scan(int avx2, const int64_t *x, ptrdiff_t n, uint64_t *ored) {
    return CFLAC_X86 && avx2 ? cflac_scan_wide(x, n, ored) : cflac_scan_base(x, n, ored);
}

void cflac_fixed_sums_base(const int64_t *x, ptrdiff_t n, uint64_t *sums) { fixed_sums(x, n, sums); }
WIDE void cflac_fixed_sums_wide(const int64_t *x, ptrdiff_t n, uint64_t *sums) { fixed_sums(x, n, sums); }
void cflac_fixed_sums(int avx2, const int64_t *x, ptrdiff_t n, uint64_t *sums) {
    if (CFLAC_X86 && avx2) cflac_fixed_sums_wide(x, n, sums); else cflac_fixed_sums_base(x, n, sums);
}

int cflac_fixed_residual_base(const int64_t *x, ptrdiff_t n, int order, int64_t *r) { return fixed_residual(x, n, order, r); }
WIDE int cflac_fixed_residual_wide(const int64_t *x, ptrdiff_t n, int order, int64_t *r) { return fixed_residual(x, n, order, r); }
int cflac_fixed_residual(int avx2, const int64_t *x, ptrdiff_t n, int order, int64_t *r) {
    return CFLAC_X86 && avx2 ? cflac_fixed_residual_wide(x, n, order, r) : cflac_fixed_residual_base(x, n, order, r);
}

int cflac_lpc_residual_base(const int64_t *x, ptrdiff_t n, const int64_t *c, int order, int shift, int narrow, int64_t *r) {
    return lpc_residual(x, n, c, order, shift, narrow, r);
}
WIDE int cflac_lpc_residual_wide(const int64_t *x, ptrdiff_t n, const int64_t *c, int order, int shift, int narrow, int64_t *r) {
    return lpc_residual(x, n, c, order, shift, narrow, r);
}
int cflac_lpc_residual(int avx2, const int64_t *x, ptrdiff_t n, const int64_t *c, int order, int shift, int narrow, int64_t *r) {
    return CFLAC_X86 && avx2 ? cflac_lpc_residual_wide(x, n, c, order, shift, narrow, r)
                             : cflac_lpc_residual_base(x, n, c, order, shift, narrow, r);
}

void cflac_partition_sums_base(const int64_t *r, ptrdiff_t n, int order, int partitions, uint64_t *sums, uint64_t *ors) {
    partition_sums(r, n, order, partitions, sums, ors);
}
WIDE void cflac_partition_sums_wide(const int64_t *r, ptrdiff_t n, int order, int partitions, uint64_t *sums, uint64_t *ors) {
    partition_sums(r, n, order, partitions, sums, ors);
}
void cflac_partition_sums(int avx2, const int64_t *r, ptrdiff_t n, int order, int partitions, uint64_t *sums, uint64_t *ors) {
    if (CFLAC_X86 && avx2) cflac_partition_sums_wide(r, n, order, partitions, sums, ors);
    else cflac_partition_sums_base(r, n, order, partitions, sums, ors);
}

void cflac_window_autocorrelation_base(const int64_t *s, const float *w, ptrdiff_t n, int maxLag, float *x, double *autoc) {
    window_autocorrelation(s, w, n, maxLag, x, autoc);
}
WIDE void cflac_window_autocorrelation_wide(const int64_t *s, const float *w, ptrdiff_t n, int maxLag, float *x, double *autoc) {
    window_autocorrelation(s, w, n, maxLag, x, autoc);
}
void cflac_window_autocorrelation(int avx2, const int64_t *s, const float *w, ptrdiff_t n, int maxLag, float *x, double *autoc) {
    if (CFLAC_X86 && avx2) cflac_window_autocorrelation_wide(s, w, n, maxLag, x, autoc);
    else cflac_window_autocorrelation_base(s, w, n, maxLag, x, autoc);
}

ptrdiff_t cflac_write_rice_base(CFLACWriter *w, const int64_t *r, ptrdiff_t n, int k) { return write_rice(w, r, n, k); }
WIDE ptrdiff_t cflac_write_rice_wide(CFLACWriter *w, const int64_t *r, ptrdiff_t n, int k) { return write_rice(w, r, n, k); }
ptrdiff_t cflac_write_rice(int avx2, CFLACWriter *w, const int64_t *r, ptrdiff_t n, int k) {
    return CFLAC_X86 && avx2 ? cflac_write_rice_wide(w, r, n, k) : cflac_write_rice_base(w, r, n, k);
}

void cflac_rice_plan_base(uint64_t *sums, uint64_t *ors, int top, ptrdiff_t n, int order, CFLACRicePlan *best) {
    rice_plan(sums, ors, top, n, order, best);
}
WIDE void cflac_rice_plan_wide(uint64_t *sums, uint64_t *ors, int top, ptrdiff_t n, int order, CFLACRicePlan *best) {
    rice_plan(sums, ors, top, n, order, best);
}
/// (Its signature has no `avx2` argument, so it asks once itself: LZCNT and SHLX/SHRX shorten
/// its chains of leading-zero counts and variable shifts.)
void cflac_rice_plan(uint64_t *sums, uint64_t *ors, int top, ptrdiff_t n, int order, CFLACRicePlan *best) {
    static int wide = -1;   // −1: not asked yet; a race only asks twice and stores the same answer
    int w = __atomic_load_n(&wide, __ATOMIC_RELAXED);
    if (w < 0) {
        w = cflac_encode_has_avx2();
        __atomic_store_n(&wide, w, __ATOMIC_RELAXED);
    }
    if (CFLAC_X86 && w) cflac_rice_plan_wide(sums, ors, top, n, order, best);
    else cflac_rice_plan_base(sums, ors, top, n, order, best);
}

#if CFLAC_X86
int cflac_encode_has_avx2(void) {
    const char *force = getenv("OPENAVFAUDIO_FLAC_PORTABLE");
    if (force != NULL && force[0] != '\0' && force[0] != '0') return 0;
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("lzcnt");
}
#else
int cflac_encode_has_avx2(void) { return 0; }
#endif

// MARK: - MD5 (RFC 1321 §3.4)

void cflac_md5_blocks(uint32_t *state, const uint8_t *data, ptrdiff_t blocks, const uint32_t *table) {
    static const uint8_t shifts[16] = {7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21};
    for (ptrdiff_t block = 0; block < blocks; block++, data += 64) {
        uint32_t m[16];
        for (int j = 0; j < 16; j++) {
            m[j] = (uint32_t)data[4 * j] | (uint32_t)data[4 * j + 1] << 8 | (uint32_t)data[4 * j + 2] << 16 | (uint32_t)data[4 * j + 3] << 24;
        }
        uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
#pragma clang loop unroll(full)
        for (int i = 0; i < 64; i++) {
            uint32_t f;
            int g;
            switch (i >> 4) {
            case 0: f = (b & c) | (~b & d); g = i; break;
            case 1: f = (d & b) | (~d & c); g = (5 * i + 1) & 15; break;
            case 2: f = b ^ c ^ d; g = (3 * i + 5) & 15; break;
            default: f = c ^ (b | ~d); g = (7 * i) & 15; break;
            }
            f = f + a + table[i] + m[g];
            uint32_t s = shifts[(i >> 4) << 2 | (i & 3)];
            a = d;
            d = c;
            c = b;
            b = b + (f << s | f >> (32 - s));
        }
        state[0] += a; state[1] += b; state[2] += c; state[3] += d;
    }
}
