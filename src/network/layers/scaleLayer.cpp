// ScaleLayer, INetworkDefinition::addScale / addScaleNd and the scale shape/type inference.
#include "network/layers/scaleLayer.h"

#include "core/dataType.h"
#include "network/layerTable.h"
#include "network/layers/elementWiseLayer.h"
#include "network/networkDefinition.h"

namespace kiln
{
using nvinfer1::DataType;
using nvinfer1::ScaleMode;

namespace
{
constexpr size_t kSHIFT = 0;
constexpr size_t kSCALE = 1;
constexpr size_t kPOWER = 2;

bool validMode(ScaleMode mode)
{
    int32_t const v = static_cast<int32_t>(mode);
    return v >= 0 && v < nvinfer1::EnumMax<ScaleMode>();
}

bool validAxis(int32_t axis)
{
    return axis >= 0 && axis < nvinfer1::Dims::MAX_DIMS;
}

//! Validates the arguments shared by addScale and addScaleNd.
Status checkScaleArguments(char const* api, ScaleMode mode, nvinfer1::Weights const& shift,
    nvinfer1::Weights const& scale, nvinfer1::Weights const& power)
{
    if (!validMode(mode))
    {
        return invalidArgument(std::string(api) + ": invalid ScaleMode " + std::to_string(static_cast<int32_t>(mode)));
    }
    KILN_RETURN_IF_ERROR(checkWeightsArgument(shift, std::string(api) + " shift"));
    KILN_RETURN_IF_ERROR(checkWeightsArgument(scale, std::string(api) + " scale"));
    KILN_RETURN_IF_ERROR(checkWeightsArgument(power, std::string(api) + " power"));
    return Status::ok();
}
} // namespace

ScaleLayer::ScaleLayer(NetworkDefinition& network, Tensor* input, ScaleMode mode, nvinfer1::Weights shift,
    nvinfer1::Weights scale, nvinfer1::Weights power, int32_t channelAxis)
    : LayerBase<nvinfer1::IScaleLayer>(network, nvinfer1::LayerType::kSCALE, {input}, 1)
{
    attrs().setInt("mode", static_cast<int64_t>(mode));
    attrs().setInt("channelAxis", channelAxis);
    weights().resize(3);
    weights()[kSHIFT] = shift;
    weights()[kSCALE] = scale;
    weights()[kPOWER] = power;
}

void ScaleLayer::setMode(ScaleMode mode) noexcept
{
    if (!validMode(mode))
    {
        network().reportError(invalidArgument("IScaleLayer::setMode on layer '" + name() + "': invalid ScaleMode "
            + std::to_string(static_cast<int32_t>(mode))));
        return;
    }
    attrs().setInt("mode", static_cast<int64_t>(mode));
    touch();
}

ScaleMode ScaleLayer::getMode() const noexcept
{
    return static_cast<ScaleMode>(attrs().getInt("mode"));
}

void ScaleLayer::setSlot(size_t slot, nvinfer1::Weights w, char const* method)
{
    Status st = checkWeightsArgument(w, std::string("IScaleLayer::") + method + " on layer '" + name() + "'");
    if (!st.isOk())
    {
        network().reportError(st);
        return;
    }
    weights()[slot] = w;
    touch();
}

void ScaleLayer::setShift(nvinfer1::Weights shift) noexcept
{
    setSlot(kSHIFT, shift, "setShift");
}

nvinfer1::Weights ScaleLayer::getShift() const noexcept
{
    return weights()[kSHIFT];
}

void ScaleLayer::setScale(nvinfer1::Weights scale) noexcept
{
    setSlot(kSCALE, scale, "setScale");
}

nvinfer1::Weights ScaleLayer::getScale() const noexcept
{
    return weights()[kSCALE];
}

void ScaleLayer::setPower(nvinfer1::Weights power) noexcept
{
    setSlot(kPOWER, power, "setPower");
}

nvinfer1::Weights ScaleLayer::getPower() const noexcept
{
    return weights()[kPOWER];
}

int32_t ScaleLayer::getChannelAxis() const noexcept
{
    return static_cast<int32_t>(attrs().getInt("channelAxis"));
}

void ScaleLayer::setChannelAxis(int32_t channelAxis) noexcept
{
    if (!validAxis(channelAxis))
    {
        network().reportError(invalidArgument("IScaleLayer::setChannelAxis on layer '" + name() + "': channel axis "
            + std::to_string(channelAxis) + " is out of range [0, " + std::to_string(nvinfer1::Dims::MAX_DIMS - 1)
            + "]"));
        return;
    }
    attrs().setInt("channelAxis", channelAxis);
    touch();
}

nvinfer1::IScaleLayer* NetworkDefinition::addScale(nvinfer1::ITensor& input, ScaleMode mode, nvinfer1::Weights shift,
    nvinfer1::Weights scale, nvinfer1::Weights power) noexcept
{
    try
    {
        Tensor* in = ownTensor(&input, "addScale input");
        if (in == nullptr)
        {
            return nullptr;
        }
        Status st = checkScaleArguments("addScale", mode, shift, scale, power);
        if (!st.isOk())
        {
            reportError(st);
            return nullptr;
        }
        // TensorRT's addScale takes inputs of rank >= 4 whose last three dimensions are channel, height and
        // width, so the channel axis is rank - 3 (1 for NCHW).
        int32_t const rank = in->getDimensions().nbDims;
        if (rank >= 0 && rank < 4)
        {
            reportError(invalidArgument("addScale: input '" + in->name() + "' has rank " + std::to_string(rank)
                + "; addScale needs at least 4 dimensions (use addScaleNd for other ranks)"));
            return nullptr;
        }
        int32_t const channelAxis = rank >= 4 ? rank - 3 : 1;
        return adopt(std::make_unique<ScaleLayer>(*this, in, mode, shift, scale, power, channelAxis));
    }
    catch (...)
    {
        reportError(internalError("addScale: unexpected exception"));
        return nullptr;
    }
}

nvinfer1::IScaleLayer* NetworkDefinition::addScaleNd(nvinfer1::ITensor& input, ScaleMode mode,
    nvinfer1::Weights shift, nvinfer1::Weights scale, nvinfer1::Weights power, int32_t channelAxis) noexcept
{
    try
    {
        Tensor* in = ownTensor(&input, "addScaleNd input");
        if (in == nullptr)
        {
            return nullptr;
        }
        Status st = checkScaleArguments("addScaleNd", mode, shift, scale, power);
        if (!st.isOk())
        {
            reportError(st);
            return nullptr;
        }
        if (!validAxis(channelAxis))
        {
            reportError(invalidArgument("addScaleNd: channel axis " + std::to_string(channelAxis)
                + " is out of range [0, " + std::to_string(nvinfer1::Dims::MAX_DIMS - 1) + "]"));
            return nullptr;
        }
        return adopt(std::make_unique<ScaleLayer>(*this, in, mode, shift, scale, power, channelAxis));
    }
    catch (...)
    {
        reportError(internalError("addScaleNd: unexpected exception"));
        return nullptr;
    }
}

Status inferScale(InferContext& ctx)
{
    if (ctx.nbInputs() != 1)
    {
        return ctx.error("needs exactly 1 input, has " + std::to_string(ctx.nbInputs()));
    }
    KILN_RETURN_IF_ERROR(ctx.requireInput(0, 1));
    TensorInfo const& in = ctx.input(0);
    if (!isFloatStorageType(in.type))
    {
        return ctx.error("input '" + in.name + "' has type " + typeName(in.type) + "; expected FP32, FP16 or BF16");
    }
    auto const mode = static_cast<ScaleMode>(ctx.attrs().getInt("mode", -1));
    if (!validMode(mode))
    {
        return ctx.error("invalid scale mode " + std::to_string(ctx.attrs().getInt("mode", -1)));
    }
    int64_t const axis = ctx.attrs().getInt("channelAxis", -1);
    if (mode != ScaleMode::kUNIFORM && (axis < 0 || axis >= in.rank()))
    {
        return ctx.error("channel axis " + std::to_string(axis) + " is out of range for input '" + in.name
            + "' of rank " + std::to_string(in.rank()));
    }
    // The number of coefficients each non-empty weights slot must hold.
    DimExpr expected = ctx.constant(1);
    std::string expectedText = "1";
    if (mode == ScaleMode::kCHANNEL)
    {
        expected = in.dims[static_cast<size_t>(axis)];
        expectedText = "the channel extent (dimension " + std::to_string(axis) + ")";
    }
    else if (mode == ScaleMode::kELEMENTWISE)
    {
        for (int32_t d = static_cast<int32_t>(axis); d < in.rank(); ++d)
        {
            expected = expected * in.dims[static_cast<size_t>(d)];
        }
        expectedText = "the product of the extents from dimension " + std::to_string(axis) + " on";
    }
    char const* const slotNames[] = {"shift", "scale", "power"};
    for (int32_t slot = 0; slot < 3; ++slot)
    {
        if (!ctx.hasWeights(slot))
        {
            continue;
        }
        WeightsInfo const& w = ctx.weights(slot);
        if (!isFloatStorageType(w.type))
        {
            return ctx.error(std::string(slotNames[slot]) + " weights have type " + typeName(w.type)
                + "; expected FP32, FP16 or BF16");
        }
        std::string const what = std::string(slotNames[slot]) + " weights count " + std::to_string(w.count)
            + " must equal " + expectedText;
        if (expected.isConstant())
        {
            if (expected.constant() != w.count)
            {
                return ctx.error(what + " = " + std::to_string(expected.constant()));
            }
            continue;
        }
        KILN_RETURN_IF_ERROR(ctx.require(expected.eq(w.count), what));
    }
    TensorInfo& out = ctx.output(0);
    out.type = in.type;
    out.dims = in.dims;
    return Status::ok();
}

} // namespace kiln
