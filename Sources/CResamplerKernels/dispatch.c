// Runtime selection of the kernel variants.
#include "CResamplerKernels.h"
#include <stdlib.h>

#define CRK_DECLARE(suffix) \
    void crk_multiply64_##suffix(const double *, const double *, const double *, const double *, \
                                 double *, double *, ptrdiff_t); \
    void crk_multiply_add64_##suffix(double *, double *, const double *, const double *, const double *, \
                                     const double *, const double *, const double *, ptrdiff_t); \
    ptrdiff_t crk_poly_exact64_##suffix(const double *, const ptrdiff_t *, ptrdiff_t, ptrdiff_t, ptrdiff_t, \
                                        const double *, ptrdiff_t, ptrdiff_t, ptrdiff_t, ptrdiff_t, \
                                        double *const *, ptrdiff_t, ptrdiff_t, ptrdiff_t *, ptrdiff_t *); \
    ptrdiff_t crk_poly_exact32_##suffix(const float *, const ptrdiff_t *, ptrdiff_t, ptrdiff_t, ptrdiff_t, \
                                        const float *, ptrdiff_t, ptrdiff_t, ptrdiff_t, ptrdiff_t, \
                                        float *const *, ptrdiff_t, ptrdiff_t, ptrdiff_t *, ptrdiff_t *);

#define CRK_TABLE(suffix, isSimd) { \
    crk_multiply64_##suffix, crk_multiply_add64_##suffix, crk_poly_exact64_##suffix, crk_poly_exact32_##suffix, isSimd }

CRK_DECLARE(portable)
static const CRKKernels portableKernels = CRK_TABLE(portable, 0);

#if defined(__x86_64__) || defined(__i386__)
CRK_DECLARE(avx2)
static const CRKKernels avx2Kernels = CRK_TABLE(avx2, 1);
#endif

const CRKKernels *crk_kernels_portable(void) { return &portableKernels; }

const CRKKernels *crk_kernels(void) {
    const char *force = getenv("OPENAVFAUDIO_RESAMPLER_PORTABLE");
    if (force != NULL && force[0] != '\0' && force[0] != '0') return &portableKernels;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return &avx2Kernels;
#endif
    return &portableKernels;
}
