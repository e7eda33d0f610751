// Importers of the dataDependent op family, whose output shapes depend on input values:
// - NonZero (opsets 9, 13) → INonZeroLayer with INT64 indices ([rank, count]).
// - NonMaxSuppression (opsets 10, 11) → INMSLayer: scores [B, C, N] are transposed to TensorRT's [B, N, C], the
//   optional scalar inputs are reshaped to 0-D (max_output_boxes_per_class cast to INT32, a shape tensor), an absent
//   score_threshold becomes -inf (ONNX then filters nothing, TensorRT's default would drop scores <= 0), and the
//   INT64 [count, 3] (batch, class, box) rows are the layer's first output.
// - Compress (opsets 9, 11) → NonZero(condition) + Gather along the axis (or over the flattened input).
#include "onnx/importerHelpers.h"
#include "onnx/onnxAttributes.h"
#include "onnx/opImporters.h"

#include <limits>

namespace kiln
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::Dims;
using nvinfer1::ITensor;

Dims scalarDims()
{
    Dims d{};
    d.nbDims = 0;
    return d;
}

Status importNonZero(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ITensor * x, ctx.tensor(node, 0));
    auto* layer = ctx.network().addNonZero(*x, DataType::kINT64);
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, layer, "addNonZero"));
    outputs.emplace_back(layer->getOutput(0));
    return Status::ok();
}

//! Optional one-element input `index` as a 0-D tensor of `type`; nullptr when absent.
StatusOr<ITensor*> scalarInput(ImporterContext& ctx, ::onnx::NodeProto const& node, int32_t index, DataType type,
    char const* what)
{
    if (!ctx.hasInput(node, index))
    {
        return static_cast<ITensor*>(nullptr);
    }
    KILN_ASSIGN_OR_RETURN(ITensor * t, ctx.tensor(node, index));
    Dims const d = t->getDimensions();
    int64_t count = 1;
    for (int32_t i = 0; i < d.nbDims && count >= 0; ++i)
    {
        if (d.d[i] < 0 || __builtin_mul_overflow(count, d.d[i], &count))
        {
            count = -1; // unknown or beyond int64_t: not a scalar
        }
    }
    if (d.nbDims > 1 || count != 1)
    {
        return invalidArgument(describeNode(node) + ": input " + std::to_string(index) + " (" + what
            + ") must hold one value (a scalar or a 1-element 1-D tensor)");
    }
    if (d.nbDims == 1)
    {
        KILN_ASSIGN_OR_RETURN(t, reshape(ctx, node, t, scalarDims(), what));
    }
    return castTo(ctx, node, t, type, what);
}

Status importNonMaxSuppression(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ITensor * boxes, ctx.tensor(node, 0));
    KILN_ASSIGN_OR_RETURN(ITensor * scores, ctx.tensor(node, 1));
    if (boxes->getDimensions().nbDims != 3 || scores->getDimensions().nbDims != 3)
    {
        return invalidArgument(describeNode(node) + ": boxes must be [num_batches, spatial_dimension, 4] and scores "
            + "[num_batches, num_classes, spatial_dimension]");
    }
    int64_t const centerPointBox = attrInt(node, "center_point_box", 0);
    if (centerPointBox != 0 && centerPointBox != 1)
    {
        return invalidArgument(describeNode(node) + ": attribute 'center_point_box' is " + std::to_string(centerPointBox)
            + "; it must be 0 or 1");
    }
    KILN_ASSIGN_OR_RETURN(ITensor * scoresBNC, transpose(ctx, node, scores, {0, 2, 1}, "scores"));
    if (scoresBNC->getType() != boxes->getType())
    {
        KILN_ASSIGN_OR_RETURN(scoresBNC, castTo(ctx, node, scoresBNC, boxes->getType(), "scores"));
    }
    KILN_ASSIGN_OR_RETURN(ITensor * maxOut, scalarInput(ctx, node, 2, DataType::kINT32, "max_output_boxes_per_class"));
    if (maxOut == nullptr)
    {
        // ONNX default: no box is selected.
        KILN_ASSIGN_OR_RETURN(maxOut, ctx.constantTensor(OnnxConstant::fromInt32({0}, {}), node.name() + "_max_boxes"));
    }
    KILN_ASSIGN_OR_RETURN(ITensor * iou, scalarInput(ctx, node, 3, DataType::kFLOAT, "iou_threshold"));
    KILN_ASSIGN_OR_RETURN(ITensor * scoreThreshold, scalarInput(ctx, node, 4, DataType::kFLOAT, "score_threshold"));
    if (scoreThreshold == nullptr)
    {
        KILN_ASSIGN_OR_RETURN(scoreThreshold,
            ctx.constantTensor(OnnxConstant::fromFloat({-std::numeric_limits<float>::infinity()}, {}),
                node.name() + "_score_threshold"));
    }
    auto* layer = ctx.network().addNMS(*boxes, *scoresBNC, *maxOut, DataType::kINT64);
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, layer, "addNMS"));
    layer->setBoundingBoxFormat(centerPointBox == 1 ? nvinfer1::BoundingBoxFormat::kCENTER_SIZES
                                                    : nvinfer1::BoundingBoxFormat::kCORNER_PAIRS);
    if (iou != nullptr)
    {
        layer->setInput(3, *iou);
    }
    layer->setInput(4, *scoreThreshold);
    outputs.emplace_back(layer->getOutput(0));
    return Status::ok();
}

Status importCompress(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ITensor * x, ctx.tensor(node, 0));
    KILN_ASSIGN_OR_RETURN(ITensor * condition, ctx.tensor(node, 1));
    if (condition->getDimensions().nbDims != 1)
    {
        return invalidArgument(describeNode(node) + ": input 'condition' must be 1-D; it has rank "
            + std::to_string(condition->getDimensions().nbDims));
    }
    int32_t axis = 0;
    if (hasAttribute(node, "axis"))
    {
        KILN_ASSIGN_OR_RETURN(axis, normalizeAxis(node, attrInt(node, "axis", 0), x->getDimensions().nbDims));
    }
    else
    {
        Dims flat{};
        flat.nbDims = 1;
        flat.d[0] = -1;
        KILN_ASSIGN_OR_RETURN(x, reshape(ctx, node, x, flat, "flatten"));
    }
    auto* nonZero = ctx.network().addNonZero(*condition, DataType::kINT64);
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, nonZero, "addNonZero", "positions"));
    KILN_ASSIGN_OR_RETURN(ITensor * positions, squeeze(ctx, node, nonZero->getOutput(0), {0}, "positions"));
    auto* gather = ctx.network().addGather(*x, *positions, axis);
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, gather, "addGather", "select"));
    outputs.emplace_back(gather->getOutput(0));
    return Status::ok();
}

} // namespace

std::vector<OpImporterEntry> dataDependentImporters()
{
    return {
        {"NonZero", importNonZero},
        {"NonMaxSuppression", importNonMaxSuppression},
        {"Compress", importCompress},
    };
}

} // namespace kiln
