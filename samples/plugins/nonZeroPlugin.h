// nonZeroPlugin.h — NonZeroPlugin, an IPluginV3 with a data-dependent output shape (like ONNX NonZero):
//   input 0:  rank-2 FP32 or INT32 tensor [R, C]
//   output 0: INT32 [2, K], the row indices (row 0) and column indices (row 1) of the non-zero elements in
//             row-major order; K is declared with IExprBuilder::declareSizeTensor(1, opt = R*C/2, upper = R*C)
//   output 1: the size tensor K, a 0-D INT32
// A network output with this shape needs an IOutputAllocator on the execution context.
#pragma once

#include "sampleV3Base.h"

namespace samples
{

class NonZeroPlugin : public SampleV3Base
{
public:
    explicit NonZeroPlugin(std::string pluginNamespace);

    nvinfer1::IPluginV3* clone() noexcept override;

    // IPluginV3OneBuild
    int32_t configurePlugin(nvinfer1::DynamicPluginTensorDesc const*, int32_t, nvinfer1::DynamicPluginTensorDesc const*,
        int32_t) noexcept override
    {
        return 0;
    }
    int32_t getOutputDataTypes(nvinfer1::DataType* outputTypes, int32_t nbOutputs,
        nvinfer1::DataType const* inputTypes, int32_t nbInputs) const noexcept override;
    int32_t getOutputShapes(nvinfer1::DimsExprs const* inputs, int32_t nbInputs, nvinfer1::DimsExprs const* shapeInputs,
        int32_t nbShapeInputs, nvinfer1::DimsExprs* outputs, int32_t nbOutputs,
        nvinfer1::IExprBuilder& exprBuilder) noexcept override;
    bool supportsFormatCombination(int32_t pos, nvinfer1::DynamicPluginTensorDesc const* inOut, int32_t nbInputs,
        int32_t nbOutputs) noexcept override;
    int32_t getNbOutputs() const noexcept override { return 2; }

    // IPluginV3OneRuntime
    int32_t onShapeChange(nvinfer1::PluginTensorDesc const*, int32_t, nvinfer1::PluginTensorDesc const*,
        int32_t) noexcept override
    {
        return 0;
    }
    int32_t enqueue(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream) noexcept override;
    nvinfer1::PluginFieldCollection const* getFieldsToSerialize() noexcept override { return &mNoFields; }

private:
    nvinfer1::PluginFieldCollection mNoFields{0, nullptr};
};

class NonZeroPluginCreator : public nvinfer1::IPluginCreatorV3One
{
public:
    nvinfer1::IPluginV3* createPlugin(
        char const* name, nvinfer1::PluginFieldCollection const* fc, nvinfer1::TensorRTPhase phase) noexcept override;
    nvinfer1::PluginFieldCollection const* getFieldNames() noexcept override { return &mNoFields; }
    char const* getPluginName() const noexcept override;
    char const* getPluginVersion() const noexcept override;
    char const* getPluginNamespace() const noexcept override;

private:
    nvinfer1::PluginFieldCollection mNoFields{0, nullptr};
};

} // namespace samples
