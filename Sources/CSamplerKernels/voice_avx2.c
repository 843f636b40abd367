// The sampler's voice loops for x86-64 CPUs with AVX2 and FMA (a per-function target attribute,
// so the package needs no compiler flags). Only ever called after a runtime check (dispatch.c).
// The interpolation loads its four points per frame (contiguous; Float or 16-bit) and transposes, eight frames at a time;
// the low-pass runs its recursion with one fused multiply-add on the critical path.
#include "CSamplerKernels.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,fma"))), apply_to = function)
#elif defined(__GNUC__)
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#endif
// No contraction into fused multiply-adds except where written (the low-pass): the vector body
// and the scalar tails must round alike, so a voice sounds the same wherever a run is split.
#if defined(__clang__)
#pragma clang fp contract(off)
#else
#pragma STDC FP_CONTRACT OFF
#endif

static inline float cubic1(float p0, float p1, float p2, float p3, float f) {
    return p1 + 0.5f * f * (p2 - p0 + f * (2.0f * p0 - 5.0f * p1 + 4.0f * p2 - p3 + f * (3.0f * (p1 - p2) + p3 - p0)));
}

// The interpolation of eight frames from their four points each (r0 … r3: frames k, k+1, k+2,
// k+3 in the low halves, k+4 … k+7 in the high halves) at fractions f: a 4 × 4 transpose in each
// half, then p1 + 0.5·f·(p2 − p0 + f·(2p0 − 5p1 + 4p2 − p3 + f·(3(p1 − p2) + p3 − p0))), the same
// operations in the same order as the portable loop (no contraction).
static inline __m256 cubic8(__m256 r0, __m256 r1, __m256 r2, __m256 r3, __m256 f) {
    const __m256 half = _mm256_set1_ps(0.5f), two = _mm256_set1_ps(2.0f), three = _mm256_set1_ps(3.0f);
    const __m256 four = _mm256_set1_ps(4.0f), five = _mm256_set1_ps(5.0f);
    __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpacklo_ps(r2, r3);
    __m256 t2 = _mm256_unpackhi_ps(r0, r1), t3 = _mm256_unpackhi_ps(r2, r3);
    __m256 p0 = _mm256_shuffle_ps(t0, t1, _MM_SHUFFLE(1, 0, 1, 0));
    __m256 p1 = _mm256_shuffle_ps(t0, t1, _MM_SHUFFLE(3, 2, 3, 2));
    __m256 p2 = _mm256_shuffle_ps(t2, t3, _MM_SHUFFLE(1, 0, 1, 0));
    __m256 p3 = _mm256_shuffle_ps(t2, t3, _MM_SHUFFLE(3, 2, 3, 2));
    __m256 c3 = _mm256_sub_ps(_mm256_add_ps(_mm256_mul_ps(three, _mm256_sub_ps(p1, p2)), p3), p0);
    __m256 c2 = _mm256_sub_ps(_mm256_add_ps(_mm256_sub_ps(_mm256_mul_ps(two, p0), _mm256_mul_ps(five, p1)), _mm256_mul_ps(four, p2)), p3);
    __m256 inner = _mm256_add_ps(c2, _mm256_mul_ps(f, c3));
    __m256 mid = _mm256_add_ps(_mm256_sub_ps(p2, p0), _mm256_mul_ps(f, inner));
    return _mm256_add_ps(p1, _mm256_mul_ps(_mm256_mul_ps(half, f), mid));
}

// The fractions of frames k … k+7 (the low 32 bits of each phase, top 24 bits used), in frame order.
static inline __m256 fractions8(uint64_t phase, __m256i steps0, __m256i steps1) {
    __m256i base = _mm256_set1_epi64x((long long)phase);
    __m256 a = _mm256_castsi256_ps(_mm256_add_epi64(base, steps0));
    __m256 b = _mm256_castsi256_ps(_mm256_add_epi64(base, steps1));
    __m256 lo = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0));
    __m256i fr = _mm256_castpd_si256(_mm256_permute4x64_pd(_mm256_castps_pd(lo), _MM_SHUFFLE(3, 1, 2, 0)));
    return _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_srli_epi32(fr, 8)), _mm256_set1_ps(1.0f / 16777216.0f));
}

uint64_t csk_cubic_avx2(const float *s, float *out, ptrdiff_t n, uint64_t phase, uint64_t incr) {
    ptrdiff_t k = 0;
    const __m256i steps0 = _mm256_set_epi64x((long long)(3 * incr), (long long)(2 * incr), (long long)incr, 0);
    const __m256i steps1 = _mm256_add_epi64(steps0, _mm256_set1_epi64x((long long)(4 * incr)));
    for (; k + 8 <= n; k += 8) {
        uint64_t ph = phase + (uint64_t)k * incr;
        __m256 f = fractions8(ph, steps0, steps1);
        // the four points of each frame are contiguous: one unaligned 128-bit load per frame,
        // then a 4 × 4 transpose in each half (faster than four gathers on every x86 we run on)
        const float *q0 = s + (ptrdiff_t)(ph >> 32) - 1; ph += incr;
        const float *q1 = s + (ptrdiff_t)(ph >> 32) - 1; ph += incr;
        const float *q2 = s + (ptrdiff_t)(ph >> 32) - 1; ph += incr;
        const float *q3 = s + (ptrdiff_t)(ph >> 32) - 1; ph += incr;
        const float *q4 = s + (ptrdiff_t)(ph >> 32) - 1; ph += incr;
        const float *q5 = s + (ptrdiff_t)(ph >> 32) - 1; ph += incr;
        const float *q6 = s + (ptrdiff_t)(ph >> 32) - 1; ph += incr;
        const float *q7 = s + (ptrdiff_t)(ph >> 32) - 1;
        __m256 r0 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(q0)), _mm_loadu_ps(q4), 1);
        __m256 r1 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(q1)), _mm_loadu_ps(q5), 1);
        __m256 r2 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(q2)), _mm_loadu_ps(q6), 1);
        __m256 r3 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(q3)), _mm_loadu_ps(q7), 1);
        _mm256_storeu_ps(out + k, cubic8(r0, r1, r2, r3, f));
    }
    for (; k < n; k++) {
        uint64_t ph = phase + (uint64_t)k * incr;
        const float *p = s + (ptrdiff_t)(ph >> 32);
        float f = (float)(int32_t)((uint32_t)ph >> 8) * (1.0f / 16777216.0f);
        out[k] = cubic1(p[-1], p[0], p[1], p[2], f);
    }
    return phase + (uint64_t)n * incr;
}

// A frame's four 16-bit points (8 bytes, unaligned) as four floats.
static inline __m128 points16(const int16_t *q) {
    long long bits;
    __builtin_memcpy(&bits, q, sizeof bits);
    return _mm_cvtepi32_ps(_mm_cvtepi16_epi32(_mm_cvtsi64_si128(bits)));
}

// As csk_cubic_avx2, over 16-bit points: each frame's four points are one 64-bit load, widened
// and converted (exact), then scaled by 2^-15 (exact), so the arithmetic sees the very floats
// the Float pool held.
uint64_t csk_cubic16_avx2(const int16_t *s, float *out, ptrdiff_t n, uint64_t phase, uint64_t incr) {
    ptrdiff_t k = 0;
    const __m256i steps0 = _mm256_set_epi64x((long long)(3 * incr), (long long)(2 * incr), (long long)incr, 0);
    const __m256i steps1 = _mm256_add_epi64(steps0, _mm256_set1_epi64x((long long)(4 * incr)));
    const __m256 scale = _mm256_set1_ps(1.0f / 32768.0f);
    for (; k + 8 <= n; k += 8) {
        uint64_t ph = phase + (uint64_t)k * incr;
        __m256 f = fractions8(ph, steps0, steps1);
        const int16_t *q0 = s + (ptrdiff_t)(ph >> 32) - 1; ph += incr;
        const int16_t *q1 = s + (ptrdiff_t)(ph >> 32) - 1; ph += incr;
        const int16_t *q2 = s + (ptrdiff_t)(ph >> 32) - 1; ph += incr;
        const int16_t *q3 = s + (ptrdiff_t)(ph >> 32) - 1; ph += incr;
        const int16_t *q4 = s + (ptrdiff_t)(ph >> 32) - 1; ph += incr;
        const int16_t *q5 = s + (ptrdiff_t)(ph >> 32) - 1; ph += incr;
        const int16_t *q6 = s + (ptrdiff_t)(ph >> 32) - 1; ph += incr;
        const int16_t *q7 = s + (ptrdiff_t)(ph >> 32) - 1;
        __m256 r0 = _mm256_mul_ps(_mm256_insertf128_ps(_mm256_castps128_ps256(points16(q0)), points16(q4), 1), scale);
        __m256 r1 = _mm256_mul_ps(_mm256_insertf128_ps(_mm256_castps128_ps256(points16(q1)), points16(q5), 1), scale);
        __m256 r2 = _mm256_mul_ps(_mm256_insertf128_ps(_mm256_castps128_ps256(points16(q2)), points16(q6), 1), scale);
        __m256 r3 = _mm256_mul_ps(_mm256_insertf128_ps(_mm256_castps128_ps256(points16(q3)), points16(q7), 1), scale);
        _mm256_storeu_ps(out + k, cubic8(r0, r1, r2, r3, f));
    }
    const float sc = 1.0f / 32768.0f;
    for (; k < n; k++) {
        uint64_t ph = phase + (uint64_t)k * incr;
        const int16_t *p = s + (ptrdiff_t)(ph >> 32);
        float f = (float)(int32_t)((uint32_t)ph >> 8) * (1.0f / 16777216.0f);
        out[k] = cubic1((float)p[-1] * sc, (float)p[0] * sc, (float)p[1] * sc, (float)p[2] * sc, f);
    }
    return phase + (uint64_t)n * incr;
}

void csk_biquad_avx2(float *x, ptrdiff_t n, float b0, float b1, float a1, float a2, float *state) {
    float x1 = state[0], x2 = state[1], y1 = state[2], y2 = state[3];
    for (ptrdiff_t k = 0; k < n; k++) {
        float x0 = x[k];
        float t = b0 * (x0 + x2) + b1 * x1 - a2 * y2;
        float y = __builtin_fmaf(-a1, y1, t);
        x2 = x1; x1 = x0; y2 = y1; y1 = y;
        x[k] = y;
    }
    state[0] = x1; state[1] = x2; state[2] = y1; state[3] = y2;
}

void csk_mix_avx2(const float *x, float *l, float *r, ptrdiff_t n, float gl, float sl, float gr, float sr, ptrdiff_t offset) {
    ptrdiff_t k = 0;
    const __m256 ramp = _mm256_set_ps(7, 6, 5, 4, 3, 2, 1, 0);
    const __m256 vsl = _mm256_set1_ps(sl), vsr = _mm256_set1_ps(sr), vgl = _mm256_set1_ps(gl), vgr = _mm256_set1_ps(gr);
    for (; k + 8 <= n; k += 8) {
        __m256 j = _mm256_add_ps(_mm256_set1_ps((float)(offset + k)), ramp);
        __m256 v = _mm256_loadu_ps(x + k);
        __m256 glk = _mm256_add_ps(vgl, _mm256_mul_ps(j, vsl));
        __m256 grk = _mm256_add_ps(vgr, _mm256_mul_ps(j, vsr));
        _mm256_storeu_ps(l + k, _mm256_add_ps(_mm256_loadu_ps(l + k), _mm256_mul_ps(v, glk)));
        _mm256_storeu_ps(r + k, _mm256_add_ps(_mm256_loadu_ps(r + k), _mm256_mul_ps(v, grk)));
    }
    for (; k < n; k++) {
        float j = (float)(offset + k);
        l[k] += x[k] * (gl + j * sl);
        r[k] += x[k] * (gr + j * sr);
    }
}

#if defined(__clang__)
#pragma clang attribute pop
#elif defined(__GNUC__)
#pragma GCC pop_options
#endif
#endif
