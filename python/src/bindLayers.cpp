// Python bindings of the layer classes (I*Layer): this file holds the ILayer downcast hook and calls the per-family
// binders (bindLayersNn.cpp, bindLayersShape.cpp, bindLayersControl.cpp); the hook is generated from the one list of
// layer kinds (core/layerKinds.h).
#include "bindNetworkCommon.h"
#include "bindings.h"
#include "core/layerKinds.h"

KILN_IGNORE_DEPRECATED_BEGIN

namespace pybind11
{

using namespace nvinfer1;

namespace
{

template <typename T>
void const* as(ILayer const* src, std::type_info const*& type)
{
    type = &typeid(T);
    return static_cast<T const*>(src);
}

} // namespace

void const* polymorphic_type_hook<ILayer>::get(ILayer const* src, std::type_info const*& type)
{
    type = nullptr;
    if (src == nullptr)
    {
        return src;
    }
    // Generated from the one list of layer kinds (core/layerKinds.h), with no default. A kind whose interface
    // the module does not bind (IAttentionInputLayer, IMoELayer, ...) stays ILayer: pybind11 ignores a downcast
    // to an unregistered type and casts to the static type (ILayer). tests/python/test_network_structure.py
    // checks that every bound layer class is some kind's interface.
    switch (src->getType())
    {
#define KILN_LAYER_DOWNCAST(kind, name, iface)                                                                         \
    case LayerType::kind: return as<iface>(src, type);
        KILN_FOR_EACH_LAYER_KIND(KILN_LAYER_DOWNCAST)
#undef KILN_LAYER_DOWNCAST
    }
    return src; // a value outside the enum
}

} // namespace pybind11

namespace kiln::python
{

void bindLayers(py::module_& m)
{
    bindLayersNn(m);
    bindLayersShape(m);
    bindLayersControl(m);
    // The list's interface of each kind, {LayerType member name: class name}: tests check the downcasts with it.
    py::dict interfaces;
#define KILN_LAYER_INTERFACE(kind, name, iface) interfaces[&#kind[1]] = #iface;
    KILN_FOR_EACH_LAYER_KIND(KILN_LAYER_INTERFACE)
#undef KILN_LAYER_INTERFACE
    m.attr("_layer_interfaces") = interfaces;
}

} // namespace kiln::python

KILN_IGNORE_DEPRECATED_END
