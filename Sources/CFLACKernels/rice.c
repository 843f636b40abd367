// The Rice-code loop (see CFLACKernels.h), compiled twice from one body: for the baseline and
// with LZCNT + BMI2.
#include "CFLACKernels.h"
#include <stdlib.h>
#include <string.h>

// RFC 9639 §9.2.7.1: the quotient in unary (zeros, then a one), then k low bits; the folded
// value u maps back to u/2 for even u and −(u+1)/2 for odd u.
#define CFLAC_RICE_BODY                                                                          \
    uint64_t cache = state->cache;                                                               \
    ptrdiff_t bits = state->bits, position = state->position;                                    \
    const uint8_t *base = state->base;                                                           \
    const ptrdiff_t lastWordStart = state->count - 8;                                            \
    ptrdiff_t m = 0;                                                                             \
    while (m < n) {                                                                              \
        if (bits < 32) {                                                                         \
            if (position > lastWordStart) break;                                                 \
            uint64_t word;                                                                       \
            memcpy(&word, base + position, 8);                                                   \
            word = __builtin_bswap64(word);                                                      \
            cache |= word >> bits;                                                               \
            ptrdiff_t bytes = (63 - bits) >> 3;                                                  \
            position += bytes;                                                                   \
            bits += bytes << 3;                                                                  \
        }                                                                                        \
        /* (cache | 1: a zero cache counts 63, which no counted code fits, never 64) */          \
        unsigned lz = (unsigned)__builtin_clzll(cache | 1);                                      \
        ptrdiff_t length = (ptrdiff_t)lz + 1 + k;                                                \
        if (length > bits) break;                                                                \
        uint64_t afterStop = cache << (lz + 1);                                                  \
        uint64_t folded = ((uint64_t)lz << k) | ((afterStop >> 1) >> (63 - k));                  \
        cache <<= length;                                                                        \
        bits -= length;                                                                          \
        out[m++] = (int64_t)(folded >> 1) ^ -(int64_t)(folded & 1);                              \
    }                                                                                            \
    state->cache = cache;                                                                        \
    state->bits = bits;                                                                          \
    state->position = position;                                                                  \
    return m;

ptrdiff_t cflac_rice_run_portable(CFLACBits *state, int64_t *out, ptrdiff_t n, int k) {
    CFLAC_RICE_BODY
}

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
__attribute__((target("lzcnt,bmi,bmi2")))
ptrdiff_t cflac_rice_run_lzcnt(CFLACBits *state, int64_t *out, ptrdiff_t n, int k) {
    CFLAC_RICE_BODY
}

int cflac_has_lzcnt(void) {
    const char *force = getenv("OPENAVFAUDIO_FLAC_PORTABLE");
    if (force != NULL && force[0] != '\0' && force[0] != '0') return 0;
    __builtin_cpu_init();
    return __builtin_cpu_supports("lzcnt") && __builtin_cpu_supports("bmi2");
}
#else
ptrdiff_t cflac_rice_run_lzcnt(CFLACBits *state, int64_t *out, ptrdiff_t n, int k) {
    return cflac_rice_run_portable(state, out, n, k);
}

int cflac_has_lzcnt(void) { return 0; }
#endif
