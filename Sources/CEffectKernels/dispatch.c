// Runtime selection of the effect kernel variants.
#include "CEffectKernels.h"
#include <stdlib.h>

void cek_fir_portable(float *, ptrdiff_t, const float *, const float *, const ptrdiff_t *, const ptrdiff_t *,
                      const float *, ptrdiff_t);
void cek_soft_clip_portable(const float *, const float *, float *, float *, float *, float *, ptrdiff_t);
static const CEKKernels portableKernels = { cek_fir_portable, cek_soft_clip_portable, 0 };

#if defined(__x86_64__) || defined(__i386__)
void cek_fir_avx2(float *, ptrdiff_t, const float *, const float *, const ptrdiff_t *, const ptrdiff_t *,
                  const float *, ptrdiff_t);
void cek_soft_clip_avx2(const float *, const float *, float *, float *, float *, float *, ptrdiff_t);
static const CEKKernels avx2Kernels = { cek_fir_avx2, cek_soft_clip_avx2, 1 };
#endif

const CEKKernels *cek_kernels_portable(void) { return &portableKernels; }

const CEKKernels *cek_kernels(void) {
    const char *force = getenv("OPENAVFAUDIO_EFFECTS_PORTABLE");
    if (force != NULL && force[0] != '\0' && force[0] != '0') return &portableKernels;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2")) return &avx2Kernels;
#endif
    return &portableKernels;
}
