// barPlugin.cpp — BarPlugin (IPluginV2DynamicExt): concatenation along dim 0 and a copy of input 0, on host memory
// (CPU backend) or as stream-ordered device copies (CUDA backend, when built with KILN_SAMPLE_PLUGINS_CUDA).
#include "barPlugin.h"
#include "samplePluginUtils.h"
#if KILN_SAMPLE_PLUGINS_CUDA
#include "samplePluginsCuda.h"
#endif

#include <cstring>

namespace samples
{
namespace
{
constexpr char const* kBAR_NAME = "BarPlugin";
constexpr char const* kBAR_VERSION = "1";

bool supportedType(nvinfer1::DataType type)
{
    return type == nvinfer1::DataType::kFLOAT || type == nvinfer1::DataType::kHALF
        || type == nvinfer1::DataType::kINT32;
}
} // namespace

char const* BarPlugin::getPluginType() const noexcept
{
    return kBAR_NAME;
}

char const* BarPlugin::getPluginVersion() const noexcept
{
    return kBAR_VERSION;
}

void BarPlugin::setPluginNamespace(char const* pluginNamespace) noexcept
{
    try
    {
        mNamespace = pluginNamespace == nullptr ? "" : pluginNamespace;
    }
    catch (...)
    {
    }
}

nvinfer1::DataType BarPlugin::getOutputDataType(
    int32_t, nvinfer1::DataType const* inputTypes, int32_t nbInputs) const noexcept
{
    // Both outputs have the type of input 0 (supportsFormatCombination makes every tensor agree).
    return nbInputs > 0 ? inputTypes[0] : nvinfer1::DataType::kFLOAT;
}

nvinfer1::IPluginV2DynamicExt* BarPlugin::clone() const noexcept
{
    try
    {
        auto* copy = new BarPlugin(*this);
        return copy;
    }
    catch (...)
    {
        return nullptr;
    }
}

nvinfer1::DimsExprs BarPlugin::getOutputDimensions(int32_t outputIndex, nvinfer1::DimsExprs const* inputs,
    int32_t nbInputs, nvinfer1::IExprBuilder& exprBuilder) noexcept
{
    if (nbInputs != 2 || inputs[0].nbDims < 1)
    {
        return nvinfer1::DimsExprs{}; // nbDims 0 for a rank>0 output: the builder reports bad output shapes
    }
    switch (outputIndex)
    {
    case 0:
    {
        // First dimension of output 0 is the sum of the inputs' first dimensions (seed 002, case 0).
        nvinfer1::DimsExprs output(inputs[0]);
        output.d[0] = exprBuilder.operation(nvinfer1::DimensionOperation::kSUM, *inputs[0].d[0], *inputs[1].d[0]);
        return output;
    }
    case 1: return inputs[0];
    default: return nvinfer1::DimsExprs{};
    }
}

bool BarPlugin::supportsFormatCombination(
    int32_t pos, nvinfer1::PluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) noexcept
{
    if (nbInputs != 2 || nbOutputs != 2 || pos < 0 || pos >= 4)
    {
        return false;
    }
    auto const* in = inOut;
    auto const* out = inOut + nbInputs;
    // Exactly the seed's checks; position 0 also limits the types to those enqueue() handles.
    switch (pos)
    {
    case 0: return in[0].format == nvinfer1::TensorFormat::kLINEAR && supportedType(in[0].type);
    case 1: return in[1].type == in[0].type && in[1].format == nvinfer1::TensorFormat::kLINEAR;
    case 2: return out[0].type == in[0].type && out[0].format == nvinfer1::TensorFormat::kLINEAR;
    case 3: return out[1].type == in[0].type && out[1].format == nvinfer1::TensorFormat::kLINEAR;
    default: return false;
    }
}

void BarPlugin::configurePlugin(nvinfer1::DynamicPluginTensorDesc const*, int32_t,
    nvinfer1::DynamicPluginTensorDesc const*, int32_t) noexcept
{
    // Nothing to configure: enqueue() receives the real shapes (seed 002: "a no-op").
}

int32_t BarPlugin::enqueue(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
    void const* const* inputs, void* const* outputs, void*, cudaStream_t stream) noexcept
{
    size_t const elementBytes = elementSize(inputDesc[0].type);
    if (elementBytes == 0)
    {
        return 1;
    }
    // Concatenating along dim 0 of row-major tensors is two contiguous copies; the trailing dims must agree.
    for (int32_t i = 1; i < inputDesc[0].dims.nbDims; ++i)
    {
        if (inputDesc[1].dims.nbDims != inputDesc[0].dims.nbDims || inputDesc[1].dims.d[i] != inputDesc[0].dims.d[i])
        {
            return 2;
        }
    }
    size_t const bytes0 = static_cast<size_t>(volume(inputDesc[0].dims)) * elementBytes;
    size_t const bytes1 = static_cast<size_t>(volume(inputDesc[1].dims)) * elementBytes;
    if (static_cast<size_t>(volume(outputDesc[0].dims)) * elementBytes != bytes0 + bytes1)
    {
        return 3;
    }
    auto* concat = static_cast<char*>(outputs[0]);
#if KILN_SAMPLE_PLUGINS_CUDA
    // Output 0 is never empty when there is work (it holds both inputs): its memory tells the backend.
    if (cuda::isDeviceMemory(concat))
    {
        // Three asynchronous copies on the engine's stream, as a TensorRT plugin does it.
        int32_t status = cuda::copyAsync(concat, inputs[0], bytes0, stream);
        status = status != 0 ? status : cuda::copyAsync(concat + bytes0, inputs[1], bytes1, stream);
        status = status != 0 ? status : cuda::copyAsync(outputs[1], inputs[0], bytes0, stream);
        return status == 0 ? 0 : 4;
    }
#else
    (void) stream;
#endif
    std::memcpy(concat, inputs[0], bytes0);
    std::memcpy(concat + bytes0, inputs[1], bytes1);
    std::memcpy(outputs[1], inputs[0], bytes0);
    return 0;
}

BarPluginCreator::BarPluginCreator()
{
    mFields.nbFields = 0;
    mFields.fields = nullptr;
}

char const* BarPluginCreator::getPluginName() const noexcept
{
    return kBAR_NAME;
}

char const* BarPluginCreator::getPluginVersion() const noexcept
{
    return kBAR_VERSION;
}

nvinfer1::IPluginV2* BarPluginCreator::createPlugin(char const*, nvinfer1::PluginFieldCollection const*) noexcept
{
    try
    {
        auto* plugin = new BarPlugin();
        plugin->setPluginNamespace(mNamespace.c_str());
        return plugin;
    }
    catch (...)
    {
        return nullptr;
    }
}

nvinfer1::IPluginV2* BarPluginCreator::deserializePlugin(char const* name, void const*, size_t) noexcept
{
    // BarPlugin has no state: its serialization is empty.
    return createPlugin(name, nullptr);
}

void BarPluginCreator::setPluginNamespace(char const* pluginNamespace) noexcept
{
    try
    {
        mNamespace = pluginNamespace == nullptr ? "" : pluginNamespace;
    }
    catch (...)
    {
    }
}

} // namespace samples
