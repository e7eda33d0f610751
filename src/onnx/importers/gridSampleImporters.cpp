// Importers of the gridSample op family: GridSample (opsets 16 and 20; 4-D only) → IGridSampleLayer. Opset 16 names
// the modes bilinear/nearest/bicubic, opset 20 linear/nearest/cubic (both spellings are accepted);
// padding_mode zeros/border/reflection maps to SampleMode kFILL/kCLAMP/kREFLECT.
#include "onnx/importerHelpers.h"
#include "onnx/onnxAttributes.h"
#include "onnx/opImporters.h"

namespace kiln
{
namespace
{

using nvinfer1::InterpolationMode;
using nvinfer1::ITensor;
using nvinfer1::SampleMode;

Status importGridSample(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ITensor * x, ctx.tensor(node, 0));
    KILN_ASSIGN_OR_RETURN(ITensor * grid, ctx.tensor(node, 1));
    int32_t const rank = x->getDimensions().nbDims;
    if (rank != 4 || grid->getDimensions().nbDims != 4)
    {
        return unsupported(describeNode(node) + ": only 4-D GridSample (X [N, C, H, W], grid [N, H_out, W_out, 2]) "
            + "is supported; X has rank " + std::to_string(rank));
    }
    if (!isFloatType(x->getType()))
    {
        return unsupported(describeNode(node) + ": input X must be a floating-point tensor for GridSample");
    }
    if (grid->getType() != x->getType())
    {
        KILN_ASSIGN_OR_RETURN(grid, castTo(ctx, node, grid, x->getType(), "grid"));
    }
    std::string const mode = attrString(node, "mode", ctx.opsetVersion() >= 20 ? "linear" : "bilinear");
    InterpolationMode interpolation = InterpolationMode::kLINEAR;
    if (mode == "bilinear" || mode == "linear")
    {
        interpolation = InterpolationMode::kLINEAR;
    }
    else if (mode == "nearest")
    {
        interpolation = InterpolationMode::kNEAREST;
    }
    else if (mode == "bicubic" || mode == "cubic")
    {
        interpolation = InterpolationMode::kCUBIC;
    }
    else
    {
        return invalidArgument(describeNode(node) + ": attribute 'mode' is '" + mode
            + "'; expected bilinear/linear, nearest or bicubic/cubic");
    }
    std::string const padding = attrString(node, "padding_mode", "zeros");
    SampleMode sample = SampleMode::kFILL;
    if (padding == "zeros")
    {
        sample = SampleMode::kFILL;
    }
    else if (padding == "border")
    {
        sample = SampleMode::kCLAMP;
    }
    else if (padding == "reflection")
    {
        sample = SampleMode::kREFLECT;
    }
    else
    {
        return invalidArgument(describeNode(node) + ": attribute 'padding_mode' is '" + padding
            + "'; expected zeros, border or reflection");
    }
    auto* layer = ctx.network().addGridSample(*x, *grid);
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, layer, "addGridSample"));
    layer->setInterpolationMode(interpolation);
    layer->setAlignCorners(attrInt(node, "align_corners", 0) != 0);
    if (!layer->setSampleMode(sample))
    {
        return internalError(describeNode(node) + ": IGridSampleLayer refused padding_mode '" + padding + "'");
    }
    outputs.emplace_back(layer->getOutput(0));
    return Status::ok();
}

} // namespace

std::vector<OpImporterEntry> gridSampleImporters()
{
    return {{"GridSample", importGridSample}};
}

} // namespace kiln
