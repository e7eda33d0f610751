// sampleV3Base.h — the boilerplate every sample IPluginV3 shares: it implements IPluginV3 with the OneCore,
// OneBuild and OneRuntime capabilities in one object, reports name/version/namespace, opts into Kiln's CPU
// backend, and attaches to a context by cloning. Concrete samples add shapes, types, formats and enqueue().
#pragma once

#include "NvInfer.h"
#include "kiln/KilnPluginCpu.h"

#include <string>

namespace samples
{

class SampleV3Base : public nvinfer1::IPluginV3,
                     public nvinfer1::IPluginV3OneCore,
                     public nvinfer1::IPluginV3OneBuild,
                     public nvinfer1::IPluginV3OneRuntime,
                     public kiln::IPluginCpuSupport
{
public:
    SampleV3Base(char const* name, char const* version, std::string pluginNamespace)
        : mName(name)
        , mVersion(version)
        , mNamespace(std::move(pluginNamespace))
    {
    }

    // IPluginV3
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

    // IPluginV3OneCore
    char const* getPluginName() const noexcept override { return mName; }
    char const* getPluginVersion() const noexcept override { return mVersion; }
    char const* getPluginNamespace() const noexcept override { return mNamespace.c_str(); }

    // IPluginV3OneRuntime: one clone per execution context.
    nvinfer1::IPluginV3* attachToContext(nvinfer1::IPluginResourceContext*) noexcept override { return clone(); }

private:
    char const* mName;
    char const* mVersion;
    std::string mNamespace;
};

} // namespace samples
