// The extern "C" library entry points of the runtime: createInferRuntime_INTERNAL (behind the inline
// createInferRuntime()), createInferRefitter_INTERNAL and the getInferLib*Version() queries. (The builder's
// entry point lives in src/builder, the plugin registry's in src/plugin.)
#include "NvInferRuntime.h"
#include "NvInferVersion.h"
#include "runtime/runtime.h"

#include <string>

namespace
{

//! TensorRT encodes versions as major * 10000 + minor * 100 + patch (NV_TENSORRT_VERSION).
bool sameMajorVersion(int32_t version)
{
    return version / 10000 == NV_TENSORRT_MAJOR;
}

void logError(nvinfer1::ILogger* logger, std::string const& message) noexcept
{
    if (logger == nullptr)
    {
        return;
    }
    try
    {
        logger->log(nvinfer1::ILogger::Severity::kERROR, message.c_str());
    }
    catch (...)
    {
    }
}

} // namespace

extern "C" TENSORRTAPI void* createInferRuntime_INTERNAL(void* logger, int32_t version) noexcept
{
    if (logger == nullptr)
    {
        return nullptr; // nowhere to report it; TensorRT requires a logger
    }
    auto* userLogger = static_cast<nvinfer1::ILogger*>(logger);
    if (!sameMajorVersion(version))
    {
        logError(userLogger, "createInferRuntime: the application was compiled against TensorRT API "
            + std::to_string(version) + ", but this Kiln implements API " + std::to_string(NV_TENSORRT_VERSION)
            + " (the major versions must match)");
        return nullptr;
    }
    try
    {
        return static_cast<nvinfer1::IRuntime*>(new kiln::Runtime(*userLogger));
    }
    catch (...)
    {
        logError(userLogger, "createInferRuntime: out of memory");
        return nullptr;
    }
}

extern "C" TENSORRTAPI void* createInferRefitter_INTERNAL(void* /*engine*/, void* logger, int32_t /*version*/) noexcept
{
    logError(static_cast<nvinfer1::ILogger*>(logger),
        "createInferRefitter: refitting is not supported by Kiln yet (engines are built without refittable weights)");
    return nullptr;
}

extern "C" TENSORRTAPI int32_t getInferLibVersion() noexcept
{
    return static_cast<int32_t>(NV_TENSORRT_VERSION);
}

extern "C" TENSORRTAPI int32_t getInferLibMajorVersion() noexcept
{
    return NV_TENSORRT_MAJOR;
}

extern "C" TENSORRTAPI int32_t getInferLibMinorVersion() noexcept
{
    return NV_TENSORRT_MINOR;
}

extern "C" TENSORRTAPI int32_t getInferLibPatchVersion() noexcept
{
    return NV_TENSORRT_PATCH;
}

extern "C" TENSORRTAPI int32_t getInferLibBuildVersion() noexcept
{
    return NV_TENSORRT_BUILD;
}
