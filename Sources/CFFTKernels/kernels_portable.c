// The kernels for any CPU (baseline target: on x86-64, SSE2).
#define CFFT_NAME(x) x##_portable
#include "kernels_impl.h"
