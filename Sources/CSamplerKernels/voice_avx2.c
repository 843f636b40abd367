// The sampler's voice loops for x86-64 CPUs with AVX2 and FMA (a per-function target attribute,
// so the package needs no compiler flags). Only ever called after a runtime check (dispatch.c).
// The interpolation loads its four points per frame (contiguous; Float or 16-bit) and transposes, eight frames at a time;
// the low-pass runs eight frames at a time from the recursion unrolled (see csk_biquad_avx2).
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

// The low-pass eight frames at a time. Unrolled, the recursion y[i] = w[i] − a1·y[i−1] − a2·y[i−2]
// (w[i] = b0·(x[i] + x[i−2]) + b1·x[i−1], the feed-forward part) gives every frame of a group of
// eight from the group's own w and the two outputs before the group:
//   y[i] = Σ_{j≤i} h[i−j]·w[j] + h[i+1]·y[−1] − a2·h[i]·y[−2],
// h being the all-pole part's impulse response (h[0] = 1, h[1] = −a1, h[k] = −a1·h[k−1] − a2·h[k−2]).
// Written so, a low cutoff (poles near 1, h[k] ≈ k + 1) would subtract two nearly equal large
// terms, k + 2 times y[−1] less k + 1 times y[−2], and magnify the coefficients' rounding by k;
// so the carried state is y[−1] and the difference d = y[−1] − y[−2] (exact: the two are close):
//   h[i+1]·y[−1] − a2·h[i]·y[−2] = (h[i+1] − a2·h[i])·y[−1] + a2·h[i]·d,
// the first coefficient near 1, the second multiplying a small d. The coefficients are computed in
// Float64 and rounded once, when the filter's coefficients change (csk_biquad_prepare_avx2, into
// the voice's coefficient block c: the eight columns of h, then the two state coefficients).
// The feed-forward w of all the call's groups is computed first, into y. The sum over w does not wait for the previous group; what carries from
// group to group is two lane broadcasts, a subtraction and two fused multiply-adds, about 15
// cycles per 8 frames where the recursion takes 4 per frame. Frames after the last whole group
// run the recursion itself. The result differs from the frame-by-frame recursion by rounding only
// (SamplerBlockRenderTests: within the Float32 recursion's own error against Float64), and it
// depends on where groups start: they start at the call's first frame, so the caller makes its
// calls at fixed places (the voice's control blocks, SamplerSynth+Voices.swift) for a voice to
// sound the same however render cycles split it.
void csk_biquad_prepare_avx2(float a1, float a2, float *c) {
    double h[10];
    const double da1 = a1, da2 = a2;
    h[0] = 1.0; h[1] = -da1;
    for (int k = 2; k < 10; k++) h[k] = -da1 * h[k - 1] - da2 * h[k - 2];
    for (int j = 0; j < 8; j++)
        for (int i = 0; i < 8; i++) c[8 * j + i] = i >= j ? (float)h[i - j] : 0.0f;
    for (int i = 0; i < 8; i++) { c[64 + i] = (float)(h[i + 1] - da2 * h[i]); c[72 + i] = (float)(da2 * h[i]); }
}

void csk_biquad_avx2(const float *x, float *y, ptrdiff_t n, float b0, float b1, float a1, float a2, float *state,
                     const float *c) {
    float x1 = state[0], x2 = state[1], y1 = state[2], y2 = state[3];
    ptrdiff_t groups = n / 8;
    if (groups > 0) {
        // first the feed-forward part of every whole group, into y (read back as broadcasts below)
        const __m256 vb0 = _mm256_set1_ps(b0), vb1 = _mm256_set1_ps(b1);
        float hist[10];
        hist[0] = x2; hist[1] = x1;
        for (int i = 0; i < 8; i++) hist[i + 2] = x[i];
        for (ptrdiff_t g = 0; g < groups; g++) {
            const float *xs = x + 8 * g;
            __m256 xv = _mm256_loadu_ps(xs), xm1, xm2;
            if (g == 0) { xm1 = _mm256_loadu_ps(hist + 1); xm2 = _mm256_loadu_ps(hist); }
            else { xm1 = _mm256_loadu_ps(xs - 1); xm2 = _mm256_loadu_ps(xs - 2); }
            _mm256_storeu_ps(y + 8 * g, _mm256_fmadd_ps(vb1, xm1, _mm256_mul_ps(vb0, _mm256_add_ps(xv, xm2))));
        }
        const __m256 c0 = _mm256_loadu_ps(c), cc1 = _mm256_loadu_ps(c + 8), cc2 = _mm256_loadu_ps(c + 16), cc3 = _mm256_loadu_ps(c + 24);
        const __m256 cc4 = _mm256_loadu_ps(c + 32), cc5 = _mm256_loadu_ps(c + 40), cc6 = _mm256_loadu_ps(c + 48), cc7 = _mm256_loadu_ps(c + 56);
        const __m256 cp = _mm256_loadu_ps(c + 64), cq = _mm256_loadu_ps(c + 72);
        const __m256i last = _mm256_set1_epi32(7), beforeLast = _mm256_set1_epi32(6);
        __m256 yp1 = _mm256_set1_ps(y1), yd = _mm256_set1_ps(y1 - y2);
        for (ptrdiff_t g = 0; g < groups; g++) {
            float *w = y + 8 * g;
            __m256 e = _mm256_mul_ps(c0, _mm256_broadcast_ss(w));
            __m256 o = _mm256_mul_ps(cc1, _mm256_broadcast_ss(w + 1));
            e = _mm256_fmadd_ps(cc2, _mm256_broadcast_ss(w + 2), e);
            o = _mm256_fmadd_ps(cc3, _mm256_broadcast_ss(w + 3), o);
            e = _mm256_fmadd_ps(cc4, _mm256_broadcast_ss(w + 4), e);
            o = _mm256_fmadd_ps(cc5, _mm256_broadcast_ss(w + 5), o);
            e = _mm256_fmadd_ps(cc6, _mm256_broadcast_ss(w + 6), e);
            o = _mm256_fmadd_ps(cc7, _mm256_broadcast_ss(w + 7), o);
            __m256 acc = _mm256_fmadd_ps(cq, yd, _mm256_add_ps(e, o));
            __m256 out = _mm256_fmadd_ps(cp, yp1, acc);
            _mm256_storeu_ps(w, out);
            yp1 = _mm256_permutevar8x32_ps(out, last);
            yd = _mm256_sub_ps(yp1, _mm256_permutevar8x32_ps(out, beforeLast));
        }
        ptrdiff_t m = 8 * groups;
        x1 = x[m - 1]; x2 = x[m - 2]; y1 = y[m - 1]; y2 = y[m - 2];
    }
    for (ptrdiff_t k = 8 * groups; k < n; k++) {
        float x0 = x[k];
        float t = b0 * (x0 + x2) + b1 * x1 - a2 * y2;
        float v = __builtin_fmaf(-a1, y1, t);
        x2 = x1; x1 = x0; y2 = y1; y1 = v;
        y[k] = v;
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
