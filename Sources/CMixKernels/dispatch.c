// Runtime selection of the mixing kernel variant.
#include "CMixKernels.h"
#include <stdlib.h>

void cmk_mix_stereo_portable(float *, float *, const CMKStereoInput *, ptrdiff_t, ptrdiff_t);
static const CMKKernels portableKernels = { cmk_mix_stereo_portable, 0 };

#if defined(__x86_64__) || defined(__i386__)
void cmk_mix_stereo_avx2(float *, float *, const CMKStereoInput *, ptrdiff_t, ptrdiff_t);
static const CMKKernels avx2Kernels = { cmk_mix_stereo_avx2, 1 };
#endif

const CMKKernels *cmk_kernels_portable(void) { return &portableKernels; }

const CMKKernels *cmk_kernels(void) {
    const char *force = getenv("OPENAVFAUDIO_MIX_PORTABLE");
    if (force != NULL && force[0] != '\0' && force[0] != '0') return &portableKernels;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return &avx2Kernels;
#endif
    return &portableKernels;
}
