// Runtime selection of the kernel variants.
#include "CFFTKernels.h"
#include <stdlib.h>

#define CFFT_DECLARE(suffix) \
    void cfft_forward64_##suffix(const CFFTPlan *, const double *, const double *, double *, double *); \
    void cfft_inverse64_##suffix(const CFFTPlan *, double *, double *);

#define CFFT_TABLE(suffix, isSimd) { cfft_forward64_##suffix, cfft_inverse64_##suffix, isSimd }

CFFT_DECLARE(portable)
static const CFFTKernelTable portableKernels = CFFT_TABLE(portable, 0);

#if defined(__x86_64__) || defined(__i386__)
CFFT_DECLARE(avx2)
static const CFFTKernelTable avx2Kernels = CFFT_TABLE(avx2, 1);
#endif

const CFFTKernelTable *cfft_kernels_portable(void) { return &portableKernels; }

const CFFTKernelTable *cfft_kernels(void) {
    const char *force = getenv("OPENAVFAUDIO_RESAMPLER_PORTABLE");
    if (force != NULL && force[0] != '\0' && force[0] != '0') return &portableKernels;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return &avx2Kernels;
#endif
    return &portableKernels;
}
