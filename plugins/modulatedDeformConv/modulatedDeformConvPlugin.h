// modulatedDeformConvPlugin.h — ModulatedDeformConv2d version "2", an IPluginV3 of Kiln's standard plugin library
// (modulated deformable convolution, DCNv2), as TensorRT's parser uses it for ONNX DeformConv.
// Inputs (FP32): x [N, C, H, W], offset [N, 2*dg*kH*kW, Ho, Wo] (per kernel tap a (dy, dx) pair), mask
// [N, dg*kH*kW, Ho, Wo], weight [M, C/group, kH, kW], and optionally bias [M]. Output [N, M, Ho, Wo] with
// Ho = (H + 2*padding[0] - dilation[0]*(kH-1) - 1) / stride[0] + 1 (likewise Wo).
// Fields (kINT32): stride [2] (1,1), padding [2] (0,0), dilation [2] (1,1), group (1), deformable_group (1).
// Samples outside the image read zeros per bilinear corner.
#pragma once

#include "../standardV3Base.h"

namespace kiln::plugins
{

struct DeformConvParams
{
    int32_t stride[2]{1, 1};
    int32_t padding[2]{0, 0};
    int32_t dilation[2]{1, 1};
    int32_t group{1};
    int32_t deformableGroup{1};
};

class ModulatedDeformConvPlugin : public StandardV3Base
{
public:
    ModulatedDeformConvPlugin(DeformConvParams const& params, std::string pluginNamespace);
    ModulatedDeformConvPlugin(ModulatedDeformConvPlugin const& other);

    DeformConvParams const& params() const { return mParams; }

    nvinfer1::IPluginV3* clone() noexcept override;
    int32_t getNbOutputs() const noexcept override { return 1; }
    int32_t getOutputDataTypes(nvinfer1::DataType* outputTypes, int32_t nbOutputs,
        nvinfer1::DataType const* inputTypes, int32_t nbInputs) const noexcept override;
    int32_t getOutputShapes(nvinfer1::DimsExprs const* inputs, int32_t nbInputs, nvinfer1::DimsExprs const* shapeInputs,
        int32_t nbShapeInputs, nvinfer1::DimsExprs* outputs, int32_t nbOutputs,
        nvinfer1::IExprBuilder& exprBuilder) noexcept override;
    bool supportsFormatCombination(int32_t pos, nvinfer1::DynamicPluginTensorDesc const* inOut, int32_t nbInputs,
        int32_t nbOutputs) noexcept override;
    int32_t configurePlugin(nvinfer1::DynamicPluginTensorDesc const* in, int32_t nbInputs,
        nvinfer1::DynamicPluginTensorDesc const* out, int32_t nbOutputs) noexcept override;
    int32_t onShapeChange(nvinfer1::PluginTensorDesc const* in, int32_t nbInputs, nvinfer1::PluginTensorDesc const* out,
        int32_t nbOutputs) noexcept override;
    int32_t enqueue(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream) noexcept override;
    nvinfer1::PluginFieldCollection const* getFieldsToSerialize() noexcept override { return &mFieldCollection; }

private:
    void bindFields();

    DeformConvParams mParams;
    int32_t mNbInputs{4}; //!< 5 with bias; set by configurePlugin / onShapeChange
    std::vector<nvinfer1::PluginField> mFields;
    nvinfer1::PluginFieldCollection mFieldCollection{};
};

class ModulatedDeformConvPluginCreator : public nvinfer1::IPluginCreatorV3One
{
public:
    explicit ModulatedDeformConvPluginCreator(std::string pluginNamespace);
    nvinfer1::IPluginV3* createPlugin(
        char const* name, nvinfer1::PluginFieldCollection const* fc, nvinfer1::TensorRTPhase phase) noexcept override;
    nvinfer1::PluginFieldCollection const* getFieldNames() noexcept override { return &mFieldCollection; }
    char const* getPluginName() const noexcept override;
    char const* getPluginVersion() const noexcept override;
    char const* getPluginNamespace() const noexcept override { return mNamespace.c_str(); }

private:
    std::string mNamespace;
    std::vector<nvinfer1::PluginField> mFields;
    nvinfer1::PluginFieldCollection mFieldCollection{};
};

} // namespace kiln::plugins
