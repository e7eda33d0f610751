// Importers of the loss op family: SoftmaxCrossEntropyLoss and NegativeLogLikelihoodLoss (opsets 12/13), composed
// from a stable log-softmax, an element gather of the target class along axis 1, a gather of the class weights,
// an ignore_index mask (ignored labels are replaced by class 0 before gathering, so they may be out of range) and
// the reduction: none, sum, or mean = sum(loss) / sum(weights of the counted elements).
#include "onnx/importerHelpers.h"
#include "onnx/importers/compositeUtils.h"
#include "onnx/onnxAttributes.h"
#include "onnx/opImporters.h"

namespace kiln
{
namespace
{
using nvinfer1::DataType;
using nvinfer1::ElementWiseOperation;
using nvinfer1::ITensor;

Status importLoss(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs, bool softmax)
{
    KILN_RETURN_IF_ERROR(composite::checkOutputCount(node, softmax ? 2 : 1));
    std::string const reduction = attrString(node, "reduction", "mean");
    if (reduction != "none" && reduction != "sum" && reduction != "mean")
    {
        return invalidArgument(describeNode(node) + ": attribute 'reduction' must be 'none', 'sum' or 'mean', got '"
            + reduction + "'");
    }
    bool const hasIgnore = hasAttribute(node, "ignore_index");
    int64_t const ignoreIndex = attrInt(node, "ignore_index", 0);

    KILN_ASSIGN_OR_RETURN(ITensor * scores, ctx.tensor(node, 0));
    KILN_ASSIGN_OR_RETURN(ITensor * labels, ctx.tensor(node, 1));
    int32_t const rank = rankOf(scores);
    if (!isFloatType(scores->getType()))
    {
        return invalidArgument(describeNode(node) + ": input 0 (scores) must be a floating-point tensor");
    }
    if (rank < 2)
    {
        return invalidArgument(describeNode(node) + ": input 0 (scores) must have shape [N, C, d1, ...], got rank "
            + std::to_string(rank));
    }
    if (rankOf(labels) != rank - 1)
    {
        return invalidArgument(describeNode(node) + ": input 1 (labels) must have rank " + std::to_string(rank - 1)
            + " (the scores' rank minus one), got " + std::to_string(rankOf(labels)));
    }
    if (labels->getType() != DataType::kINT32 && labels->getType() != DataType::kINT64)
    {
        return invalidArgument(describeNode(node) + ": input 1 (labels) must be int32 or int64");
    }

    ITensor* logProb = scores;
    if (softmax)
    {
        KILN_ASSIGN_OR_RETURN(logProb, composite::logSoftmax(ctx, node, scores, 1, "_log_prob"));
    }

    // Ignored labels become class 0 so that the gathers stay in range; their contribution is masked out below.
    ITensor* ignored = nullptr;
    ITensor* safeLabels = labels;
    if (hasIgnore)
    {
        KILN_ASSIGN_OR_RETURN(ITensor * ii, scalarLike(ctx, node, static_cast<double>(ignoreIndex), labels->getType(),
            rank - 1));
        KILN_ASSIGN_OR_RETURN(ignored, addElementWise(ctx, node, labels, ii, ElementWiseOperation::kEQUAL, "_ignored"));
        KILN_ASSIGN_OR_RETURN(ITensor * zero, scalarLike(ctx, node, 0.0, labels->getType(), rank - 1));
        KILN_ASSIGN_OR_RETURN(safeLabels, composite::select(ctx, node, ignored, zero, labels, "_safe_labels"));
    }

    KILN_ASSIGN_OR_RETURN(ITensor * index, unsqueeze(ctx, node, safeLabels, {1}, "_index"));
    nvinfer1::IGatherLayer* gather = ctx.network().addGatherV2(*logProb, *index, nvinfer1::GatherMode::kELEMENT);
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, gather, "addGatherV2", "_pick"));
    gather->setGatherAxis(1);
    KILN_ASSIGN_OR_RETURN(ITensor * picked, squeeze(ctx, node, gather->getOutput(0), {1}, "_picked"));

    ITensor* weight = nullptr; // per-element weight, null when every element counts 1
    if (ctx.hasInput(node, 2))
    {
        KILN_ASSIGN_OR_RETURN(ITensor * classWeights, ctx.tensor(node, 2));
        if (rankOf(classWeights) != 1)
        {
            return invalidArgument(describeNode(node) + ": input 2 (weights) must be 1-D [C], got rank "
                + std::to_string(rankOf(classWeights)));
        }
        nvinfer1::IGatherLayer* wg = ctx.network().addGather(*classWeights, *safeLabels, 0);
        KILN_RETURN_IF_ERROR(checkLayer(ctx, node, wg, "addGather", "_weight"));
        KILN_ASSIGN_OR_RETURN(weight, castTo(ctx, node, wg->getOutput(0), scores->getType(), "_weight_cast"));
    }
    if (ignored != nullptr)
    {
        KILN_ASSIGN_OR_RETURN(ITensor * zero, scalarLike(ctx, node, 0.0, scores->getType(), rank - 1));
        ITensor* kept = weight;
        if (kept == nullptr)
        {
            KILN_ASSIGN_OR_RETURN(kept, scalarLike(ctx, node, 1.0, scores->getType(), rank - 1));
        }
        KILN_ASSIGN_OR_RETURN(weight, composite::select(ctx, node, ignored, zero, kept, "_weight_mask"));
    }

    KILN_ASSIGN_OR_RETURN(ITensor * loss, addUnary(ctx, node, picked, nvinfer1::UnaryOperation::kNEG, "_neg"));
    if (weight != nullptr)
    {
        KILN_ASSIGN_OR_RETURN(loss, addElementWise(ctx, node, loss, weight, ElementWiseOperation::kPROD, "_weighted"));
    }

    using nvinfer1::ReduceOperation;
    if (reduction == "sum")
    {
        KILN_ASSIGN_OR_RETURN(loss, composite::reduceAll(ctx, node, loss, ReduceOperation::kSUM, false, "_sum"));
    }
    else if (reduction == "mean")
    {
        if (weight == nullptr)
        {
            KILN_ASSIGN_OR_RETURN(loss, composite::reduceAll(ctx, node, loss, ReduceOperation::kAVG, false, "_mean"));
        }
        else
        {
            KILN_ASSIGN_OR_RETURN(ITensor * num, composite::reduceAll(ctx, node, loss, ReduceOperation::kSUM, false,
                "_sum"));
            KILN_ASSIGN_OR_RETURN(ITensor * den, composite::reduceAll(ctx, node, weight, ReduceOperation::kSUM, false,
                "_weight_sum"));
            KILN_ASSIGN_OR_RETURN(loss, addElementWise(ctx, node, num, den, ElementWiseOperation::kDIV, "_mean"));
        }
    }
    outputs.clear();
    outputs.emplace_back(loss);
    if (node.output_size() > 1)
    {
        outputs.emplace_back(logProb);
    }
    return Status::ok();
}

Status importSoftmaxCrossEntropyLoss(
    ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    return importLoss(ctx, node, outputs, true);
}

Status importNegativeLogLikelihoodLoss(
    ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    return importLoss(ctx, node, outputs, false);
}

} // namespace

std::vector<OpImporterEntry> lossImporters()
{
    return {
        {"SoftmaxCrossEntropyLoss", importSoftmaxCrossEntropyLoss},
        {"NegativeLogLikelihoodLoss", importNegativeLogLikelihoodLoss},
    };
}

} // namespace kiln
