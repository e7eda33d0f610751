// interleavePlugin.cpp — a plugin library as users write one: built on its own against the *installed* Kiln
// headers only (it links nothing of Kiln), loaded at run time with IPluginRegistry::loadLibrary().
//
// Plugin "KilnInterleave" (version "1", namespace "kiln_install"), an IPluginV3 with one FP32 input x of any rank
// and shape [..., W] and one output y of shape [..., 2W]:
//     y[..., 2j]     = scale * x[..., j]
//     y[..., 2j + 1] = x[..., j] + shift
// Fields "scale" and "shift" (kFLOAT32, one value each) are given at creation and serialized into engines.
// The output shape uses IExprBuilder (2 * W), and the plugin opts into Kiln's CPU backend through
// kiln::IPluginCpuSupport. The library exports getCreators() and setLoggerFinder().
#include <NvInfer.h>
#include <kiln/KilnPluginCpu.h>

#include <cstdint>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

namespace
{
using namespace nvinfer1;

char const* const kNAME = "KilnInterleave";
char const* const kVERSION = "1";
char const* const kNAMESPACE = "kiln_install";

ILoggerFinder* gLoggerFinder = nullptr;

void logVerbose(std::string const& message)
{
    ILogger* logger = gLoggerFinder != nullptr ? gLoggerFinder->findLogger() : nullptr;
    if (logger != nullptr)
    {
        logger->log(ILogger::Severity::kVERBOSE, ("KilnInterleave: " + message).c_str());
    }
}

class InterleavePlugin final : public IPluginV3,
                               public IPluginV3OneCore,
                               public IPluginV3OneBuild,
                               public IPluginV3OneRuntime,
                               public kiln::IPluginCpuSupport
{
public:
    InterleavePlugin(float scale, float shift)
        : mScale(scale)
        , mShift(shift)
    {
        mFields.emplace_back("scale", &mScale, PluginFieldType::kFLOAT32, 1);
        mFields.emplace_back("shift", &mShift, PluginFieldType::kFLOAT32, 1);
        mCollection.nbFields = static_cast<int32_t>(mFields.size());
        mCollection.fields = mFields.data();
    }

    InterleavePlugin(InterleavePlugin const& other)
        : InterleavePlugin(other.mScale, other.mShift)
    {
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
            return new InterleavePlugin(*this);
        }
        catch (std::exception const&)
        {
            return nullptr;
        }
    }

    // IPluginV3OneCore
    AsciiChar const* getPluginName() const noexcept override
    {
        return kNAME;
    }
    AsciiChar const* getPluginVersion() const noexcept override
    {
        return kVERSION;
    }
    AsciiChar const* getPluginNamespace() const noexcept override
    {
        return kNAMESPACE;
    }

    // IPluginV3OneBuild
    int32_t configurePlugin(DynamicPluginTensorDesc const* in, int32_t nbInputs, DynamicPluginTensorDesc const*,
        int32_t nbOutputs) noexcept override
    {
        return (nbInputs == 1 && nbOutputs == 1 && in[0].desc.dims.nbDims >= 1) ? 0 : -1;
    }

    int32_t getOutputDataTypes(
        DataType* outputTypes, int32_t nbOutputs, DataType const* inputTypes, int32_t nbInputs) const noexcept override
    {
        if (nbInputs != 1 || nbOutputs != 1)
        {
            return -1;
        }
        outputTypes[0] = inputTypes[0];
        return 0;
    }

    int32_t getOutputShapes(DimsExprs const* inputs, int32_t nbInputs, DimsExprs const*, int32_t,
        DimsExprs* outputs, int32_t nbOutputs, IExprBuilder& exprBuilder) noexcept override
    {
        if (nbInputs != 1 || nbOutputs != 1 || inputs[0].nbDims < 1)
        {
            return -1;
        }
        outputs[0] = inputs[0];
        int32_t const last = inputs[0].nbDims - 1;
        outputs[0].d[last]
            = exprBuilder.operation(DimensionOperation::kPROD, *inputs[0].d[last], *exprBuilder.constant(2));
        return 0;
    }

    bool supportsFormatCombination(
        int32_t pos, DynamicPluginTensorDesc const* inOut, int32_t, int32_t) noexcept override
    {
        return inOut[pos].desc.type == DataType::kFLOAT && inOut[pos].desc.format == TensorFormat::kLINEAR;
    }

    int32_t getNbOutputs() const noexcept override
    {
        return 1;
    }

    // IPluginV3OneRuntime
    int32_t onShapeChange(PluginTensorDesc const* in, int32_t nbInputs, PluginTensorDesc const*, int32_t nbOutputs)
        noexcept override
    {
        if (nbInputs != 1 || nbOutputs != 1)
        {
            return -1;
        }
        mInputDims = in[0].dims;
        return 0;
    }

    int32_t enqueue(PluginTensorDesc const* inputDesc, PluginTensorDesc const*, void const* const* inputs,
        void* const* outputs, void*, cudaStream_t) noexcept override
    {
        // On Kiln's CPU backend (see kiln/KilnPluginCpu.h) the pointers are host memory.
        Dims const& dims = inputDesc[0].dims;
        int64_t const width = dims.d[dims.nbDims - 1];
        int64_t rows = 1;
        for (int32_t i = 0; i + 1 < dims.nbDims; ++i)
        {
            rows *= dims.d[i];
        }
        auto const* x = static_cast<float const*>(inputs[0]);
        auto* y = static_cast<float*>(outputs[0]);
        for (int64_t r = 0; r < rows; ++r)
        {
            for (int64_t j = 0; j < width; ++j)
            {
                float const v = x[r * width + j];
                y[r * 2 * width + 2 * j] = mScale * v;
                y[r * 2 * width + 2 * j + 1] = v + mShift;
            }
        }
        return 0;
    }

    IPluginV3* attachToContext(IPluginResourceContext*) noexcept override
    {
        return clone();
    }

    PluginFieldCollection const* getFieldsToSerialize() noexcept override
    {
        return &mCollection;
    }

private:
    float mScale;
    float mShift;
    Dims mInputDims{};
    std::vector<PluginField> mFields;
    PluginFieldCollection mCollection{};
};

class InterleaveCreator final : public IPluginCreatorV3One
{
public:
    InterleaveCreator()
    {
        mFields.emplace_back("scale", nullptr, PluginFieldType::kFLOAT32, 1);
        mFields.emplace_back("shift", nullptr, PluginFieldType::kFLOAT32, 1);
        mCollection.nbFields = static_cast<int32_t>(mFields.size());
        mCollection.fields = mFields.data();
    }

    IPluginV3* createPlugin(AsciiChar const* name, PluginFieldCollection const* fc, TensorRTPhase phase) noexcept
        override
    {
        try
        {
            float scale = 1.0F;
            float shift = 0.0F;
            for (int32_t i = 0; fc != nullptr && i < fc->nbFields; ++i)
            {
                PluginField const& field = fc->fields[i];
                if (field.type != PluginFieldType::kFLOAT32 || field.length != 1 || field.data == nullptr)
                {
                    continue;
                }
                if (std::strcmp(field.name, "scale") == 0)
                {
                    std::memcpy(&scale, field.data, sizeof(float));
                }
                else if (std::strcmp(field.name, "shift") == 0)
                {
                    std::memcpy(&shift, field.data, sizeof(float));
                }
            }
            logVerbose(std::string("createPlugin('") + (name != nullptr ? name : "") + "', "
                + (phase == TensorRTPhase::kBUILD ? "kBUILD" : "kRUNTIME") + ")");
            return new InterleavePlugin(scale, shift);
        }
        catch (std::exception const&)
        {
            return nullptr;
        }
    }

    PluginFieldCollection const* getFieldNames() noexcept override
    {
        return &mCollection;
    }
    AsciiChar const* getPluginName() const noexcept override
    {
        return kNAME;
    }
    AsciiChar const* getPluginVersion() const noexcept override
    {
        return kVERSION;
    }
    AsciiChar const* getPluginNamespace() const noexcept override
    {
        return kNAMESPACE;
    }

private:
    std::vector<PluginField> mFields;
    PluginFieldCollection mCollection{};
};

InterleaveCreator gCreator;
IPluginCreatorInterface* gCreators[] = {&gCreator};

} // namespace

// The entry points IPluginRegistry::loadLibrary() looks for (exported: the library is built with default
// visibility for them only).
extern "C" __attribute__((visibility("default"))) void setLoggerFinder(nvinfer1::ILoggerFinder* finder)
{
    gLoggerFinder = finder;
}

extern "C" __attribute__((visibility("default"))) nvinfer1::IPluginCreatorInterface* const* getCreators(
    int32_t& nbCreators)
{
    nbCreators = 1;
    return gCreators;
}
