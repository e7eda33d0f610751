// ActivationLayer, INetworkDefinition::addActivation and the activation shape/type inference.
#include "network/layers/activationLayer.h"

#include "core/dataType.h"
#include "network/layerTable.h"
#include "network/layers/elementWiseLayer.h"
#include "network/networkDefinition.h"

#include <cmath>

namespace kiln
{
using nvinfer1::ActivationType;
using nvinfer1::DataType;

namespace
{
bool validType(ActivationType type)
{
    int32_t const v = static_cast<int32_t>(type);
    return v >= 0 && v < nvinfer1::EnumMax<ActivationType>();
}
} // namespace

ActivationLayer::ActivationLayer(NetworkDefinition& network, Tensor* input, ActivationType type)
    : LayerBase<nvinfer1::IActivationLayer>(network, nvinfer1::LayerType::kACTIVATION, {input}, 1)
{
    attrs().setInt("type", static_cast<int64_t>(type));
    attrs().setFloat("alpha", 0.0);
    attrs().setFloat("beta", 0.0);
}

void ActivationLayer::setActivationType(ActivationType type) noexcept
{
    if (!validType(type))
    {
        network().reportError(invalidArgument("IActivationLayer::setActivationType on layer '" + name()
            + "': invalid ActivationType " + std::to_string(static_cast<int32_t>(type))));
        return;
    }
    attrs().setInt("type", static_cast<int64_t>(type));
    touch();
}

ActivationType ActivationLayer::getActivationType() const noexcept
{
    return static_cast<ActivationType>(attrs().getInt("type"));
}

void ActivationLayer::setAlpha(float alpha) noexcept
{
    if (!std::isfinite(alpha))
    {
        network().reportError(invalidArgument("IActivationLayer::setAlpha on layer '" + name()
            + "': alpha must be finite"));
        return;
    }
    attrs().setFloat("alpha", static_cast<double>(alpha));
    touch();
}

void ActivationLayer::setBeta(float beta) noexcept
{
    if (!std::isfinite(beta))
    {
        network().reportError(invalidArgument("IActivationLayer::setBeta on layer '" + name()
            + "': beta must be finite"));
        return;
    }
    attrs().setFloat("beta", static_cast<double>(beta));
    touch();
}

float ActivationLayer::getAlpha() const noexcept
{
    return static_cast<float>(attrs().getFloat("alpha"));
}

float ActivationLayer::getBeta() const noexcept
{
    return static_cast<float>(attrs().getFloat("beta"));
}

nvinfer1::IActivationLayer* NetworkDefinition::addActivation(nvinfer1::ITensor& input, ActivationType type) noexcept
{
    try
    {
        Tensor* in = ownTensor(&input, "addActivation input");
        if (in == nullptr)
        {
            return nullptr;
        }
        if (!validType(type))
        {
            reportError(invalidArgument(
                "addActivation: invalid ActivationType " + std::to_string(static_cast<int32_t>(type))));
            return nullptr;
        }
        return adopt(std::make_unique<ActivationLayer>(*this, in, type));
    }
    catch (...)
    {
        reportError(internalError("addActivation: unexpected exception"));
        return nullptr;
    }
}

Status inferActivation(InferContext& ctx)
{
    if (ctx.nbInputs() != 1)
    {
        return ctx.error("needs exactly 1 input, has " + std::to_string(ctx.nbInputs()));
    }
    KILN_RETURN_IF_ERROR(ctx.requireInput(0));
    auto const type = static_cast<ActivationType>(ctx.attrs().getInt("type", -1));
    if (!validType(type))
    {
        return ctx.error("invalid activation type " + std::to_string(ctx.attrs().getInt("type", -1)));
    }
    TensorInfo const& in = ctx.input(0);
    // TensorRT: floating-point inputs; INT32 and INT64 only for kRELU.
    bool const intRelu = type == ActivationType::kRELU && isShapeIntType(in.type);
    if (!isFloatStorageType(in.type) && !intRelu)
    {
        return ctx.error("input '" + in.name + "' has type " + typeName(in.type)
            + "; activations take FP32, FP16 or BF16 (INT32/INT64 only for kRELU)");
    }
    TensorInfo& out = ctx.output(0);
    out.type = in.type;
    out.dims = in.dims;
    if (intRelu && in.values.has_value())
    {
        std::vector<DimExpr> values;
        for (DimExpr const& v : *in.values)
        {
            values.push_back(v.max(0));
        }
        out.values = std::move(values);
    }
    return Status::ok();
}

} // namespace kiln
