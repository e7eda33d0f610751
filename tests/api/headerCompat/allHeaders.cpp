// allHeaders.cpp — includes every public header in one translation unit (the list is generated from include/),
// compiled as C++14 and C++17 with -Wall -Wextra -Werror -pedantic to keep the public API clean for users.
#include "kilnAllPublicHeaders.inc"

#ifndef NV_TENSORRT_MAJOR
#error "NvInferVersion.h must define NV_TENSORRT_MAJOR"
#endif

static_assert(NV_TENSORRT_MAJOR == 10, "Kiln implements the TensorRT 10 API");

//! Gives the object file one symbol; the check is that everything above compiles.
int kilnHeaderCompatAnchor();
int kilnHeaderCompatAnchor()
{
    return NV_TENSORRT_MAJOR * 100 + NV_TENSORRT_MINOR;
}
