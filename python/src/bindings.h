// Declarations of the binding functions that make up the kiln._kiln extension module. module.cpp calls them in
// this order; each lives in its own bind*.cpp and binds one area of the tensorrt Python API.
#pragma once

#include "pyTypeHook.h"

#include <pybind11/pybind11.h>

namespace kiln::python
{

namespace py = pybind11;

void bindCore(py::module_& m);         // enums, Dims, Weights, DataType/nptype/volume, ILogger/Logger
void bindPluginCommon(py::module_& m); // PluginField(Collection), PluginTensorDesc, registry, creators' bases
void bindBuilder(py::module_& m);      // Builder, BuilderConfig, flags, IOptimizationProfile, IHostMemory
void bindNetwork(py::module_& m);      // INetworkDefinition, ITensor, ILayer
void bindLayers(py::module_& m);       // every I*Layer class and its enums
void bindPluginV2(py::module_& m);     // IPluginV2 ... IPluginV2DynamicExt, IPluginCreator (Python-subclassable)
void bindPluginV3(py::module_& m);     // IPluginV3 + OneCore/OneBuild(V2)/OneRuntime, IPluginCreatorV3One
void bindRuntime(py::module_& m);      // Runtime, ICudaEngine, IExecutionContext, callbacks, inspector
void bindParser(py::module_& m);       // OnnxParser, ParserError, flags

} // namespace kiln::python
