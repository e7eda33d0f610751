// Shared state of Kiln's standard plugin library (libkiln_plugin): the logger given to initLibNvInferPlugins().
#pragma once

#include "NvInferRuntime.h"

namespace kiln::plugins
{

//! The logger passed to the last initLibNvInferPlugins() call (nullptr if none); plugins log through it.
nvinfer1::ILogger* standardPluginLogger() noexcept;

} // namespace kiln::plugins
