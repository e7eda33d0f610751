// scaleTacticsPlugin.cpp — ScaleTacticsPlugin (IPluginV3): y = alpha * x with a slow and a fast tactic, on host
// buffers (the CPU backend) or, when built with CUDA, on device buffers and the given stream.
#include "scaleTacticsPlugin.h"
#include "samplePluginUtils.h"
#if KILN_SAMPLE_PLUGINS_CUDA
#include "samplePluginsCuda.h"
#endif

#include <string>

namespace samples
{
namespace
{
constexpr char const* kSCALE_NAME = "ScaleTacticsPlugin";
constexpr char const* kSCALE_VERSION = "1";
} // namespace

ScaleTacticsPlugin::ScaleTacticsPlugin(float alpha, std::string pluginNamespace)
    : SampleV3Base(kSCALE_NAME, kSCALE_VERSION, std::move(pluginNamespace))
    , mAlpha(alpha)
{
    bindFields();
}

ScaleTacticsPlugin::ScaleTacticsPlugin(ScaleTacticsPlugin const& other)
    : SampleV3Base(other)
    , mAlpha(other.mAlpha)
    , mTactic(other.mTactic)
{
    bindFields(); // the field collection points into this object, never into `other`
}

void ScaleTacticsPlugin::bindFields()
{
    mFields = {nvinfer1::PluginField{"alpha", &mAlpha, nvinfer1::PluginFieldType::kFLOAT32, 1}};
    mFieldCollection.nbFields = static_cast<int32_t>(mFields.size());
    mFieldCollection.fields = mFields.data();
}

nvinfer1::IPluginV3* ScaleTacticsPlugin::clone() noexcept
{
    try
    {
        return new ScaleTacticsPlugin(*this);
    }
    catch (...)
    {
        return nullptr;
    }
}

int32_t ScaleTacticsPlugin::getOutputDataTypes(nvinfer1::DataType* outputTypes, int32_t nbOutputs,
    nvinfer1::DataType const*, int32_t nbInputs) const noexcept
{
    if (nbInputs != 1 || nbOutputs != 1)
    {
        return 1;
    }
    outputTypes[0] = nvinfer1::DataType::kFLOAT;
    return 0;
}

int32_t ScaleTacticsPlugin::getOutputShapes(nvinfer1::DimsExprs const* inputs, int32_t nbInputs,
    nvinfer1::DimsExprs const*, int32_t, nvinfer1::DimsExprs* outputs, int32_t nbOutputs,
    nvinfer1::IExprBuilder&) noexcept
{
    if (nbInputs != 1 || nbOutputs != 1)
    {
        return 1;
    }
    outputs[0] = inputs[0];
    return 0;
}

bool ScaleTacticsPlugin::supportsFormatCombination(
    int32_t pos, nvinfer1::DynamicPluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) noexcept
{
    return nbInputs == 1 && nbOutputs == 1 && pos >= 0 && pos < 2
        && inOut[pos].desc.format == nvinfer1::TensorFormat::kLINEAR
        && inOut[pos].desc.type == nvinfer1::DataType::kFLOAT;
}

int32_t ScaleTacticsPlugin::getValidTactics(int32_t* tactics, int32_t nbTactics) noexcept
{
    if (tactics == nullptr || nbTactics != 2)
    {
        return 1;
    }
    tactics[0] = kSLOW_TACTIC;
    tactics[1] = kFAST_TACTIC;
    return 0;
}

int32_t ScaleTacticsPlugin::setTactic(int32_t tactic) noexcept
{
    if (tactic != 0 && tactic != kSLOW_TACTIC && tactic != kFAST_TACTIC)
    {
        return 1;
    }
    mTactic = tactic;
    return 0;
}

int32_t ScaleTacticsPlugin::enqueue(nvinfer1::PluginTensorDesc const* inputDesc, nvinfer1::PluginTensorDesc const*,
    void const* const* inputs, void* const* outputs, void*, [[maybe_unused]] cudaStream_t stream) noexcept
{
    int64_t const count = volume(inputDesc[0].dims);
    auto const* x = static_cast<float const*>(inputs[0]);
    auto* y = static_cast<float*>(outputs[0]);
    int32_t const repeats = mTactic == kSLOW_TACTIC ? kSLOW_REPEATS : 1;
#if KILN_SAMPLE_PLUGINS_CUDA
    if (cuda::isDeviceMemory(y))
    {
        // The CUDA backend (or TensorRT): device buffers, work on the given stream.
        return cuda::launchScale(x, y, count, mAlpha, repeats, stream) == 0 ? 0 : -1;
    }
#endif
    for (int32_t r = 0; r < repeats; ++r)
    {
        // volatile keeps the compiler from collapsing the repeats: tactic 1 really does kSLOW_REPEATS passes.
        float volatile alpha = mAlpha;
        for (int64_t i = 0; i < count; ++i)
        {
            y[i] = alpha * x[i];
        }
    }
    return 0;
}

nvinfer1::PluginFieldCollection const* ScaleTacticsPlugin::getFieldsToSerialize() noexcept
{
    return &mFieldCollection;
}

ScaleTacticsPluginCreator::ScaleTacticsPluginCreator()
{
    mFields = {nvinfer1::PluginField{"alpha", nullptr, nvinfer1::PluginFieldType::kFLOAT32, 1}};
    mFieldCollection.nbFields = static_cast<int32_t>(mFields.size());
    mFieldCollection.fields = mFields.data();
}

nvinfer1::IPluginV3* ScaleTacticsPluginCreator::createPlugin(
    char const*, nvinfer1::PluginFieldCollection const* fc, nvinfer1::TensorRTPhase) noexcept
{
    try
    {
        float alpha = 1.0F;
        for (int32_t i = 0; fc != nullptr && i < fc->nbFields; ++i)
        {
            if (fc->fields[i].name != nullptr && std::string(fc->fields[i].name) == "alpha")
            {
                fieldScalar(fc->fields[i], alpha);
            }
        }
        return new ScaleTacticsPlugin(alpha, kSAMPLE_NAMESPACE);
    }
    catch (...)
    {
        return nullptr;
    }
}

char const* ScaleTacticsPluginCreator::getPluginName() const noexcept
{
    return kSCALE_NAME;
}

char const* ScaleTacticsPluginCreator::getPluginVersion() const noexcept
{
    return kSCALE_VERSION;
}

char const* ScaleTacticsPluginCreator::getPluginNamespace() const noexcept
{
    return kSAMPLE_NAMESPACE;
}

} // namespace samples
