// Importers of the softmax op family: Softmax, LogSoftmax and Hardmax. Before opset 13 the input is coerced to 2-D
// around `axis` (flatten, operate over the last dimension, reshape back); from opset 13 they work on one axis.
// LogSoftmax is x - max - log(sum(exp(x - max))); Hardmax is a one-hot of TopK(k=1) compared against an iota.
#include "onnx/importerHelpers.h"
#include "onnx/importers/nnUtils.h"
#include "onnx/onnxAttributes.h"
#include "onnx/opImporters.h"

namespace kiln
{
namespace
{

using namespace kiln::nn;

using nvinfer1::DataType;
using nvinfer1::Dims;
using nvinfer1::ElementWiseOperation;
using nvinfer1::ITensor;
using nvinfer1::ReduceOperation;

enum class SoftmaxKind
{
    kSOFTMAX,
    kLOG_SOFTMAX,
    kHARDMAX
};

StatusOr<ITensor*> softmaxAlong(ImporterContext& ctx, ::onnx::NodeProto const& node, ITensor* x, int32_t axis,
    SoftmaxKind kind)
{
    int32_t const rank = rankOf(x);
    if (kind == SoftmaxKind::kSOFTMAX)
    {
        auto* layer = ctx.network().addSoftMax(*x);
        KILN_RETURN_IF_ERROR(checkLayer(ctx, node, layer, "addSoftMax"));
        layer->setAxes(1U << axis);
        return layer->getOutput(0);
    }
    if (kind == SoftmaxKind::kLOG_SOFTMAX)
    {
        uint32_t const mask = 1U << axis;
        KILN_ASSIGN_OR_RETURN(ITensor * m, addReduce(ctx, node, x, ReduceOperation::kMAX, mask, true, "max"));
        KILN_ASSIGN_OR_RETURN(ITensor * d, addElementWise(ctx, node, x, m, ElementWiseOperation::kSUB, "shifted"));
        KILN_ASSIGN_OR_RETURN(ITensor * e, addUnary(ctx, node, d, nvinfer1::UnaryOperation::kEXP, "exp"));
        KILN_ASSIGN_OR_RETURN(ITensor * s, addReduce(ctx, node, e, ReduceOperation::kSUM, mask, true, "sum"));
        KILN_ASSIGN_OR_RETURN(ITensor * l, addUnary(ctx, node, s, nvinfer1::UnaryOperation::kLOG, "log"));
        return addElementWise(ctx, node, d, l, ElementWiseOperation::kSUB, "logsoftmax");
    }
    int64_t const extent = x->getDimensions().d[axis];
    if (extent < 0)
    {
        return unsupported(describeNode(node) + ": Hardmax needs a build-time extent along the axis");
    }
    auto* topk = ctx.network().addTopK(*x, nvinfer1::TopKOperation::kMAX, 1, 1U << axis, DataType::kINT64);
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, topk, "addTopK", "argmax"));
    std::vector<int64_t> iota(static_cast<size_t>(extent));
    for (int64_t i = 0; i < extent; ++i)
    {
        iota[static_cast<size_t>(i)] = i;
    }
    KILN_ASSIGN_OR_RETURN(ITensor * positions, int64Vector(ctx, node, iota));
    std::vector<int64_t> shape(static_cast<size_t>(rank), 1);
    shape[static_cast<size_t>(axis)] = extent;
    KILN_ASSIGN_OR_RETURN(Dims d, nnDims(node, shape));
    KILN_ASSIGN_OR_RETURN(positions, reshape(ctx, node, positions, d, "iota"));
    KILN_ASSIGN_OR_RETURN(ITensor * hot,
        addElementWise(ctx, node, topk->getOutput(1), positions, ElementWiseOperation::kEQUAL, "one_hot"));
    return castTo(ctx, node, hot, x->getType(), "hardmax");
}

Status importSoftmaxFamily(
    ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs, SoftmaxKind kind)
{
    KILN_ASSIGN_OR_RETURN(ITensor * x, ctx.tensor(node, 0));
    if (!isFloatType(x->getType()))
    {
        return unsupported(describeNode(node) + ": input 'input' must be a floating-point tensor");
    }
    int32_t const rank = rankOf(x);
    if (rank < 1)
    {
        return invalidArgument(describeNode(node) + ": input 'input' must have rank >= 1");
    }
    bool const legacy = ctx.opsetVersion() < 13;
    KILN_ASSIGN_OR_RETURN(int32_t axis, normalizeAxis(node, attrInt(node, "axis", legacy ? 1 : -1), rank));
    if (!legacy || axis == rank - 1)
    {
        // With the axis innermost, the 2-D coercion is the same as operating on the last axis.
        KILN_ASSIGN_OR_RETURN(ITensor * y, softmaxAlong(ctx, node, x, legacy ? rank - 1 : axis, kind));
        outputs.emplace_back(y);
        return Status::ok();
    }
    KILN_ASSIGN_OR_RETURN(ITensor * flat, flatten2D(ctx, node, x, axis, "coerce_2d"));
    KILN_ASSIGN_OR_RETURN(ITensor * y, softmaxAlong(ctx, node, flat, 1, kind));
    Dims const in = x->getDimensions();
    bool isStatic = true;
    for (int32_t i = 0; i < in.nbDims; ++i)
    {
        isStatic = isStatic && in.d[i] >= 0;
    }
    if (isStatic)
    {
        KILN_ASSIGN_OR_RETURN(y, reshape(ctx, node, y, in, "restore_shape"));
    }
    else
    {
        KILN_ASSIGN_OR_RETURN(ITensor * shape, shapeOf(ctx, node, x));
        KILN_ASSIGN_OR_RETURN(y, reshapeTo(ctx, node, y, shape, "restore_shape"));
    }
    outputs.emplace_back(y);
    return Status::ok();
}

Status importSoftmax(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    return importSoftmaxFamily(ctx, node, outputs, SoftmaxKind::kSOFTMAX);
}

Status importLogSoftmax(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    return importSoftmaxFamily(ctx, node, outputs, SoftmaxKind::kLOG_SOFTMAX);
}

Status importHardmax(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    return importSoftmaxFamily(ctx, node, outputs, SoftmaxKind::kHARDMAX);
}

} // namespace

std::vector<OpImporterEntry> softmaxImporters()
{
    return {
        {"Softmax", &importSoftmax},
        {"LogSoftmax", &importLogSoftmax},
        {"Hardmax", &importHardmax},
    };
}

} // namespace kiln
