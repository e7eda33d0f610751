// toyPluginLibrary.cpp — a minimal plugin library for the registry tests (tests/plugin/pluginRegistry*Test.cpp).
// Built once per variant (see tests/plugin/CMakeLists.txt): KILN_TOY_VARIANT_V3 exports getCreators() and
// setLoggerFinder(), KILN_TOY_VARIANT_V1 exports getPluginCreators(), KILN_TOY_VARIANT_NoEntry exports neither;
// OtherNs offers the V3 variant's plugin name and version under another namespace ("otherlib"); the broken
// variants Throw (getCreators() throws), NullCreator (a null entry in the list) and Dup (one key offered twice)
// exercise the registry's error paths.
#include "NvInferRuntime.h"

#include <cstdint>
#include <stdexcept>

namespace
{

#if defined(KILN_TOY_VARIANT_V3) || defined(KILN_TOY_VARIANT_NullCreator) || defined(KILN_TOY_VARIANT_Dup)         \
    || defined(KILN_TOY_VARIANT_OtherNs)

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
#if defined(KILN_TOY_VARIANT_OtherNs)
        return "otherlib";
#else
        return "toylib";
#endif
    }

private:
    nvinfer1::PluginFieldCollection mFields{};
};

#if defined(KILN_TOY_VARIANT_V3) || defined(KILN_TOY_VARIANT_OtherNs)
ToyV3Creator gCreator;
nvinfer1::IPluginCreatorInterface* gCreators[] = {&gCreator};
#elif defined(KILN_TOY_VARIANT_NullCreator)
ToyV3Creator gCreator;
nvinfer1::IPluginCreatorInterface* gCreators[] = {&gCreator, nullptr};
#else
ToyV3Creator gFirst;
ToyV3Creator gSecond;
nvinfer1::IPluginCreatorInterface* gCreators[] = {&gFirst, &gSecond};
#endif

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

#if defined(KILN_TOY_VARIANT_V3) || defined(KILN_TOY_VARIANT_OtherNs)

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

#elif defined(KILN_TOY_VARIANT_NullCreator) || defined(KILN_TOY_VARIANT_Dup)

extern "C" nvinfer1::IPluginCreatorInterface* const* getCreators(int32_t& nbCreators)
{
    nbCreators = 2;
    return gCreators;
}

#elif defined(KILN_TOY_VARIANT_Throw)

extern "C" nvinfer1::IPluginCreatorInterface* const* getCreators(int32_t&)
{
    throw std::runtime_error("toy getCreators exploded");
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
