// The kernels for x86-64 CPUs with AVX2 (a per-function target attribute, so the package needs
// no compiler flags). Only ever called after a runtime check (dispatch.c).
#include "CEffectKernels.h"  // (outside the attribute: the header's declarations are not AVX2)

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2"))), apply_to = function)
#elif defined(__GNUC__)
#pragma GCC push_options
#pragma GCC target("avx2")
#endif

#define CEK_NAME(x) x##_avx2
#include "effects_impl.h"

// Eight lanes of √ and ÷ (vsqrtps, vdivps: correctly rounded, as the scalar ones).
void cek_soft_clip_avx2(const float *we, const float *wo, float *rootE, float *rootO,
                        float *ye, float *yo, ptrdiff_t m) {
    const __m256 one = _mm256_set1_ps(1.0f);
    const float p = wo[-1];
    rootO[0] = _mm_cvtss_f32(_mm_sqrt_ss(_mm_set_ss(1.0f + p * p)));
    ptrdiff_t t = 0;
    for (; t + 8 <= m; t += 8) {
        const __m256 e = _mm256_loadu_ps(we + t), o = _mm256_loadu_ps(wo + t);
        _mm256_storeu_ps(rootE + t, _mm256_sqrt_ps(_mm256_add_ps(one, _mm256_mul_ps(e, e))));
        _mm256_storeu_ps(rootO + t + 1, _mm256_sqrt_ps(_mm256_add_ps(one, _mm256_mul_ps(o, o))));
    }
    for (; t < m; t++) {
        const float e = we[t], o = wo[t];
        rootE[t] = _mm_cvtss_f32(_mm_sqrt_ss(_mm_set_ss(1.0f + e * e)));
        rootO[t + 1] = _mm_cvtss_f32(_mm_sqrt_ss(_mm_set_ss(1.0f + o * o)));
    }
    t = 0;
    for (; t + 8 <= m; t += 8) {
        const __m256 e = _mm256_loadu_ps(we + t), o = _mm256_loadu_ps(wo + t), op = _mm256_loadu_ps(wo + t - 1);
        const __m256 re = _mm256_loadu_ps(rootE + t), ro = _mm256_loadu_ps(rootO + t), ro1 = _mm256_loadu_ps(rootO + t + 1);
        _mm256_storeu_ps(ye + t, _mm256_div_ps(_mm256_add_ps(e, op), _mm256_add_ps(re, ro)));
        _mm256_storeu_ps(yo + t, _mm256_div_ps(_mm256_add_ps(o, e), _mm256_add_ps(ro1, re)));
    }
    for (; t < m; t++) {
        const float e = we[t], o = wo[t], re = rootE[t];
        ye[t] = (e + wo[t - 1]) / (re + rootO[t]);
        yo[t] = (o + e) / (rootO[t + 1] + re);
    }
}

#if defined(__clang__)
#pragma clang attribute pop
#elif defined(__GNUC__)
#pragma GCC pop_options
#endif
#endif
