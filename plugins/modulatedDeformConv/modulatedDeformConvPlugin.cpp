// modulatedDeformConvPlugin.cpp — ModulatedDeformConv2d (IPluginV3): modulated deformable convolution on host
// memory (see modulatedDeformConvPlugin.h). For every output pixel and kernel tap, the input is sampled bilinearly
// at the tap's position plus its learned offset and multiplied by the mask; the sampled columns are then
// convolved with the weights per group.
#include "modulatedDeformConvPlugin.h"

#include <cmath>

namespace kiln::plugins
{
namespace
{
constexpr char const* kDCN_NAME = "ModulatedDeformConv2d";
constexpr char const* kDCN_VERSION = "2";

//! Bilinear sample of an H x W plane; each corner outside the plane reads 0.
float sampleZeroPadded(float const* plane, int64_t height, int64_t width, float y, float x)
{
    if (!(y > -1.0F && x > -1.0F && y < static_cast<float>(height) && x < static_cast<float>(width)))
    {
        return 0.0F;
    }
    float const yFloor = std::floor(y);
    float const xFloor = std::floor(x);
    auto const y0 = static_cast<int64_t>(yFloor);
    auto const x0 = static_cast<int64_t>(xFloor);
    float const ly = y - yFloor;
    float const lx = x - xFloor;
    auto at = [&](int64_t yy, int64_t xx) {
        return (yy >= 0 && yy < height && xx >= 0 && xx < width) ? plane[yy * width + xx] : 0.0F;
    };
    return (1.0F - ly) * (1.0F - lx) * at(y0, x0) + (1.0F - ly) * lx * at(y0, x0 + 1)
        + ly * (1.0F - lx) * at(y0 + 1, x0) + ly * lx * at(y0 + 1, x0 + 1);
}
} // namespace

ModulatedDeformConvPlugin::ModulatedDeformConvPlugin(DeformConvParams const& params, std::string pluginNamespace)
    : StandardV3Base(kDCN_NAME, kDCN_VERSION, std::move(pluginNamespace))
    , mParams(params)
{
    bindFields();
}

ModulatedDeformConvPlugin::ModulatedDeformConvPlugin(ModulatedDeformConvPlugin const& other)
    : StandardV3Base(other)
    , mParams(other.mParams)
    , mNbInputs(other.mNbInputs)
{
    bindFields();
}

void ModulatedDeformConvPlugin::bindFields()
{
    using nvinfer1::PluginField;
    using nvinfer1::PluginFieldType;
    mFields = {
        PluginField{"stride", mParams.stride, PluginFieldType::kINT32, 2},
        PluginField{"padding", mParams.padding, PluginFieldType::kINT32, 2},
        PluginField{"dilation", mParams.dilation, PluginFieldType::kINT32, 2},
        PluginField{"group", &mParams.group, PluginFieldType::kINT32, 1},
        PluginField{"deformable_group", &mParams.deformableGroup, PluginFieldType::kINT32, 1},
    };
    mFieldCollection.nbFields = static_cast<int32_t>(mFields.size());
    mFieldCollection.fields = mFields.data();
}

nvinfer1::IPluginV3* ModulatedDeformConvPlugin::clone() noexcept
{
    try
    {
        return new ModulatedDeformConvPlugin(*this);
    }
    catch (...)
    {
        return nullptr;
    }
}

int32_t ModulatedDeformConvPlugin::getOutputDataTypes(nvinfer1::DataType* outputTypes, int32_t nbOutputs,
    nvinfer1::DataType const* inputTypes, int32_t nbInputs) const noexcept
{
    if ((nbInputs != 4 && nbInputs != 5) || nbOutputs != 1)
    {
        return 1;
    }
    outputTypes[0] = inputTypes[0];
    return 0;
}

int32_t ModulatedDeformConvPlugin::getOutputShapes(nvinfer1::DimsExprs const* inputs, int32_t nbInputs,
    nvinfer1::DimsExprs const*, int32_t, nvinfer1::DimsExprs* outputs, int32_t nbOutputs,
    nvinfer1::IExprBuilder& eb) noexcept
{
    if ((nbInputs != 4 && nbInputs != 5) || nbOutputs != 1 || inputs[0].nbDims != 4 || inputs[3].nbDims != 4)
    {
        return 1;
    }
    using Op = nvinfer1::DimensionOperation;
    outputs[0].nbDims = 4;
    outputs[0].d[0] = inputs[0].d[0];
    outputs[0].d[1] = inputs[3].d[0];
    for (int32_t i = 0; i < 2; ++i)
    {
        // (in + 2p - (dil * (k - 1) + 1)) / s + 1
        nvinfer1::IDimensionExpr const* k = inputs[3].d[2 + i];
        auto const* span = eb.operation(Op::kSUM,
            *eb.operation(Op::kPROD, *eb.constant(mParams.dilation[i]), *eb.operation(Op::kSUB, *k, *eb.constant(1))),
            *eb.constant(1));
        auto const* padded = eb.operation(Op::kSUM, *inputs[0].d[2 + i], *eb.constant(2 * mParams.padding[i]));
        auto const* q = eb.operation(
            Op::kFLOOR_DIV, *eb.operation(Op::kSUB, *padded, *span), *eb.constant(mParams.stride[i]));
        outputs[0].d[2 + i] = eb.operation(Op::kSUM, *q, *eb.constant(1));
    }
    return 0;
}

int32_t ModulatedDeformConvPlugin::configurePlugin(nvinfer1::DynamicPluginTensorDesc const*, int32_t nbInputs,
    nvinfer1::DynamicPluginTensorDesc const*, int32_t) noexcept
{
    mNbInputs = nbInputs;
    return 0;
}

int32_t ModulatedDeformConvPlugin::onShapeChange(
    nvinfer1::PluginTensorDesc const*, int32_t nbInputs, nvinfer1::PluginTensorDesc const*, int32_t) noexcept
{
    mNbInputs = nbInputs;
    return 0;
}

bool ModulatedDeformConvPlugin::supportsFormatCombination(
    int32_t pos, nvinfer1::DynamicPluginTensorDesc const* inOut, int32_t nbInputs, int32_t nbOutputs) noexcept
{
    return (nbInputs == 4 || nbInputs == 5) && nbOutputs == 1 && pos >= 0 && pos <= nbInputs
        && inOut[pos].desc.format == nvinfer1::TensorFormat::kLINEAR
        && inOut[pos].desc.type == nvinfer1::DataType::kFLOAT;
}

int32_t ModulatedDeformConvPlugin::enqueue(nvinfer1::PluginTensorDesc const* inputDesc,
    nvinfer1::PluginTensorDesc const* outputDesc, void const* const* inputs, void* const* outputs, void*,
    cudaStream_t) noexcept
{
    try
    {
        nvinfer1::Dims const& xd = inputDesc[0].dims;
        nvinfer1::Dims const& wd = inputDesc[3].dims;
        nvinfer1::Dims const& od = outputDesc[0].dims;
        if (xd.nbDims != 4 || wd.nbDims != 4 || od.nbDims != 4)
        {
            return 1;
        }
        int64_t const batch = xd.d[0];
        int64_t const channels = xd.d[1];
        int64_t const height = xd.d[2];
        int64_t const width = xd.d[3];
        int64_t const outChannels = wd.d[0];
        int64_t const kH = wd.d[2];
        int64_t const kW = wd.d[3];
        int64_t const outH = od.d[2];
        int64_t const outW = od.d[3];
        int64_t const group = mParams.group;
        int64_t const dg = mParams.deformableGroup;
        int64_t const taps = kH * kW;
        if (channels % group != 0 || outChannels % group != 0 || channels % dg != 0
            || wd.d[1] * group != channels
            || volumeOf(inputDesc[1].dims) != batch * 2 * dg * taps * outH * outW
            || volumeOf(inputDesc[2].dims) != batch * dg * taps * outH * outW)
        {
            logStandardPlugin(nvinfer1::ILogger::Severity::kERROR,
                "ModulatedDeformConv2d enqueue: input, offset, mask and weight shapes disagree with group "
                    + std::to_string(group) + " and deformable_group " + std::to_string(dg));
            return 2;
        }
        auto const* x = static_cast<float const*>(inputs[0]);
        auto const* offset = static_cast<float const*>(inputs[1]);
        auto const* mask = static_cast<float const*>(inputs[2]);
        auto const* weight = static_cast<float const*>(inputs[3]);
        auto const* bias = mNbInputs == 5 ? static_cast<float const*>(inputs[4]) : nullptr;
        auto* y = static_cast<float*>(outputs[0]);
        int64_t const plane = outH * outW;
        int64_t const channelsPerDg = channels / dg;
        int64_t const channelsPerGroup = channels / group;
        int64_t const outPerGroup = outChannels / group;
        // columns[c][tap][oh*outW+ow]: the modulated samples of one image.
        std::vector<float> columns(static_cast<size_t>(channels * taps * plane));
        for (int64_t n = 0; n < batch; ++n)
        {
            for (int64_t c = 0; c < channels; ++c)
            {
                int64_t const g = c / channelsPerDg;
                float const* image = x + (n * channels + c) * height * width;
                for (int64_t i = 0; i < kH; ++i)
                {
                    for (int64_t j = 0; j < kW; ++j)
                    {
                        int64_t const tap = i * kW + j;
                        float const* dy = offset + ((n * dg + g) * 2 * taps + 2 * tap) * plane;
                        float const* dx = dy + plane;
                        float const* m = mask + ((n * dg + g) * taps + tap) * plane;
                        float* col = columns.data() + (c * taps + tap) * plane;
                        for (int64_t oh = 0; oh < outH; ++oh)
                        {
                            for (int64_t ow = 0; ow < outW; ++ow)
                            {
                                int64_t const p = oh * outW + ow;
                                float const sy = static_cast<float>(oh * mParams.stride[0] - mParams.padding[0]
                                                     + i * mParams.dilation[0]) + dy[p];
                                float const sx = static_cast<float>(ow * mParams.stride[1] - mParams.padding[1]
                                                     + j * mParams.dilation[1]) + dx[p];
                                col[p] = m[p] * sampleZeroPadded(image, height, width, sy, sx);
                            }
                        }
                    }
                }
            }
            for (int64_t o = 0; o < outChannels; ++o)
            {
                int64_t const g = o / outPerGroup;
                float* out = y + (n * outChannels + o) * plane;
                float const b = bias != nullptr ? bias[o] : 0.0F;
                for (int64_t p = 0; p < plane; ++p)
                {
                    out[p] = b;
                }
                for (int64_t cl = 0; cl < channelsPerGroup; ++cl)
                {
                    int64_t const c = g * channelsPerGroup + cl;
                    float const* w = weight + (o * channelsPerGroup + cl) * taps;
                    for (int64_t tap = 0; tap < taps; ++tap)
                    {
                        float const wv = w[tap];
                        float const* col = columns.data() + (c * taps + tap) * plane;
                        for (int64_t p = 0; p < plane; ++p)
                        {
                            out[p] += wv * col[p];
                        }
                    }
                }
            }
        }
        return 0;
    }
    catch (...)
    {
        return 3;
    }
}

ModulatedDeformConvPluginCreator::ModulatedDeformConvPluginCreator(std::string pluginNamespace)
    : mNamespace(std::move(pluginNamespace))
{
    using nvinfer1::PluginField;
    using nvinfer1::PluginFieldType;
    mFields = {
        PluginField{"stride", nullptr, PluginFieldType::kINT32, 2},
        PluginField{"padding", nullptr, PluginFieldType::kINT32, 2},
        PluginField{"dilation", nullptr, PluginFieldType::kINT32, 2},
        PluginField{"group", nullptr, PluginFieldType::kINT32, 1},
        PluginField{"deformable_group", nullptr, PluginFieldType::kINT32, 1},
    };
    mFieldCollection.nbFields = static_cast<int32_t>(mFields.size());
    mFieldCollection.fields = mFields.data();
}

char const* ModulatedDeformConvPluginCreator::getPluginName() const noexcept
{
    return kDCN_NAME;
}

char const* ModulatedDeformConvPluginCreator::getPluginVersion() const noexcept
{
    return kDCN_VERSION;
}

nvinfer1::IPluginV3* ModulatedDeformConvPluginCreator::createPlugin(
    char const* name, nvinfer1::PluginFieldCollection const* fc, nvinfer1::TensorRTPhase) noexcept
{
    try
    {
        std::string const who
            = std::string("ModulatedDeformConv2d createPlugin('") + (name == nullptr ? "" : name) + "')";
        DeformConvParams p;
        for (int32_t i = 0; fc != nullptr && i < fc->nbFields; ++i)
        {
            nvinfer1::PluginField const& field = fc->fields[i];
            std::string const fieldName = field.name == nullptr ? "" : field.name;
            int32_t* target = fieldName == "stride" ? p.stride
                : fieldName == "padding"            ? p.padding
                : fieldName == "dilation"           ? p.dilation
                : fieldName == "group"              ? &p.group
                : fieldName == "deformable_group"   ? &p.deformableGroup
                                                    : nullptr;
            if (target == nullptr)
            {
                logStandardPlugin(
                    nvinfer1::ILogger::Severity::kWARNING, who + ": ignoring unknown field '" + fieldName + "'");
                continue;
            }
            int32_t const count = (target == &p.group || target == &p.deformableGroup) ? 1 : 2;
            std::vector<int32_t> v;
            if (!readIntField(field, count, who, v))
            {
                return nullptr;
            }
            for (int32_t k = 0; k < count; ++k)
            {
                target[k] = v[static_cast<size_t>(k)];
            }
        }
        std::string problem;
        if (p.stride[0] < 1 || p.stride[1] < 1 || p.dilation[0] < 1 || p.dilation[1] < 1)
        {
            problem = "stride and dilation must be at least 1";
        }
        else if (p.padding[0] < 0 || p.padding[1] < 0)
        {
            problem = "padding must be >= 0";
        }
        else if (p.group < 1 || p.deformableGroup < 1)
        {
            problem = "group and deformable_group must be at least 1";
        }
        if (!problem.empty())
        {
            logStandardPlugin(nvinfer1::ILogger::Severity::kERROR, who + ": " + problem);
            return nullptr;
        }
        return new ModulatedDeformConvPlugin(p, mNamespace);
    }
    catch (...)
    {
        return nullptr;
    }
}

} // namespace kiln::plugins
