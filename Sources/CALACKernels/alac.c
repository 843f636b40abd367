// The ALAC encoder's kernels (see CALACKernels.h).
#include "CALACKernels.h"

static inline int32_t wrap_add(int32_t a, int32_t b) { return (int32_t)((uint32_t)a + (uint32_t)b); }
static inline int32_t wrap_sub(int32_t a, int32_t b) { return (int32_t)((uint32_t)a - (uint32_t)b); }
static inline int32_t wrap_mul(int32_t a, int32_t b) { return (int32_t)((uint32_t)a * (uint32_t)b); }
/// Sign-extends from the channel's width: (x << shift) >> shift, shift = 32 − bits.
static inline int32_t extend(int32_t x, int shift) { return (int32_t)((uint32_t)x << shift) >> shift; }
static inline int32_t sign_of(int32_t x) { return (x > 0) - (x < 0); }

// The adaptive loop for frames order+1 … count−1, with ORDER a compile-time constant where the
// encoder's usual orders (8, 4) get their own copies (the tap loops unroll, d[] stays in
// registers) and a variable otherwise. `c` holds the coefficients widened to 32 bits (every
// update is ±1, stored back as 16 bits wrapping, exactly as Int16 arithmetic leaves them).
#define CALAC_ADAPTIVE_LOOP(ORDER)                                                                \
    for (ptrdiff_t j = (ORDER) + 1; j < count; j++) {                                             \
        const int32_t top = input[j - (ORDER) - 1];                                               \
        const int32_t *newest = input + (j - 1);                                                  \
        int32_t d[32];                                                                            \
        uint32_t sum = 0;                                                                         \
        for (int k = 0; k < (ORDER); k++) {                                                       \
            d[k] = wrap_sub(newest[-k], top);                                                     \
            sum += (uint32_t)c[k] * (uint32_t)d[k];                                               \
        }                                                                                         \
        const int32_t del = extend(wrap_sub(wrap_sub(input[j], top),                              \
                                            wrap_add((int32_t)sum, half) >> denShift), chanShift); \
        res[j] = del;                                                                             \
        /* The adaptation (ALACPredictor.adapt), with dd = top − newest[−k] = −d[k]. */           \
        int32_t del0 = del;                                                                       \
        if (del > 0) {                                                                            \
            for (int k = (ORDER) - 1; k >= 0; k--) {                                              \
                const int32_t dd = wrap_sub(0, d[k]);                                             \
                const int32_t sgn = sign_of(dd);                                                  \
                c[k] = (int16_t)(c[k] - sgn);                                                     \
                del0 = wrap_sub(del0, wrap_mul((ORDER) - k, wrap_mul(sgn, dd) >> denShift));      \
                if (del0 <= 0) break;                                                             \
            }                                                                                     \
        } else if (del < 0) {                                                                     \
            for (int k = (ORDER) - 1; k >= 0; k--) {                                              \
                const int32_t dd = wrap_sub(0, d[k]);                                             \
                const int32_t sgn = sign_of(dd);                                                  \
                c[k] = (int16_t)(c[k] + sgn);                                                     \
                del0 = wrap_sub(del0, wrap_mul((ORDER) - k, wrap_sub(0, wrap_mul(sgn, dd)) >> denShift)); \
                if (del0 >= 0) break;                                                             \
            }                                                                                     \
        }                                                                                         \
    }

void calac_residuals(const int32_t *input, int32_t *res, ptrdiff_t count, int16_t *coefs, int order, int bits, int denShift) {
    if (count <= 0) return;
    const int chanShift = 32 - (bits < 32 ? bits : 32);
    res[0] = input[0];
    if (order == 0) {
        for (ptrdiff_t j = 1; j < count; j++) res[j] = input[j];
        return;
    }
    if (order == 31) {
        for (ptrdiff_t j = 1; j < count; j++) res[j] = extend(wrap_sub(input[j], input[j - 1]), chanShift);
        return;
    }
    ptrdiff_t warm = order < count - 1 ? order : count - 1;
    for (ptrdiff_t j = 1; j <= warm; j++) res[j] = extend(wrap_sub(input[j], input[j - 1]), chanShift);
    if (count <= order + 1) return;
    const int32_t half = denShift == 0 ? 0 : (int32_t)1 << (denShift - 1);
    int32_t c[32];
    for (int k = 0; k < order; k++) c[k] = coefs[k];
    switch (order) {
    case 8: CALAC_ADAPTIVE_LOOP(8) break;
    case 4: CALAC_ADAPTIVE_LOOP(4) break;
    default: CALAC_ADAPTIVE_LOOP(order) break;
    }
    for (int k = 0; k < order; k++) coefs[k] = (int16_t)c[k];
}

/// q = n / m and rem = n − q·m when q < 9 (else 0: the code escapes), k ≥ 2. Golomb's m here is
/// 2^k − 1, so q is n >> k or a few more (n = (n >> k)·m + (n >> k) + (n mod 2^k), and the
/// last two add up to less than m + 9): a shift and a short correction instead of a division,
/// at every residual of every count and every write.
static inline __attribute__((always_inline)) int small_quotient(uint32_t n, int k, uint32_t m, uint32_t *q, uint32_t *rem) {
    if (m != (1u << k) - 1) {
        *q = n / m;
        *rem = n - *q * m;
        return *q < 9;
    }
    uint32_t qq = n >> k;
    if (qq >= 9) return 0;
    uint32_t r = n - qq * m;
    // One correction without a branch (enough whenever m ≥ 9, k ≥ 4), then any others.
    const uint32_t over = r >= m;
    qq += over;
    r -= over * m;
    while (r >= m) { qq++; r -= m; }
    *q = qq; *rem = r;
    return qq < 9;
}

/// One code's length: q ones, a zero, then k bits (k − 1 when the remainder is 0); nine ones and
/// `escapeBits` plain bits when q would reach 9 (ALACEncoder.code).
static inline __attribute__((always_inline)) int64_t code_bits(uint32_t n, int k, uint32_t m, int escapeBits) {
    if (k <= 1 || m == 0) return n < 9 ? (int64_t)n + 1 : 9 + escapeBits;
    uint32_t q, rem;
    if (!small_quotient(n, k, m, &q, &rem)) return 9 + escapeBits;
    return (int64_t)q + 1 + (rem == 0 ? k - 1 : k);
}

int64_t calac_cost(const int32_t *res, ptrdiff_t count, int escapeBits) {
    // ALACSpecificConfig's defaults: mb 10, pb 40 (× the encoder's pbFactor 4 / 4), kb 14.
    const uint32_t pb = 40, historyShift = 9, meanClamp = 0xFFFF;
    const int kb = 14;
    const uint32_t wb = (1u << kb) - 1;
    uint32_t mean = 10, zeroMode = 0;
    int64_t bits = 0;
    ptrdiff_t c = 0;
    while (c < count) {
        const int32_t r = res[c];
        const uint32_t folded = r >= 0 ? (uint32_t)r * 2u : (0u - (uint32_t)r) * 2u - 1u;
        const uint32_t n = folded - zeroMode;
        if (zeroMode == 1 && n == meanClamp) bits += (int64_t)1 << 40;
        const uint32_t mk = (mean >> historyShift) + 3;
        int k = 31 - __builtin_clz(mk);
        if (k > kb) k = kb;
        bits += code_bits(n, k, (1u << k) - 1, escapeBits);
        c++;
        mean = pb * folded + mean - ((pb * mean) >> historyShift);
        if (n > meanClamp) mean = meanClamp;
        zeroMode = 0;
        if ((mean << 2) < (1u << historyShift) && c < count) {
            ptrdiff_t run = 0;
            while (c + run < count && res[c + run] == 0 && run < 65535) run++;
            const int kz = (mean == 0 ? 32 : __builtin_clz(mean)) - 24 + (int)((mean + 16) >> 6);
            bits += code_bits((uint32_t)run, kz, ((1u << kz) - 1) & wb, 16);
            c += run;
            zeroMode = run >= 65535 ? 0 : 1;
            mean = 0;
        }
    }
    return bits;
}

void calac_autocorrelation(const int32_t *x, ptrdiff_t count, int maxLag, double *r) {
    // Converted once; then per lag four independent partial sums (the additions of one sum are
    // serial, so one accumulator would wait out the adder's latency at every step).
    double y[4096];
    if (count > 4096) {
        // Longer than a packet: plain loops (not on the encoder's path).
        for (int lag = 0; lag <= maxLag; lag++) {
            double s = 0;
            for (ptrdiff_t i = lag; i < count; i++) s += (double)x[i] * (double)x[i - lag];
            r[lag] = s;
        }
        return;
    }
    for (ptrdiff_t i = 0; i < count; i++) y[i] = (double)x[i];
    for (int lag = 0; lag <= maxLag; lag++) {
        double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        ptrdiff_t i = lag;
        for (; i + 3 < count; i += 4) {
            s0 += y[i] * y[i - lag];
            s1 += y[i + 1] * y[i + 1 - lag];
            s2 += y[i + 2] * y[i + 2 - lag];
            s3 += y[i + 3] * y[i + 3 - lag];
        }
        for (; i < count; i++) s0 += y[i] * y[i - lag];
        r[lag] = (s0 + s1) + (s2 + s3);
    }
}

// The writers below keep up to 63 bits in `cache` while they run and store them 32 at a time
// (one big-endian word, not one byte per loop turn with its own capacity check); `settle`
// stores the whole bytes left at the end, so between kernels `cacheBits` is 0…7 as
// ALACBitWriter keeps it. A word that would pass `capacity` is stored byte by byte, checked,
// so a kernel fails exactly when a byte would land at or past `capacity`, as byte-wise did.
#define CALAC_INLINE static inline __attribute__((always_inline))

/// Stores the oldest 32 of the pending bits (there are 32…63).
CALAC_INLINE int store_word(CALACBitWriter *w) {
    w->cacheBits -= 32;
    const uint32_t v = (uint32_t)(w->cache >> w->cacheBits);
    if (w->byteCount + 4 <= w->capacity) {
        uint8_t *p = w->base + w->byteCount;
        p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16); p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v;
        w->byteCount += 4;
        return 0;
    }
    for (int b = 3; b >= 0; b--) {
        if (w->byteCount >= w->capacity) return -1;
        w->base[w->byteCount++] = (uint8_t)(v >> (8 * b));
    }
    return 0;
}

/// Appends the low `n` bits (0…32) of `value` (ALACBitWriter.write); fewer than 32 bits are
/// pending before and after.
CALAC_INLINE int put(CALACBitWriter *w, uint32_t value, int n) {
    w->cache = w->cache << n | ((uint64_t)value & ((1ull << n) - 1));
    w->cacheBits += n;
    return w->cacheBits >= 32 ? store_word(w) : 0;
}

/// Stores the pending whole bytes, leaving 0…7 bits.
CALAC_INLINE int settle(CALACBitWriter *w) {
    while (w->cacheBits >= 8) {
        if (w->byteCount >= w->capacity) return -1;
        w->cacheBits -= 8;
        w->base[w->byteCount++] = (uint8_t)(w->cache >> w->cacheBits);
    }
    return 0;
}

/// One code (ALACEncoder.code with the writer's unary and escape).
CALAC_INLINE int put_code(CALACBitWriter *w, uint32_t n, int k, uint32_t m, int escapeBits) {
    uint32_t q, rem;
    int bits;
    if (k <= 1 || m == 0) {
        if (n >= 9) goto escape;
        q = n; rem = 0; bits = 0;
    } else {
        if (!small_quotient(n, k, m, &q, &rem)) goto escape;
        if (rem == 0) { bits = k - 1; } else { rem += 1; bits = k; }
    }
    {
        // q < 9 and bits ≤ 14: the prefix, its zero and the bits fit one write.
        const int total = (int)q + 1 + bits;
        const uint64_t prefix = ((1ull << q) - 1) << (1 + bits);
        return put(w, (uint32_t)(prefix | rem), total);
    }
escape:
    if (put(w, 0x1FF, 9)) return -1;
    return put(w, n, escapeBits);
}

/// calac_write_residuals and calac_write_residuals_checked: one loop, `checked` a constant in each.
CALAC_INLINE int write_residuals(CALACBitWriter *out, const int32_t *res, ptrdiff_t count, int escapeBits, int checked) {
    CALACBitWriter state = *out, *w = &state;   // a local copy: its fields stay in registers
    const uint32_t pb = 40, historyShift = 9, meanClamp = 0xFFFF;
    const int kb = 14;
    const uint32_t wb = (1u << kb) - 1;
    uint32_t mean = 10, zeroMode = 0;
    ptrdiff_t c = 0;
    while (c < count) {
        const int32_t r = res[c];
        const uint32_t folded = r >= 0 ? (uint32_t)r * 2u : (0u - (uint32_t)r) * 2u - 1u;
        const uint32_t n = folded - zeroMode;
        if (checked && zeroMode == 1 && n == meanClamp) return -2;
        const uint32_t mk = (mean >> historyShift) + 3;
        int k = 31 - __builtin_clz(mk);
        if (k > kb) k = kb;
        if (put_code(w, n, k, (1u << k) - 1, escapeBits)) return -1;
        c++;
        mean = pb * folded + mean - ((pb * mean) >> historyShift);
        if (n > meanClamp) mean = meanClamp;
        zeroMode = 0;
        if ((mean << 2) < (1u << historyShift) && c < count) {
            ptrdiff_t run = 0;
            while (c + run < count && res[c + run] == 0 && run < 65535) run++;
            const int kz = (mean == 0 ? 32 : __builtin_clz(mean)) - 24 + (int)((mean + 16) >> 6);
            if (put_code(w, (uint32_t)run, kz, ((1u << kz) - 1) & wb, 16)) return -1;
            c += run;
            zeroMode = run >= 65535 ? 0 : 1;
            mean = 0;
        }
    }
    if (settle(w)) return -1;
    *out = state;
    return 0;
}

int calac_write_residuals(CALACBitWriter *w, const int32_t *res, ptrdiff_t count, int escapeBits) {
    return write_residuals(w, res, count, escapeBits, 0);
}

int calac_write_residuals_checked(CALACBitWriter *w, const int32_t *res, ptrdiff_t count, int escapeBits) {
    return write_residuals(w, res, count, escapeBits, 1);
}

int calac_write_fixed(CALACBitWriter *out, const uint16_t *values, ptrdiff_t count, int bits) {
    CALACBitWriter state = *out, *w = &state;
    for (ptrdiff_t i = 0; i < count; i++) {
        if (put(w, values[i], bits)) return -1;
    }
    if (settle(w)) return -1;
    *out = state;
    return 0;
}

void calac_split(const int32_t *samples, ptrdiff_t stride, ptrdiff_t count, int channels, int shift,
                 int32_t *u, int32_t *v, uint16_t *low) {
    const uint32_t mask = (1u << shift) - 1u;
    if (channels == 2) {
        if (shift == 0) {
            for (ptrdiff_t i = 0; i < count; i++) { u[i] = samples[i * stride]; v[i] = samples[i * stride + 1]; }
            return;
        }
        for (ptrdiff_t i = 0; i < count; i++) {
            const int32_t l = samples[i * stride], r = samples[i * stride + 1];
            low[2 * i] = (uint16_t)((uint32_t)l & mask);
            low[2 * i + 1] = (uint16_t)((uint32_t)r & mask);
            u[i] = l >> shift;
            v[i] = r >> shift;
        }
        return;
    }
    if (shift == 0) {
        for (ptrdiff_t i = 0; i < count; i++) u[i] = samples[i * stride];
        return;
    }
    for (ptrdiff_t i = 0; i < count; i++) {
        const int32_t x = samples[i * stride];
        low[i] = (uint16_t)((uint32_t)x & mask);
        u[i] = x >> shift;
    }
}
