// tileToShapePlugin.cpp — TileToShapePlugin (IPluginV3): broadcast input 0 to the shape held by a shape-tensor input.
#include "tileToShapePlugin.h"
#include "samplePluginUtils.h"

#include <cstring>

namespace samples
{
namespace
{
constexpr char const* kTILE_NAME = "TileToShapePlugin";
constexpr char const* kTILE_VERSION = "1";
} // namespace

TileToShapePlugin::TileToShapePlugin(std::string pluginNamespace)
    : SampleV3Base(kTILE_NAME, kTILE_VERSION, std::move(pluginNamespace))
{
}

nvinfer1::IPluginV3* TileToShapePlugin::clone() noexcept
{
    try
    {
        return new TileToShapePlugin(*this);
    }
    catch (...)
    {
        return nullptr;
    }
}

int32_t TileToShapePlugin::getOutputDataTypes(nvinfer1::DataType* outputTypes, int32_t nbOutputs,
    nvinfer1::DataType const* inputTypes, int32_t nbInputs) const noexcept
{
    if (nbInputs < 1 || nbOutputs != 1)
    {
        return 1;
    }
    outputTypes[0] = inputTypes[0];
    return 0;
}

int32_t TileToShapePlugin::getOutputShapes(nvinfer1::DimsExprs const* inputs, int32_t nbInputs,
    nvinfer1::DimsExprs const* shapeInputs, int32_t nbShapeInputs, nvinfer1::DimsExprs* outputs, int32_t nbOutputs,
    nvinfer1::IExprBuilder&) noexcept
{
    if (nbInputs != 1 || nbShapeInputs != 1 || nbOutputs != 1)
    {
        return 1;
    }
    // shapeInputs[0] holds the *values* of the 1-D shape tensor: one expression per output dimension.
    if (shapeInputs[0].nbDims < inputs[0].nbDims)
    {
        return 2; // cannot broadcast to a lower rank
    }
    outputs[0] = shapeInputs[0];
    return 0;
}

bool TileToShapePlugin::supportsFormatCombination(
    int32_t pos, nvinfer1::DynamicPluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) noexcept
{
    if (nbInputs != 1 || nbOutputs != 1 || pos < 0 || pos > 1 || inOut[pos].desc.format != nvinfer1::TensorFormat::kLINEAR)
    {
        return false;
    }
    if (pos == 0)
    {
        return inOut[0].desc.type == nvinfer1::DataType::kFLOAT || inOut[0].desc.type == nvinfer1::DataType::kINT32;
    }
    return inOut[1].desc.type == inOut[0].desc.type;
}

int32_t TileToShapePlugin::enqueue(nvinfer1::PluginTensorDesc const* inputDesc,
    nvinfer1::PluginTensorDesc const* outputDesc, void const* const* inputs, void* const* outputs, void*,
    cudaStream_t) noexcept
{
    nvinfer1::Dims const& in = inputDesc[0].dims;
    nvinfer1::Dims const& out = outputDesc[0].dims;
    int32_t const rank = out.nbDims;
    int32_t const offset = rank - in.nbDims;
    if (offset < 0)
    {
        return 1;
    }
    // Input strides aligned to the output's dims; a broadcast (extent 1) dim gets stride 0.
    int64_t inStrides[nvinfer1::Dims::MAX_DIMS] = {};
    int64_t stride = 1;
    for (int32_t i = in.nbDims - 1; i >= 0; --i)
    {
        int64_t const outExtent = out.d[i + offset];
        if (in.d[i] != 1 && in.d[i] != outExtent)
        {
            return 2; // not broadcastable
        }
        inStrides[i + offset] = in.d[i] == 1 ? 0 : stride;
        stride *= in.d[i];
    }
    size_t const elementBytes = elementSize(inputDesc[0].type);
    auto const* src = static_cast<char const*>(inputs[0]);
    auto* dst = static_cast<char*>(outputs[0]);
    int64_t const total = volume(out);
    for (int64_t o = 0; o < total; ++o)
    {
        int64_t rest = o;
        int64_t inIndex = 0;
        for (int32_t d = rank - 1; d >= 0; --d)
        {
            inIndex += (rest % out.d[d]) * inStrides[d];
            rest /= out.d[d];
        }
        std::memcpy(dst + o * elementBytes, src + inIndex * elementBytes, elementBytes);
    }
    return 0;
}

nvinfer1::IPluginV3* TileToShapePluginCreator::createPlugin(
    char const*, nvinfer1::PluginFieldCollection const*, nvinfer1::TensorRTPhase) noexcept
{
    try
    {
        return new TileToShapePlugin(kSAMPLE_NAMESPACE);
    }
    catch (...)
    {
        return nullptr;
    }
}

char const* TileToShapePluginCreator::getPluginName() const noexcept
{
    return kTILE_NAME;
}

char const* TileToShapePluginCreator::getPluginVersion() const noexcept
{
    return kTILE_VERSION;
}

char const* TileToShapePluginCreator::getPluginNamespace() const noexcept
{
    return kSAMPLE_NAMESPACE;
}

} // namespace samples
