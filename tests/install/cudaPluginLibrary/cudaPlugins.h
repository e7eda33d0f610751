// cudaPlugins.h — what the files of the CUDA plugin library share: its namespace, its logger (set by
// setLoggerFinder), the creators that getCreators() returns, and the bias + GELU kernels' launcher.
#pragma once

#include <NvInferRuntime.h>

#include <cstdint>
#include <string>

namespace kiln_cuda_plugins
{

//! Every creator of the library is registered under this plugin namespace.
constexpr char const* kPLUGIN_NAMESPACE = "kiln_cuda";

//! Logs through the logger the registry handed to setLoggerFinder() (nothing before that).
void logError(std::string const& message) noexcept;

nvinfer1::IPluginCreatorInterface* swishCreator();   //!< KilnSwish (IPluginV2DynamicExt)
nvinfer1::IPluginCreatorInterface* biasGeluCreator(); //!< KilnBiasGelu (IPluginV3)

//! t = x + bias[i % channels] into `scratch` (FP32), then y = gelu(t) (exact, with erf; or the tanh approximation
//! when `approximate`), both on `stream`. Returns the cudaError_t value of the launches (0 = success).
int32_t launchBiasGelu(float const* x, float const* bias, float* scratch, float* y, int64_t count, int64_t channels,
    bool approximate, cudaStream_t stream) noexcept;

} // namespace kiln_cuda_plugins
