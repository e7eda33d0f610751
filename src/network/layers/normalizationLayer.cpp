// NormalizationLayer, INetworkDefinition::addNormalization / addNormalizationV2 and the normalization inference.
#include "network/layers/normalizationLayer.h"

#include "core/dataType.h"
#include "network/layerTable.h"
#include "network/networkDefinition.h"

#include <cmath>

namespace kiln
{
using nvinfer1::DataType;

namespace
{

bool isNormFloat(DataType t)
{
    return t == DataType::kFLOAT || t == DataType::kHALF || t == DataType::kBF16;
}

//! Scale/bias dimension `s` must be 1 or equal to the input dimension `x` (checked now or at run time).
Status requireUnidirectional(InferContext& ctx, DimExpr s, DimExpr x, std::string const& what)
{
    if (s.is(1))
    {
        return Status::ok();
    }
    if (s.isConstant() && x.isConstant())
    {
        if (s.constant() != x.constant())
        {
            return ctx.error(what + " (" + std::to_string(s.constant()) + " vs input extent "
                + std::to_string(x.constant()) + ")");
        }
        return Status::ok();
    }
    return ctx.require(s.eq(1).logicalOr(s.eq(x)), what);
}

} // namespace

NormalizationLayer::NormalizationLayer(
    NetworkDefinition& network, Tensor* input, Tensor* scale, Tensor* bias, uint32_t axes, bool v2)
    : LayerBase<nvinfer1::INormalizationLayer>(network, nvinfer1::LayerType::kNORMALIZATION, {input, scale, bias}, 1)
{
    attrs().setFloat("epsilon", 1e-5);
    attrs().setInt("axes", static_cast<int64_t>(axes));
    attrs().setInt("nbGroups", 1);
    attrs().setInt("computePrecision", static_cast<int64_t>(DataType::kFLOAT));
    attrs().setInt("v2", v2 ? 1 : 0);
}

void NormalizationLayer::setEpsilon(float eps) noexcept
{
    if (!std::isfinite(eps) || eps < 0.F)
    {
        network().reportError(invalidArgument("INormalizationLayer::setEpsilon on layer '" + name() + "': epsilon "
            + std::to_string(eps) + " must be finite and non-negative"));
        return;
    }
    attrs().setFloat("epsilon", static_cast<double>(eps));
    touch();
}

float NormalizationLayer::getEpsilon() const noexcept
{
    return static_cast<float>(attrs().getFloat("epsilon", 1e-5));
}

void NormalizationLayer::setAxes(uint32_t axesMask) noexcept
{
    if ((axesMask >> nvinfer1::Dims::MAX_DIMS) != 0)
    {
        network().reportError(invalidArgument("INormalizationLayer::setAxes on layer '" + name() + "': axes mask "
            + std::to_string(axesMask) + " names an axis beyond Dims::MAX_DIMS"));
        return;
    }
    attrs().setInt("axes", static_cast<int64_t>(axesMask));
    touch();
}

uint32_t NormalizationLayer::getAxes() const noexcept
{
    return static_cast<uint32_t>(attrs().getInt("axes"));
}

void NormalizationLayer::setNbGroups(int64_t nbGroups) noexcept
{
    if (nbGroups < 1)
    {
        network().reportError(invalidArgument("INormalizationLayer::setNbGroups on layer '" + name() + "': nbGroups "
            + std::to_string(nbGroups) + " must be at least 1"));
        return;
    }
    attrs().setInt("nbGroups", nbGroups);
    touch();
}

int64_t NormalizationLayer::getNbGroups() const noexcept
{
    return attrs().getInt("nbGroups", 1);
}

void NormalizationLayer::setComputePrecision(DataType type) noexcept
{
    if (network().stronglyTyped())
    {
        network().reportError(invalidArgument("INormalizationLayer::setComputePrecision on layer '" + name()
            + "': not allowed in a strongly typed network (cast the inputs instead)"));
        return;
    }
    if (type != DataType::kFLOAT && type != DataType::kHALF)
    {
        network().reportError(invalidArgument("INormalizationLayer::setComputePrecision on layer '" + name()
            + "': type " + dataTypeName(type) + " is not kFLOAT or kHALF"));
        return;
    }
    attrs().setInt("computePrecision", static_cast<int64_t>(type));
    touch();
}

DataType NormalizationLayer::getComputePrecision() const noexcept
{
    return static_cast<DataType>(attrs().getInt("computePrecision", static_cast<int64_t>(DataType::kFLOAT)));
}

bool NormalizationLayer::isV2() const noexcept
{
    return attrs().getInt("v2") != 0;
}

namespace
{

nvinfer1::INormalizationLayer* addNormalizationImpl(NetworkDefinition& network, char const* api,
    nvinfer1::ITensor& input, nvinfer1::ITensor& scale, nvinfer1::ITensor& bias, uint32_t axesMask, bool v2)
{
    std::string const prefix = api;
    Tensor* in = network.ownTensor(&input, (prefix + " input").c_str());
    Tensor* s = in != nullptr ? network.ownTensor(&scale, (prefix + " scale").c_str()) : nullptr;
    Tensor* b = s != nullptr ? network.ownTensor(&bias, (prefix + " bias").c_str()) : nullptr;
    if (b == nullptr)
    {
        return nullptr;
    }
    if ((axesMask >> nvinfer1::Dims::MAX_DIMS) != 0)
    {
        network.reportError(invalidArgument(
            prefix + ": axes mask " + std::to_string(axesMask) + " names an axis beyond Dims::MAX_DIMS"));
        return nullptr;
    }
    return network.adopt(std::make_unique<NormalizationLayer>(network, in, s, b, axesMask, v2));
}

} // namespace

nvinfer1::INormalizationLayer* NetworkDefinition::addNormalization(
    nvinfer1::ITensor& input, nvinfer1::ITensor& scale, nvinfer1::ITensor& bias, uint32_t axesMask) noexcept
{
    try
    {
        return addNormalizationImpl(*this, "addNormalization", input, scale, bias, axesMask, false);
    }
    catch (...)
    {
        reportError(internalError("addNormalization: unexpected exception"));
        return nullptr;
    }
}

nvinfer1::INormalizationLayer* NetworkDefinition::addNormalizationV2(
    nvinfer1::ITensor& input, nvinfer1::ITensor& scale, nvinfer1::ITensor& bias, uint32_t axesMask) noexcept
{
    try
    {
        return addNormalizationImpl(*this, "addNormalizationV2", input, scale, bias, axesMask, true);
    }
    catch (...)
    {
        reportError(internalError("addNormalizationV2: unexpected exception"));
        return nullptr;
    }
}

Status inferNormalization(InferContext& ctx)
{
    KILN_RETURN_IF_ERROR(ctx.requireInput(0, 1, nvinfer1::Dims::MAX_DIMS));
    TensorInfo const& in = ctx.input(0);
    int32_t const rank = in.rank();
    KILN_RETURN_IF_ERROR(ctx.requireInput(1, rank, rank));
    KILN_RETURN_IF_ERROR(ctx.requireInput(2, rank, rank));
    TensorInfo const& scale = ctx.input(1);
    TensorInfo const& bias = ctx.input(2);
    if (!isNormFloat(in.type))
    {
        return ctx.error("input '" + in.name + "' has type " + dataTypeName(in.type)
            + "; normalization needs FP32, FP16 or BF16");
    }
    for (TensorInfo const* t : {&scale, &bias})
    {
        if (!isNormFloat(t->type) || (ctx.stronglyTyped() && t->type != in.type))
        {
            return ctx.error("scale/bias '" + t->name + "' has type " + dataTypeName(t->type) + "; it must have the type "
                + dataTypeName(in.type) + " of input '" + in.name + "'");
        }
    }
    int64_t const mask = ctx.attrs().getInt("axes", 0);
    int64_t const groups = ctx.attrs().getInt("nbGroups", 1);
    bool const v2 = ctx.attrs().getInt("v2", 0) != 0;
    double const eps = ctx.attrs().getFloat("epsilon", 1e-5);
    if (!(eps >= 0.0) || !std::isfinite(eps))
    {
        return ctx.error("epsilon must be finite and non-negative");
    }
    if (mask < 0 || (mask >> rank) != 0)
    {
        return ctx.error("axes mask " + std::to_string(mask) + " names an axis beyond the rank " + std::to_string(rank)
            + " of input '" + in.name + "'");
    }
    if (groups < 1)
    {
        return ctx.error("nbGroups " + std::to_string(groups) + " must be at least 1");
    }
    if (groups == 1)
    {
        if (mask == 0)
        {
            return ctx.error("axes mask is empty; normalization needs at least one axis");
        }
        for (int32_t d = 0; d < rank; ++d)
        {
            for (TensorInfo const* t : {&scale, &bias})
            {
                KILN_RETURN_IF_ERROR(requireUnidirectional(ctx, t->dims[static_cast<size_t>(d)],
                    in.dims[static_cast<size_t>(d)],
                    "'" + t->name + "' cannot broadcast to input '" + in.name + "' in dimension " + std::to_string(d)));
            }
        }
    }
    else
    {
        if (rank < 2)
        {
            return ctx.error("nbGroups " + std::to_string(groups) + " needs an input of rank >= 2 (channel axis 1)");
        }
        if ((mask & 3) != 0)
        {
            return ctx.error("with nbGroups " + std::to_string(groups)
                + " the axes mask must name only dimensions after the channel axis 1 (mask "
                + std::to_string(mask) + ")");
        }
        DimExpr const channels = in.dims[1];
        if (channels.isConstant())
        {
            if (channels.constant() % groups != 0)
            {
                return ctx.error("nbGroups " + std::to_string(groups) + " does not divide the " +
                    std::to_string(channels.constant()) + " channels of input '" + in.name + "'");
            }
        }
        else
        {
            KILN_RETURN_IF_ERROR(ctx.require(channels.floorMod(ctx.constant(groups)).eq(0),
                "nbGroups " + std::to_string(groups) + " must divide the channel count of input '" + in.name + "'"));
        }
        for (int32_t d = 0; d < rank; ++d)
        {
            for (TensorInfo const* t : {&scale, &bias})
            {
                DimExpr const s = t->dims[static_cast<size_t>(d)];
                if (d == 1 && !v2)
                {
                    // addNormalization (V1): one scale/bias value per group.
                    if (!(s.is(1) || s.is(groups)))
                    {
                        return ctx.error("'" + t->name + "' has shape " + shapeToString(ctx.graph(), t->dims)
                            + "; a group normalization made by addNormalization takes scale and bias of shape [1, "
                            + std::to_string(groups) + ", 1, ...] (one value per group; addNormalizationV2 takes one "
                              "value per channel)");
                    }
                    continue;
                }
                KILN_RETURN_IF_ERROR(requireUnidirectional(ctx, s, in.dims[static_cast<size_t>(d)],
                    "'" + t->name + "' cannot broadcast to input '" + in.name + "' in dimension " + std::to_string(d)));
            }
        }
    }
    TensorInfo& out = ctx.output(0);
    out.type = in.type;
    out.dims = in.dims;
    return Status::ok();
}

} // namespace kiln
