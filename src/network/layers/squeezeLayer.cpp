// SqueezeLayer / UnsqueezeLayer, INetworkDefinition::addSqueeze / addUnsqueeze and their shape/type inference.
// Shape-tensor values pass through unchanged (the element order does not change).
#include "network/layers/squeezeLayer.h"

#include "core/dataType.h"
#include "network/layerTable.h"
#include "network/networkDefinition.h"

#include <algorithm>

namespace kiln
{
using nvinfer1::DataType;

namespace
{

//! The axes (input 1) normalised against `rank`, sorted; errors name the layer.
StatusOr<std::vector<int64_t>> readAxes(InferContext& ctx, int32_t rank)
{
    KILN_RETURN_IF_ERROR(ctx.requireInput(1, 1, 1));
    TensorInfo const& axes = ctx.input(1);
    if (axes.type != DataType::kINT32 && axes.type != DataType::kINT64)
    {
        return ctx.error("axes (input 1) '" + axes.name + "' has type " + dataTypeName(axes.type)
            + "; it must be INT32 or INT64");
    }
    KILN_RETURN_IF_ERROR(ctx.requireValues(1));
    std::vector<int64_t> out;
    for (DimExpr const& v : *axes.values)
    {
        if (!v.isConstant())
        {
            return ctx.error("axes (input 1) '" + axes.name + "' must be a build-time constant");
        }
        int64_t a = v.constant();
        if (a < -rank || a >= rank)
        {
            return ctx.error("axis " + std::to_string(a) + " is out of range [" + std::to_string(-rank) + ", "
                + std::to_string(rank - 1) + "]");
        }
        a = a < 0 ? a + rank : a;
        if (std::find(out.begin(), out.end(), a) != out.end())
        {
            return ctx.error("axis " + std::to_string(a) + " is listed twice");
        }
        out.push_back(a);
    }
    std::sort(out.begin(), out.end());
    return out;
}

template <typename L>
L* addAxesLayer(NetworkDefinition& network, nvinfer1::ITensor& input, nvinfer1::ITensor& axes, char const* api)
{
    Tensor* in = network.ownTensor(&input, (std::string(api) + " input").c_str());
    Tensor* ax = in != nullptr ? network.ownTensor(&axes, (std::string(api) + " axes").c_str()) : nullptr;
    if (ax == nullptr)
    {
        return nullptr;
    }
    auto layer = std::make_unique<L>(network, in, ax);
    L* raw = layer.get();
    network.adopt(std::move(layer));
    return raw;
}

} // namespace

SqueezeLayer::SqueezeLayer(NetworkDefinition& network, Tensor* input, Tensor* axes)
    : LayerBase<nvinfer1::ISqueezeLayer>(network, nvinfer1::LayerType::kSQUEEZE, {input, axes}, 1)
{
}

UnsqueezeLayer::UnsqueezeLayer(NetworkDefinition& network, Tensor* input, Tensor* axes)
    : LayerBase<nvinfer1::IUnsqueezeLayer>(network, nvinfer1::LayerType::kUNSQUEEZE, {input, axes}, 1)
{
}

nvinfer1::ISqueezeLayer* NetworkDefinition::addSqueeze(nvinfer1::ITensor& input, nvinfer1::ITensor& axes) noexcept
{
    try
    {
        return addAxesLayer<SqueezeLayer>(*this, input, axes, "addSqueeze");
    }
    catch (...)
    {
        reportError(internalError("addSqueeze: unexpected exception"));
        return nullptr;
    }
}

nvinfer1::IUnsqueezeLayer* NetworkDefinition::addUnsqueeze(nvinfer1::ITensor& input, nvinfer1::ITensor& axes) noexcept
{
    try
    {
        return addAxesLayer<UnsqueezeLayer>(*this, input, axes, "addUnsqueeze");
    }
    catch (...)
    {
        reportError(internalError("addUnsqueeze: unexpected exception"));
        return nullptr;
    }
}

Status inferSqueeze(InferContext& ctx)
{
    KILN_RETURN_IF_ERROR(ctx.requireInput(0, 0, nvinfer1::Dims::MAX_DIMS));
    TensorInfo const& in = ctx.input(0);
    KILN_ASSIGN_OR_RETURN(std::vector<int64_t> const axes, readAxes(ctx, in.rank()));
    ShapeExpr dims;
    for (int32_t d = 0; d < in.rank(); ++d)
    {
        DimExpr const e = in.dims[static_cast<size_t>(d)];
        if (std::find(axes.begin(), axes.end(), d) == axes.end())
        {
            dims.push_back(e);
            continue;
        }
        std::string const what = "dimension " + std::to_string(d) + " of input '" + in.name
            + "' must have extent 1 to be squeezed";
        if (e.isConstant())
        {
            if (e.constant() != 1)
            {
                return ctx.error(what + " (it has " + std::to_string(e.constant()) + ")");
            }
        }
        else
        {
            KILN_RETURN_IF_ERROR(ctx.require(e.eq(1), what));
        }
    }
    TensorInfo& out = ctx.output(0);
    out.type = in.type;
    out.dims = dims;
    out.values = in.values;
    return Status::ok();
}

Status inferUnsqueeze(InferContext& ctx)
{
    KILN_RETURN_IF_ERROR(ctx.requireInput(0, 0, nvinfer1::Dims::MAX_DIMS));
    KILN_RETURN_IF_ERROR(ctx.requireInput(1, 1, 1));
    TensorInfo const& in = ctx.input(0);
    TensorInfo const& axesInfo = ctx.input(1);
    int32_t nbAxes = 0;
    if (axesInfo.values.has_value())
    {
        nbAxes = static_cast<int32_t>(axesInfo.values->size());
    }
    int32_t const outRank = in.rank() + nbAxes;
    if (outRank > nvinfer1::Dims::MAX_DIMS)
    {
        return ctx.error("the output would have rank " + std::to_string(outRank) + " (more than "
            + std::to_string(nvinfer1::Dims::MAX_DIMS) + ")");
    }
    KILN_ASSIGN_OR_RETURN(std::vector<int64_t> const axes, readAxes(ctx, outRank));
    ShapeExpr dims;
    size_t next = 0;
    for (int32_t d = 0; d < outRank; ++d)
    {
        if (std::find(axes.begin(), axes.end(), d) != axes.end())
        {
            dims.push_back(ctx.constant(1));
        }
        else
        {
            dims.push_back(in.dims[next++]);
        }
    }
    TensorInfo& out = ctx.output(0);
    out.type = in.type;
    out.dims = dims;
    out.values = in.values;
    return Status::ok();
}

} // namespace kiln
