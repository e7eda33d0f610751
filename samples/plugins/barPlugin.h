// barPlugin.h — BarPlugin, the IPluginV2DynamicExt example of the TensorRT plugin guide (seed 002, 9.1.1):
// two inputs, two outputs, linear format only, every tensor the same type (FP32, FP16 or INT32).
//   output 0 = concatenation of input 0 and input 1 along dim 0 (d[0] = kSUM of both inputs' d[0]);
//   output 1 = a copy of input 0.
// Decision: the guide's prose says "the first output is a copy of the second input", but its code
// (getOutputDimensions: case 0 -> kSUM, case 1 -> inputs[0]) makes output 0 the concatenation and output 1 a copy
// of input 0. The code is what users copy, so this sample follows the code; tests check output 1 == input 0.
#pragma once

#include "NvInfer.h"
#include "kiln/KilnPluginCpu.h"

#include <string>

namespace samples
{

class BarPlugin : public nvinfer1::IPluginV2DynamicExt, public kiln::IPluginCpuSupport
{
public:
    BarPlugin() = default;

    // IPluginV2
    char const* getPluginType() const noexcept override;
    char const* getPluginVersion() const noexcept override;
    int32_t getNbOutputs() const noexcept override { return 2; }
    int32_t initialize() noexcept override { return 0; }
    void terminate() noexcept override {}
    size_t getSerializationSize() const noexcept override { return 0; }
    void serialize(void*) const noexcept override {}
    void destroy() noexcept override { delete this; }
    void setPluginNamespace(char const* pluginNamespace) noexcept override;
    char const* getPluginNamespace() const noexcept override { return mNamespace.c_str(); }

    // IPluginV2Ext
    nvinfer1::DataType getOutputDataType(
        int32_t index, nvinfer1::DataType const* inputTypes, int32_t nbInputs) const noexcept override;

    // IPluginV2DynamicExt
    nvinfer1::IPluginV2DynamicExt* clone() const noexcept override;
    nvinfer1::DimsExprs getOutputDimensions(int32_t outputIndex, nvinfer1::DimsExprs const* inputs, int32_t nbInputs,
        nvinfer1::IExprBuilder& exprBuilder) noexcept override;
    bool supportsFormatCombination(
        int32_t pos, nvinfer1::PluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) noexcept override;
    void configurePlugin(nvinfer1::DynamicPluginTensorDesc const* in, int32_t nbInputs,
        nvinfer1::DynamicPluginTensorDesc const* out, int32_t nbOutputs) noexcept override;
    size_t getWorkspaceSize(nvinfer1::PluginTensorDesc const*, int32_t, nvinfer1::PluginTensorDesc const*,
        int32_t) const noexcept override
    {
        return 0;
    }
    int32_t enqueue(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const* outputDesc,
        void const* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream) noexcept override;

private:
    std::string mNamespace;
};

class BarPluginCreator : public nvinfer1::IPluginCreator
{
public:
    BarPluginCreator();
    char const* getPluginName() const noexcept override;
    char const* getPluginVersion() const noexcept override;
    nvinfer1::PluginFieldCollection const* getFieldNames() noexcept override { return &mFields; }
    nvinfer1::IPluginV2* createPlugin(char const* name, nvinfer1::PluginFieldCollection const* fc) noexcept override;
    nvinfer1::IPluginV2* deserializePlugin(char const* name, void const* data, size_t length) noexcept override;
    void setPluginNamespace(char const* pluginNamespace) noexcept override;
    char const* getPluginNamespace() const noexcept override { return mNamespace.c_str(); }

private:
    nvinfer1::PluginFieldCollection mFields{};
    std::string mNamespace;
};

} // namespace samples
