// scaleTacticsPlugin.h — ScaleTacticsPlugin, an IPluginV3 with two custom tactics: y = alpha * x (FP32).
// getValidTactics() offers {1, 2}. Tactic 1 deliberately repeats the whole computation kSLOW_REPEATS times, tactic 2
// does it once; both give the same result, so the builder's timing must pick tactic 2. The chosen tactic comes
// back through setTactic() when the engine is loaded. Field: "alpha" (kFLOAT32, default 1).
#pragma once

#include "sampleV3Base.h"

#include <vector>

namespace samples
{

class ScaleTacticsPlugin : public SampleV3Base
{
public:
    static constexpr int32_t kSLOW_TACTIC = 1;
    static constexpr int32_t kFAST_TACTIC = 2;
    static constexpr int32_t kSLOW_REPEATS = 64;

    ScaleTacticsPlugin(float alpha, std::string pluginNamespace);
    ScaleTacticsPlugin(ScaleTacticsPlugin const& other);

    nvinfer1::IPluginV3* clone() noexcept override;
    int32_t tactic() const { return mTactic; }

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
    int32_t getNbOutputs() const noexcept override { return 1; }
    int32_t getNbTactics() noexcept override { return 2; }
    int32_t getValidTactics(int32_t* tactics, int32_t nbTactics) noexcept override;

    // IPluginV3OneRuntime
    int32_t setTactic(int32_t tactic) noexcept override;
    int32_t onShapeChange(nvinfer1::PluginTensorDesc const*, int32_t, nvinfer1::PluginTensorDesc const*,
        int32_t) noexcept override
    {
        return 0;
    }
    int32_t enqueue(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream) noexcept override;
    nvinfer1::PluginFieldCollection const* getFieldsToSerialize() noexcept override;

private:
    void bindFields();

    float mAlpha;
    int32_t mTactic{0};
    std::vector<nvinfer1::PluginField> mFields;
    nvinfer1::PluginFieldCollection mFieldCollection{};
};

class ScaleTacticsPluginCreator : public nvinfer1::IPluginCreatorV3One
{
public:
    ScaleTacticsPluginCreator();
    nvinfer1::IPluginV3* createPlugin(
        char const* name, nvinfer1::PluginFieldCollection const* fc, nvinfer1::TensorRTPhase phase) noexcept override;
    nvinfer1::PluginFieldCollection const* getFieldNames() noexcept override { return &mFieldCollection; }
    char const* getPluginName() const noexcept override;
    char const* getPluginVersion() const noexcept override;
    char const* getPluginNamespace() const noexcept override;

private:
    std::vector<nvinfer1::PluginField> mFields;
    nvinfer1::PluginFieldCollection mFieldCollection{};
};

} // namespace samples
