// Importers of Cast, CastLike, Identity and Dropout (inference: identity, with an all-true mask when requested).
// DOUBLE is Kiln's FP32, so a cast to DOUBLE is a cast to FP32; types Kiln does not store (STRING, INT16, UINT16/32/
// 64, FLOAT8, ...) are refused with a message naming the type.
#include "onnx/importerHelpers.h"
#include "onnx/importers/elementwiseUtils.h"
#include "onnx/onnxAttributes.h"
#include "onnx/opImporters.h"
#include "onnx/tensorConversion.h"

namespace kiln
{
using nvinfer1::DataType;
using nvinfer1::ITensor;

namespace
{

using NodeProto = ::onnx::NodeProto;

//! x converted to `type`; an IIdentityLayer when it already has that type (the output is a new tensor either way).
StatusOr<OnnxValue> castValue(ImporterContext& ctx, NodeProto const& node, DataType type)
{
    KILN_ASSIGN_OR_RETURN(ITensor * x, inputTensor(ctx, node, 0));
    if (x->getType() == type)
    {
        return passThrough(ctx, node, 0);
    }
    nvinfer1::ICastLayer* layer = ctx.network().addCast(*x, type);
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, layer, "addCast"));
    return OnnxValue(layer->getOutput(0));
}

Status importCast(ImporterContext& ctx, NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(int64_t const to, requireAttrInt(node, "to"));
    auto type = onnxToKilnType(static_cast<int32_t>(to));
    if (!type.isOk())
    {
        return unsupported(describeNode(node) + ": Cast to " + onnxTypeName(static_cast<int32_t>(to))
            + " is not supported (Kiln stores FLOAT, FLOAT16, BFLOAT16, DOUBLE as FLOAT, INT8, UINT8, INT32, INT64 "
              "and BOOL)");
    }
    KILN_ASSIGN_OR_RETURN(OnnxValue value, castValue(ctx, node, *type));
    outputs = {value};
    return Status::ok();
}

Status importCastLike(ImporterContext& ctx, NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    DataType type{};
    if (OnnxConstant const* like = ctx.constant(node, 1))
    {
        type = like->type;
    }
    else
    {
        KILN_ASSIGN_OR_RETURN(ITensor * target, inputTensor(ctx, node, 1));
        type = target->getType();
    }
    KILN_ASSIGN_OR_RETURN(OnnxValue value, castValue(ctx, node, type));
    outputs = {value};
    return Status::ok();
}

Status importIdentity(ImporterContext& ctx, NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(OnnxValue value, passThrough(ctx, node, 0));
    outputs = {value};
    return Status::ok();
}

//! Whether a Dropout node runs in training mode: opset >= 12 input 'training_mode' (default false). A runtime
//! training_mode cannot be honoured; it is imported as inference with a warning.
StatusOr<bool> dropoutTraining(ImporterContext& ctx, NodeProto const& node)
{
    if (ctx.opsetVersion() < 12 || !ctx.hasInput(node, 2))
    {
        return false;
    }
    OnnxConstant const* mode = ctx.constant(node, 2);
    if (mode == nullptr)
    {
        ctx.warn(node, "input 'training_mode' is only known at run time; Dropout is imported for inference");
        return false;
    }
    KILN_ASSIGN_OR_RETURN(std::vector<int64_t> values, mode->toInt64());
    return !values.empty() && values[0] != 0;
}

//! The ratio of a training-mode Dropout (attribute before opset 12, input 'ratio' after; default 0.5).
StatusOr<double> dropoutRatio(ImporterContext& ctx, NodeProto const& node)
{
    if (ctx.opsetVersion() < 12)
    {
        return static_cast<double>(attrFloat(node, "ratio", 0.5F));
    }
    if (!ctx.hasInput(node, 1))
    {
        return 0.5;
    }
    OnnxConstant const* ratio = ctx.constant(node, 1);
    if (ratio == nullptr)
    {
        return -1.0; // unknown
    }
    KILN_ASSIGN_OR_RETURN(std::vector<double> values, ratio->toDouble());
    return values.empty() ? 0.5 : values[0];
}

Status importDropout(ImporterContext& ctx, NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(bool const training, dropoutTraining(ctx, node));
    if (training)
    {
        KILN_ASSIGN_OR_RETURN(double const ratio, dropoutRatio(ctx, node));
        if (ratio != 0.0)
        {
            return unsupported(describeNode(node) + ": Dropout with training_mode = true (random dropping) is not "
                                                    "supported; Kiln imports Dropout for inference only");
        }
    }
    KILN_ASSIGN_OR_RETURN(OnnxValue output, passThrough(ctx, node, 0));
    outputs = {output};
    if (node.output_size() > 1 && !node.output(1).empty())
    {
        // The mask keeps every element: BOOL from opset 10, the data type before.
        KILN_ASSIGN_OR_RETURN(ITensor * x, inputTensor(ctx, node, 0));
        KILN_ASSIGN_OR_RETURN(ITensor * mask, allTrueLike(ctx, node, x, "_mask"));
        if (ctx.opsetVersion() < 10)
        {
            KILN_ASSIGN_OR_RETURN(mask, castTo(ctx, node, mask, x->getType(), "_maskCast"));
        }
        outputs.emplace_back(mask);
    }
    return Status::ok();
}

} // namespace

std::vector<OpImporterEntry> castImporters()
{
    return {
        {"Cast", importCast},
        {"CastLike", importCastLike},
        {"Identity", importIdentity},
        {"Dropout", importDropout},
    };
}

} // namespace kiln
