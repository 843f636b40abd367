// The kernels' source, compiled twice: kernels_portable.c (baseline target) and
// kernels_avx2.c (AVX2 + FMA). CRK_NAME(x) gives each variant's external names; everything
// else is static to its translation unit.
//
// Vectors are 4 Float64 lanes (GCC/clang vector extensions): one AVX register, or two SSE2
// registers in the portable build. Floating-point contraction is on, so in the AVX2 + FMA build
// `a * b + c` becomes a fused multiply-add; the order of operations is otherwise the same.

#pragma STDC FP_CONTRACT ON
#if defined(__clang__)
// The helpers below take and return 4-lane vectors; they are static and always inlined, so the
// portable build's "AVX vector argument without AVX changes the ABI" does not apply.
#pragma clang diagnostic ignored "-Wpsabi"
#endif

#include "CResamplerKernels.h"

typedef double crk_v4d __attribute__((vector_size(32)));

static inline __attribute__((always_inline)) crk_v4d ld(const double *p) {
    crk_v4d v;
    __builtin_memcpy(&v, p, sizeof v);
    return v;
}

static inline __attribute__((always_inline)) void st(double *p, crk_v4d v) {
    __builtin_memcpy(p, &v, sizeof v);
}

static inline __attribute__((always_inline)) crk_v4d splat(double x) {
    crk_v4d v = {x, x, x, x};
    return v;
}

/// (sum a, sum b, sum c, sum d), pairwise (the order of PolyphaseStage.sum4).
static inline __attribute__((always_inline)) crk_v4d sum4(crk_v4d a, crk_v4d b, crk_v4d c, crk_v4d d) {
    crk_v4d ab = __builtin_shufflevector(a, b, 0, 1, 4, 5) + __builtin_shufflevector(a, b, 2, 3, 6, 7);
    crk_v4d cd = __builtin_shufflevector(c, d, 0, 1, 4, 5) + __builtin_shufflevector(c, d, 2, 3, 6, 7);
    return __builtin_shufflevector(ab, cd, 0, 2, 4, 6) + __builtin_shufflevector(ab, cd, 1, 3, 5, 7);
}

// MARK: spectrum products

void CRK_NAME(crk_multiply64)(const double *ar, const double *ai, const double *hr, const double *hi,
                              double *dr, double *di, ptrdiff_t n) {
    for (ptrdiff_t k = 0; k < n; k += 4) {
        crk_v4d xr = ld(ar + k), xi = ld(ai + k), yr = ld(hr + k), yi = ld(hi + k);
        st(dr + k, xr * yr - xi * yi);
        st(di + k, xr * yi + xi * yr);
    }
}

void CRK_NAME(crk_multiply_add64)(double *ar, double *ai, const double *har, const double *hai,
                                  const double *br, const double *bi, const double *hbr, const double *hbi,
                                  ptrdiff_t n) {
    for (ptrdiff_t k = 0; k < n; k += 4) {
        crk_v4d xr = ld(ar + k), xi = ld(ai + k), yr = ld(har + k), yi = ld(hai + k);
        crk_v4d ur = ld(br + k), ui = ld(bi + k), vr = ld(hbr + k), vi = ld(hbi + k);
        st(ar + k, xr * yr - xi * yi + (ur * vr - ui * vi));
        st(ai + k, xr * yi + xi * yr + (ur * vi + ui * vr));
    }
}

// MARK: polyphase stage, exact ratio

/// The loop for a given number of taps K (a compile-time constant where it matters).
static inline __attribute__((always_inline))
ptrdiff_t poly_exact(const double *table, const ptrdiff_t *offs, const ptrdiff_t K, ptrdiff_t p, ptrdiff_t q,
                     const double *buffer, ptrdiff_t cap, ptrdiff_t channels, ptrdiff_t origin, ptrdiff_t limit,
                     double *const *dest, ptrdiff_t offset, ptrdiff_t maxCount,
                     ptrdiff_t *cycleIndex, ptrdiff_t *cycleBase) {
    ptrdiff_t count = 0;
    ptrdiff_t j = *cycleIndex, base = *cycleBase;
    // four outputs at a time: per channel pair 8 accumulators, one transposed sum each
    while (count + 4 <= maxCount) {
        if (base + offs[j + 3] >= limit) break;
        const ptrdiff_t s0 = base + offs[j] - origin, s1 = base + offs[j + 1] - origin;
        const ptrdiff_t s2 = base + offs[j + 2] - origin, s3 = base + offs[j + 3] - origin;
        const double *c0 = table + j * K, *c1 = c0 + K, *c2 = c1 + K, *c3 = c2 + K;
        ptrdiff_t c = 0;
        for (; c + 1 < channels; c += 2) {
            const double *xa = buffer + c * cap, *xb = xa + cap;
            const double *xa0 = xa + s0, *xa1 = xa + s1, *xa2 = xa + s2, *xa3 = xa + s3;
            const double *xb0 = xb + s0, *xb1 = xb + s1, *xb2 = xb + s2, *xb3 = xb + s3;
            crk_v4d a0 = splat(0), a1 = a0, a2 = a0, a3 = a0, b0 = a0, b1 = a0, b2 = a0, b3 = a0;
            for (ptrdiff_t k = 0; k < K; k += 4) {
                crk_v4d h0 = ld(c0 + k), h1 = ld(c1 + k), h2 = ld(c2 + k), h3 = ld(c3 + k);
                a0 = a0 + h0 * ld(xa0 + k); b0 = b0 + h0 * ld(xb0 + k);
                a1 = a1 + h1 * ld(xa1 + k); b1 = b1 + h1 * ld(xb1 + k);
                a2 = a2 + h2 * ld(xa2 + k); b2 = b2 + h2 * ld(xb2 + k);
                a3 = a3 + h3 * ld(xa3 + k); b3 = b3 + h3 * ld(xb3 + k);
            }
            st(dest[c] + offset + count, sum4(a0, a1, a2, a3));
            st(dest[c + 1] + offset + count, sum4(b0, b1, b2, b3));
        }
        if (c < channels) {
            const double *xa = buffer + c * cap;
            crk_v4d a0 = splat(0), a1 = a0, a2 = a0, a3 = a0;
            for (ptrdiff_t k = 0; k < K; k += 4) {
                a0 = a0 + ld(c0 + k) * ld(xa + s0 + k);
                a1 = a1 + ld(c1 + k) * ld(xa + s1 + k);
                a2 = a2 + ld(c2 + k) * ld(xa + s2 + k);
                a3 = a3 + ld(c3 + k) * ld(xa + s3 + k);
            }
            st(dest[c] + offset + count, sum4(a0, a1, a2, a3));
        }
        count += 4;
        j += 4;
        while (j >= p) { j -= p; base += q; }
    }
    while (count < maxCount) {
        const ptrdiff_t pos = base + offs[j];
        if (pos >= limit) break;
        const double *coef = table + j * K;
        for (ptrdiff_t c = 0; c < channels; c++) {
            const double *xa = buffer + c * cap + (pos - origin);
            crk_v4d a0 = splat(0);
            for (ptrdiff_t k = 0; k < K; k += 4) a0 = a0 + ld(coef + k) * ld(xa + k);
            dest[c][offset + count] = sum4(a0, splat(0), splat(0), splat(0))[0];
        }
        count += 1;
        j += 1;
        if (j >= p) { j -= p; base += q; }
    }
    *cycleIndex = j;
    *cycleBase = base;
    return count;
}

ptrdiff_t CRK_NAME(crk_poly_exact64)(const double *table, const ptrdiff_t *offs, ptrdiff_t K,
                                     ptrdiff_t p, ptrdiff_t q,
                                     const double *buffer, ptrdiff_t cap, ptrdiff_t channels,
                                     ptrdiff_t origin, ptrdiff_t limit,
                                     double *const *dest, ptrdiff_t offset, ptrdiff_t maxCount,
                                     ptrdiff_t *cycleIndex, ptrdiff_t *cycleBase) {
#define CRK_POLY(k) poly_exact(table, offs, k, p, q, buffer, cap, channels, origin, limit, dest, offset, maxCount, \
                               cycleIndex, cycleBase)
    switch (K) {
    case 4: return CRK_POLY(4);
    case 8: return CRK_POLY(8);
    case 12: return CRK_POLY(12);
    case 16: return CRK_POLY(16);
    case 20: return CRK_POLY(20);
    case 24: return CRK_POLY(24);
    default: return CRK_POLY(K);
    }
#undef CRK_POLY
}

// MARK: Float32 polyphase

typedef float crk_v8f __attribute__((vector_size(32)));
typedef float crk_v4f __attribute__((vector_size(16)));

static inline __attribute__((always_inline)) crk_v8f ld8f(const float *p) {
    crk_v8f v;
    __builtin_memcpy(&v, p, sizeof v);
    return v;
}

static inline __attribute__((always_inline)) crk_v4f ld4f(const float *p) {
    crk_v4f v;
    __builtin_memcpy(&v, p, sizeof v);
    return v;
}

static inline __attribute__((always_inline)) void st4f(float *p, crk_v4f v) {
    __builtin_memcpy(p, &v, sizeof v);
}

/// The low and high halves of an 8-lane accumulator, added: 4 lanes with the same total.
static inline __attribute__((always_inline)) crk_v4f fold8(crk_v8f v) {
    return __builtin_shufflevector(v, v, 0, 1, 2, 3) + __builtin_shufflevector(v, v, 4, 5, 6, 7);
}

/// (sum a, sum b, sum c, sum d) of 4-lane vectors, pairwise.
static inline __attribute__((always_inline)) crk_v4f sum4f(crk_v4f a, crk_v4f b, crk_v4f c, crk_v4f d) {
    crk_v4f ab = __builtin_shufflevector(a, b, 0, 1, 4, 5) + __builtin_shufflevector(a, b, 2, 3, 6, 7);
    crk_v4f cd = __builtin_shufflevector(c, d, 0, 1, 4, 5) + __builtin_shufflevector(c, d, 2, 3, 6, 7);
    return __builtin_shufflevector(ab, cd, 0, 2, 4, 6) + __builtin_shufflevector(ab, cd, 1, 3, 5, 7);
}

/// Four outputs at a time, as poly_exact, with eight taps per vector (a four-tap tail when K is
/// not a multiple of 8): half the loads of the four-lane loop per multiply-add.
static inline __attribute__((always_inline))
ptrdiff_t poly_exact32(const float *table, const ptrdiff_t *offs, const ptrdiff_t K, ptrdiff_t p, ptrdiff_t q,
                       const float *buffer, ptrdiff_t cap, ptrdiff_t channels, ptrdiff_t origin, ptrdiff_t limit,
                       float *const *dest, ptrdiff_t offset, ptrdiff_t maxCount,
                       ptrdiff_t *cycleIndex, ptrdiff_t *cycleBase) {
    const ptrdiff_t K8 = K & ~(ptrdiff_t)7;
    ptrdiff_t count = 0;
    ptrdiff_t j = *cycleIndex, base = *cycleBase;
    while (count + 4 <= maxCount) {
        if (base + offs[j + 3] >= limit) break;
        const ptrdiff_t s0 = base + offs[j] - origin, s1 = base + offs[j + 1] - origin;
        const ptrdiff_t s2 = base + offs[j + 2] - origin, s3 = base + offs[j + 3] - origin;
        const float *c0 = table + j * K, *c1 = c0 + K, *c2 = c1 + K, *c3 = c2 + K;
        ptrdiff_t c = 0;
        for (; c + 1 < channels; c += 2) {
            const float *xa = buffer + c * cap, *xb = xa + cap;
            const crk_v8f z = {0, 0, 0, 0, 0, 0, 0, 0};
            crk_v8f a0 = z, a1 = z, a2 = z, a3 = z, b0 = z, b1 = z, b2 = z, b3 = z;
            for (ptrdiff_t k = 0; k < K8; k += 8) {
                crk_v8f h0 = ld8f(c0 + k), h1 = ld8f(c1 + k), h2 = ld8f(c2 + k), h3 = ld8f(c3 + k);
                a0 = a0 + h0 * ld8f(xa + s0 + k); b0 = b0 + h0 * ld8f(xb + s0 + k);
                a1 = a1 + h1 * ld8f(xa + s1 + k); b1 = b1 + h1 * ld8f(xb + s1 + k);
                a2 = a2 + h2 * ld8f(xa + s2 + k); b2 = b2 + h2 * ld8f(xb + s2 + k);
                a3 = a3 + h3 * ld8f(xa + s3 + k); b3 = b3 + h3 * ld8f(xb + s3 + k);
            }
            crk_v4f A0 = fold8(a0), A1 = fold8(a1), A2 = fold8(a2), A3 = fold8(a3);
            crk_v4f B0 = fold8(b0), B1 = fold8(b1), B2 = fold8(b2), B3 = fold8(b3);
            if (K8 < K) {
                const ptrdiff_t k = K8;
                crk_v4f h0 = ld4f(c0 + k), h1 = ld4f(c1 + k), h2 = ld4f(c2 + k), h3 = ld4f(c3 + k);
                A0 = A0 + h0 * ld4f(xa + s0 + k); B0 = B0 + h0 * ld4f(xb + s0 + k);
                A1 = A1 + h1 * ld4f(xa + s1 + k); B1 = B1 + h1 * ld4f(xb + s1 + k);
                A2 = A2 + h2 * ld4f(xa + s2 + k); B2 = B2 + h2 * ld4f(xb + s2 + k);
                A3 = A3 + h3 * ld4f(xa + s3 + k); B3 = B3 + h3 * ld4f(xb + s3 + k);
            }
            st4f(dest[c] + offset + count, sum4f(A0, A1, A2, A3));
            st4f(dest[c + 1] + offset + count, sum4f(B0, B1, B2, B3));
        }
        if (c < channels) {
            const float *xa = buffer + c * cap;
            const crk_v8f z = {0, 0, 0, 0, 0, 0, 0, 0};
            crk_v8f a0 = z, a1 = z, a2 = z, a3 = z;
            for (ptrdiff_t k = 0; k < K8; k += 8) {
                a0 = a0 + ld8f(c0 + k) * ld8f(xa + s0 + k);
                a1 = a1 + ld8f(c1 + k) * ld8f(xa + s1 + k);
                a2 = a2 + ld8f(c2 + k) * ld8f(xa + s2 + k);
                a3 = a3 + ld8f(c3 + k) * ld8f(xa + s3 + k);
            }
            crk_v4f A0 = fold8(a0), A1 = fold8(a1), A2 = fold8(a2), A3 = fold8(a3);
            if (K8 < K) {
                const ptrdiff_t k = K8;
                A0 = A0 + ld4f(c0 + k) * ld4f(xa + s0 + k);
                A1 = A1 + ld4f(c1 + k) * ld4f(xa + s1 + k);
                A2 = A2 + ld4f(c2 + k) * ld4f(xa + s2 + k);
                A3 = A3 + ld4f(c3 + k) * ld4f(xa + s3 + k);
            }
            st4f(dest[c] + offset + count, sum4f(A0, A1, A2, A3));
        }
        count += 4;
        j += 4;
        while (j >= p) { j -= p; base += q; }
    }
    while (count < maxCount) {
        const ptrdiff_t pos = base + offs[j];
        if (pos >= limit) break;
        const float *coef = table + j * K;
        for (ptrdiff_t c = 0; c < channels; c++) {
            const float *xa = buffer + c * cap + (pos - origin);
            // the same operations as an output of the four-at-a-time loop, so the result does
            // not depend on where a call's outputs start (chunking invariance)
            const crk_v8f z8 = {0, 0, 0, 0, 0, 0, 0, 0};
            crk_v8f a0 = z8;
            for (ptrdiff_t k = 0; k < K8; k += 8) a0 = a0 + ld8f(coef + k) * ld8f(xa + k);
            crk_v4f A0 = fold8(a0);
            if (K8 < K) A0 = A0 + ld4f(coef + K8) * ld4f(xa + K8);
            const crk_v4f z = {0, 0, 0, 0};
            dest[c][offset + count] = sum4f(A0, z, z, z)[0];
        }
        count += 1;
        j += 1;
        if (j >= p) { j -= p; base += q; }
    }
    *cycleIndex = j;
    *cycleBase = base;
    return count;
}

ptrdiff_t CRK_NAME(crk_poly_exact32)(const float *table, const ptrdiff_t *offs, ptrdiff_t K,
                                     ptrdiff_t p, ptrdiff_t q,
                                     const float *buffer, ptrdiff_t cap, ptrdiff_t channels,
                                     ptrdiff_t origin, ptrdiff_t limit,
                                     float *const *dest, ptrdiff_t offset, ptrdiff_t maxCount,
                                     ptrdiff_t *cycleIndex, ptrdiff_t *cycleBase) {
#define CRK_POLY32(k) poly_exact32(table, offs, k, p, q, buffer, cap, channels, origin, limit, dest, offset, maxCount, \
                                   cycleIndex, cycleBase)
    switch (K) {
    case 8: return CRK_POLY32(8);
    case 12: return CRK_POLY32(12);
    case 16: return CRK_POLY32(16);
    case 20: return CRK_POLY32(20);
    case 24: return CRK_POLY32(24);
    default: return CRK_POLY32(K);
    }
#undef CRK_POLY32
}
