// FLAC's CRC-16 (polynomial 0x8005, MSB first, initial value 0, no final XOR) with carry-less
// multiplication (PCLMULQDQ), for the x86-64 CPUs that have it; see CFLACKernels.h.
//
// Design. A CRC register after a byte string S is S(x)·x^16 mod P(x), P = x^16 + x^15 + x^2 + 1,
// the first byte's top bit the highest power. Only the remainder mod P matters, so a long prefix
// can be replaced by any shorter polynomial congruent to it mod P ("folding"): a 128-bit value
// X = H·x^64 + L followed by the next 128 message bits B stands for X·x^128 + B, which is
// congruent to H·(x^192 mod P) + L·(x^128 mod P) + B — two carry-less 64×16-bit products (under
// 80 bits each) and two XORs, a new 128-bit value. Four such accumulators run side by side over
// 64-byte steps (constants x^576 and x^512 mod P), so the multiplier's latency is hidden, and are
// then folded into one. The final 128-bit value, written back as 16 big-endian bytes, is a
// byte string congruent to everything read so far, so the ordinary table CRC over those 16
// bytes, continued over the last (fewer than 16) bytes, gives the exact register: no Barrett
// reduction is needed, and the result is the table CRC's by construction (tested against it for
// every length 0…600 and random data, FLACChecksumTests).
//
// The table CRC here (one byte per step) only serves those ≤ 31 bytes; the Swift side keeps its
// own sliced table CRC for CPUs without PCLMULQDQ.
#include "CFLACKernels.h"
#include <stdlib.h>
#include <string.h>

/// x^n mod P as a 16-bit remainder.
static uint64_t cflac_xpow_mod(int n) {
    uint32_t r = 1;
    for (int i = 0; i < n; i++) {
        r <<= 1;
        if (r & 0x10000u) r ^= 0x18005u;
    }
    return r;
}

static uint16_t cflac_crc16_table[256];
static uint64_t cflac_k192, cflac_k128, cflac_k576, cflac_k512;

static void cflac_crc16_setup(void) {
    for (int i = 0; i < 256; i++) {
        uint16_t c = (uint16_t)(i << 8);
        for (int b = 0; b < 8; b++) c = (c & 0x8000) ? (uint16_t)((c << 1) ^ 0x8005) : (uint16_t)(c << 1);
        cflac_crc16_table[i] = c;
    }
    cflac_k192 = cflac_xpow_mod(192);
    cflac_k128 = cflac_xpow_mod(128);
    cflac_k576 = cflac_xpow_mod(576);
    cflac_k512 = cflac_xpow_mod(512);
}

static inline uint16_t cflac_crc16_bytes(uint16_t c, const uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++) c = (uint16_t)((c << 8) ^ cflac_crc16_table[(uint8_t)((c >> 8) ^ p[i])]);
    return c;
}

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include <immintrin.h>

#define CFLAC_TARGET __attribute__((target("pclmul,ssse3")))

CFLAC_TARGET static inline __m128i cflac_load(const uint8_t *p, __m128i reverse) {
    return _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)p), reverse);
}

/// X·x^(d+... ): the fold of X by the constant pair k (low qword: for the high half of X,
/// high qword: for the low half).
CFLAC_TARGET static inline __m128i cflac_fold(__m128i x, __m128i k) {
    return _mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x01),   // X.hi × k.lo
                         _mm_clmulepi64_si128(x, k, 0x10));  // X.lo × k.hi
}

CFLAC_TARGET uint16_t cflac_crc16_clmul(const uint8_t *p, size_t n) {
    if (n < 32) return cflac_crc16_bytes(0, p, n);
    // (byte 0 to the top: the 128-bit integer's bit 127 is the first byte's top bit)
    const __m128i reverse = _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const __m128i k1 = _mm_set_epi64x((long long)cflac_k128, (long long)cflac_k192);
    __m128i x;
    if (n >= 128) {
        const __m128i k4 = _mm_set_epi64x((long long)cflac_k512, (long long)cflac_k576);
        __m128i a = cflac_load(p, reverse), b = cflac_load(p + 16, reverse);
        __m128i c = cflac_load(p + 32, reverse), d = cflac_load(p + 48, reverse);
        p += 64; n -= 64;
        while (n >= 64) {
            a = _mm_xor_si128(cflac_fold(a, k4), cflac_load(p, reverse));
            b = _mm_xor_si128(cflac_fold(b, k4), cflac_load(p + 16, reverse));
            c = _mm_xor_si128(cflac_fold(c, k4), cflac_load(p + 32, reverse));
            d = _mm_xor_si128(cflac_fold(d, k4), cflac_load(p + 48, reverse));
            p += 64; n -= 64;
        }
        x = _mm_xor_si128(cflac_fold(a, k1), b);
        x = _mm_xor_si128(cflac_fold(x, k1), c);
        x = _mm_xor_si128(cflac_fold(x, k1), d);
    } else {
        x = cflac_load(p, reverse);
        p += 16; n -= 16;
    }
    while (n >= 16) {
        x = _mm_xor_si128(cflac_fold(x, k1), cflac_load(p, reverse));
        p += 16; n -= 16;
    }
    uint8_t folded[16];
    _mm_storeu_si128((__m128i *)folded, _mm_shuffle_epi8(x, reverse));
    return cflac_crc16_bytes(cflac_crc16_bytes(0, folded, 16), p, n);
}

int cflac_has_clmul(void) {
    const char *force = getenv("OPENAVFAUDIO_FLAC_PORTABLE");
    if (force != NULL && force[0] != '\0' && force[0] != '0') return 0;
    __builtin_cpu_init();
    if (!(__builtin_cpu_supports("pclmul") && __builtin_cpu_supports("ssse3"))) return 0;
    cflac_crc16_setup();
    return 1;
}
#else
uint16_t cflac_crc16_clmul(const uint8_t *p, size_t n) {
    return cflac_crc16_bytes(0, p, n);
}

int cflac_has_clmul(void) { return 0; }
#endif
