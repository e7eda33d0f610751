// Importers of Slice and Pad (layout family). Both become one ISliceLayer: Slice with ONNX's clamping of starts and
// ends computed by ShapeMath (parse-time or run-time parameters), Pad as a read window starting at -pads_begin with
// SampleMode kFILL (constant), kCLAMP (edge), kREFLECT (reflect) or kWRAP (wrap). Negative pads crop.
#include "onnx/importers/shapeFamily.h"
#include "onnx/importers/shapeMath.h"

#include "onnx/importerHelpers.h"
#include "onnx/onnxAttributes.h"

namespace kiln
{
namespace
{

using nvinfer1::ITensor;

//! Axes given statically (normalised) or at run time (a + (a < 0) * rank).
StatusOr<ShapeVec> normalizedAxes(ShapeMath& math, ::onnx::NodeProto const& node, ShapeVec const& axes, int32_t rank)
{
    if (axes.isStatic())
    {
        KILN_ASSIGN_OR_RETURN(std::vector<int32_t> a, normalizeAxes(node, axes.values, rank));
        return ShapeMath::constant(std::vector<int64_t>(a.begin(), a.end()));
    }
    KILN_ASSIGN_OR_RETURN(ShapeVec neg, math.less(axes, ShapeMath::filled(1, 0)));
    KILN_ASSIGN_OR_RETURN(ShapeVec shift, math.mul(neg, ShapeMath::filled(1, rank)));
    return math.add(axes, shift);
}

ShapeVec iotaVec(int32_t n)
{
    std::vector<int64_t> v;
    for (int32_t i = 0; i < n; ++i)
    {
        v.push_back(i);
    }
    return ShapeMath::constant(v);
}

//! Sets the slice's axes: static through setAxes, run-time as input 5.
Status applyAxes(ShapeMath& math, ::onnx::NodeProto const& node, nvinfer1::ISliceLayer* layer, ShapeVec const& axes)
{
    return setSliceParameter(math, node, layer, 5, axes);
}

Status importSlice(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ITensor * x, ctx.tensor(node, 0));
    int32_t const r = x->getDimensions().nbDims;
    ShapeMath math(ctx, node);
    ShapeVec starts;
    ShapeVec ends;
    ShapeVec axes;
    ShapeVec steps;
    bool haveAxes = false;
    bool haveSteps = false;
    if (ctx.opsetVersion() < 10)
    {
        KILN_ASSIGN_OR_RETURN(std::vector<int64_t> s, requireAttrInts(node, "starts"));
        KILN_ASSIGN_OR_RETURN(std::vector<int64_t> e, requireAttrInts(node, "ends"));
        starts = ShapeMath::constant(s);
        ends = ShapeMath::constant(e);
        haveAxes = hasAttribute(node, "axes");
        axes = ShapeMath::constant(attrInts(node, "axes"));
    }
    else
    {
        KILN_ASSIGN_OR_RETURN(starts, math.input(1, "starts"));
        KILN_ASSIGN_OR_RETURN(ends, math.input(2, "ends"));
        haveAxes = ctx.hasInput(node, 3);
        if (haveAxes)
        {
            KILN_ASSIGN_OR_RETURN(axes, math.input(3, "axes"));
        }
        haveSteps = ctx.hasInput(node, 4);
        if (haveSteps)
        {
            KILN_ASSIGN_OR_RETURN(steps, math.input(4, "steps"));
        }
    }
    int32_t const k = starts.length;
    if (ends.length != k || (haveAxes && axes.length != k) || (haveSteps && steps.length != k))
    {
        return invalidArgument(describeNode(node) + ": starts, ends, axes and steps must have the same length");
    }
    if (k > r)
    {
        return invalidArgument(describeNode(node) + ": " + std::to_string(k) + " slice axes for an input of rank "
            + std::to_string(r));
    }
    if (!haveAxes)
    {
        axes = iotaVec(k);
    }
    if (!haveSteps)
    {
        steps = ShapeMath::filled(k, 1);
    }
    if (steps.isStatic())
    {
        for (int64_t s : steps.values)
        {
            if (s == 0)
            {
                return invalidArgument(describeNode(node) + ": input 'steps' holds 0");
            }
        }
    }
    if (k == 0)
    {
        outputs.emplace_back(x);
        return Status::ok();
    }
    KILN_ASSIGN_OR_RETURN(axes, normalizedAxes(math, node, axes, r));
    KILN_ASSIGN_OR_RETURN(ShapeVec shape, math.shapeOf(x));
    KILN_ASSIGN_OR_RETURN(ShapeVec dims, math.gather(shape, axes));

    ShapeVec const zero = ShapeMath::filled(1, 0);
    // Negative starts/ends count from the back.
    KILN_ASSIGN_OR_RETURN(ShapeVec sNeg, math.less(starts, zero));
    KILN_ASSIGN_OR_RETURN(ShapeVec sShift, math.mul(sNeg, dims));
    KILN_ASSIGN_OR_RETURN(ShapeVec s, math.add(starts, sShift));
    KILN_ASSIGN_OR_RETURN(ShapeVec eNeg, math.less(ends, zero));
    KILN_ASSIGN_OR_RETURN(ShapeVec eShift, math.mul(eNeg, dims));
    KILN_ASSIGN_OR_RETURN(ShapeVec e, math.add(ends, eShift));
    // Clamp: positive steps to [0, d]; negative steps: start to [0, d-1], end to [-1, d-1].
    KILN_ASSIGN_OR_RETURN(ShapeVec backward, math.less(steps, zero));
    KILN_ASSIGN_OR_RETURN(ShapeVec hi, math.sub(dims, backward));
    KILN_ASSIGN_OR_RETURN(ShapeVec eLo, math.sub(zero, backward));
    KILN_ASSIGN_OR_RETURN(s, math.max(s, zero));
    KILN_ASSIGN_OR_RETURN(s, math.min(s, hi));
    KILN_ASSIGN_OR_RETURN(e, math.max(e, eLo));
    KILN_ASSIGN_OR_RETURN(e, math.min(e, hi));
    KILN_ASSIGN_OR_RETURN(ShapeVec span, math.sub(e, s));
    KILN_ASSIGN_OR_RETURN(ShapeVec size, math.ceilDiv(span, steps));
    KILN_ASSIGN_OR_RETURN(size, math.max(size, zero));
    // An empty slice may start outside the input (e.g. at -1); start it at 0 instead.
    KILN_ASSIGN_OR_RETURN(ShapeVec empty, math.equal(size, zero));
    KILN_ASSIGN_OR_RETURN(s, math.select(empty, zero, s));

    KILN_ASSIGN_OR_RETURN(auto* slice, addSliceLayer(ctx, node, x, s, size, steps, {}));
    KILN_RETURN_IF_ERROR(applyAxes(math, node, slice, axes));
    outputs.emplace_back(slice->getOutput(0));
    return Status::ok();
}

Status importPad(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ITensor * x, ctx.tensor(node, 0));
    int32_t const r = x->getDimensions().nbDims;
    ShapeMath math(ctx, node);
    std::string const mode = attrString(node, "mode", "constant");
    nvinfer1::SampleMode sampleMode = nvinfer1::SampleMode::kFILL;
    if (mode == "edge")
    {
        sampleMode = nvinfer1::SampleMode::kCLAMP;
    }
    else if (mode == "reflect")
    {
        sampleMode = nvinfer1::SampleMode::kREFLECT;
    }
    else if (mode == "wrap")
    {
        sampleMode = nvinfer1::SampleMode::kWRAP;
    }
    else if (mode != "constant")
    {
        return invalidArgument(describeNode(node) + ": attribute 'mode' '" + mode
            + "' is not one of constant, reflect, edge, wrap");
    }
    ShapeVec pads;
    ITensor* fillValue = nullptr;
    ShapeVec axes = iotaVec(r);
    if (ctx.opsetVersion() < 11)
    {
        std::string const padsName = ctx.opsetVersion() < 2 ? "paddings" : "pads";
        KILN_ASSIGN_OR_RETURN(std::vector<int64_t> p, requireAttrInts(node, padsName));
        pads = ShapeMath::constant(p);
        float const value = attrFloat(node, "value", 0.0F);
        if (value != 0.0F && sampleMode == nvinfer1::SampleMode::kFILL)
        {
            KILN_ASSIGN_OR_RETURN(fillValue, scalarLike(ctx, node, value, x->getType(), 0));
        }
    }
    else
    {
        KILN_ASSIGN_OR_RETURN(pads, math.input(1, "pads"));
        if (ctx.hasInput(node, 2) && sampleMode == nvinfer1::SampleMode::kFILL)
        {
            OnnxConstant const* c = ctx.constant(node, 2);
            bool isZero = false;
            if (c != nullptr)
            {
                auto v = c->toDouble();
                isZero = v.isOk() && v->size() == 1 && (*v)[0] == 0.0;
            }
            if (!isZero)
            {
                KILN_ASSIGN_OR_RETURN(fillValue, ctx.tensor(node, 2));
                nvinfer1::Dims const vd = fillValue->getDimensions();
                if (vd.nbDims > 1 || (vd.nbDims == 1 && vd.d[0] != 1))
                {
                    return invalidArgument(describeNode(node) + ": input 'constant_value' must be a scalar");
                }
                if (vd.nbDims == 1)
                {
                    nvinfer1::Dims scalar{};
                    scalar.nbDims = 0;
                    KILN_ASSIGN_OR_RETURN(fillValue, reshape(ctx, node, fillValue, scalar, "value"));
                }
                KILN_ASSIGN_OR_RETURN(fillValue, castTo(ctx, node, fillValue, x->getType(), "value_cast"));
            }
        }
        if (ctx.opsetVersion() >= 18 && ctx.hasInput(node, 3))
        {
            KILN_ASSIGN_OR_RETURN(ShapeVec a, math.input(3, "axes"));
            KILN_ASSIGN_OR_RETURN(axes, normalizedAxes(math, node, a, r));
        }
    }
    int32_t const k = axes.length;
    if (pads.length != 2 * k)
    {
        return invalidArgument(describeNode(node) + ": 'pads' has " + std::to_string(pads.length)
            + " entries; expected " + std::to_string(2 * k) + " (begin and end for each padded axis)");
    }
    if (k == 0)
    {
        outputs.emplace_back(x);
        return Status::ok();
    }
    KILN_ASSIGN_OR_RETURN(ShapeVec shape, math.shapeOf(x));
    KILN_ASSIGN_OR_RETURN(ShapeVec dims, math.gather(shape, axes));
    KILN_ASSIGN_OR_RETURN(ShapeVec pre, math.slice(pads, 0, k));
    KILN_ASSIGN_OR_RETURN(ShapeVec post, math.slice(pads, k, 2 * k));
    KILN_ASSIGN_OR_RETURN(ShapeVec start, math.sub(ShapeMath::filled(1, 0), pre));
    KILN_ASSIGN_OR_RETURN(ShapeVec size, math.add(dims, pre));
    KILN_ASSIGN_OR_RETURN(size, math.add(size, post));
    if (size.isStatic())
    {
        for (int64_t v : size.values)
        {
            if (v < 0)
            {
                return invalidArgument(describeNode(node) + ": negative pads crop more than the input holds");
            }
        }
    }
    KILN_ASSIGN_OR_RETURN(auto* slice, addSliceLayer(ctx, node, x, start, size, ShapeMath::filled(k, 1), {}));
    KILN_RETURN_IF_ERROR(applyAxes(math, node, slice, axes));
    slice->setMode(sampleMode);
    if (fillValue != nullptr)
    {
        slice->setInput(4, *fillValue);
    }
    outputs.emplace_back(slice->getOutput(0));
    return Status::ok();
}

} // namespace

std::vector<OpImporterEntry> sliceImporters()
{
    return {
        {"Slice", importSlice},
        {"Pad", importPad},
    };
}

} // namespace kiln
