// The permuted FFT's Float64 passes, compiled twice: kernels_portable.c (baseline target) and
// kernels_avx2.c (AVX2 + FMA). CFFT_NAME(x) gives each variant's external names; everything
// else is static to its translation unit. The algorithm, pass for pass, is AudioKernels'
// `PermutedFFT` (FFT/PermutedFFT.swift), which builds the tables; this is its vector body.
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

#include "CFFTKernels.h"

typedef double cfft_v4d __attribute__((vector_size(32)));

static inline __attribute__((always_inline)) cfft_v4d ld(const double *p) {
    cfft_v4d v;
    __builtin_memcpy(&v, p, sizeof v);
    return v;
}

static inline __attribute__((always_inline)) void st(double *p, cfft_v4d v) {
    __builtin_memcpy(p, &v, sizeof v);
}

/// 4x4 transpose: rows (a, b, c, d) -> columns.
#define CFFT_TRANSPOSE(a, b, c, d, r0, r1, r2, r3) do { \
    cfft_v4d t0_ = __builtin_shufflevector(a, b, 0, 4, 2, 6); \
    cfft_v4d t1_ = __builtin_shufflevector(a, b, 1, 5, 3, 7); \
    cfft_v4d t2_ = __builtin_shufflevector(c, d, 0, 4, 2, 6); \
    cfft_v4d t3_ = __builtin_shufflevector(c, d, 1, 5, 3, 7); \
    r0 = __builtin_shufflevector(t0_, t2_, 0, 1, 4, 5); \
    r1 = __builtin_shufflevector(t1_, t3_, 0, 1, 4, 5); \
    r2 = __builtin_shufflevector(t0_, t2_, 2, 3, 6, 7); \
    r3 = __builtin_shufflevector(t1_, t3_, 2, 3, 6, 7); \
} while (0)

// MARK: FFT

/// One forward radix-4 pass of span s (a multiple of 4): (xr, xi) -> (re, im), which may be the same.
static inline __attribute__((always_inline))
void forward_pass(const double *xr, const double *xi, double *re, double *im, ptrdiff_t n, ptrdiff_t s,
                  const double *twiddles) {
    for (ptrdiff_t g = 0; g < n; g += 4 * s) {
        const double *t = twiddles;
        for (ptrdiff_t o0 = g; o0 < g + s; o0 += 4, t += 24) {
            const ptrdiff_t o1 = o0 + s, o2 = o1 + s, o3 = o2 + s;
            cfft_v4d ar = ld(xr + o0), ai = ld(xi + o0);
            cfft_v4d br = ld(xr + o1), bi = ld(xi + o1);
            cfft_v4d cr = ld(xr + o2), ci = ld(xi + o2);
            cfft_v4d dr = ld(xr + o3), di = ld(xi + o3);
            cfft_v4d t0r = ar + cr, t0i = ai + ci, t1r = ar - cr, t1i = ai - ci;
            cfft_v4d t2r = br + dr, t2i = bi + di, t3r = br - dr, t3i = bi - di;
            // z0 = t0 + t2, z2 = t0 - t2, z1 = t1 - i t3, z3 = t1 + i t3
            st(re + o0, t0r + t2r); st(im + o0, t0i + t2i);
            cfft_v4d z1r = t1r + t3i, z1i = t1i - t3r;
            cfft_v4d z2r = t0r - t2r, z2i = t0i - t2i;
            cfft_v4d z3r = t1r - t3i, z3i = t1i + t3r;
            cfft_v4d w1r = ld(t), w1i = ld(t + 4);
            st(re + o1, z1r * w1r - z1i * w1i); st(im + o1, z1r * w1i + z1i * w1r);
            cfft_v4d w2r = ld(t + 8), w2i = ld(t + 12);
            st(re + o2, z2r * w2r - z2i * w2i); st(im + o2, z2r * w2i + z2i * w2r);
            cfft_v4d w3r = ld(t + 16), w3i = ld(t + 20);
            st(re + o3, z3r * w3r - z3i * w3i); st(im + o3, z3r * w3i + z3i * w3r);
        }
    }
}

void CFFT_NAME(cfft_forward64)(const CFFTPlan *plan, const double *sr, const double *si, double *re, double *im) {
    const ptrdiff_t n = plan->n;
    const double *xr = sr, *xi = si;
    if (plan->hasRadix2Pass) {
        const ptrdiff_t half = n / 2;
        const double *wr = plan->twiddles2, *wi = plan->twiddles2 + half;
        for (ptrdiff_t j = 0; j < half; j += 4) {
            cfft_v4d ar = ld(xr + j), ai = ld(xi + j), br = ld(xr + j + half), bi = ld(xi + j + half);
            cfft_v4d dr = ar - br, di = ai - bi;
            cfft_v4d cr = ld(wr + j), ci = ld(wi + j);
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
        cfft_v4d ar, br, cr, dr, ai, bi, ci, di;
        cfft_v4d r0 = ld(xr + g), r1 = ld(xr + g + 4), r2 = ld(xr + g + 8), r3 = ld(xr + g + 12);
        cfft_v4d i0 = ld(xi + g), i1 = ld(xi + g + 4), i2 = ld(xi + g + 8), i3 = ld(xi + g + 12);
        CFFT_TRANSPOSE(r0, r1, r2, r3, ar, br, cr, dr);
        CFFT_TRANSPOSE(i0, i1, i2, i3, ai, bi, ci, di);
        cfft_v4d t0r = ar + cr, t0i = ai + ci, t1r = ar - cr, t1i = ai - ci;
        cfft_v4d t2r = br + dr, t2i = bi + di, t3r = br - dr, t3i = bi - di;
        st(re + g, t0r + t2r); st(im + g, t0i + t2i);
        st(re + g + 4, t1r + t3i); st(im + g + 4, t1i - t3r);
        st(re + g + 8, t0r - t2r); st(im + g + 8, t0i - t2i);
        st(re + g + 12, t1r - t3i); st(im + g + 12, t1i + t3r);
    }
}

void CFFT_NAME(cfft_inverse64)(const CFFTPlan *plan, double *re, double *im) {
    const ptrdiff_t n = plan->n;
    for (ptrdiff_t g = 0; g < n; g += 16) {
        cfft_v4d z0r = ld(re + g), z0i = ld(im + g), z1r = ld(re + g + 4), z1i = ld(im + g + 4);
        cfft_v4d z2r = ld(re + g + 8), z2i = ld(im + g + 8), z3r = ld(re + g + 12), z3i = ld(im + g + 12);
        cfft_v4d t0r = z0r + z2r, t0i = z0i + z2i, t1r = z0r - z2r, t1i = z0i - z2i;
        cfft_v4d t2r = z1r + z3r, t2i = z1i + z3i, t3r = z1r - z3r, t3i = z1i - z3i;
        // a = t0 + t2, c = t0 - t2, b = t1 + i t3, d = t1 - i t3
        cfft_v4d ar = t0r + t2r, br = t1r - t3i, cr = t0r - t2r, dr = t1r + t3i;
        cfft_v4d ai = t0i + t2i, bi = t1i + t3r, ci = t0i - t2i, di = t1i - t3r;
        cfft_v4d v0, v1, v2, v3;
        CFFT_TRANSPOSE(ar, br, cr, dr, v0, v1, v2, v3);
        st(re + g, v0); st(re + g + 4, v1); st(re + g + 8, v2); st(re + g + 12, v3);
        CFFT_TRANSPOSE(ai, bi, ci, di, v0, v1, v2, v3);
        st(im + g, v0); st(im + g + 4, v1); st(im + g + 8, v2); st(im + g + 12, v3);
    }
    for (ptrdiff_t p = plan->passCount - 1; p >= 0; p--) {
        const ptrdiff_t s = plan->spans[p];
        for (ptrdiff_t g = 0; g < n; g += 4 * s) {
            const double *t = plan->twiddles4 + plan->offsets[p];
            for (ptrdiff_t o0 = g; o0 < g + s; o0 += 4, t += 24) {
                const ptrdiff_t o1 = o0 + s, o2 = o1 + s, o3 = o2 + s;
                cfft_v4d z0r = ld(re + o0), z0i = ld(im + o0);
                cfft_v4d w1r = ld(t), w1i = ld(t + 4);
                cfft_v4d y1r = ld(re + o1), y1i = ld(im + o1);
                cfft_v4d z1r = y1r * w1r + y1i * w1i, z1i = y1i * w1r - y1r * w1i;
                cfft_v4d w2r = ld(t + 8), w2i = ld(t + 12);
                cfft_v4d y2r = ld(re + o2), y2i = ld(im + o2);
                cfft_v4d z2r = y2r * w2r + y2i * w2i, z2i = y2i * w2r - y2r * w2i;
                cfft_v4d w3r = ld(t + 16), w3i = ld(t + 20);
                cfft_v4d y3r = ld(re + o3), y3i = ld(im + o3);
                cfft_v4d z3r = y3r * w3r + y3i * w3i, z3i = y3i * w3r - y3r * w3i;
                cfft_v4d t0r = z0r + z2r, t0i = z0i + z2i, t1r = z0r - z2r, t1i = z0i - z2i;
                cfft_v4d t2r = z1r + z3r, t2i = z1i + z3i, t3r = z1r - z3r, t3i = z1i - z3i;
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
            cfft_v4d ar = ld(re + j), ai = ld(im + j), yr = ld(re + j + half), yi = ld(im + j + half);
            cfft_v4d cr = ld(wr + j), ci = ld(wi + j);
            cfft_v4d br = yr * cr + yi * ci, bi = yi * cr - yr * ci;
            st(re + j, ar + br); st(im + j, ai + bi);
            st(re + j + half, ar - br); st(im + j + half, ai - bi);
        }
    }
}

