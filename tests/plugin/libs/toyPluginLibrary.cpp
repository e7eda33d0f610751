// toyPluginLibrary.cpp — a minimal plugin library for the registry tests (tests/plugin/pluginRegistryTest.cpp).
// Built three times (see tests/plugin/CMakeLists.txt): KILN_TOY_VARIANT_V3 exports getCreators() and
// setLoggerFinder(), KILN_TOY_VARIANT_V1 exports getPluginCreators(), KILN_TOY_VARIANT_NoEntry exports neither.
#include "NvInferRuntime.h"

#include <cstdint>

namespace
{

#if defined(KILN_TOY_VARIANT_V3)

class ToyV3Creator final : public nvinfer1::IPluginCreatorV3One
{
public:
    nvinfer1::IPluginV3* createPlugin(nvinfer1::AsciiChar const*, nvinfer1::PluginFieldCollection const*,
        nvinfer1::TensorRTPhase) noexcept override
    {
        return nullptr;
    }
    nvinfer1::PluginFieldCollection const* getFieldNames() noexcept override
    {
        return &mFields;
    }
    nvinfer1::AsciiChar const* getPluginName() const noexcept override
    {
        return "ToyLibraryPlugin";
    }
    nvinfer1::AsciiChar const* getPluginVersion() const noexcept override
    {
        return "1";
    }
    nvinfer1::AsciiChar const* getPluginNamespace() const noexcept override
    {
        return "toylib";
    }

private:
    nvinfer1::PluginFieldCollection mFields{};
};

ToyV3Creator gCreator;
nvinfer1::IPluginCreatorInterface* gCreators[] = {&gCreator};

#elif defined(KILN_TOY_VARIANT_V1)

KILN_IGNORE_DEPRECATED_BEGIN
class ToyV1Creator final : public nvinfer1::IPluginCreator
{
public:
    nvinfer1::AsciiChar const* getPluginName() const noexcept override
    {
        return "ToyLibraryPluginV1";
    }
    nvinfer1::AsciiChar const* getPluginVersion() const noexcept override
    {
        return "2";
    }
    nvinfer1::PluginFieldCollection const* getFieldNames() noexcept override
    {
        return &mFields;
    }
    nvinfer1::IPluginV2* createPlugin(nvinfer1::AsciiChar const*, nvinfer1::PluginFieldCollection const*) noexcept
        override
    {
        return nullptr;
    }
    nvinfer1::IPluginV2* deserializePlugin(nvinfer1::AsciiChar const*, void const*, size_t) noexcept override
    {
        return nullptr;
    }
    void setPluginNamespace(nvinfer1::AsciiChar const* pluginNamespace) noexcept override
    {
        mNamespace = pluginNamespace;
    }
    nvinfer1::AsciiChar const* getPluginNamespace() const noexcept override
    {
        return mNamespace;
    }

private:
    nvinfer1::PluginFieldCollection mFields{};
    nvinfer1::AsciiChar const* mNamespace{""};
};

ToyV1Creator gCreator;
nvinfer1::IPluginCreator* gCreators[] = {&gCreator};
KILN_IGNORE_DEPRECATED_END

#endif

} // namespace

#if defined(KILN_TOY_VARIANT_V3)

extern "C" void setLoggerFinder(nvinfer1::ILoggerFinder* finder)
{
    // Say hello through the finder so that the test can see the registry handed it the right logger.
    if (finder != nullptr)
    {
        if (nvinfer1::ILogger* logger = finder->findLogger())
        {
            logger->log(nvinfer1::ILogger::Severity::kINFO, "toy plugin library: logger found");
        }
    }
}

extern "C" nvinfer1::IPluginCreatorInterface* const* getCreators(int32_t& nbCreators)
{
    nbCreators = 1;
    return gCreators;
}

#elif defined(KILN_TOY_VARIANT_V1)

KILN_IGNORE_DEPRECATED_BEGIN
extern "C" nvinfer1::IPluginCreator* const* getPluginCreators(int32_t& nbCreators)
{
    nbCreators = 1;
    return gCreators;
}
KILN_IGNORE_DEPRECATED_END

#else

extern "C" int32_t kilnToyLibraryWithoutEntryPoints()
{
    return 42;
}

#endif
