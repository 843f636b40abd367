// The C target carries only type declarations (include/CCoreAudioTypes.h); this file gives
// SwiftPM a translation unit to build.
#include "CCoreAudioTypes.h"
