// The mixing loop, compiled twice (mix_portable.c, mix_avx2.c) under different names.
// CMK_NAME(x) gives the variant's function name.

/// Frames ahead of the read position that each input is prefetched (2 KiB of Float32): one render
/// cycle ahead at 512-frame cycles; far enough for DRAM latency (~100 ns) at ~1 ns per frame.
#define CMK_PREFETCH_FRAMES 512
/// One prefetch per 64-byte line: every 16 frames.
#define CMK_LINE_FRAMES 16

static inline void CMK_NAME(cmk_prefetch)(const float *p, const float *q) {
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(p + CMK_PREFETCH_FRAMES, 0, 3);
    if (q != p) __builtin_prefetch(q + CMK_PREFETCH_FRAMES, 0, 3);
#else
    (void)p; (void)q;
#endif
}

#define CMK_MIX4(i) \
    l[i] += (agl * al[i] + bgl * bl[i]) + (cgl * cl[i] + dgl * dl[i]); \
    r[i] += (agr * ar[i] + bgr * br[i]) + (cgr * cr[i] + dgr * dr[i]);
#define CMK_MIX1(i) \
    l[i] += agl * al[i]; \
    r[i] += agr * ar[i];

void CMK_NAME(cmk_mix_stereo)(float *restrict l, float *restrict r, const CMKStereoInput *inputs,
                              ptrdiff_t count, ptrdiff_t frames) {
    ptrdiff_t k = 0;
    for (; k + 4 <= count; k += 4) {
        const float *restrict al = inputs[k].left, *restrict ar = inputs[k].right;
        const float *restrict bl = inputs[k + 1].left, *restrict br = inputs[k + 1].right;
        const float *restrict cl = inputs[k + 2].left, *restrict cr = inputs[k + 2].right;
        const float *restrict dl = inputs[k + 3].left, *restrict dr = inputs[k + 3].right;
        const float agl = inputs[k].gainLeft, agr = inputs[k].gainRight;
        const float bgl = inputs[k + 1].gainLeft, bgr = inputs[k + 1].gainRight;
        const float cgl = inputs[k + 2].gainLeft, cgr = inputs[k + 2].gainRight;
        const float dgl = inputs[k + 3].gainLeft, dgr = inputs[k + 3].gainRight;
        ptrdiff_t s = 0;
        for (; s + CMK_LINE_FRAMES <= frames; s += CMK_LINE_FRAMES) {
            CMK_NAME(cmk_prefetch)(al + s, ar + s);
            CMK_NAME(cmk_prefetch)(bl + s, br + s);
            CMK_NAME(cmk_prefetch)(cl + s, cr + s);
            CMK_NAME(cmk_prefetch)(dl + s, dr + s);
            for (ptrdiff_t i = s; i < s + CMK_LINE_FRAMES; i++) { CMK_MIX4(i) }
        }
        for (ptrdiff_t i = s; i < frames; i++) { CMK_MIX4(i) }
    }
    for (; k < count; k++) {
        const float *restrict al = inputs[k].left, *restrict ar = inputs[k].right;
        const float agl = inputs[k].gainLeft, agr = inputs[k].gainRight;
        ptrdiff_t s = 0;
        for (; s + CMK_LINE_FRAMES <= frames; s += CMK_LINE_FRAMES) {
            CMK_NAME(cmk_prefetch)(al + s, ar + s);
            for (ptrdiff_t i = s; i < s + CMK_LINE_FRAMES; i++) { CMK_MIX1(i) }
        }
        for (ptrdiff_t i = s; i < frames; i++) { CMK_MIX1(i) }
    }
}

#undef CMK_MIX4
#undef CMK_MIX1
