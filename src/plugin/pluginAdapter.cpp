// PluginAdapter base: generation names, the label used in every plugin message, lifecycle tracing (kVERBOSE log
// plus the process-wide test sink) and the wrapV2/wrapV3 entry points, which detect the generation and build the
// generation's adapter (pluginAdapterV2.h, pluginAdapterV3.h).
#include "plugin/pluginAdapter.h"

#include "kiln/KilnPluginCpu.h"
#include "plugin/pluginAdapterV2.h"
#include "plugin/pluginAdapterV3.h"
#include "plugin/pluginCallGuard.h"

#include <atomic>
#include <memory>
#include <mutex>

namespace kiln
{
namespace
{

std::mutex gSinkMutex;
std::shared_ptr<PluginTraceSink> gSink;
// Lets trace() skip the mutex on every plugin call when no test sink is installed.
std::atomic<bool> gHasSink{false};

} // namespace

char const* pluginGenerationName(PluginGeneration generation) noexcept
{
    switch (generation)
    {
    case PluginGeneration::kV2: return "IPluginV2";
    case PluginGeneration::kV2_EXT: return "IPluginV2Ext";
    case PluginGeneration::kV2_IOEXT: return "IPluginV2IOExt";
    case PluginGeneration::kV2_DYNAMIC_EXT: return "IPluginV2DynamicExt";
    case PluginGeneration::kV3_ONE: return "IPluginV3";
    }
    return "unknown plugin generation";
}

PluginAdapter::PluginAdapter(PluginGeneration generation, std::string name, std::string version,
    std::string pluginNamespace, Logger const& logger)
    : mGeneration(generation)
    , mName(std::move(name))
    , mVersion(std::move(version))
    , mNamespace(std::move(pluginNamespace))
    , mLogger(logger)
{
    updateLabel();
}

void PluginAdapter::updateLabel()
{
    mLabel = "plugin '" + mName + "' (version '" + mVersion + "'";
    if (!mNamespace.empty())
    {
        mLabel += ", namespace '" + mNamespace + "'";
    }
    mLabel += std::string(", ") + pluginGenerationName(mGeneration) + ")";
    if (!mLayerName.empty())
    {
        mLabel += " in layer '" + mLayerName + "'";
    }
}

std::string PluginAdapter::label() const
{
    return mLabel;
}

StatusOr<bool> PluginAdapter::supportsFormatCombinationDynamic(
    int32_t pos, std::vector<nvinfer1::DynamicPluginTensorDesc> const& inOut, int32_t nbInputs)
{
    std::vector<nvinfer1::PluginTensorDesc> descs;
    descs.reserve(inOut.size());
    for (auto const& d : inOut)
    {
        descs.push_back(d.desc);
    }
    return supportsFormatCombination(pos, descs, nbInputs);
}

void PluginAdapter::setTraceSink(PluginTraceSink sink)
{
    std::lock_guard<std::mutex> lock(gSinkMutex);
    gSink = sink ? std::make_shared<PluginTraceSink>(std::move(sink)) : nullptr;
    gHasSink.store(gSink != nullptr);
}

bool PluginAdapter::askCpuSupport(IPluginCpuSupport const* cpu) const
{
    if (cpu == nullptr)
    {
        return false;
    }
    trace("supportsCpu");
    bool result = false;
    Status const st = guardedCall(*this, "supportsCpu", [&] { result = cpu->supportsCpu(); });
    if (!st.isOk())
    {
        logger().error(st.message());
        return false;
    }
    return result;
}

void PluginAdapter::trace(char const* call) const
{
    if (mLogger.user() != nullptr)
    {
        mLogger.verbose(mLabel + ": " + call);
    }
    if (!gHasSink.load())
    {
        return;
    }
    std::shared_ptr<PluginTraceSink> sink;
    {
        std::lock_guard<std::mutex> lock(gSinkMutex);
        sink = gSink;
    }
    if (sink)
    {
        try
        {
            (*sink)(mName, call);
        }
        catch (...)
        {
            // A test sink that throws must not break the lifecycle.
        }
    }
}

KILN_IGNORE_DEPRECATED_BEGIN

StatusOr<std::unique_ptr<PluginAdapter>> PluginAdapter::wrapV2(
    nvinfer1::IPluginV2* plugin, PluginOwnership ownership, Logger const& logger)
{
    return PluginAdapterV2::create(plugin, ownership, logger);
}

KILN_IGNORE_DEPRECATED_END

StatusOr<std::unique_ptr<PluginAdapter>> PluginAdapter::wrapV3(nvinfer1::IPluginV3* plugin,
    PluginOwnership ownership, nvinfer1::TensorRTPhase phase, Logger const& logger)
{
    return PluginAdapterV3::create(plugin, ownership, phase, logger);
}

} // namespace kiln
