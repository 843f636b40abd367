// Runtime selection of the sampler kernels' variant.
#include "CSamplerKernels.h"
#include <stdlib.h>

uint64_t csk_cubic_portable(const float *, float *, ptrdiff_t, uint64_t, uint64_t);
uint64_t csk_cubic16_portable(const int16_t *, float *, ptrdiff_t, uint64_t, uint64_t);
void csk_biquad_portable(const float *, float *, ptrdiff_t, float, float, float, float, float *, const float *);
void csk_biquad_prepare_portable(float, float, float *);
void csk_mix_portable(const float *, float *, float *, ptrdiff_t, float, float, float, float, ptrdiff_t);
static const CSKKernels portableKernels = { csk_cubic_portable, csk_cubic16_portable, csk_biquad_portable, csk_biquad_prepare_portable, csk_mix_portable, 0 };

#if defined(__x86_64__) || defined(__i386__)
uint64_t csk_cubic_avx2(const float *, float *, ptrdiff_t, uint64_t, uint64_t);
uint64_t csk_cubic16_avx2(const int16_t *, float *, ptrdiff_t, uint64_t, uint64_t);
void csk_biquad_avx2(const float *, float *, ptrdiff_t, float, float, float, float, float *, const float *);
void csk_biquad_prepare_avx2(float, float, float *);
void csk_mix_avx2(const float *, float *, float *, ptrdiff_t, float, float, float, float, ptrdiff_t);
static const CSKKernels avx2Kernels = { csk_cubic_avx2, csk_cubic16_avx2, csk_biquad_avx2, csk_biquad_prepare_avx2, csk_mix_avx2, 1 };
#endif

const CSKKernels *csk_kernels_portable(void) { return &portableKernels; }

const CSKKernels *csk_kernels(void) {
    const char *force = getenv("OPENAVFAUDIO_SAMPLER_PORTABLE");
    if (force != NULL && force[0] != '\0' && force[0] != '0') return &portableKernels;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return &avx2Kernels;
#endif
    return &portableKernels;
}
