// The extern "C" library entry points about plugin registries: getPluginRegistry(), getLogger(),
// getBuilderPluginRegistry(), getBuilderSafePluginRegistry() and setInternalLibraryPath().
#include "NvInfer.h"
#include "plugin/pluginLibraryLoader.h"
#include "plugin/pluginRegistry.h"

#include <string>

extern "C" nvinfer1::IPluginRegistry* getPluginRegistry() noexcept
{
    return &kiln::globalPluginRegistry();
}

extern "C" nvinfer1::ILogger* getLogger() noexcept
{
    return kiln::registryLogger();
}

namespace nvinfer1
{

extern "C" IPluginRegistry* getBuilderPluginRegistry(EngineCapability capability) noexcept
{
    kiln::PluginRegistry& global = kiln::globalPluginRegistry();
    if (capability == EngineCapability::kSTANDARD)
    {
        return &global;
    }
    global.reportError(kiln::unsupported("getBuilderPluginRegistry: engine capability "
        + std::to_string(static_cast<int32_t>(capability))
        + " is not supported by Kiln; only EngineCapability::kSTANDARD has a plugin registry"));
    return nullptr;
}

extern "C" bool setInternalLibraryPath(AsciiChar const* path) noexcept
{
    if (path == nullptr)
    {
        kiln::globalPluginRegistry().reportError(
            kiln::invalidArgument("setInternalLibraryPath: the path is null (pass \"\" to reset it)"));
        return false;
    }
    try
    {
        // Kiln loads no internal libraries yet; the path is kept for when it does.
        kiln::setInternalLibraryPathValue(path);
        return true;
    }
    catch (...)
    {
        kiln::globalPluginRegistry().reportError(kiln::failedAllocation("setInternalLibraryPath: out of memory"));
        return false;
    }
}

extern "C" safe::IPluginRegistry* getBuilderSafePluginRegistry(EngineCapability capability) noexcept
{
    kiln::globalPluginRegistry().reportError(kiln::unsupported("getBuilderSafePluginRegistry: the safety runtime "
        "is not supported by Kiln (engine capability " + std::to_string(static_cast<int32_t>(capability)) + ")"));
    return nullptr;
}

} // namespace nvinfer1
