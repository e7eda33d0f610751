// --dumpLayerInfo / --exportLayerInfo: the engine's layers through the public IEngineInspector (bound to the
// execution context when there is one, so that dynamic shapes print as the concrete inference shapes).
#pragma once

#include "NvInferRuntime.h"
#include "options.h"

#include <cstdio>
#include <string>

namespace kilnexec
{

//! Print (kONELINE) and/or export (kJSON) the layer information. False with a one-line `error`.
bool reportLayerInfo(nvinfer1::ICudaEngine const& engine, nvinfer1::IExecutionContext const* context,
    Options const& options, std::FILE* out, std::string& error);

} // namespace kilnexec
