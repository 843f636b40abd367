// The last step of decoding a FLAC frame into Float32 (see CFLACKernels.h): stereo
// decorrelation, the shift into the PCM container, the truncation to 32 bits and the scaling, in
// one pass over a frame's 64-bit samples. In C so that the loop is vectorised (the same loop in
// Swift compiled to one scalar int→float conversion per sample: 7.5 % of a whole-file decode);
// an AVX2 copy is chosen at run time, the baseline (SSE2) one otherwise. Both compute, per
// sample, exactly (float)(int32_t)(v << shift) * scale, so they agree bit for bit. Arithmetic
// wraps (unsigned), as the Swift decoder's does: a hostile stream gets wrong samples, never
// undefined behaviour.
#include "CFLACKernels.h"
#include <stdlib.h>

#define CFLAC_FLOAT_BODY                                                                         \
    const uint64_t s = (uint64_t)shift;                                                          \
    switch (mode) {                                                                              \
    case 8: /* left, side */                                                                     \
        for (ptrdiff_t i = 0; i < n; i++) {                                                      \
            uint64_t l = (uint64_t)a[i], r = l - (uint64_t)b[i];                                 \
            left[i] = (float)(int32_t)(l << s) * scale;                                          \
            right[i] = (float)(int32_t)(r << s) * scale;                                         \
        }                                                                                        \
        break;                                                                                   \
    case 9: /* side, right */                                                                    \
        for (ptrdiff_t i = 0; i < n; i++) {                                                      \
            uint64_t r = (uint64_t)b[i], l = (uint64_t)a[i] + r;                                 \
            left[i] = (float)(int32_t)(l << s) * scale;                                          \
            right[i] = (float)(int32_t)(r << s) * scale;                                         \
        }                                                                                        \
        break;                                                                                   \
    case 10: /* mid, side */                                                                     \
        for (ptrdiff_t i = 0; i < n; i++) {                                                      \
            uint64_t side = (uint64_t)b[i], mid = ((uint64_t)a[i] << 1) | (side & 1);            \
            uint64_t l = (uint64_t)((int64_t)(mid + side) >> 1);                                 \
            uint64_t r = (uint64_t)((int64_t)(mid - side) >> 1);                                 \
            left[i] = (float)(int32_t)(l << s) * scale;                                          \
            right[i] = (float)(int32_t)(r << s) * scale;                                         \
        }                                                                                        \
        break;                                                                                   \
    default: /* one independent channel: a into left */                                         \
        for (ptrdiff_t i = 0; i < n; i++) left[i] = (float)(int32_t)((uint64_t)a[i] << s) * scale; \
        break;                                                                                   \
    }

void cflac_to_float_portable(const int64_t *a, const int64_t *b, int mode, ptrdiff_t n, int shift, float scale,
                             float *left, float *right) {
    CFLAC_FLOAT_BODY
}

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
__attribute__((target("avx2")))
void cflac_to_float_avx2(const int64_t *a, const int64_t *b, int mode, ptrdiff_t n, int shift, float scale,
                         float *left, float *right) {
    CFLAC_FLOAT_BODY
}

int cflac_has_avx2(void) {
    const char *force = getenv("OPENAVFAUDIO_FLAC_PORTABLE");
    if (force != NULL && force[0] != '\0' && force[0] != '0') return 0;
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2");
}
#else
void cflac_to_float_avx2(const int64_t *a, const int64_t *b, int mode, ptrdiff_t n, int shift, float scale,
                         float *left, float *right) {
    cflac_to_float_portable(a, b, mode, n, shift, scale, left, right);
}

int cflac_has_avx2(void) { return 0; }
#endif
