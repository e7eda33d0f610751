// Loading plugins for kilnexec: --dynamicPlugins (IPluginRegistry::loadLibrary), --staticPlugins (dlopen so that
// REGISTER_TENSORRT_PLUGIN initializers run, then loadLibrary when the library has entry points) and
// --initPlugins (initLibNvInferPlugins).
#pragma once

#include "NvInferRuntime.h"
#include "options.h"

#include <string>

namespace kilnexec
{

//! Load everything the options ask for into the global registry. On failure returns false and sets `error`.
bool loadPlugins(Options const& options, nvinfer1::ILogger& logger, std::string& error);

} // namespace kilnexec
