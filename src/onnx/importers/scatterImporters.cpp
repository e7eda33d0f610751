// Importers of Scatter, ScatterElements and ScatterND (indexing family). reduction "none" is one IScatterLayer
// (duplicates: the last update wins). TensorRT's scatter has no reductions, so add/mul/max/min are composed: a
// one-hot comparison of each update's target with an index grid selects the updates per output position, a reduce
// layer combines them, and an elementwise layer merges the result into the data.
#include "onnx/importers/shapeFamily.h"
#include "onnx/importers/shapeMath.h"

#include "onnx/importerHelpers.h"
#include "onnx/onnxAttributes.h"

#include <limits>

namespace kiln
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::ElementWiseOperation;
using nvinfer1::ITensor;
using nvinfer1::ReduceOperation;

struct Reduction
{
    ReduceOperation reduce;
    ElementWiseOperation combine;
};

StatusOr<bool> parseReduction(ImporterContext& ctx, ::onnx::NodeProto const& node, Reduction& out)
{
    std::string const name = attrString(node, "reduction", "none");
    if (name == "none")
    {
        return false;
    }
    if (name == "add")
    {
        out = {ReduceOperation::kSUM, ElementWiseOperation::kSUM};
    }
    else if (name == "mul")
    {
        out = {ReduceOperation::kPROD, ElementWiseOperation::kPROD};
    }
    else if (name == "max" && ctx.opsetVersion() >= 18)
    {
        out = {ReduceOperation::kMAX, ElementWiseOperation::kMAX};
    }
    else if (name == "min" && ctx.opsetVersion() >= 18)
    {
        out = {ReduceOperation::kMIN, ElementWiseOperation::kMIN};
    }
    else
    {
        return invalidArgument(describeNode(node) + ": attribute 'reduction' '" + name + "' is not valid in opset "
            + std::to_string(ctx.opsetVersion()));
    }
    return true;
}

//! The identity of `op` as a constant of `type` with `rank` extents of 1.
StatusOr<ITensor*> identityOf(ImporterContext& ctx, ::onnx::NodeProto const& node, ReduceOperation op, DataType type,
    int32_t rank)
{
    std::vector<int64_t> const shape(static_cast<size_t>(rank), 1);
    std::string const name = node.name() + "_identity";
    bool const isInt = type == DataType::kINT32 || type == DataType::kINT64;
    if (isInt && (op == ReduceOperation::kMAX || op == ReduceOperation::kMIN))
    {
        bool const lowest = op == ReduceOperation::kMAX;
        if (type == DataType::kINT64)
        {
            int64_t const v = lowest ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int64_t>::max();
            return ctx.constantTensor(OnnxConstant::fromInt64({v}, shape), name);
        }
        int32_t const v = lowest ? std::numeric_limits<int32_t>::min() : std::numeric_limits<int32_t>::max();
        return ctx.constantTensor(OnnxConstant::fromInt32({v}, shape), name);
    }
    double v = 0.0;
    switch (op)
    {
    case ReduceOperation::kSUM: v = 0.0; break;
    case ReduceOperation::kPROD: v = 1.0; break;
    case ReduceOperation::kMAX: v = -std::numeric_limits<double>::infinity(); break;
    case ReduceOperation::kMIN: v = std::numeric_limits<double>::infinity(); break;
    default: break;
    }
    if (!isFloatType(type) && !isInt)
    {
        return unsupported(describeNode(node) + ": scatter reductions need a floating-point or INT32/INT64 data type");
    }
    KILN_ASSIGN_OR_RETURN(OnnxConstant c, OnnxConstant::fromDouble(type, {v}, shape));
    return ctx.constantTensor(c, name);
}

StatusOr<ITensor*> selectReduceCombine(ImporterContext& ctx, ::onnx::NodeProto const& node, ITensor* mask,
    ITensor* updates, ITensor* data, Reduction const& red, int32_t reduceAxis, ShapeVec const* padTo)
{
    int32_t const rank = mask->getDimensions().nbDims;
    KILN_ASSIGN_OR_RETURN(ITensor * identity, identityOf(ctx, node, red.reduce, updates->getType(), rank));
    auto* select = ctx.network().addSelect(*mask, *updates, *identity);
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, select, "addSelect", "pick_updates"));
    auto* reduce = ctx.network().addReduce(*select->getOutput(0), red.reduce, 1U << reduceAxis, false);
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, reduce, "addReduce", "combine_updates"));
    ITensor* combined = reduce->getOutput(0);
    if (padTo != nullptr)
    {
        // Indices may be smaller than the data off the axis: extend with the identity.
        int32_t const r = combined->getDimensions().nbDims;
        KILN_ASSIGN_OR_RETURN(auto* slice, addSliceLayer(ctx, node, combined, ShapeMath::filled(r, 0), *padTo,
            ShapeMath::filled(r, 1), {}, "extend"));
        slice->setMode(nvinfer1::SampleMode::kFILL);
        KILN_ASSIGN_OR_RETURN(ITensor * fill, identityOf(ctx, node, red.reduce, updates->getType(), 0));
        slice->setInput(4, *fill);
        combined = slice->getOutput(0);
    }
    return addElementWise(ctx, node, data, combined, red.combine, "merge");
}

Status importScatterElements(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ITensor * data, ctx.tensor(node, 0));
    KILN_ASSIGN_OR_RETURN(ITensor * indices, ctx.tensor(node, 1));
    KILN_ASSIGN_OR_RETURN(ITensor * updates, ctx.tensor(node, 2));
    int32_t const r = data->getDimensions().nbDims;
    if (indices->getDimensions().nbDims != r || updates->getDimensions().nbDims != r)
    {
        return invalidArgument(describeNode(node) + ": 'indices' and 'updates' must have the rank of 'data'");
    }
    if (indices->getType() != DataType::kINT32 && indices->getType() != DataType::kINT64)
    {
        return invalidArgument(describeNode(node) + ": input 'indices' must be INT32 or INT64");
    }
    KILN_ASSIGN_OR_RETURN(int32_t axis, normalizeAxis(node, attrInt(node, "axis", 0), r));
    Reduction red{};
    KILN_ASSIGN_OR_RETURN(bool reduce, parseReduction(ctx, node, red));
    if (!reduce)
    {
        auto* layer = ctx.network().addScatter(*data, *indices, *updates, nvinfer1::ScatterMode::kELEMENT);
        KILN_RETURN_IF_ERROR(checkLayer(ctx, node, layer, "addScatter"));
        layer->setAxis(axis);
        outputs.emplace_back(layer->getOutput(0));
        return Status::ok();
    }
    // Move the axis last: data [..., Da], indices/updates [..., Ia]. For each output position p along the axis,
    // reduce the updates whose index equals p over a [..., Da, Ia] grid.
    std::vector<int32_t> perm;
    std::vector<int32_t> inverse(static_cast<size_t>(r));
    for (int32_t i = 0; i < r; ++i)
    {
        if (i != axis)
        {
            perm.push_back(i);
        }
    }
    perm.push_back(axis);
    for (int32_t i = 0; i < r; ++i)
    {
        inverse[static_cast<size_t>(perm[static_cast<size_t>(i)])] = i;
    }
    ShapeMath math(ctx, node);
    KILN_ASSIGN_OR_RETURN(ITensor * d, transpose(ctx, node, data, perm, "data_axis_last"));
    KILN_ASSIGN_OR_RETURN(ITensor * idx, castTo(ctx, node, indices, DataType::kINT64, "indices_int64"));
    KILN_ASSIGN_OR_RETURN(idx, transpose(ctx, node, idx, perm, "indices_axis_last"));
    KILN_ASSIGN_OR_RETURN(ITensor * u, transpose(ctx, node, updates, perm, "updates_axis_last"));
    KILN_ASSIGN_OR_RETURN(ShapeVec dShape, math.shapeOf(d));
    KILN_ASSIGN_OR_RETURN(ShapeVec extent, math.slice(dShape, r - 1, r));
    // Negative indices count from the end: idx + (idx < 0) * Da.
    KILN_ASSIGN_OR_RETURN(ITensor * extentT, math.toTensor(extent));
    KILN_ASSIGN_OR_RETURN(extentT, unsqueezeToRank(ctx, node, extentT, r));
    KILN_ASSIGN_OR_RETURN(ITensor * zero, scalarLike(ctx, node, 0.0, DataType::kINT64, r));
    KILN_ASSIGN_OR_RETURN(ITensor * neg, addElementWise(ctx, node, idx, zero, ElementWiseOperation::kLESS, "neg"));
    KILN_ASSIGN_OR_RETURN(neg, castTo(ctx, node, neg, DataType::kINT64, "neg_int64"));
    KILN_ASSIGN_OR_RETURN(ITensor * shift, addElementWise(ctx, node, neg, extentT, ElementWiseOperation::kPROD, "shift"));
    KILN_ASSIGN_OR_RETURN(idx, addElementWise(ctx, node, idx, shift, ElementWiseOperation::kSUM, "wrapped"));
    // Grid: idx [..., 1, Ia] against iota [1, ..., 1, Da, 1].
    KILN_ASSIGN_OR_RETURN(idx, unsqueeze(ctx, node, idx, {r - 1}, "indices_grid"));
    KILN_ASSIGN_OR_RETURN(u, unsqueeze(ctx, node, u, {r - 1}, "updates_grid"));
    KILN_ASSIGN_OR_RETURN(ShapeVec iotaDims, math.concat({ShapeMath::filled(r - 1, 1), extent, ShapeMath::filled(1, 1)}));
    KILN_ASSIGN_OR_RETURN(ITensor * iota, iotaAlong(ctx, node, iotaDims, r - 1, "positions"));
    KILN_ASSIGN_OR_RETURN(ITensor * mask, addElementWise(ctx, node, idx, iota, ElementWiseOperation::kEQUAL, "targets"));
    KILN_ASSIGN_OR_RETURN(ITensor * merged, selectReduceCombine(ctx, node, mask, u, d, red, r, &dShape));
    KILN_ASSIGN_OR_RETURN(ITensor * y, transpose(ctx, node, merged, inverse, "restore_axis"));
    outputs.emplace_back(y);
    return Status::ok();
}

Status importScatterND(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ITensor * data, ctx.tensor(node, 0));
    KILN_ASSIGN_OR_RETURN(ITensor * indices, ctx.tensor(node, 1));
    KILN_ASSIGN_OR_RETURN(ITensor * updates, ctx.tensor(node, 2));
    if (indices->getType() != DataType::kINT32 && indices->getType() != DataType::kINT64)
    {
        return invalidArgument(describeNode(node) + ": input 'indices' must be INT32 or INT64");
    }
    Reduction red{};
    KILN_ASSIGN_OR_RETURN(bool reduce, parseReduction(ctx, node, red));
    if (!reduce)
    {
        auto* layer = ctx.network().addScatter(*data, *indices, *updates, nvinfer1::ScatterMode::kND);
        KILN_RETURN_IF_ERROR(checkLayer(ctx, node, layer, "addScatter"));
        outputs.emplace_back(layer->getOutput(0));
        return Status::ok();
    }
    int32_t const r = data->getDimensions().nbDims;
    nvinfer1::Dims const id = indices->getDimensions();
    int32_t const q = id.nbDims;
    if (q < 1 || id.d[q - 1] < 1 || id.d[q - 1] > r)
    {
        return unsupported(describeNode(node) + ": the last dimension of 'indices' must be known when the network is "
            "built and lie in [1, rank(data)]");
    }
    int32_t const k = static_cast<int32_t>(id.d[q - 1]);
    ShapeMath math(ctx, node);
    KILN_ASSIGN_OR_RETURN(ShapeVec dShape, math.shapeOf(data));
    KILN_ASSIGN_OR_RETURN(ShapeVec lead, math.slice(dShape, 0, k));
    KILN_ASSIGN_OR_RETURN(ShapeVec rest, math.slice(dShape, k, r));
    KILN_ASSIGN_OR_RETURN(ShapeVec iShape, math.shapeOf(indices));
    KILN_ASSIGN_OR_RETURN(ShapeVec batch, math.slice(iShape, 0, q - 1));
    // Linear target row: sum_j wrap(idx[..., j]) * stride_j over the first k data dimensions.
    std::vector<ShapeVec> strideParts;
    for (int32_t j = 0; j < k; ++j)
    {
        KILN_ASSIGN_OR_RETURN(ShapeVec tail, math.slice(lead, j + 1, k));
        KILN_ASSIGN_OR_RETURN(ShapeVec p, math.product(tail));
        strideParts.push_back(p);
    }
    KILN_ASSIGN_OR_RETURN(ShapeVec strides, math.concat(strideParts));
    KILN_ASSIGN_OR_RETURN(ITensor * leadT, math.toTensor(lead));
    KILN_ASSIGN_OR_RETURN(leadT, unsqueezeToRank(ctx, node, leadT, q));
    KILN_ASSIGN_OR_RETURN(ITensor * strideT, math.toTensor(strides));
    KILN_ASSIGN_OR_RETURN(strideT, unsqueezeToRank(ctx, node, strideT, q));
    KILN_ASSIGN_OR_RETURN(ITensor * idx, castTo(ctx, node, indices, DataType::kINT64, "indices_int64"));
    KILN_ASSIGN_OR_RETURN(ITensor * zero, scalarLike(ctx, node, 0.0, DataType::kINT64, q));
    KILN_ASSIGN_OR_RETURN(ITensor * neg, addElementWise(ctx, node, idx, zero, ElementWiseOperation::kLESS, "neg"));
    KILN_ASSIGN_OR_RETURN(neg, castTo(ctx, node, neg, DataType::kINT64, "neg_int64"));
    KILN_ASSIGN_OR_RETURN(ITensor * shift, addElementWise(ctx, node, neg, leadT, ElementWiseOperation::kPROD, "shift"));
    KILN_ASSIGN_OR_RETURN(idx, addElementWise(ctx, node, idx, shift, ElementWiseOperation::kSUM, "wrapped"));
    KILN_ASSIGN_OR_RETURN(idx, addElementWise(ctx, node, idx, strideT, ElementWiseOperation::kPROD, "scaled"));
    auto* linear = ctx.network().addReduce(*idx, ReduceOperation::kSUM, 1U << (q - 1), false);
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, linear, "addReduce", "linear_index"));
    // Shapes: data [P, S], updates [1, M, S], targets [1, M, 1] against rows [P, 1, 1].
    KILN_ASSIGN_OR_RETURN(ShapeVec pv, math.product(lead));
    KILN_ASSIGN_OR_RETURN(ShapeVec sv, math.product(rest));
    KILN_ASSIGN_OR_RETURN(ShapeVec mv, math.product(batch));
    ShapeVec const one = ShapeMath::filled(1, 1);
    KILN_ASSIGN_OR_RETURN(ShapeVec dataShape2, math.concat({pv, sv}));
    KILN_ASSIGN_OR_RETURN(ShapeVec updShape3, math.concat({one, mv, sv}));
    KILN_ASSIGN_OR_RETURN(ShapeVec linShape3, math.concat({one, mv, one}));
    KILN_ASSIGN_OR_RETURN(ShapeVec rowShape3, math.concat({pv, one, one}));
    KILN_ASSIGN_OR_RETURN(ITensor * d2, reshapeToVec(ctx, node, data, dataShape2, false, "data_rows"));
    KILN_ASSIGN_OR_RETURN(ITensor * u3, reshapeToVec(ctx, node, updates, updShape3, false, "update_rows"));
    KILN_ASSIGN_OR_RETURN(ITensor * l3, reshapeToVec(ctx, node, linear->getOutput(0), linShape3, false, "targets"));
    KILN_ASSIGN_OR_RETURN(ITensor * rows, iotaAlong(ctx, node, rowShape3, 0, "rows"));
    KILN_ASSIGN_OR_RETURN(ITensor * mask, addElementWise(ctx, node, rows, l3, ElementWiseOperation::kEQUAL, "hits"));
    KILN_ASSIGN_OR_RETURN(ITensor * merged, selectReduceCombine(ctx, node, mask, u3, d2, red, 1, nullptr));
    KILN_ASSIGN_OR_RETURN(ITensor * y, reshapeToVec(ctx, node, merged, dShape, false, "restore"));
    outputs.emplace_back(y);
    return Status::ok();
}

} // namespace

std::vector<OpImporterEntry> scatterImporters()
{
    return {
        {"Scatter", importScatterElements},
        {"ScatterElements", importScatterElements},
        {"ScatterND", importScatterND},
    };
}

} // namespace kiln
