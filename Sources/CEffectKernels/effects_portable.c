// The portable variants (any CPU).
#include "CEffectKernels.h"
#include <math.h>

#define CEK_NAME(x) x##_portable
#include "effects_impl.h"

void cek_soft_clip_portable(const float *we, const float *wo, float *rootE, float *rootO,
                            float *ye, float *yo, ptrdiff_t m) {
    rootO[0] = __builtin_sqrtf(1.0f + wo[-1] * wo[-1]);
    for (ptrdiff_t t = 0; t < m; t++) {
        const float e = we[t], o = wo[t];
        rootE[t] = __builtin_sqrtf(1.0f + e * e);
        rootO[t + 1] = __builtin_sqrtf(1.0f + o * o);
    }
    for (ptrdiff_t t = 0; t < m; t++) {
        const float e = we[t], o = wo[t], re = rootE[t];
        ye[t] = (e + wo[t - 1]) / (re + rootO[t]);
        yo[t] = (o + e) / (rootO[t + 1] + re);
    }
}
