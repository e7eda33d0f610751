// nonZeroPlugin.cpp — NonZeroPlugin (IPluginV3): indices of non-zero elements, a data-dependent output shape. Host
// loops on the CPU backend; one CUDA kernel on the engine's stream on the CUDA backend (KILN_SAMPLE_PLUGINS_CUDA).
#include "nonZeroPlugin.h"
#include "samplePluginUtils.h"
#if KILN_SAMPLE_PLUGINS_CUDA
#include "samplePluginsCuda.h"
#endif

namespace samples
{
namespace
{
constexpr char const* kNONZERO_NAME = "NonZeroPlugin";
constexpr char const* kNONZERO_VERSION = "1";
} // namespace

NonZeroPlugin::NonZeroPlugin(std::string pluginNamespace)
    : SampleV3Base(kNONZERO_NAME, kNONZERO_VERSION, std::move(pluginNamespace))
{
}

nvinfer1::IPluginV3* NonZeroPlugin::clone() noexcept
{
    try
    {
        return new NonZeroPlugin(*this);
    }
    catch (...)
    {
        return nullptr;
    }
}

int32_t NonZeroPlugin::getOutputDataTypes(nvinfer1::DataType* outputTypes, int32_t nbOutputs,
    nvinfer1::DataType const*, int32_t nbInputs) const noexcept
{
    if (nbInputs != 1 || nbOutputs != 2)
    {
        return 1;
    }
    outputTypes[0] = nvinfer1::DataType::kINT32;
    outputTypes[1] = nvinfer1::DataType::kINT32; // size tensors are INT32 or INT64
    return 0;
}

int32_t NonZeroPlugin::getOutputShapes(nvinfer1::DimsExprs const* inputs, int32_t nbInputs,
    nvinfer1::DimsExprs const*, int32_t, nvinfer1::DimsExprs* outputs, int32_t nbOutputs,
    nvinfer1::IExprBuilder& exprBuilder) noexcept
{
    if (nbInputs != 1 || nbOutputs != 2 || inputs[0].nbDims != 2)
    {
        return 1;
    }
    // K lies in [0, R*C]; the builder plans for opt = R*C/2 and allocates for the upper bound R*C.
    auto const* upper = exprBuilder.operation(nvinfer1::DimensionOperation::kPROD, *inputs[0].d[0], *inputs[0].d[1]);
    auto const* opt = exprBuilder.operation(nvinfer1::DimensionOperation::kFLOOR_DIV, *upper, *exprBuilder.constant(2));
    auto const* k = exprBuilder.declareSizeTensor(1, *opt, *upper);
    if (k == nullptr)
    {
        return 2;
    }
    outputs[0].nbDims = 2;
    outputs[0].d[0] = exprBuilder.constant(2);
    outputs[0].d[1] = k;
    outputs[1].nbDims = 0; // the size tensor is a scalar
    return 0;
}

bool NonZeroPlugin::supportsFormatCombination(
    int32_t pos, nvinfer1::DynamicPluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) noexcept
{
    if (nbInputs != 1 || nbOutputs != 2 || pos < 0 || pos > 2 || inOut[pos].desc.format != nvinfer1::TensorFormat::kLINEAR)
    {
        return false;
    }
    if (pos == 0)
    {
        return inOut[0].desc.type == nvinfer1::DataType::kFLOAT || inOut[0].desc.type == nvinfer1::DataType::kINT32;
    }
    return inOut[pos].desc.type == nvinfer1::DataType::kINT32;
}

int32_t NonZeroPlugin::enqueue(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
    void const* const* inputs, void* const* outputs, void*, cudaStream_t stream) noexcept
{
    int64_t const rows = inputDesc[0].dims.d[0];
    int64_t const cols = inputDesc[0].dims.d[1];
#if KILN_SAMPLE_PLUGINS_CUDA
    // The size tensor (output 1) always has storage, whatever K is: its memory tells the backend.
    if (cuda::isDeviceMemory(outputs[1]))
    {
        cuda::ElementType const type
            = inputDesc[0].type == nvinfer1::DataType::kFLOAT ? cuda::ElementType::kFLOAT : cuda::ElementType::kINT32;
        return cuda::launchNonZero(inputs[0], type, rows, cols, static_cast<int32_t*>(outputs[0]),
                   static_cast<int32_t*>(outputs[1]), stream)
                == 0
            ? 0
            : 2;
    }
#else
    (void) stream;
#endif
    // Output 0's buffer holds at least 2 * rows * cols elements (the upper bound of K). The result [2, K] is
    // written densely (row 1 starts at element K), so the first 2 * K elements are the output.
    int64_t const capacity = rows * cols;
    (void) outputDesc;
    bool const isFloat = inputDesc[0].type == nvinfer1::DataType::kFLOAT;
    auto* indices = static_cast<int32_t*>(outputs[0]);
    // Count first: row 1 starts at element K.
    int64_t k = 0;
    for (int64_t i = 0; i < rows * cols; ++i)
    {
        bool const nonZero = isFloat ? static_cast<float const*>(inputs[0])[i] != 0.0F
                                     : static_cast<int32_t const*>(inputs[0])[i] != 0;
        k += nonZero ? 1 : 0;
    }
    if (k > capacity)
    {
        return 1;
    }
    int64_t n = 0;
    for (int64_t i = 0; i < rows * cols; ++i)
    {
        bool const nonZero = isFloat ? static_cast<float const*>(inputs[0])[i] != 0.0F
                                     : static_cast<int32_t const*>(inputs[0])[i] != 0;
        if (nonZero)
        {
            indices[n] = static_cast<int32_t>(i / cols);
            indices[k + n] = static_cast<int32_t>(i % cols);
            ++n;
        }
    }
    *static_cast<int32_t*>(outputs[1]) = static_cast<int32_t>(k);
    return 0;
}

nvinfer1::IPluginV3* NonZeroPluginCreator::createPlugin(
    char const*, nvinfer1::PluginFieldCollection const*, nvinfer1::TensorRTPhase) noexcept
{
    try
    {
        return new NonZeroPlugin(kSAMPLE_NAMESPACE);
    }
    catch (...)
    {
        return nullptr;
    }
}

char const* NonZeroPluginCreator::getPluginName() const noexcept
{
    return kNONZERO_NAME;
}

char const* NonZeroPluginCreator::getPluginVersion() const noexcept
{
    return kNONZERO_VERSION;
}

char const* NonZeroPluginCreator::getPluginNamespace() const noexcept
{
    return kSAMPLE_NAMESPACE;
}

} // namespace samples
