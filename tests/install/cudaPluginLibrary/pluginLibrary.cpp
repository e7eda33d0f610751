// pluginLibrary.cpp — the entry points IPluginRegistry::loadLibrary() (and kilnexec / trtexec --dynamicPlugins)
// look for in the CUDA plugin library: getCreators() returns KilnSwish (an IPluginCreator) and KilnBiasGelu (an
// IPluginCreatorV3One), setLoggerFinder() gives the library the application's logger. Only these two symbols are
// exported; the library links CUDA's static runtime and nothing of Kiln (TensorRT's headers suffice).
#include "cudaPlugins.h"

#include <NvInfer.h>

namespace kiln_cuda_plugins
{
namespace
{
nvinfer1::ILoggerFinder* gLoggerFinder = nullptr;
} // namespace

void logError(std::string const& message) noexcept
{
    nvinfer1::ILogger* logger = gLoggerFinder != nullptr ? gLoggerFinder->findLogger() : nullptr;
    if (logger != nullptr)
    {
        logger->log(nvinfer1::ILogger::Severity::kERROR, message.c_str());
    }
}

} // namespace kiln_cuda_plugins

extern "C" __attribute__((visibility("default"))) void setLoggerFinder(nvinfer1::ILoggerFinder* finder)
{
    kiln_cuda_plugins::gLoggerFinder = finder;
}

extern "C" __attribute__((visibility("default"))) nvinfer1::IPluginCreatorInterface* const* getCreators(
    int32_t& nbCreators)
{
    static nvinfer1::IPluginCreatorInterface* const creators[]
        = {kiln_cuda_plugins::swishCreator(), kiln_cuda_plugins::biasGeluCreator()};
    nbCreators = 2;
    return creators;
}
