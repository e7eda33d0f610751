// CumulativeLayer, INetworkDefinition::addCumulative and the Cumulative shape/type inference.
#include "network/layers/cumulativeLayer.h"

#include "core/dataType.h"
#include "network/layerTable.h"
#include "network/networkDefinition.h"

namespace kiln
{
using nvinfer1::CumulativeOperation;
using nvinfer1::DataType;

namespace
{

bool validCumulativeOp(CumulativeOperation op)
{
    return op == CumulativeOperation::kSUM;
}

} // namespace

CumulativeLayer::CumulativeLayer(NetworkDefinition& network, Tensor* input, Tensor* axis, CumulativeOperation op,
    bool exclusive, bool reverse)
    : LayerBase<nvinfer1::ICumulativeLayer>(network, nvinfer1::LayerType::kCUMULATIVE, {input, axis}, 1)
{
    attrs().setInt("operation", static_cast<int64_t>(op));
    attrs().setInt("exclusive", exclusive ? 1 : 0);
    attrs().setInt("reverse", reverse ? 1 : 0);
}

bool CumulativeLayer::setOperation(CumulativeOperation op) noexcept
{
    if (!validCumulativeOp(op))
    {
        network().reportError(invalidArgument("ICumulativeLayer::setOperation on layer '" + name() + "': operation "
            + std::to_string(static_cast<int32_t>(op)) + " is not kSUM"));
        return false;
    }
    attrs().setInt("operation", static_cast<int64_t>(op));
    touch();
    return true;
}

CumulativeOperation CumulativeLayer::getOperation() const noexcept
{
    return static_cast<CumulativeOperation>(attrs().getInt("operation"));
}

void CumulativeLayer::setExclusive(bool exclusive) noexcept
{
    attrs().setInt("exclusive", exclusive ? 1 : 0);
    touch();
}

bool CumulativeLayer::getExclusive() const noexcept
{
    return attrs().getInt("exclusive") != 0;
}

void CumulativeLayer::setReverse(bool reverse) noexcept
{
    attrs().setInt("reverse", reverse ? 1 : 0);
    touch();
}

bool CumulativeLayer::getReverse() const noexcept
{
    return attrs().getInt("reverse") != 0;
}

nvinfer1::ICumulativeLayer* NetworkDefinition::addCumulative(nvinfer1::ITensor& input, nvinfer1::ITensor& axis,
    CumulativeOperation operation, bool exclusive, bool reverse) noexcept
{
    try
    {
        Tensor* in = ownTensor(&input, "addCumulative input");
        Tensor* ax = in != nullptr ? ownTensor(&axis, "addCumulative axis") : nullptr;
        if (ax == nullptr)
        {
            return nullptr;
        }
        if (!validCumulativeOp(operation))
        {
            reportError(invalidArgument("addCumulative: operation " + std::to_string(static_cast<int32_t>(operation))
                + " is not kSUM"));
            return nullptr;
        }
        return adopt(std::make_unique<CumulativeLayer>(*this, in, ax, operation, exclusive, reverse));
    }
    catch (...)
    {
        reportError(internalError("addCumulative: unexpected exception"));
        return nullptr;
    }
}

Status inferCumulative(InferContext& ctx)
{
    KILN_RETURN_IF_ERROR(ctx.requireInput(0, 1, nvinfer1::Dims::MAX_DIMS));
    KILN_RETURN_IF_ERROR(ctx.requireInput(1, 0, 0));
    TensorInfo const& in = ctx.input(0);
    TensorInfo const& axis = ctx.input(1);
    DataType const t = in.type;
    if (t != DataType::kFLOAT && t != DataType::kHALF && t != DataType::kBF16 && t != DataType::kINT32
        && t != DataType::kINT64)
    {
        return ctx.error("input '" + in.name + "' has type " + dataTypeName(t)
            + "; Cumulative supports FP32, FP16, BF16, INT32 and INT64");
    }
    if (axis.type != DataType::kINT32 && axis.type != DataType::kINT64)
    {
        return ctx.error("axis (input 1) '" + axis.name + "' has type " + dataTypeName(axis.type)
            + "; it must be INT32 or INT64");
    }
    auto const op = static_cast<CumulativeOperation>(ctx.attrs().getInt("operation", -1));
    if (!validCumulativeOp(op))
    {
        return ctx.error("invalid Cumulative operation " + std::to_string(static_cast<int32_t>(op)));
    }
    int32_t const rank = in.rank();
    // A constant axis is checked now; otherwise the kernel checks it when it runs.
    if (axis.values.has_value() && axis.values->size() == 1 && (*axis.values)[0].isConstant())
    {
        int64_t const a = (*axis.values)[0].constant();
        if (a < -rank || a >= rank)
        {
            return ctx.error("axis " + std::to_string(a) + " (input 1) is out of range [" + std::to_string(-rank)
                + ", " + std::to_string(rank - 1) + "] for input '" + in.name + "' of rank " + std::to_string(rank));
        }
    }
    TensorInfo& out = ctx.output(0);
    out.type = t;
    out.dims = in.dims;
    return Status::ok();
}

} // namespace kiln
