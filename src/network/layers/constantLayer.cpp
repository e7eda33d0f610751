// ConstantLayer, INetworkDefinition::addConstant and the constant shape/type/value inference.
#include "network/layers/constantLayer.h"

#include "network/layerTable.h"
#include "network/layers/elementWiseLayer.h"
#include "network/networkDefinition.h"

namespace kiln
{
using nvinfer1::DataType;
using nvinfer1::Dims;

namespace
{
//! Validates constant dimensions; returns the volume, or an error naming `what`.
StatusOr<int64_t> constantVolume(Dims const& d, std::string const& what)
{
    if (d.nbDims < 0 || d.nbDims > Dims::MAX_DIMS)
    {
        return invalidArgument(what + ": invalid rank " + std::to_string(d.nbDims));
    }
    int64_t volume = 1;
    for (int32_t i = 0; i < d.nbDims; ++i)
    {
        if (d.d[i] < 0)
        {
            return invalidArgument(what + ": dimension " + std::to_string(i) + " is " + std::to_string(d.d[i])
                + "; constant dimensions must be known (>= 0)");
        }
        if (d.d[i] != 0 && volume > (int64_t{1} << 62) / d.d[i])
        {
            return invalidArgument(what + ": the volume overflows");
        }
        volume *= d.d[i];
    }
    return volume;
}
} // namespace

ConstantLayer::ConstantLayer(NetworkDefinition& network, Dims const& dimensions, nvinfer1::Weights weights)
    : LayerBase<nvinfer1::IConstantLayer>(network, nvinfer1::LayerType::kCONSTANT, {}, 1)
{
    attrs().setDims("dims", dimensions);
    this->weights().resize(1);
    this->weights()[0] = weights;
}

void ConstantLayer::setWeights(nvinfer1::Weights weights) noexcept
{
    Status st = checkWeightsArgument(weights, "IConstantLayer::setWeights on layer '" + name() + "'");
    if (!st.isOk())
    {
        network().reportError(st);
        return;
    }
    this->weights()[0] = weights;
    touch();
}

nvinfer1::Weights ConstantLayer::getWeights() const noexcept
{
    return weights()[0];
}

void ConstantLayer::setDimensions(Dims const& dimensions) noexcept
{
    auto volume = constantVolume(dimensions, "IConstantLayer::setDimensions on layer '" + name() + "'");
    if (!volume.isOk())
    {
        network().reportError(volume.status());
        return;
    }
    attrs().setDims("dims", dimensions);
    touch();
}

Dims ConstantLayer::getDimensions() const noexcept
{
    return attrs().getDims("dims");
}

nvinfer1::IConstantLayer* NetworkDefinition::addConstant(Dims const& dimensions, nvinfer1::Weights weights) noexcept
{
    try
    {
        auto volume = constantVolume(dimensions, "addConstant");
        if (!volume.isOk())
        {
            reportError(volume.status());
            return nullptr;
        }
        Status st = checkWeightsArgument(weights, "addConstant");
        if (!st.isOk())
        {
            reportError(st);
            return nullptr;
        }
        if (weights.count != *volume)
        {
            reportError(invalidArgument("addConstant: weights count " + std::to_string(weights.count)
                + " does not match the volume " + std::to_string(*volume) + " of the dimensions"));
            return nullptr;
        }
        return adopt(std::make_unique<ConstantLayer>(*this, dimensions, weights));
    }
    catch (...)
    {
        reportError(internalError("addConstant: unexpected exception"));
        return nullptr;
    }
}

Status inferConstant(InferContext& ctx)
{
    if (ctx.nbInputs() != 0)
    {
        return ctx.error("takes no inputs, has " + std::to_string(ctx.nbInputs()));
    }
    Dims const d = ctx.attrs().getDims("dims");
    auto volume = constantVolume(d, "dimensions");
    if (!volume.isOk())
    {
        return ctx.error(volume.status().message());
    }
    if (ctx.nbWeights() < 1)
    {
        return ctx.error("has no weights slot");
    }
    WeightsInfo const& w = ctx.weights(0);
    int64_t const count = ctx.hasWeights(0) ? w.count : 0;
    if (count != *volume)
    {
        return ctx.error("weights count " + std::to_string(count) + " does not match the volume "
            + std::to_string(*volume) + " of the dimensions");
    }
    if (count > 0 && !isStorableType(w.type))
    {
        return ctx.error("weights of type " + typeName(w.type)
            + " are not supported (supported: FP32, FP16, BF16, INT8, UINT8, INT32, INT64, BOOL)");
    }
    TensorInfo& out = ctx.output(0);
    out.type = w.type;
    out.dims.clear();
    for (int32_t i = 0; i < d.nbDims; ++i)
    {
        out.dims.push_back(ctx.constant(d.d[i]));
    }
    // Small integer constants carry their values, so they can feed shape computations.
    if (isShapeIntType(w.type) && count <= kMAX_SHAPE_VALUES && (count == 0 || w.values != nullptr))
    {
        std::vector<DimExpr> values;
        for (int64_t i = 0; i < count; ++i)
        {
            int64_t const v = w.type == DataType::kINT32 ? static_cast<int32_t const*>(w.values)[i]
                                                         : static_cast<int64_t const*>(w.values)[i];
            values.push_back(ctx.constant(v));
        }
        out.values = std::move(values);
    }
    return Status::ok();
}

} // namespace kiln
