// The portable variant of the mixing loop (baseline instruction set).
#include "CMixKernels.h"
#define CMK_NAME(x) x##_portable
#include "mix_impl.h"
