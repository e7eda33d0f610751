// Helpers shared by the network and layer bindings (bindNetwork*.cpp, bindLayers*.cpp): keeping Python-owned
// weights and plugins alive as long as the network that uses them, Weights <-> numpy conversions, the automatic
// downcast of ILayer pointers to their interface class, and the holder types of network-owned objects.
#pragma once

#include "pyCommon.h"

#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <typeinfo>

namespace kiln::python
{

//! Deletes a network and drops the Python objects (weights arrays, plugins) kept alive for it and its layers.
struct NetworkDeleter
{
    void operator()(nvinfer1::INetworkDefinition* network) const noexcept;
};

//! Holder of INetworkDefinition Python objects: the Python object owns the network.
using NetworkHolder = std::unique_ptr<nvinfer1::INetworkDefinition, NetworkDeleter>;

//! Holder of objects owned by the network (tensors, layers, loops, conditionals): Python never deletes them.
template <typename T>
using NoDeleteHolder = std::unique_ptr<T, py::nodelete>;

//! Class type of a layer interface bound to Python.
template <typename T, typename... Bases>
using LayerClass = py::class_<T, Bases..., NoDeleteHolder<T>>;

//! Class type of INetworkDefinition.
using NetworkClass = py::class_<nvinfer1::INetworkDefinition, NetworkHolder>;

//! Keeps `object` alive until `network` is deleted (TensorRT's rule: weights stay valid until the build).
void keepAliveForNetwork(nvinfer1::INetworkDefinition const* network, py::object object);

//! Keeps `object` alive until the network owning `layer` is deleted (or, for layers of a network not deleted
//! through Python, until the process ends).
void keepAliveForLayer(nvinfer1::ILayer const* layer, py::object object);

//! Weights from a Python value: None (empty weights), a trt.Weights, or anything numpy.ascontiguousarray
//! accepts. `keep` receives the Python object that owns the memory; the caller must keep it alive.
nvinfer1::Weights toWeights(py::handle value, py::object& keep);

//! A numpy copy of `weights` (an empty float32 array for empty weights).
py::array weightsToNumpy(nvinfer1::Weights const& weights);

//! Binds the layer enums (ActivationType, ...). Called first by bindNetwork.
void bindLayerEnums(py::module_& m);

//! Binds INetworkDefinition's add_* methods (bindNetworkAdd.cpp and bindNetworkAddMore.cpp).
void bindNetworkAddMethods(NetworkClass& cls);
void bindNetworkAddMoreMethods(NetworkClass& cls);

//! Layer families, called by bindLayers.
void bindLayersNn(py::module_& m);
void bindLayersShape(py::module_& m);
void bindLayersControl(py::module_& m);

//! Defines a read-write Dims property: the getter returns trt.Dims, the setter takes any sequence of integers.
template <typename Cls, typename L>
void defDims(Cls& cls, char const* name, nvinfer1::Dims (L::*get)() const noexcept,
    void (L::*set)(nvinfer1::Dims const&) noexcept)
{
    cls.def_property(
        name, [get](L const& layer) { return (layer.*get)(); },
        [set](L& layer, py::object const& value) { (layer.*set)(toDims(value)); });
}

//! Defines a read-write weights property: the getter returns a numpy copy, the setter takes a numpy array,
//! trt.Weights or None and keeps it alive as long as the layer's network.
template <typename Cls, typename L>
void defWeights(Cls& cls, char const* name, nvinfer1::Weights (L::*get)() const noexcept,
    void (L::*set)(nvinfer1::Weights) noexcept)
{
    cls.def_property(
        name, [get](L const& layer) { return weightsToNumpy((layer.*get)()); },
        [set](L& layer, py::handle value) {
            py::object keep;
            nvinfer1::Weights const weights = toWeights(value, keep);
            keepAliveForLayer(&layer, std::move(keep));
            (layer.*set)(weights);
        });
}

//! Defines a read-write property whose C++ setter returns false on refusal: the Python setter raises ValueError.
template <typename Cls, typename L, typename V>
void defChecked(Cls& cls, char const* name, V (L::*get)() const noexcept, bool (L::*set)(V) noexcept)
{
    std::string const label = name;
    cls.def_property(
        name, get, [set, label](L& layer, V value) {
            if (!(layer.*set)(value))
            {
                throwValueError("Setting " + label + " of layer '" + layer.getName()
                    + "' failed: the value is not valid for this layer (see the logged error)");
            }
        });
}

} // namespace kiln::python

namespace pybind11
{

//! Casting an ILayer* gives the Python object of its interface class (as if TensorRT's users had set
//! `layer.__class__`), so network[i] and layer attributes work without a manual downcast.
template <>
struct polymorphic_type_hook<nvinfer1::ILayer>
{
    static void const* get(nvinfer1::ILayer const* src, std::type_info const*& type);
};

} // namespace pybind11
