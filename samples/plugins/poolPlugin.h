// poolPlugin.h — PoolPlugin, the IPluginV2IOExt INT8 I/O example of the TensorRT plugin guide (seed 002, 9.1.2):
// max or average pooling over the last two dims (H, W) with a square kernel and stride, FP32/FP16/INT8 I/O with
// input and output of the same type. configurePlugin() stores the dims and in[0].scale / out[0].scale exactly like
// the seed; the INT8 enqueue dequantizes with the input scale and quantizes with the output scale.
// Fields (all kINT32): "mode" (0 = max, 1 = average; default 0), "kernel" (default 2), "stride" (default = kernel),
// "int8Only" (1 = accept only INT8 I/O, to force the INT8 path in tests and samples; default 0).
#pragma once

#include "NvInfer.h"
#include "kiln/KilnPluginCpu.h"

#include <string>
#include <vector>

namespace samples
{

struct PoolParams
{
    int32_t mode{0};
    int32_t kernel{2};
    int32_t stride{2};
    int32_t int8Only{0};
};

class PoolPlugin : public nvinfer1::IPluginV2IOExt, public kiln::IPluginCpuSupport
{
public:
    explicit PoolPlugin(PoolParams const& params);
    //! From serialize()'s bytes; check valid() afterwards.
    PoolPlugin(void const* data, size_t length);
    bool valid() const { return mValid; }

    // IPluginV2
    char const* getPluginType() const noexcept override;
    char const* getPluginVersion() const noexcept override;
    int32_t getNbOutputs() const noexcept override { return 1; }
    nvinfer1::Dims getOutputDimensions(int32_t index, nvinfer1::Dims const* inputs, int32_t nbInputDims) noexcept
        override;
    int32_t initialize() noexcept override { return 0; }
    void terminate() noexcept override {}
    size_t getWorkspaceSize(int32_t) const noexcept override { return 0; }
    int32_t enqueue(int32_t batchSize, void const* const* inputs, void* const* outputs, void* workspace,
        cudaStream_t stream) noexcept override;
    size_t getSerializationSize() const noexcept override;
    void serialize(void* buffer) const noexcept override;
    void destroy() noexcept override { delete this; }
    void setPluginNamespace(char const* pluginNamespace) noexcept override;
    char const* getPluginNamespace() const noexcept override { return mNamespace.c_str(); }

    // IPluginV2Ext
    nvinfer1::DataType getOutputDataType(
        int32_t index, nvinfer1::DataType const* inputTypes, int32_t nbInputs) const noexcept override;
    bool isOutputBroadcastAcrossBatch(int32_t, bool const*, int32_t) const noexcept override { return false; }
    bool canBroadcastInputAcrossBatch(int32_t) const noexcept override { return false; }
    nvinfer1::IPluginV2IOExt* clone() const noexcept override;

    // IPluginV2IOExt
    void configurePlugin(nvinfer1::PluginTensorDesc const* in, int32_t nbInput, nvinfer1::PluginTensorDesc const* out,
        int32_t nbOutput) noexcept override;
    bool supportsFormatCombination(int32_t pos, nvinfer1::PluginTensorDesc const* inOut, int32_t nbInputs,
        int32_t nbOutputs) const noexcept override;

private:
    PoolParams mParams;
    nvinfer1::Dims mInputDims{};
    nvinfer1::Dims mOutputDims{};
    nvinfer1::DataType mType{nvinfer1::DataType::kFLOAT};
    float mInHostScale{-1.0F};
    float mOutHostScale{-1.0F};
    std::string mNamespace;
    bool mValid{true};
};

class PoolPluginCreator : public nvinfer1::IPluginCreator
{
public:
    PoolPluginCreator();
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

} // namespace samples
