// leakyReluPlugin.h — LReLU_TRT, the leaky ReLU of Kiln's standard plugin library (the plugin seed 002's Python
// example looks up): y = x for x >= 0, y = negSlope * x otherwise. A plain IPluginV2 (FP32 or FP16, linear) with
// an IPluginCreator; field "negSlope" (kFLOAT32; "neg_slope" is accepted too), version "1". Registered by
// initLibNvInferPlugins(logger, namespace). Opts into Kiln's CPU backend with kiln::IPluginCpuSupport.
#pragma once

#include "NvInferRuntime.h"
#include "kiln/KilnPluginCpu.h"

#include <string>
#include <vector>

namespace kiln::plugins
{

class LeakyReluPlugin : public nvinfer1::IPluginV2, public kiln::IPluginCpuSupport
{
public:
    explicit LeakyReluPlugin(float negSlope);

    float negSlope() const { return mNegSlope; }

    char const* getPluginType() const noexcept override;
    char const* getPluginVersion() const noexcept override;
    int32_t getNbOutputs() const noexcept override { return 1; }
    nvinfer1::Dims getOutputDimensions(int32_t index, nvinfer1::Dims const* inputs, int32_t nbInputDims) noexcept
        override;
    bool supportsFormat(nvinfer1::DataType type, nvinfer1::PluginFormat format) const noexcept override;
    void configureWithFormat(nvinfer1::Dims const* inputDims, int32_t nbInputs, nvinfer1::Dims const* outputDims,
        int32_t nbOutputs, nvinfer1::DataType type, nvinfer1::PluginFormat format, int32_t maxBatchSize) noexcept
        override;
    int32_t initialize() noexcept override { return 0; }
    void terminate() noexcept override {}
    size_t getWorkspaceSize(int32_t) const noexcept override { return 0; }
    int32_t enqueue(int32_t batchSize, void const* const* inputs, void* const* outputs, void* workspace,
        cudaStream_t stream) noexcept override;
    size_t getSerializationSize() const noexcept override { return sizeof(float); }
    void serialize(void* buffer) const noexcept override;
    void destroy() noexcept override { delete this; }
    nvinfer1::IPluginV2* clone() const noexcept override;
    void setPluginNamespace(char const* pluginNamespace) noexcept override;
    char const* getPluginNamespace() const noexcept override { return mNamespace.c_str(); }

private:
    float mNegSlope;
    nvinfer1::Dims mDims{};
    nvinfer1::DataType mType{nvinfer1::DataType::kFLOAT};
    std::string mNamespace;
};

class LeakyReluPluginCreator : public nvinfer1::IPluginCreator
{
public:
    LeakyReluPluginCreator();
    char const* getPluginName() const noexcept override;
    char const* getPluginVersion() const noexcept override;
    nvinfer1::PluginFieldCollection const* getFieldNames() noexcept override { return &mFieldCollection; }
    nvinfer1::IPluginV2* createPlugin(char const* name, nvinfer1::PluginFieldCollection const* fc) noexcept override;
    nvinfer1::IPluginV2* deserializePlugin(char const* name, void const* data, size_t length) noexcept override;
    void setPluginNamespace(char const* pluginNamespace) noexcept override;
    char const* getPluginNamespace() const noexcept override { return mNamespace.c_str(); }

private:
    std::vector<nvinfer1::PluginField> mFields;
    nvinfer1::PluginFieldCollection mFieldCollection{};
    std::string mNamespace;
};

} // namespace kiln::plugins
