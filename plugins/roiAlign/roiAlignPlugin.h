// roiAlignPlugin.h — ROIAlign_TRT version "2", an IPluginV3 of Kiln's standard plugin library, as TensorRT's
// parser uses it for ONNX RoiAlign. Inputs: X [N, C, H, W] (FP32), rois [R, 4] (FP32, x1 y1 x2 y2 in input
// coordinates), batch_indices [R] (INT32). Output [R, C, output_height, output_width] (FP32).
// Fields (kINT32 unless noted): coordinate_transformation_mode (0 output_half_pixel, 1 half_pixel; default 1),
// mode (0 max, 1 avg; default 1), output_height (1), output_width (1), sampling_ratio (0 = adaptive),
// spatial_scale (kFLOAT32, 1). Semantics follow ONNX RoiAlign; the CPU enqueue needs kiln::IPluginCpuSupport.
#pragma once

#include "../standardV3Base.h"

namespace kiln::plugins
{

struct RoiAlignParams
{
    int32_t coordinateTransformationMode{1};
    int32_t mode{1};
    int32_t outputHeight{1};
    int32_t outputWidth{1};
    int32_t samplingRatio{0};
    float spatialScale{1.0F};
};

class RoiAlignPlugin : public StandardV3Base
{
public:
    RoiAlignPlugin(RoiAlignParams const& params, std::string pluginNamespace);
    RoiAlignPlugin(RoiAlignPlugin const& other);

    RoiAlignParams const& params() const { return mParams; }

    nvinfer1::IPluginV3* clone() noexcept override;
    int32_t getNbOutputs() const noexcept override { return 1; }
    int32_t getOutputDataTypes(nvinfer1::DataType* outputTypes, int32_t nbOutputs,
        nvinfer1::DataType const* inputTypes, int32_t nbInputs) const noexcept override;
    int32_t getOutputShapes(nvinfer1::DimsExprs const* inputs, int32_t nbInputs, nvinfer1::DimsExprs const* shapeInputs,
        int32_t nbShapeInputs, nvinfer1::DimsExprs* outputs, int32_t nbOutputs,
        nvinfer1::IExprBuilder& exprBuilder) noexcept override;
    bool supportsFormatCombination(int32_t pos, nvinfer1::DynamicPluginTensorDesc const* inOut, int32_t nbInputs,
        int32_t nbOutputs) noexcept override;
    int32_t enqueue(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream) noexcept override;
    nvinfer1::PluginFieldCollection const* getFieldsToSerialize() noexcept override { return &mFieldCollection; }

private:
    void bindFields();

    RoiAlignParams mParams;
    std::vector<nvinfer1::PluginField> mFields;
    nvinfer1::PluginFieldCollection mFieldCollection{};
};

class RoiAlignPluginCreator : public nvinfer1::IPluginCreatorV3One
{
public:
    explicit RoiAlignPluginCreator(std::string pluginNamespace);
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
