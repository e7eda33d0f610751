// biasGeluPlugin.cpp — "KilnBiasGelu" (version "1", namespace "kiln_cuda"): y = gelu(x + bias), an IPluginV3
// (OneCore/OneBuild/OneRuntime) written exactly as for TensorRT. Inputs: x [..., C] FP32 and bias [C] FP32; output:
// y, x's shape. Field "approximate" (kINT32: 0 = exact GELU with erf, the default; 1 = tanh approximation). The bias
// add goes through a workspace of volume(x) floats (getWorkspaceSize from the profile's largest shape). GPU only.
#include "cudaPlugins.h"

#include <NvInfer.h>

#include <cstring>
#include <exception>
#include <string>
#include <vector>

namespace kiln_cuda_plugins
{
namespace
{
using namespace nvinfer1;

char const* const kNAME = "KilnBiasGelu";
char const* const kVERSION = "1";

int64_t volumeOf(Dims const& dims)
{
    int64_t v = 1;
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        v *= dims.d[i] < 0 ? 0 : dims.d[i];
    }
    return v;
}

class BiasGeluPlugin final : public IPluginV3, public IPluginV3OneCore, public IPluginV3OneBuild, public IPluginV3OneRuntime
{
public:
    explicit BiasGeluPlugin(int32_t approximate)
        : mApproximate(approximate)
    {
        mField = PluginField{"approximate", &mApproximate, PluginFieldType::kINT32, 1};
        mCollection = PluginFieldCollection{1, &mField};
    }

    // IPluginV3
    IPluginCapability* getCapabilityInterface(PluginCapabilityType type) noexcept override
    {
        switch (type)
        {
        case PluginCapabilityType::kCORE: return static_cast<IPluginV3OneCore*>(this);
        case PluginCapabilityType::kBUILD: return static_cast<IPluginV3OneBuild*>(this);
        case PluginCapabilityType::kRUNTIME: return static_cast<IPluginV3OneRuntime*>(this);
        }
        return nullptr;
    }
    IPluginV3* clone() noexcept override
    {
        try
        {
            return new BiasGeluPlugin(mApproximate);
        }
        catch (std::exception const&)
        {
            return nullptr;
        }
    }

    // IPluginV3OneCore
    AsciiChar const* getPluginName() const noexcept override { return kNAME; }
    AsciiChar const* getPluginVersion() const noexcept override { return kVERSION; }
    AsciiChar const* getPluginNamespace() const noexcept override { return kPLUGIN_NAMESPACE; }

    // IPluginV3OneBuild
    int32_t configurePlugin(DynamicPluginTensorDesc const* in, int32_t nbInputs, DynamicPluginTensorDesc const*,
        int32_t nbOutputs) noexcept override
    {
        if (nbInputs != 2 || nbOutputs != 1 || in[0].desc.dims.nbDims < 1 || in[1].desc.dims.nbDims != 1)
        {
            logError("KilnBiasGelu configurePlugin: expected x [..., C] and bias [C]");
            return -1;
        }
        int64_t const c = in[0].desc.dims.d[in[0].desc.dims.nbDims - 1];
        int64_t const b = in[1].desc.dims.d[0];
        if (c >= 0 && b >= 0 && c != b)
        {
            logError("KilnBiasGelu configurePlugin: x's last dimension " + std::to_string(c)
                + " differs from the bias length " + std::to_string(b));
            return -1;
        }
        return 0;
    }
    int32_t getOutputDataTypes(
        DataType* outputTypes, int32_t nbOutputs, DataType const*, int32_t nbInputs) const noexcept override
    {
        if (nbInputs != 2 || nbOutputs != 1)
        {
            return -1;
        }
        outputTypes[0] = DataType::kFLOAT;
        return 0;
    }
    int32_t getOutputShapes(DimsExprs const* inputs, int32_t nbInputs, DimsExprs const*, int32_t, DimsExprs* outputs,
        int32_t nbOutputs, IExprBuilder&) noexcept override
    {
        if (nbInputs != 2 || nbOutputs != 1)
        {
            return -1;
        }
        outputs[0] = inputs[0];
        return 0;
    }
    bool supportsFormatCombination(
        int32_t pos, DynamicPluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) noexcept override
    {
        return nbInputs == 2 && nbOutputs == 1 && pos >= 0 && pos < 3 && inOut[pos].desc.type == DataType::kFLOAT
            && inOut[pos].desc.format == TensorFormat::kLINEAR;
    }
    int32_t getNbOutputs() const noexcept override { return 1; }
    size_t getWorkspaceSize(DynamicPluginTensorDesc const* inputs, int32_t nbInputs, DynamicPluginTensorDesc const*,
        int32_t) const noexcept override
    {
        return nbInputs >= 1 ? static_cast<size_t>(volumeOf(inputs[0].max)) * sizeof(float) : 0;
    }

    // IPluginV3OneRuntime
    int32_t onShapeChange(PluginTensorDesc const* in, int32_t nbInputs, PluginTensorDesc const*, int32_t) noexcept
        override
    {
        if (nbInputs != 2 || in[1].dims.nbDims != 1 || in[0].dims.d[in[0].dims.nbDims - 1] != in[1].dims.d[0])
        {
            logError("KilnBiasGelu onShapeChange: x's last dimension differs from the bias length");
            return -1;
        }
        return 0;
    }
    IPluginV3* attachToContext(IPluginResourceContext*) noexcept override { return clone(); }
    int32_t enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const*, void const* const* inputs,
        void* const* outputs, void* workspace, cudaStream_t stream) noexcept override
    {
        int64_t const count = volumeOf(inputDesc[0].dims);
        int64_t const channels = inputDesc[1].dims.d[0];
        if (count > 0 && (channels <= 0 || workspace == nullptr))
        {
            logError("KilnBiasGelu enqueue: no bias values or no workspace");
            return 1;
        }
        int32_t const status = launchBiasGelu(static_cast<float const*>(inputs[0]), static_cast<float const*>(inputs[1]),
            static_cast<float*>(workspace), static_cast<float*>(outputs[0]), count, channels, mApproximate != 0, stream);
        if (status != 0)
        {
            logError("KilnBiasGelu enqueue: kernel launch failed (cudaError_t " + std::to_string(status) + ")");
            return 2;
        }
        return 0;
    }
    PluginFieldCollection const* getFieldsToSerialize() noexcept override { return &mCollection; }

private:
    int32_t mApproximate;
    PluginField mField{};
    PluginFieldCollection mCollection{};
};

class BiasGeluCreator final : public IPluginCreatorV3One
{
public:
    BiasGeluCreator()
    {
        mFields.emplace_back("approximate", nullptr, PluginFieldType::kINT32, 1);
        mCollection.nbFields = static_cast<int32_t>(mFields.size());
        mCollection.fields = mFields.data();
    }
    IPluginV3* createPlugin(AsciiChar const*, PluginFieldCollection const* fc, TensorRTPhase) noexcept override
    {
        try
        {
            int32_t approximate = 0;
            for (int32_t i = 0; fc != nullptr && i < fc->nbFields; ++i)
            {
                PluginField const& field = fc->fields[i];
                if (std::strcmp(field.name, "approximate") != 0)
                {
                    continue;
                }
                if (field.type != PluginFieldType::kINT32 || field.length != 1 || field.data == nullptr)
                {
                    logError("KilnBiasGelu createPlugin: field 'approximate' must be one kINT32 value");
                    return nullptr;
                }
                std::memcpy(&approximate, field.data, sizeof(int32_t));
            }
            return new BiasGeluPlugin(approximate);
        }
        catch (std::exception const&)
        {
            return nullptr;
        }
    }
    PluginFieldCollection const* getFieldNames() noexcept override { return &mCollection; }
    AsciiChar const* getPluginName() const noexcept override { return kNAME; }
    AsciiChar const* getPluginVersion() const noexcept override { return kVERSION; }
    AsciiChar const* getPluginNamespace() const noexcept override { return kPLUGIN_NAMESPACE; }

private:
    std::vector<PluginField> mFields;
    PluginFieldCollection mCollection{};
};

} // namespace

nvinfer1::IPluginCreatorInterface* biasGeluCreator()
{
    static BiasGeluCreator creator;
    return &creator;
}

} // namespace kiln_cuda_plugins
