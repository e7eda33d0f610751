// standardV3Base.h — shared boilerplate of the IPluginV3 plugins in Kiln's standard plugin library (ROIAlign_TRT,
// ModulatedDeformConv2d): one object implements IPluginV3 with the OneCore, OneBuild and OneRuntime capabilities,
// reports name/version/namespace, opts into the CPU backend, and attaches to a context by cloning. Also the field
// readers the creators share, which log through the standard plugin logger.
#pragma once

#include "NvInfer.h"
#include "kiln/KilnPluginCpu.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::plugins
{

class StandardV3Base : public nvinfer1::IPluginV3,
                       public nvinfer1::IPluginV3OneCore,
                       public nvinfer1::IPluginV3OneBuild,
                       public nvinfer1::IPluginV3OneRuntime,
                       public kiln::IPluginCpuSupport
{
public:
    StandardV3Base(char const* name, char const* version, std::string pluginNamespace)
        : mName(name)
        , mVersion(version)
        , mNamespace(std::move(pluginNamespace))
    {
    }

    nvinfer1::IPluginCapability* getCapabilityInterface(nvinfer1::PluginCapabilityType type) noexcept override
    {
        switch (type)
        {
        case nvinfer1::PluginCapabilityType::kCORE: return static_cast<nvinfer1::IPluginV3OneCore*>(this);
        case nvinfer1::PluginCapabilityType::kBUILD: return static_cast<nvinfer1::IPluginV3OneBuild*>(this);
        case nvinfer1::PluginCapabilityType::kRUNTIME: return static_cast<nvinfer1::IPluginV3OneRuntime*>(this);
        }
        // Kiln's CPU opt-in, found this way even when the plugin is compiled without RTTI.
        if (type == kiln::kPLUGIN_CAPABILITY_CPU)
        {
            return static_cast<kiln::IPluginCpuSupport*>(this);
        }
        return nullptr;
    }

    char const* getPluginName() const noexcept override { return mName; }
    char const* getPluginVersion() const noexcept override { return mVersion; }
    char const* getPluginNamespace() const noexcept override { return mNamespace.c_str(); }

    nvinfer1::IPluginV3* attachToContext(nvinfer1::IPluginResourceContext*) noexcept override { return clone(); }
    int32_t onShapeChange(nvinfer1::PluginTensorDesc const*, int32_t, nvinfer1::PluginTensorDesc const*,
        int32_t) noexcept override
    {
        return 0;
    }
    int32_t configurePlugin(nvinfer1::DynamicPluginTensorDesc const*, int32_t, nvinfer1::DynamicPluginTensorDesc const*,
        int32_t) noexcept override
    {
        return 0;
    }

private:
    char const* mName;
    char const* mVersion;
    std::string mNamespace;
};

//! Logs through the logger given to initLibNvInferPlugins (if any).
void logStandardPlugin(nvinfer1::ILogger::Severity severity, std::string const& message) noexcept;

//! Reads a field of `count` kINT32 values (or one value broadcast to `count`) into `out`. Logs an error naming
//! plugin, layer and field, and returns false, when the type or length is wrong.
bool readIntField(nvinfer1::PluginField const& field, int32_t count, std::string const& who, std::vector<int32_t>& out);
//! Reads one kFLOAT32 value.
bool readFloatField(nvinfer1::PluginField const& field, std::string const& who, float& out);

//! Product of the extents of `dims` (0 for a negative extent).
int64_t volumeOf(nvinfer1::Dims const& dims) noexcept;

} // namespace kiln::plugins
