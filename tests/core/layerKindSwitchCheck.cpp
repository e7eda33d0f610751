// Compile-only check of the rule that keeps per-kind tables complete: a `switch` over nvinfer1::LayerType without
// `default`, generated from the one list (core/layerKinds.h) and compiled with the project's -Werror=switch.
// tests/core/CMakeLists.txt compiles it twice in ctest: as it is (must compile) and with one kind left out by
// -DKILN_LEAVE_OUT_<kKIND>=1, e.g. -DKILN_LEAVE_OUT_kMOE=1 (must fail, naming the missing enumerator).
#include "core/layerKinds.h"

// KILN_IS_SET(KILN_LEAVE_OUT_kX) is 1 when that macro is defined as 1, else 0 (the "placeholder" idiom: a defined
// macro turns into "0," and shifts the 1 into the second argument).
#define KILN_SET_PLACEHOLDER_1 0,
#define KILN_SECOND_ARGUMENT(ignored, value, ...) value
#define KILN_IS_SET_EXPANDED(placeholderOrJunk) KILN_SECOND_ARGUMENT(placeholderOrJunk 1, 0, ~)
#define KILN_IS_SET_VALUE(value) KILN_IS_SET_EXPANDED(KILN_SET_PLACEHOLDER_##value)
#define KILN_IS_SET(macro) KILN_IS_SET_VALUE(macro)
#define KILN_CONCATENATE_EXPANDED(a, b) a##b
#define KILN_CONCATENATE(a, b) KILN_CONCATENATE_EXPANDED(a, b)

// One case per kind of the list, except the kind left out.
#define KILN_CASE_0(kind, name) case nvinfer1::LayerType::kind: return #name;
#define KILN_CASE_1(kind, name)
#define KILN_CHECK_CASE(kind, name, iface) KILN_CONCATENATE(KILN_CASE_, KILN_IS_SET(KILN_LEAVE_OUT_##kind))(kind, name)

char const* checkedKindName(nvinfer1::LayerType kind)
{
    switch (kind)
    {
        KILN_FOR_EACH_LAYER_KIND(KILN_CHECK_CASE)
    }
    return "Layer";
}
