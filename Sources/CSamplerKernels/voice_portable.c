// The portable variants of the sampler's voice loops (baseline instruction set).
#include "CSamplerKernels.h"

#if defined(__clang__)
#pragma clang fp contract(off)
#endif

static inline float cubic(float p0, float p1, float p2, float p3, float f) {
    return p1 + 0.5f * f * (p2 - p0 + f * (2.0f * p0 - 5.0f * p1 + 4.0f * p2 - p3 + f * (3.0f * (p1 - p2) + p3 - p0)));
}

uint64_t csk_cubic_portable(const float *s, float *out, ptrdiff_t n, uint64_t phase, uint64_t incr) {
    for (ptrdiff_t k = 0; k < n; k++) {
        uint64_t ph = phase + (uint64_t)k * incr;
        const float *p = s + (ptrdiff_t)(ph >> 32);
        float f = (float)(int32_t)((uint32_t)ph >> 8) * (1.0f / 16777216.0f);
        out[k] = cubic(p[-1], p[0], p[1], p[2], f);
    }
    return phase + (uint64_t)n * incr;
}

// The 16-bit points: each converted (exact) and scaled by 2^-15 (exact), then the same arithmetic.
uint64_t csk_cubic16_portable(const int16_t *s, float *out, ptrdiff_t n, uint64_t phase, uint64_t incr) {
    const float scale = 1.0f / 32768.0f;
    for (ptrdiff_t k = 0; k < n; k++) {
        uint64_t ph = phase + (uint64_t)k * incr;
        const int16_t *p = s + (ptrdiff_t)(ph >> 32);
        float f = (float)(int32_t)((uint32_t)ph >> 8) * (1.0f / 16777216.0f);
        out[k] = cubic((float)p[-1] * scale, (float)p[0] * scale, (float)p[1] * scale, (float)p[2] * scale, f);
    }
    return phase + (uint64_t)n * incr;
}

void csk_biquad_prepare_portable(float a1, float a2, float *c) { (void)a1; (void)a2; (void)c; }

void csk_biquad_portable(const float *x, float *out, ptrdiff_t n, float b0, float b1, float a1, float a2, float *state,
                         const float *c) {
    (void)c;
    float x1 = state[0], x2 = state[1], y1 = state[2], y2 = state[3];
    for (ptrdiff_t k = 0; k < n; k++) {
        float x0 = x[k];
        float t = b0 * (x0 + x2) + b1 * x1 - a2 * y2;
        float y = t - a1 * y1;
        x2 = x1; x1 = x0; y2 = y1; y1 = y;
        out[k] = y;
    }
    state[0] = x1; state[1] = x2; state[2] = y1; state[3] = y2;
}

void csk_mix_portable(const float *x, float *l, float *r, ptrdiff_t n, float gl, float sl, float gr, float sr, ptrdiff_t offset) {
    for (ptrdiff_t k = 0; k < n; k++) {
        float j = (float)(offset + k);
        l[k] += x[k] * (gl + j * sl);
        r[k] += x[k] * (gr + j * sr);
    }
}
