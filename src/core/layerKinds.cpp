// Names of the layer kinds, generated from the one list (core/layerKinds.h): the switch has no `default`, so a
// LayerType missing from the list fails to compile (-Werror=switch) as well as the list's static_assert.
#include "core/layerKinds.h"

namespace kiln
{

char const* layerKindName(nvinfer1::LayerType kind)
{
    switch (kind)
    {
#define KILN_LAYER_KIND_NAME(kind, name, iface)                                                                        \
    case nvinfer1::LayerType::kind: return #name;
        KILN_FOR_EACH_LAYER_KIND(KILN_LAYER_KIND_NAME)
#undef KILN_LAYER_KIND_NAME
    }
    return "Layer"; // a value outside the enum (e.g. read from a corrupt engine before validation)
}

} // namespace kiln
