// leakyReluPlugin.cpp — LReLU_TRT: leaky ReLU as a plain IPluginV2, with its creator (see leakyReluPlugin.h). The
// host loop serves the CPU backend; with KILN_PLUGIN_CUDA a CUDA kernel serves device memory (leakyReluCuda.h).
#include "leakyReluPlugin.h"
#include "../standardPlugins.h"
#if KILN_PLUGIN_CUDA
#include "leakyReluCuda.h"
#endif

#include <cstdint>
#include <cmath>
#include <cstring>

namespace kiln::plugins
{
namespace
{
constexpr char const* kLRELU_NAME = "LReLU_TRT";
constexpr char const* kLRELU_VERSION = "1";

void logThrough(nvinfer1::ILogger::Severity severity, std::string const& message)
{
    if (nvinfer1::ILogger* logger = standardPluginLogger())
    {
        logger->log(severity, message.c_str());
    }
}

uint16_t floatToHalf(float f)
{
    uint32_t bits = 0;
    std::memcpy(&bits, &f, sizeof(bits));
    uint16_t const sign = static_cast<uint16_t>((bits >> 16) & 0x8000U);
    uint32_t const absBits = bits & 0x7FFFFFFFU;
    if (absBits >= 0x7F800000U)
    {
        return static_cast<uint16_t>(sign | 0x7C00U | (absBits > 0x7F800000U ? 0x200U : 0U));
    }
    if (absBits >= 0x477FF000U)
    {
        return static_cast<uint16_t>(sign | 0x7C00U);
    }
    if (absBits < 0x38800000U)
    {
        float const scaled = (f < 0 ? -f : f) * 16777216.0F;
        return static_cast<uint16_t>(sign | static_cast<uint16_t>(std::nearbyint(scaled)));
    }
    uint32_t const rounded = absBits + 0xFFFU + ((absBits >> 13) & 1U);
    return static_cast<uint16_t>(sign | ((rounded - 0x38000000U) >> 13));
}

float halfToFloat(uint16_t h)
{
    uint32_t const sign = static_cast<uint32_t>(h & 0x8000U) << 16;
    uint32_t exponent = (h >> 10) & 0x1FU;
    uint32_t mantissa = h & 0x3FFU;
    uint32_t bits = 0;
    if (exponent == 0x1FU)
    {
        bits = sign | 0x7F800000U | (mantissa << 13);
    }
    else if (exponent == 0)
    {
        if (mantissa != 0)
        {
            exponent = 127 - 15 + 1;
            while ((mantissa & 0x400U) == 0)
            {
                mantissa <<= 1;
                --exponent;
            }
            bits = sign | (exponent << 23) | ((mantissa & 0x3FFU) << 13);
        }
        else
        {
            bits = sign;
        }
    }
    else
    {
        bits = sign | ((exponent + 127 - 15) << 23) | (mantissa << 13);
    }
    float f = 0.0F;
    std::memcpy(&f, &bits, sizeof(f));
    return f;
}
} // namespace

LeakyReluPlugin::LeakyReluPlugin(float negSlope)
    : mNegSlope(negSlope)
{
}

char const* LeakyReluPlugin::getPluginType() const noexcept
{
    return kLRELU_NAME;
}

char const* LeakyReluPlugin::getPluginVersion() const noexcept
{
    return kLRELU_VERSION;
}

nvinfer1::Dims LeakyReluPlugin::getOutputDimensions(
    int32_t index, nvinfer1::Dims const* inputs, int32_t nbInputDims) noexcept
{
    if (index != 0 || nbInputDims != 1)
    {
        return nvinfer1::Dims{-1, {}};
    }
    return inputs[0];
}

bool LeakyReluPlugin::supportsFormat(nvinfer1::DataType type, nvinfer1::PluginFormat format) const noexcept
{
    return format == nvinfer1::PluginFormat::kLINEAR
        && (type == nvinfer1::DataType::kFLOAT || type == nvinfer1::DataType::kHALF);
}

void LeakyReluPlugin::configureWithFormat(nvinfer1::Dims const* inputDims, int32_t nbInputs, nvinfer1::Dims const*,
    int32_t, nvinfer1::DataType type, nvinfer1::PluginFormat, int32_t) noexcept
{
    if (nbInputs == 1)
    {
        mDims = inputDims[0];
    }
    mType = type;
}

int32_t LeakyReluPlugin::enqueue(
    int32_t batchSize, void const* const* inputs, void* const* outputs, void*, cudaStream_t stream) noexcept
{
    int64_t count = batchSize > 0 ? batchSize : 1;
    for (int32_t i = 0; i < mDims.nbDims; ++i)
    {
        if (mDims.d[i] < 0)
        {
            return 1; // never configured with real dims
        }
        count *= mDims.d[i];
    }
    if (mType != nvinfer1::DataType::kFLOAT && mType != nvinfer1::DataType::kHALF)
    {
        return 2;
    }
#if KILN_PLUGIN_CUDA
    if (cuda::isDeviceMemory(outputs[0]))
    {
        int32_t const status
            = cuda::leakyRelu(inputs[0], outputs[0], count, mType == nvinfer1::DataType::kHALF, mNegSlope, stream);
        if (status != 0)
        {
            logThrough(nvinfer1::ILogger::Severity::kERROR,
                std::string("LReLU_TRT enqueue: CUDA kernel launch failed: ") + cuda::errorString(status));
            return 3;
        }
        return 0;
    }
#else
    (void) stream;
#endif
    if (mType == nvinfer1::DataType::kFLOAT)
    {
        auto const* x = static_cast<float const*>(inputs[0]);
        auto* y = static_cast<float*>(outputs[0]);
        for (int64_t i = 0; i < count; ++i)
        {
            y[i] = x[i] >= 0.0F ? x[i] : mNegSlope * x[i];
        }
        return 0;
    }
    if (mType == nvinfer1::DataType::kHALF)
    {
        auto const* x = static_cast<uint16_t const*>(inputs[0]);
        auto* y = static_cast<uint16_t*>(outputs[0]);
        for (int64_t i = 0; i < count; ++i)
        {
            float const v = halfToFloat(x[i]);
            y[i] = floatToHalf(v >= 0.0F ? v : mNegSlope * v);
        }
        return 0;
    }
    return 2;
}

void LeakyReluPlugin::serialize(void* buffer) const noexcept
{
    std::memcpy(buffer, &mNegSlope, sizeof(mNegSlope));
}

nvinfer1::IPluginV2* LeakyReluPlugin::clone() const noexcept
{
    try
    {
        return new LeakyReluPlugin(*this);
    }
    catch (...)
    {
        return nullptr;
    }
}

void LeakyReluPlugin::setPluginNamespace(char const* pluginNamespace) noexcept
{
    try
    {
        mNamespace = pluginNamespace == nullptr ? "" : pluginNamespace;
    }
    catch (...)
    {
    }
}

LeakyReluPluginCreator::LeakyReluPluginCreator()
{
    mFields.push_back(nvinfer1::PluginField{"negSlope", nullptr, nvinfer1::PluginFieldType::kFLOAT32, 1});
    mFieldCollection.nbFields = static_cast<int32_t>(mFields.size());
    mFieldCollection.fields = mFields.data();
}

char const* LeakyReluPluginCreator::getPluginName() const noexcept
{
    return kLRELU_NAME;
}

char const* LeakyReluPluginCreator::getPluginVersion() const noexcept
{
    return kLRELU_VERSION;
}

nvinfer1::IPluginV2* LeakyReluPluginCreator::createPlugin(
    char const* name, nvinfer1::PluginFieldCollection const* fc) noexcept
{
    try
    {
        float negSlope = 0.01F;
        std::string const layer = name == nullptr ? "" : name;
        for (int32_t i = 0; fc != nullptr && i < fc->nbFields; ++i)
        {
            nvinfer1::PluginField const& field = fc->fields[i];
            std::string const fieldName = field.name == nullptr ? "" : field.name;
            if (fieldName == "negSlope" || fieldName == "neg_slope")
            {
                if (field.type != nvinfer1::PluginFieldType::kFLOAT32 || field.data == nullptr || field.length < 1)
                {
                    logThrough(nvinfer1::ILogger::Severity::kERROR,
                        std::string("LReLU_TRT createPlugin('") + layer + "'): field '" + fieldName
                            + "' must be one kFLOAT32 value");
                    return nullptr;
                }
                negSlope = *static_cast<float const*>(field.data);
            }
            else
            {
                logThrough(nvinfer1::ILogger::Severity::kWARNING,
                    std::string("LReLU_TRT createPlugin('") + layer + "'): ignoring unknown field '" + fieldName
                        + "' (known: negSlope, neg_slope)");
            }
        }
        auto* plugin = new LeakyReluPlugin(negSlope);
        plugin->setPluginNamespace(mNamespace.c_str());
        return plugin;
    }
    catch (...)
    {
        return nullptr;
    }
}

nvinfer1::IPluginV2* LeakyReluPluginCreator::deserializePlugin(char const*, void const* data, size_t length) noexcept
{
    try
    {
        if (data == nullptr || length != sizeof(float))
        {
            logThrough(nvinfer1::ILogger::Severity::kERROR,
                "LReLU_TRT deserializePlugin: expected " + std::to_string(sizeof(float)) + " bytes, got "
                    + std::to_string(length));
            return nullptr;
        }
        float negSlope = 0.0F;
        std::memcpy(&negSlope, data, sizeof(negSlope));
        auto* plugin = new LeakyReluPlugin(negSlope);
        plugin->setPluginNamespace(mNamespace.c_str());
        return plugin;
    }
    catch (...)
    {
        return nullptr;
    }
}

void LeakyReluPluginCreator::setPluginNamespace(char const* pluginNamespace) noexcept
{
    try
    {
        mNamespace = pluginNamespace == nullptr ? "" : pluginNamespace;
    }
    catch (...)
    {
    }
}

} // namespace kiln::plugins
