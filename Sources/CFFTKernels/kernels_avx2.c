// The kernels for x86-64 CPUs with AVX2 and FMA: the same source as kernels_portable.c, with
// every function compiled for that target (a per-function attribute, so the package needs no
// compiler flags). Only ever called after a runtime check (dispatch.c).
#include "CFFTKernels.h"  // (outside the attribute: the header's declarations are not AVX2)

#if defined(__x86_64__) || defined(__i386__)
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,fma"))), apply_to = function)
#elif defined(__GNUC__)
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#endif

#define CFFT_NAME(x) x##_avx2
#include "kernels_impl.h"

#if defined(__clang__)
#pragma clang attribute pop
#elif defined(__GNUC__)
#pragma GCC pop_options
#endif
#endif
