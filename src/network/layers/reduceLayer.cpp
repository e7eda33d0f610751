// ReduceLayer, INetworkDefinition::addReduce and the reduce shape/type/value inference.
#include "network/layers/reduceLayer.h"

#include "core/dataType.h"
#include "network/layerTable.h"
#include "network/layers/elementWiseLayer.h"
#include "network/networkDefinition.h"

#include <limits>

namespace kiln
{
using nvinfer1::DataType;
using nvinfer1::ReduceOperation;

namespace
{

bool validReduceOp(ReduceOperation op)
{
    int32_t const v = static_cast<int32_t>(op);
    return v >= static_cast<int32_t>(ReduceOperation::kSUM) && v <= static_cast<int32_t>(ReduceOperation::kAVG);
}

bool validAxesMask(uint32_t mask)
{
    return (mask >> nvinfer1::Dims::MAX_DIMS) == 0;
}

} // namespace

ReduceLayer::ReduceLayer(
    NetworkDefinition& network, Tensor* input, ReduceOperation op, uint32_t axes, bool keepDims)
    : LayerBase<nvinfer1::IReduceLayer>(network, nvinfer1::LayerType::kREDUCE, {input}, 1)
{
    attrs().setInt("operation", static_cast<int64_t>(op));
    attrs().setInt("axes", static_cast<int64_t>(axes));
    attrs().setInt("keepDims", keepDims ? 1 : 0);
}

void ReduceLayer::setOperation(ReduceOperation op) noexcept
{
    if (!validReduceOp(op))
    {
        network().reportError(invalidArgument("IReduceLayer::setOperation on layer '" + name() + "': operation "
            + std::to_string(static_cast<int32_t>(op)) + " is not one of kSUM, kPROD, kMAX, kMIN, kAVG"));
        return;
    }
    attrs().setInt("operation", static_cast<int64_t>(op));
    touch();
}

ReduceOperation ReduceLayer::getOperation() const noexcept
{
    return static_cast<ReduceOperation>(attrs().getInt("operation"));
}

void ReduceLayer::setReduceAxes(uint32_t reduceAxes) noexcept
{
    if (!validAxesMask(reduceAxes))
    {
        network().reportError(invalidArgument("IReduceLayer::setReduceAxes on layer '" + name() + "': axes mask "
            + std::to_string(reduceAxes) + " names an axis beyond Dims::MAX_DIMS"));
        return;
    }
    attrs().setInt("axes", static_cast<int64_t>(reduceAxes));
    touch();
}

uint32_t ReduceLayer::getReduceAxes() const noexcept
{
    return static_cast<uint32_t>(attrs().getInt("axes"));
}

void ReduceLayer::setKeepDimensions(bool keepDimensions) noexcept
{
    attrs().setInt("keepDims", keepDimensions ? 1 : 0);
    touch();
}

bool ReduceLayer::getKeepDimensions() const noexcept
{
    return attrs().getInt("keepDims") != 0;
}

nvinfer1::IReduceLayer* NetworkDefinition::addReduce(
    nvinfer1::ITensor& input, ReduceOperation operation, uint32_t reduceAxes, bool keepDimensions) noexcept
{
    try
    {
        Tensor* in = ownTensor(&input, "addReduce input");
        if (in == nullptr)
        {
            return nullptr;
        }
        if (!validReduceOp(operation))
        {
            reportError(invalidArgument("addReduce: operation " + std::to_string(static_cast<int32_t>(operation))
                + " is not one of kSUM, kPROD, kMAX, kMIN, kAVG"));
            return nullptr;
        }
        if (!validAxesMask(reduceAxes))
        {
            reportError(invalidArgument("addReduce: axes mask " + std::to_string(reduceAxes)
                + " names an axis beyond Dims::MAX_DIMS"));
            return nullptr;
        }
        return adopt(std::make_unique<ReduceLayer>(*this, in, operation, reduceAxes, keepDimensions));
    }
    catch (...)
    {
        reportError(internalError("addReduce: unexpected exception"));
        return nullptr;
    }
}

Status inferReduce(InferContext& ctx)
{
    KILN_RETURN_IF_ERROR(ctx.requireInput(0, 0, nvinfer1::Dims::MAX_DIMS));
    TensorInfo const& in = ctx.input(0);
    DataType const t = in.type;
    if (t != DataType::kFLOAT && t != DataType::kHALF && t != DataType::kBF16 && t != DataType::kINT32
        && t != DataType::kINT64)
    {
        return ctx.error("input '" + in.name + "' has type " + dataTypeName(t)
            + "; reduce supports FP32, FP16, BF16, INT32 and INT64");
    }
    auto const op = static_cast<ReduceOperation>(ctx.attrs().getInt("operation", -1));
    if (!validReduceOp(op))
    {
        return ctx.error("invalid reduce operation " + std::to_string(static_cast<int32_t>(op)));
    }
    int64_t const mask = ctx.attrs().getInt("axes", 0);
    bool const keepDims = ctx.attrs().getInt("keepDims", 0) != 0;
    int32_t const rank = in.rank();
    if (mask < 0 || (mask >> rank) != 0)
    {
        return ctx.error("axes mask " + std::to_string(mask) + " names an axis beyond the rank "
            + std::to_string(rank) + " of input '" + in.name + "'");
    }
    ShapeExpr dims;
    for (int32_t d = 0; d < rank; ++d)
    {
        if ((mask >> d) & 1)
        {
            if (keepDims)
            {
                dims.push_back(ctx.constant(1));
            }
        }
        else
        {
            dims.push_back(in.dims[static_cast<size_t>(d)]);
        }
    }
    TensorInfo& out = ctx.output(0);
    out.type = t;
    out.dims = dims;

    // Values (shape tensors, e.g. the volume of a shape vector). kAVG is not defined on shape tensors.
    bool haveValues = in.values.has_value() && (t == DataType::kINT32 || t == DataType::kINT64)
        && op != ReduceOperation::kAVG;
    for (DimExpr const& d : in.dims)
    {
        haveValues = haveValues && d.isConstant();
    }
    if (!haveValues)
    {
        return Status::ok();
    }
    std::vector<DimExpr> const& v = *in.values;
    int64_t volume = 1;
    int64_t outVolume = 1;
    std::vector<int64_t> extents;
    for (int32_t d = 0; d < rank; ++d)
    {
        int64_t const e = in.dims[static_cast<size_t>(d)].constant();
        extents.push_back(e);
        if (e < 0 || __builtin_mul_overflow(volume, e, &volume))
        {
            return Status::ok(); // extents no value list can match: no values
        }
        if (((mask >> d) & 1) == 0 && __builtin_mul_overflow(outVolume, e, &outVolume))
        {
            return Status::ok();
        }
    }
    if (static_cast<int64_t>(v.size()) != volume)
    {
        return ctx.error("input '" + in.name + "' carries " + std::to_string(v.size()) + " values but its shape holds "
            + std::to_string(volume));
    }
    // Shape values stay small; an empty input reduced over its empty axis may still ask for a huge output (the
    // identities): no values then, rather than an allocation of that size.
    if (outVolume > kMAX_SHAPE_VALUES)
    {
        return Status::ok();
    }
    int64_t const lowest = t == DataType::kINT32 ? std::numeric_limits<int32_t>::min()
                                                  : std::numeric_limits<int64_t>::min();
    int64_t const highest = t == DataType::kINT32 ? std::numeric_limits<int32_t>::max()
                                                   : std::numeric_limits<int64_t>::max();
    int64_t identity = 0;
    switch (op)
    {
    case ReduceOperation::kSUM: identity = 0; break;
    case ReduceOperation::kPROD: identity = 1; break;
    case ReduceOperation::kMAX: identity = lowest; break;
    case ReduceOperation::kMIN: identity = highest; break;
    default: break;
    }
    std::vector<DimExpr> result(static_cast<size_t>(outVolume), ctx.constant(identity));
    std::vector<bool> seen(static_cast<size_t>(outVolume), false);
    std::vector<int64_t> coord(static_cast<size_t>(rank), 0);
    for (int64_t flat = 0; flat < volume; ++flat)
    {
        // Output index: row-major over the kept axes.
        int64_t o = 0;
        for (int32_t d = 0; d < rank; ++d)
        {
            if (((mask >> d) & 1) == 0)
            {
                o = o * extents[static_cast<size_t>(d)] + coord[static_cast<size_t>(d)];
            }
        }
        DimExpr const x = v[static_cast<size_t>(flat)];
        DimExpr& acc = result[static_cast<size_t>(o)];
        if (!seen[static_cast<size_t>(o)])
        {
            acc = x;
            seen[static_cast<size_t>(o)] = true;
        }
        else
        {
            switch (op)
            {
            case ReduceOperation::kSUM: acc = acc + x; break;
            case ReduceOperation::kPROD: acc = acc * x; break;
            case ReduceOperation::kMAX: acc = acc.max(x); break;
            case ReduceOperation::kMIN: acc = acc.min(x); break;
            default: break;
            }
        }
        for (int32_t d = rank - 1; d >= 0; --d)
        {
            if (++coord[static_cast<size_t>(d)] < extents[static_cast<size_t>(d)])
            {
                break;
            }
            coord[static_cast<size_t>(d)] = 0;
        }
    }
    out.values = std::move(result);
    return Status::ok();
}

} // namespace kiln
