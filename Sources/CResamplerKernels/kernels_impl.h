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

/// 4x4 transpose: rows (a, b, c, d) -> columns.
#define CRK_TRANSPOSE(a, b, c, d, r0, r1, r2, r3) do { \
    crk_v4d t0_ = __builtin_shufflevector(a, b, 0, 4, 2, 6); \
    crk_v4d t1_ = __builtin_shufflevector(a, b, 1, 5, 3, 7); \
    crk_v4d t2_ = __builtin_shufflevector(c, d, 0, 4, 2, 6); \
    crk_v4d t3_ = __builtin_shufflevector(c, d, 1, 5, 3, 7); \
    r0 = __builtin_shufflevector(t0_, t2_, 0, 1, 4, 5); \
    r1 = __builtin_shufflevector(t1_, t3_, 0, 1, 4, 5); \
    r2 = __builtin_shufflevector(t0_, t2_, 2, 3, 6, 7); \
    r3 = __builtin_shufflevector(t1_, t3_, 2, 3, 6, 7); \
} while (0)

/// (sum a, sum b, sum c, sum d), pairwise (the order of PolyphaseStage.sum4).
static inline __attribute__((always_inline)) crk_v4d sum4(crk_v4d a, crk_v4d b, crk_v4d c, crk_v4d d) {
    crk_v4d ab = __builtin_shufflevector(a, b, 0, 1, 4, 5) + __builtin_shufflevector(a, b, 2, 3, 6, 7);
    crk_v4d cd = __builtin_shufflevector(c, d, 0, 1, 4, 5) + __builtin_shufflevector(c, d, 2, 3, 6, 7);
    return __builtin_shufflevector(ab, cd, 0, 2, 4, 6) + __builtin_shufflevector(ab, cd, 1, 3, 5, 7);
}

// MARK: FFT

/// One forward radix-4 pass of span s (a multiple of 4): (xr, xi) -> (re, im), which may be the same.
static inline __attribute__((always_inline))
void forward_pass(const double *xr, const double *xi, double *re, double *im, ptrdiff_t n, ptrdiff_t s,
                  const double *twiddles) {
    for (ptrdiff_t g = 0; g < n; g += 4 * s) {
        const double *t = twiddles;
        for (ptrdiff_t o0 = g; o0 < g + s; o0 += 4, t += 24) {
            const ptrdiff_t o1 = o0 + s, o2 = o1 + s, o3 = o2 + s;
            crk_v4d ar = ld(xr + o0), ai = ld(xi + o0);
            crk_v4d br = ld(xr + o1), bi = ld(xi + o1);
            crk_v4d cr = ld(xr + o2), ci = ld(xi + o2);
            crk_v4d dr = ld(xr + o3), di = ld(xi + o3);
            crk_v4d t0r = ar + cr, t0i = ai + ci, t1r = ar - cr, t1i = ai - ci;
            crk_v4d t2r = br + dr, t2i = bi + di, t3r = br - dr, t3i = bi - di;
            // z0 = t0 + t2, z2 = t0 - t2, z1 = t1 - i t3, z3 = t1 + i t3
            st(re + o0, t0r + t2r); st(im + o0, t0i + t2i);
            crk_v4d z1r = t1r + t3i, z1i = t1i - t3r;
            crk_v4d z2r = t0r - t2r, z2i = t0i - t2i;
            crk_v4d z3r = t1r - t3i, z3i = t1i + t3r;
            crk_v4d w1r = ld(t), w1i = ld(t + 4);
            st(re + o1, z1r * w1r - z1i * w1i); st(im + o1, z1r * w1i + z1i * w1r);
            crk_v4d w2r = ld(t + 8), w2i = ld(t + 12);
            st(re + o2, z2r * w2r - z2i * w2i); st(im + o2, z2r * w2i + z2i * w2r);
            crk_v4d w3r = ld(t + 16), w3i = ld(t + 20);
            st(re + o3, z3r * w3r - z3i * w3i); st(im + o3, z3r * w3i + z3i * w3r);
        }
    }
}

void CRK_NAME(crk_fft_forward64)(const CRKFFTPlan *plan, const double *sr, const double *si, double *re, double *im) {
    const ptrdiff_t n = plan->n;
    const double *xr = sr, *xi = si;
    if (plan->hasRadix2Pass) {
        const ptrdiff_t half = n / 2;
        const double *wr = plan->twiddles2, *wi = plan->twiddles2 + half;
        for (ptrdiff_t j = 0; j < half; j += 4) {
            crk_v4d ar = ld(xr + j), ai = ld(xi + j), br = ld(xr + j + half), bi = ld(xi + j + half);
            crk_v4d dr = ar - br, di = ai - bi;
            crk_v4d cr = ld(wr + j), ci = ld(wi + j);
            st(re + j, ar + br); st(im + j, ai + bi);
            st(re + j + half, dr * cr - di * ci); st(im + j + half, dr * ci + di * cr);
        }
        xr = re; xi = im;
    }
    ptrdiff_t p = 0;
    if (xr != re && plan->passCount > 0) {
        forward_pass(xr, xi, re, im, n, plan->spans[0], plan->twiddles4 + plan->offsets[0]);
        xr = re; xi = im;
        p = 1;
    }
    for (; p < plan->passCount; p++) {
        forward_pass(re, im, re, im, n, plan->spans[p], plan->twiddles4 + plan->offsets[p]);
    }
    // last pass, span 1: four groups of four loaded transposed, results stored transposed
    for (ptrdiff_t g = 0; g < n; g += 16) {
        crk_v4d ar, br, cr, dr, ai, bi, ci, di;
        crk_v4d r0 = ld(xr + g), r1 = ld(xr + g + 4), r2 = ld(xr + g + 8), r3 = ld(xr + g + 12);
        crk_v4d i0 = ld(xi + g), i1 = ld(xi + g + 4), i2 = ld(xi + g + 8), i3 = ld(xi + g + 12);
        CRK_TRANSPOSE(r0, r1, r2, r3, ar, br, cr, dr);
        CRK_TRANSPOSE(i0, i1, i2, i3, ai, bi, ci, di);
        crk_v4d t0r = ar + cr, t0i = ai + ci, t1r = ar - cr, t1i = ai - ci;
        crk_v4d t2r = br + dr, t2i = bi + di, t3r = br - dr, t3i = bi - di;
        st(re + g, t0r + t2r); st(im + g, t0i + t2i);
        st(re + g + 4, t1r + t3i); st(im + g + 4, t1i - t3r);
        st(re + g + 8, t0r - t2r); st(im + g + 8, t0i - t2i);
        st(re + g + 12, t1r - t3i); st(im + g + 12, t1i + t3r);
    }
}

void CRK_NAME(crk_fft_inverse64)(const CRKFFTPlan *plan, double *re, double *im) {
    const ptrdiff_t n = plan->n;
    for (ptrdiff_t g = 0; g < n; g += 16) {
        crk_v4d z0r = ld(re + g), z0i = ld(im + g), z1r = ld(re + g + 4), z1i = ld(im + g + 4);
        crk_v4d z2r = ld(re + g + 8), z2i = ld(im + g + 8), z3r = ld(re + g + 12), z3i = ld(im + g + 12);
        crk_v4d t0r = z0r + z2r, t0i = z0i + z2i, t1r = z0r - z2r, t1i = z0i - z2i;
        crk_v4d t2r = z1r + z3r, t2i = z1i + z3i, t3r = z1r - z3r, t3i = z1i - z3i;
        // a = t0 + t2, c = t0 - t2, b = t1 + i t3, d = t1 - i t3
        crk_v4d ar = t0r + t2r, br = t1r - t3i, cr = t0r - t2r, dr = t1r + t3i;
        crk_v4d ai = t0i + t2i, bi = t1i + t3r, ci = t0i - t2i, di = t1i - t3r;
        crk_v4d v0, v1, v2, v3;
        CRK_TRANSPOSE(ar, br, cr, dr, v0, v1, v2, v3);
        st(re + g, v0); st(re + g + 4, v1); st(re + g + 8, v2); st(re + g + 12, v3);
        CRK_TRANSPOSE(ai, bi, ci, di, v0, v1, v2, v3);
        st(im + g, v0); st(im + g + 4, v1); st(im + g + 8, v2); st(im + g + 12, v3);
    }
    for (ptrdiff_t p = plan->passCount - 1; p >= 0; p--) {
        const ptrdiff_t s = plan->spans[p];
        for (ptrdiff_t g = 0; g < n; g += 4 * s) {
            const double *t = plan->twiddles4 + plan->offsets[p];
            for (ptrdiff_t o0 = g; o0 < g + s; o0 += 4, t += 24) {
                const ptrdiff_t o1 = o0 + s, o2 = o1 + s, o3 = o2 + s;
                crk_v4d z0r = ld(re + o0), z0i = ld(im + o0);
                crk_v4d w1r = ld(t), w1i = ld(t + 4);
                crk_v4d y1r = ld(re + o1), y1i = ld(im + o1);
                crk_v4d z1r = y1r * w1r + y1i * w1i, z1i = y1i * w1r - y1r * w1i;
                crk_v4d w2r = ld(t + 8), w2i = ld(t + 12);
                crk_v4d y2r = ld(re + o2), y2i = ld(im + o2);
                crk_v4d z2r = y2r * w2r + y2i * w2i, z2i = y2i * w2r - y2r * w2i;
                crk_v4d w3r = ld(t + 16), w3i = ld(t + 20);
                crk_v4d y3r = ld(re + o3), y3i = ld(im + o3);
                crk_v4d z3r = y3r * w3r + y3i * w3i, z3i = y3i * w3r - y3r * w3i;
                crk_v4d t0r = z0r + z2r, t0i = z0i + z2i, t1r = z0r - z2r, t1i = z0i - z2i;
                crk_v4d t2r = z1r + z3r, t2i = z1i + z3i, t3r = z1r - z3r, t3i = z1i - z3i;
                st(re + o0, t0r + t2r); st(im + o0, t0i + t2i);
                st(re + o1, t1r - t3i); st(im + o1, t1i + t3r);
                st(re + o2, t0r - t2r); st(im + o2, t0i - t2i);
                st(re + o3, t1r + t3i); st(im + o3, t1i - t3r);
            }
        }
    }
    if (plan->hasRadix2Pass) {
        const ptrdiff_t half = n / 2;
        const double *wr = plan->twiddles2, *wi = plan->twiddles2 + half;
        for (ptrdiff_t j = 0; j < half; j += 4) {
            crk_v4d ar = ld(re + j), ai = ld(im + j), yr = ld(re + j + half), yi = ld(im + j + half);
            crk_v4d cr = ld(wr + j), ci = ld(wi + j);
            crk_v4d br = yr * cr + yi * ci, bi = yi * cr - yr * ci;
            st(re + j, ar + br); st(im + j, ai + bi);
            st(re + j + half, ar - br); st(im + j + half, ai - bi);
        }
    }
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
