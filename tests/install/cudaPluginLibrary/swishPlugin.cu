// swishPlugin.cu — "KilnSwish" (version "1", namespace "kiln_cuda"): y = x * sigmoid(beta * x), an
// IPluginV2DynamicExt written exactly as for TensorRT, in one .cu file with its kernel: FP32 or FP16, linear, the
// output has the input's shape and type. Field "beta" (kFLOAT32, default 1), serialized into engines. GPU only (no
// kiln::IPluginCpuSupport): Kiln's CPU backend refuses it, its CUDA backend runs it on the engine's stream.
#include "cudaPlugins.h"

#include <NvInfer.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstring>
#include <exception>
#include <string>
#include <vector>

namespace kiln_cuda_plugins
{
namespace
{
using namespace nvinfer1;

char const* const kNAME = "KilnSwish";
char const* const kVERSION = "1";

__device__ float swish(float x, float beta)
{
    return x / (1.0F + expf(-beta * x));
}

__global__ void swishFloat(float const* x, float* y, int64_t n, float beta)
{
    for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<int64_t>(blockDim.x) * gridDim.x)
    {
        y[i] = swish(x[i], beta);
    }
}

__global__ void swishHalf(__half const* x, __half* y, int64_t n, float beta)
{
    for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<int64_t>(blockDim.x) * gridDim.x)
    {
        y[i] = __float2half_rn(swish(__half2float(x[i]), beta));
    }
}

class SwishPlugin final : public IPluginV2DynamicExt
{
public:
    explicit SwishPlugin(float beta)
        : mBeta(beta)
    {
    }

    // IPluginV2
    AsciiChar const* getPluginType() const noexcept override { return kNAME; }
    AsciiChar const* getPluginVersion() const noexcept override { return kVERSION; }
    int32_t getNbOutputs() const noexcept override { return 1; }
    int32_t initialize() noexcept override { return 0; }
    void terminate() noexcept override {}
    size_t getSerializationSize() const noexcept override { return sizeof(float); }
    void serialize(void* buffer) const noexcept override { std::memcpy(buffer, &mBeta, sizeof(float)); }
    void destroy() noexcept override { delete this; }
    void setPluginNamespace(AsciiChar const* pluginNamespace) noexcept override
    {
        mNamespace = pluginNamespace != nullptr ? pluginNamespace : "";
    }
    AsciiChar const* getPluginNamespace() const noexcept override { return mNamespace.c_str(); }

    // IPluginV2Ext
    DataType getOutputDataType(int32_t, DataType const* inputTypes, int32_t nbInputs) const noexcept override
    {
        return nbInputs == 1 ? inputTypes[0] : DataType::kFLOAT;
    }

    // IPluginV2DynamicExt
    IPluginV2DynamicExt* clone() const noexcept override
    {
        try
        {
            auto* copy = new SwishPlugin(mBeta);
            copy->setPluginNamespace(mNamespace.c_str());
            return copy;
        }
        catch (std::exception const&)
        {
            return nullptr;
        }
    }
    DimsExprs getOutputDimensions(int32_t, DimsExprs const* inputs, int32_t, IExprBuilder&) noexcept override
    {
        return inputs[0];
    }
    bool supportsFormatCombination(
        int32_t pos, PluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) noexcept override
    {
        if (nbInputs != 1 || nbOutputs != 1 || inOut[pos].format != TensorFormat::kLINEAR)
        {
            return false;
        }
        if (pos == 0)
        {
            return inOut[0].type == DataType::kFLOAT || inOut[0].type == DataType::kHALF;
        }
        return inOut[pos].type == inOut[0].type;
    }
    void configurePlugin(DynamicPluginTensorDesc const*, int32_t, DynamicPluginTensorDesc const*, int32_t) noexcept
        override
    {
    }
    size_t getWorkspaceSize(PluginTensorDesc const*, int32_t, PluginTensorDesc const*, int32_t) const noexcept override
    {
        return 0;
    }
    int32_t enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const*, void const* const* inputs,
        void* const* outputs, void*, cudaStream_t stream) noexcept override
    {
        int64_t n = 1;
        for (int32_t i = 0; i < inputDesc[0].dims.nbDims; ++i)
        {
            n *= inputDesc[0].dims.d[i];
        }
        if (n == 0)
        {
            return 0;
        }
        int32_t const threads = 256;
        int64_t const blocks = (n + threads - 1) / threads;
        unsigned const grid = static_cast<unsigned>(blocks < 4096 ? blocks : 4096);
        if (inputDesc[0].type == DataType::kHALF)
        {
            swishHalf<<<grid, threads, 0, stream>>>(
                static_cast<__half const*>(inputs[0]), static_cast<__half*>(outputs[0]), n, mBeta);
        }
        else
        {
            swishFloat<<<grid, threads, 0, stream>>>(
                static_cast<float const*>(inputs[0]), static_cast<float*>(outputs[0]), n, mBeta);
        }
        cudaError_t const status = cudaGetLastError();
        if (status != cudaSuccess)
        {
            logError(std::string("KilnSwish enqueue: ") + cudaGetErrorString(status));
            return 1;
        }
        return 0;
    }

private:
    float mBeta;
    std::string mNamespace;
};

class SwishCreator final : public IPluginCreator
{
public:
    SwishCreator()
    {
        mFields.emplace_back("beta", nullptr, PluginFieldType::kFLOAT32, 1);
        mCollection.nbFields = static_cast<int32_t>(mFields.size());
        mCollection.fields = mFields.data();
    }
    AsciiChar const* getPluginName() const noexcept override { return kNAME; }
    AsciiChar const* getPluginVersion() const noexcept override { return kVERSION; }
    PluginFieldCollection const* getFieldNames() noexcept override { return &mCollection; }
    IPluginV2* createPlugin(AsciiChar const*, PluginFieldCollection const* fc) noexcept override
    {
        try
        {
            float beta = 1.0F;
            for (int32_t i = 0; fc != nullptr && i < fc->nbFields; ++i)
            {
                PluginField const& field = fc->fields[i];
                if (std::strcmp(field.name, "beta") != 0)
                {
                    continue;
                }
                if (field.type != PluginFieldType::kFLOAT32 || field.length != 1 || field.data == nullptr)
                {
                    logError("KilnSwish createPlugin: field 'beta' must be one kFLOAT32 value");
                    return nullptr;
                }
                std::memcpy(&beta, field.data, sizeof(float));
            }
            auto* plugin = new SwishPlugin(beta);
            plugin->setPluginNamespace(mNamespace.c_str());
            return plugin;
        }
        catch (std::exception const&)
        {
            return nullptr;
        }
    }
    IPluginV2* deserializePlugin(AsciiChar const*, void const* data, size_t length) noexcept override
    {
        try
        {
            if (data == nullptr || length != sizeof(float))
            {
                logError("KilnSwish deserializePlugin: expected 4 bytes, got " + std::to_string(length));
                return nullptr;
            }
            float beta = 0.0F;
            std::memcpy(&beta, data, sizeof(float));
            auto* plugin = new SwishPlugin(beta);
            plugin->setPluginNamespace(mNamespace.c_str());
            return plugin;
        }
        catch (std::exception const&)
        {
            return nullptr;
        }
    }
    void setPluginNamespace(AsciiChar const* pluginNamespace) noexcept override
    {
        mNamespace = pluginNamespace != nullptr ? pluginNamespace : "";
    }
    AsciiChar const* getPluginNamespace() const noexcept override { return mNamespace.c_str(); }

private:
    std::vector<PluginField> mFields;
    PluginFieldCollection mCollection{};
    std::string mNamespace{kPLUGIN_NAMESPACE};
};

} // namespace

nvinfer1::IPluginCreatorInterface* swishCreator()
{
    static SwishCreator creator;
    return &creator;
}

} // namespace kiln_cuda_plugins
