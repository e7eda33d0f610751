// The Kiln extension functions of include/kiln/KilnBackend.h: choosing the backend a builder config builds for,
// and asking which backend an engine was built for and which backends this process can use.
#include "kiln/KilnBackend.h"

#include "backends/backend.h"
#include "builder/builderConfig.h"
#include "runtime/engine.h"
#include "core/runtimeTypeInfo.h"

namespace kiln
{

bool setBuilderBackend(nvinfer1::IBuilderConfig* config, BackendKind kind) noexcept
{
    try
    {
        auto* cfg = safeDynamicCast<BuilderConfig>(config);
        if (cfg == nullptr)
        {
            return false; // nowhere to log: not a Kiln builder config (or nullptr)
        }
        if (kind != BackendKind::kDEFAULT && kind != BackendKind::kCPU && kind != BackendKind::kCUDA)
        {
            cfg->logger().report(invalidArgument("kiln::setBuilderBackend: unknown backend kind "
                + std::to_string(static_cast<int32_t>(kind)) + " (kDEFAULT, kCPU or kCUDA)"), nullptr);
            return false;
        }
        cfg->setBackendKind(static_cast<int32_t>(kind));
        return true;
    }
    catch (...)
    {
        return false;
    }
}

BackendKind getBuilderBackend(nvinfer1::IBuilderConfig const* config) noexcept
{
    auto const* cfg = safeDynamicCast<BuilderConfig const>(config);
    return cfg == nullptr ? BackendKind::kDEFAULT : static_cast<BackendKind>(cfg->backendKind());
}

BackendKind getEngineBackend(nvinfer1::ICudaEngine const* engine) noexcept
{
    auto const* e = safeDynamicCast<Engine const>(engine);
    if (e == nullptr)
    {
        return BackendKind::kDEFAULT;
    }
    return e->backend().usesDeviceMemory() ? BackendKind::kCUDA : BackendKind::kCPU;
}

bool isBackendAvailable(BackendKind kind) noexcept
{
    try
    {
        return kind != BackendKind::kCUDA || cudaBackend().isOk();
    }
    catch (...)
    {
        return false;
    }
}

} // namespace kiln
