// The kernels' source, included twice: by effects_portable.c as is and by effects_avx2.c under
// an AVX2 target attribute, with CEK_NAME naming each variant. Contraction is off (see the
// header): the compiler may vectorize but not fuse.
#pragma STDC FP_CONTRACT OFF
#if defined(__clang__)
#pragma clang fp contract(off)
#endif

void CEK_NAME(cek_fir)(float *restrict out, ptrdiff_t n, const float *a, const float *b,
                       const ptrdiff_t *offA, const ptrdiff_t *offB, const float *coef, ptrdiff_t count) {
    for (ptrdiff_t e = 0; e < count; e += 4) {
        const float *restrict a0 = a - offA[e], *restrict a1 = a - offA[e + 1];
        const float *restrict a2 = a - offA[e + 2], *restrict a3 = a - offA[e + 3];
        const float *restrict b0 = b - offB[e], *restrict b1 = b - offB[e + 1];
        const float *restrict b2 = b - offB[e + 2], *restrict b3 = b - offB[e + 3];
        const float c0 = coef[e], c1 = coef[e + 1], c2 = coef[e + 2], c3 = coef[e + 3];
        if (e == 0) {
            for (ptrdiff_t t = 0; t < n; t++)
                out[t] = c0 * (a0[t] + b0[t]) + c1 * (a1[t] + b1[t]) + c2 * (a2[t] + b2[t]) + c3 * (a3[t] + b3[t]);
        } else {
            for (ptrdiff_t t = 0; t < n; t++)
                out[t] = out[t] + (c0 * (a0[t] + b0[t]) + c1 * (a1[t] + b1[t]) + c2 * (a2[t] + b2[t]) + c3 * (a3[t] + b3[t]));
        }
    }
}
