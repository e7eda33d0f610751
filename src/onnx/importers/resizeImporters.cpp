// Importers of the resize op family: Resize (opsets 10, 11, 13, 18, 19) and Upsample (opsets 7 and 9) onto
// IResizeLayer. Output extents come from constant scales, from constant sizes, from a run-time sizes shape tensor, or
// from run-time scales (a FLOAT shape tensor given to IResizeLayer as input 1, see network/layers/resizeLayer.h).
#include "onnx/importerHelpers.h"
#include "onnx/importers/nnUtils.h"
#include "onnx/onnxAttributes.h"
#include "onnx/opImporters.h"

#include <algorithm>
#include <cmath>

namespace kiln
{
namespace
{

using namespace kiln::nn;

using nvinfer1::Dims;
using nvinfer1::InterpolationMode;
using nvinfer1::ITensor;
using nvinfer1::ResizeCoordinateTransformation;
using nvinfer1::ResizeRoundMode;
using nvinfer1::ResizeSelector;

struct ResizeSettings
{
    InterpolationMode mode{InterpolationMode::kNEAREST};
    ResizeCoordinateTransformation transform{ResizeCoordinateTransformation::kHALF_PIXEL};
    ResizeSelector selector{ResizeSelector::kFORMULA};
    ResizeRoundMode rounding{ResizeRoundMode::kHALF_DOWN};
    float cubicCoeff{-0.75F};
    bool excludeOutside{false};
};

StatusOr<InterpolationMode> readMode(::onnx::NodeProto const& node)
{
    std::string const mode = attrString(node, "mode", "nearest");
    if (mode == "nearest")
    {
        return InterpolationMode::kNEAREST;
    }
    if (mode == "linear" || mode == "bilinear" || mode == "trilinear")
    {
        return InterpolationMode::kLINEAR;
    }
    if (mode == "cubic")
    {
        return InterpolationMode::kCUBIC;
    }
    return invalidArgument(describeNode(node) + ": attribute 'mode' has unknown value '" + mode + "'");
}

StatusOr<ResizeRoundMode> readNearestMode(::onnx::NodeProto const& node)
{
    std::string const m = attrString(node, "nearest_mode", "round_prefer_floor");
    if (m == "round_prefer_floor")
    {
        return ResizeRoundMode::kHALF_DOWN;
    }
    if (m == "round_prefer_ceil")
    {
        return ResizeRoundMode::kHALF_UP;
    }
    if (m == "floor")
    {
        return ResizeRoundMode::kFLOOR;
    }
    if (m == "ceil")
    {
        return ResizeRoundMode::kCEIL;
    }
    return invalidArgument(describeNode(node) + ": attribute 'nearest_mode' has unknown value '" + m + "'");
}

//! Opset 11+ attributes.
StatusOr<ResizeSettings> readSettings11(::onnx::NodeProto const& node)
{
    ResizeSettings s;
    KILN_ASSIGN_OR_RETURN(s.mode, readMode(node));
    KILN_ASSIGN_OR_RETURN(s.rounding, readNearestMode(node));
    s.cubicCoeff = attrFloat(node, "cubic_coeff_a", -0.75F);
    s.excludeOutside = attrInt(node, "exclude_outside", 0) != 0;
    std::string const ct = attrString(node, "coordinate_transformation_mode", "half_pixel");
    if (ct == "half_pixel")
    {
        s.transform = ResizeCoordinateTransformation::kHALF_PIXEL;
    }
    else if (ct == "pytorch_half_pixel")
    {
        s.transform = ResizeCoordinateTransformation::kHALF_PIXEL;
        s.selector = ResizeSelector::kUPPER;
    }
    else if (ct == "align_corners")
    {
        s.transform = ResizeCoordinateTransformation::kALIGN_CORNERS;
    }
    else if (ct == "asymmetric")
    {
        s.transform = ResizeCoordinateTransformation::kASYMMETRIC;
    }
    else if (ct == "tf_half_pixel_for_nn" && s.mode == InterpolationMode::kNEAREST
        && (s.rounding == ResizeRoundMode::kHALF_DOWN || s.rounding == ResizeRoundMode::kFLOOR))
    {
        // x = (y + 0.5) / scale is the half-pixel coordinate plus 0.5: round_prefer_floor(x) = ceil(x - 0.5) and
        // floor(x) = floor((x - 0.5) + 0.5) are the half-pixel coordinate rounded up and rounded half up.
        s.transform = ResizeCoordinateTransformation::kHALF_PIXEL;
        s.rounding = s.rounding == ResizeRoundMode::kHALF_DOWN ? ResizeRoundMode::kCEIL : ResizeRoundMode::kHALF_UP;
    }
    else
    {
        return unsupported(describeNode(node) + ": coordinate_transformation_mode '" + ct + "'"
            + (ct == "tf_half_pixel_for_nn" ? " is supported only with mode 'nearest' and nearest_mode "
                                               "'round_prefer_floor' or 'floor'"
                                             : " is not supported by IResizeLayer"));
    }
    return s;
}

//! `values` (one per listed axis) spread over `rank` entries, the others `fill`.
StatusOr<std::vector<double>> spreadAxes(::onnx::NodeProto const& node, std::vector<double> const& values,
    std::vector<int64_t> const& axes, int32_t rank, double fill)
{
    if (axes.empty())
    {
        if (static_cast<int32_t>(values.size()) != rank)
        {
            return invalidArgument(describeNode(node) + ": 'scales'/'sizes' has " + std::to_string(values.size())
                + " entries, expected one per input dimension (" + std::to_string(rank) + ")");
        }
        return values;
    }
    if (axes.size() != values.size())
    {
        return invalidArgument(describeNode(node) + ": 'scales'/'sizes' needs one entry per entry of 'axes'");
    }
    KILN_ASSIGN_OR_RETURN(std::vector<int32_t> normalized, normalizeAxes(node, axes, rank));
    std::vector<double> full(static_cast<size_t>(rank), fill);
    for (size_t i = 0; i < normalized.size(); ++i)
    {
        full[static_cast<size_t>(normalized[i])] = values[i];
    }
    return full;
}

StatusOr<nvinfer1::IResizeLayer*> addResizeLayer(
    ImporterContext& ctx, ::onnx::NodeProto const& node, ITensor* x, ResizeSettings const& s)
{
    auto* layer = ctx.network().addResize(*x);
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, layer, "addResize"));
    layer->setResizeMode(s.mode);
    layer->setCoordinateTransformation(s.transform);
    layer->setSelectorForSinglePixel(s.selector);
    layer->setNearestRounding(s.rounding);
    layer->setCubicCoeff(s.cubicCoeff);
    layer->setExcludeOutside(s.excludeOutside);
    return layer;
}

Status applyScales(::onnx::NodeProto const& node, nvinfer1::IResizeLayer* layer, std::vector<double> const& scales)
{
    std::vector<float> f(scales.size());
    for (size_t i = 0; i < scales.size(); ++i)
    {
        if (!(scales[i] > 0.0) || !std::isfinite(scales[i]))
        {
            return invalidArgument(describeNode(node) + ": every scale must be positive and finite");
        }
        f[i] = static_cast<float>(scales[i]);
    }
    layer->setScales(f.data(), static_cast<int32_t>(f.size()));
    return Status::ok();
}

//! Run-time scales (input `index`, not a constant): IResizeLayer input 1 as a FLOAT shape tensor (Kiln extension,
//! see resizeLayer.h); the output extents are floor(in * scale), evaluated once the scales are known.
StatusOr<ITensor*> runtimeScales(ImporterContext& ctx, ::onnx::NodeProto const& node, int32_t index, int32_t rank)
{
    KILN_ASSIGN_OR_RETURN(ITensor * scales, ctx.tensor(node, index));
    Dims const d = scales->getDimensions();
    if (scales->getType() != nvinfer1::DataType::kFLOAT)
    {
        return invalidArgument(describeNode(node) + ": 'scales' must be a FLOAT tensor");
    }
    if (d.nbDims != 1 || (d.d[0] >= 0 && d.d[0] != rank))
    {
        return invalidArgument(describeNode(node) + ": run-time 'scales' must be a 1-D tensor with one entry per "
            "input dimension (" + std::to_string(rank) + ")");
    }
    return scales;
}

//! Resize-10 and Upsample: scales (input `index`, or the 'scales' attribute of Upsample-7), asymmetric, floor.
Status importScalesOnly(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs,
    int32_t index)
{
    KILN_ASSIGN_OR_RETURN(ITensor * x, ctx.tensor(node, 0));
    ResizeSettings s;
    KILN_ASSIGN_OR_RETURN(s.mode, readMode(node));
    if (s.mode == InterpolationMode::kCUBIC)
    {
        return invalidArgument(describeNode(node) + ": mode 'cubic' needs opset 11 or later");
    }
    s.transform = ResizeCoordinateTransformation::kASYMMETRIC;
    s.rounding = ResizeRoundMode::kFLOOR;
    std::vector<double> scales;
    if (index < 0)
    {
        for (float v : attrFloats(node, "scales"))
        {
            scales.push_back(v);
        }
    }
    else
    {
        if (ctx.constant(node, index) == nullptr)
        {
            KILN_ASSIGN_OR_RETURN(ITensor * runtime, runtimeScales(ctx, node, index, rankOf(x)));
            KILN_ASSIGN_OR_RETURN(nvinfer1::IResizeLayer * layer, addResizeLayer(ctx, node, x, s));
            layer->setInput(1, *runtime);
            outputs.emplace_back(layer->getOutput(0));
            return Status::ok();
        }
        KILN_ASSIGN_OR_RETURN(scales, constantDoubles(ctx, node, index, "scales"));
    }
    KILN_ASSIGN_OR_RETURN(scales, spreadAxes(node, scales, {}, rankOf(x), 1.0));
    KILN_ASSIGN_OR_RETURN(nvinfer1::IResizeLayer * layer, addResizeLayer(ctx, node, x, s));
    KILN_RETURN_IF_ERROR(applyScales(node, layer, scales));
    outputs.emplace_back(layer->getOutput(0));
    return Status::ok();
}

Status importResize(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    if (ctx.opsetVersion() < 11)
    {
        return importScalesOnly(ctx, node, outputs, 1);
    }
    KILN_ASSIGN_OR_RETURN(ITensor * x, ctx.tensor(node, 0));
    int32_t const rank = rankOf(x);
    KILN_ASSIGN_OR_RETURN(ResizeSettings s, readSettings11(node));
    if (attrInt(node, "antialias", 0) != 0 && s.mode != InterpolationMode::kNEAREST)
    {
        return unsupported(describeNode(node) + ": attribute 'antialias' = 1 is not supported by IResizeLayer");
    }
    std::vector<int64_t> const axes = attrInts(node, "axes");
    // A scales input counts when present and non-empty (opset 11 requires it to be present, possibly empty).
    bool hasScales = false;
    bool scalesAtRunTime = false;
    if (ctx.hasInput(node, 2))
    {
        OnnxConstant const* c = ctx.constant(node, 2);
        if (c == nullptr)
        {
            KILN_ASSIGN_OR_RETURN(ITensor * t, ctx.tensor(node, 2));
            Dims const d = t->getDimensions();
            hasScales = !(d.nbDims == 1 && d.d[0] == 0);
            scalesAtRunTime = hasScales;
        }
        else
        {
            hasScales = c->count() > 0;
        }
    }
    bool const hasSizes = ctx.hasInput(node, 3);
    if (hasScales == hasSizes)
    {
        return invalidArgument(describeNode(node) + ": exactly one of 'scales' and 'sizes' must be given");
    }
    // keep_aspect_ratio_policy (opset 18+) only shapes how 'sizes' is read.
    std::string const policy = attrString(node, "keep_aspect_ratio_policy", "stretch");
    if (hasSizes && policy != "stretch")
    {
        return unsupported(describeNode(node) + ": keep_aspect_ratio_policy '" + policy + "' is not supported");
    }
    if (scalesAtRunTime)
    {
        // As in onnx-tensorrt: with run-time scales, 'axes' must list every axis in order.
        KILN_ASSIGN_OR_RETURN(std::vector<int32_t> normalized, normalizeAxes(node, axes, rank));
        for (size_t i = 0; i < normalized.size(); ++i)
        {
            if (normalized.size() != static_cast<size_t>(rank) || normalized[i] != static_cast<int32_t>(i))
            {
                return unsupported(describeNode(node) + ": with run-time 'scales', 'axes' must be [0, 1, ..., "
                    + std::to_string(rank - 1) + "]");
            }
        }
        KILN_ASSIGN_OR_RETURN(ITensor * scales, runtimeScales(ctx, node, 2, rank));
        KILN_ASSIGN_OR_RETURN(nvinfer1::IResizeLayer * layer, addResizeLayer(ctx, node, x, s));
        layer->setInput(1, *scales);
        outputs.emplace_back(layer->getOutput(0));
        return Status::ok();
    }
    KILN_ASSIGN_OR_RETURN(nvinfer1::IResizeLayer * layer, addResizeLayer(ctx, node, x, s));
    if (hasScales)
    {
        KILN_ASSIGN_OR_RETURN(std::vector<double> scales, constantDoubles(ctx, node, 2, "scales"));
        KILN_ASSIGN_OR_RETURN(scales, spreadAxes(node, scales, axes, rank, 1.0));
        KILN_RETURN_IF_ERROR(applyScales(node, layer, scales));
    }
    else if (OnnxConstant const* c = ctx.constant(node, 3))
    {
        KILN_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, c->toInt64());
        std::vector<double> asDouble(sizes.begin(), sizes.end());
        Dims const in = x->getDimensions();
        KILN_ASSIGN_OR_RETURN(asDouble, spreadAxes(node, asDouble, axes, rank, -1.0));
        std::vector<int64_t> full(asDouble.size());
        for (size_t i = 0; i < asDouble.size(); ++i)
        {
            full[i] = asDouble[i] < 0.0 ? in.d[i] : static_cast<int64_t>(asDouble[i]);
            if (full[i] < 0)
            {
                return unsupported(describeNode(node) + ": 'axes' with constant 'sizes' needs build-time extents "
                    "on the other axes");
            }
        }
        KILN_ASSIGN_OR_RETURN(Dims d, nnDims(node, full));
        layer->setOutputDimensions(d);
    }
    else
    {
        if (!axes.empty())
        {
            return unsupported(describeNode(node) + ": attribute 'axes' with run-time 'sizes' is not supported");
        }
        KILN_ASSIGN_OR_RETURN(ITensor * sizes, ctx.tensor(node, 3));
        layer->setInput(1, *sizes);
    }
    outputs.emplace_back(layer->getOutput(0));
    return Status::ok();
}

Status importUpsample(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    return importScalesOnly(ctx, node, outputs, ctx.opsetVersion() >= 9 ? 1 : -1);
}

} // namespace

std::vector<OpImporterEntry> resizeImporters()
{
    return {
        {"Resize", &importResize},
        {"Upsample", &importUpsample},
    };
}

} // namespace kiln
