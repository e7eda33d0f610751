// Importers of the shape op family: Shape, Size, Reshape, Flatten, Squeeze, Unsqueeze (plus the ops registered by
// shapeCreationImporters.cpp: Expand, Tile, ConstantOfShape, Range, EyeLike, Trilu). Shape-valued inputs may be
// parse-time constants or run-time shape tensors; see shapeMath.h.
#include "onnx/importers/shapeFamily.h"
#include "onnx/importers/shapeMath.h"

#include "onnx/importerHelpers.h"
#include "onnx/onnxAttributes.h"
#include "onnx/opImporters.h"

#include <algorithm>

namespace kiln
{
namespace
{

using nvinfer1::ITensor;

Status importShape(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ITensor * x, ctx.tensor(node, 0));
    int64_t const r = x->getDimensions().nbDims;
    int64_t start = attrInt(node, "start", 0);
    int64_t end = attrInt(node, "end", r);
    start = std::clamp<int64_t>(start < 0 ? start + r : start, 0, r);
    end = std::clamp<int64_t>(end < 0 ? end + r : end, 0, r);
    end = std::max(start, end);
    if (hasStaticShape(x))
    {
        std::vector<int64_t> const dims = dimsToVector(x->getDimensions());
        std::vector<int64_t> part(dims.begin() + start, dims.begin() + end);
        int64_t const n = static_cast<int64_t>(part.size());
        outputs.emplace_back(OnnxConstant::fromInt64(part, {n}));
        return Status::ok();
    }
    KILN_ASSIGN_OR_RETURN(ITensor * shape, shapeOf(ctx, node, x));
    if (start != 0 || end != r)
    {
        KILN_ASSIGN_OR_RETURN(
            shape, shapeSlice(ctx, node, shape, static_cast<int32_t>(start), static_cast<int32_t>(end)));
    }
    outputs.emplace_back(shape);
    return Status::ok();
}

Status importSize(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ITensor * x, ctx.tensor(node, 0));
    if (hasStaticShape(x))
    {
        int64_t volume = 1;
        for (int64_t d : dimsToVector(x->getDimensions()))
        {
            if (__builtin_mul_overflow(volume, d, &volume))
            {
                return invalidArgument(describeNode(node) + ": the input's element count overflows int64");
            }
        }
        outputs.emplace_back(OnnxConstant::fromInt64({volume}, {}));
        return Status::ok();
    }
    KILN_ASSIGN_OR_RETURN(ITensor * shape, shapeOf(ctx, node, x));
    KILN_ASSIGN_OR_RETURN(ITensor * volume, shapeProduct(ctx, node, shape));
    nvinfer1::Dims scalar{};
    scalar.nbDims = 0;
    KILN_ASSIGN_OR_RETURN(volume, reshape(ctx, node, volume, scalar, "scalar"));
    outputs.emplace_back(volume);
    return Status::ok();
}

Status importReshape(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ITensor * x, ctx.tensor(node, 0));
    bool const allowZero = ctx.opsetVersion() >= 14 && attrInt(node, "allowzero", 0) != 0;
    ShapeMath math(ctx, node);
    ShapeVec shape;
    if (ctx.opsetVersion() < 5)
    {
        KILN_ASSIGN_OR_RETURN(std::vector<int64_t> s, requireAttrInts(node, "shape"));
        shape = ShapeMath::constant(s);
    }
    else
    {
        KILN_ASSIGN_OR_RETURN(shape, math.input(1, "shape"));
    }
    if (shape.isStatic())
    {
        int32_t minusOnes = 0;
        bool hasZero = false;
        for (int64_t d : shape.values)
        {
            if (d < -1)
            {
                return invalidArgument(
                    describeNode(node) + ": input 'shape' holds " + std::to_string(d) + " (values must be >= -1)");
            }
            minusOnes += d == -1 ? 1 : 0;
            hasZero = hasZero || d == 0;
        }
        if (minusOnes > 1)
        {
            return invalidArgument(describeNode(node) + ": input 'shape' holds more than one -1");
        }
        if (allowZero && hasZero && minusOnes > 0)
        {
            return invalidArgument(describeNode(node) + ": input 'shape' holds both 0 and -1 while allowzero is 1");
        }
        int32_t const r = x->getDimensions().nbDims;
        for (size_t i = 0; i < shape.values.size() && !allowZero; ++i)
        {
            if (shape.values[i] == 0 && static_cast<int32_t>(i) >= r)
            {
                return invalidArgument(describeNode(node) + ": input 'shape' has 0 at index " + std::to_string(i)
                    + " but the input has rank " + std::to_string(r) + " (nothing to copy)");
            }
        }
    }
    KILN_ASSIGN_OR_RETURN(ITensor * y, reshapeToVec(ctx, node, x, shape, !allowZero));
    outputs.emplace_back(y);
    return Status::ok();
}

Status importFlatten(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ITensor * x, ctx.tensor(node, 0));
    int32_t const r = x->getDimensions().nbDims;
    int64_t axis = attrInt(node, "axis", 1);
    if (axis < -r || axis > r)
    {
        return invalidArgument(describeNode(node) + ": attribute 'axis' " + std::to_string(axis)
            + " is out of range [" + std::to_string(-r) + ", " + std::to_string(r) + "]");
    }
    if (axis < 0)
    {
        axis += r;
    }
    KILN_ASSIGN_OR_RETURN(ITensor * y, flatten2D(ctx, node, x, static_cast<int32_t>(axis)));
    outputs.emplace_back(y);
    return Status::ok();
}

//! Axes of Squeeze/Unsqueeze: the attribute before opset 13, input 1 from 13. `present` is false when none given.
StatusOr<ShapeVec> squeezeAxes(ImporterContext& ctx, ::onnx::NodeProto const& node, bool& present)
{
    if (ctx.opsetVersion() < 13)
    {
        present = hasAttribute(node, "axes");
        return ShapeMath::constant(attrInts(node, "axes"));
    }
    present = ctx.hasInput(node, 1);
    if (!present)
    {
        return ShapeMath::constant({});
    }
    ShapeMath math(ctx, node);
    return math.input(1, "axes");
}

//! Axes normalised against `rank` at run time: a + (a < 0) * rank.
StatusOr<ShapeVec> normalizeAxesVec(ShapeMath& math, ShapeVec const& axes, int32_t rank)
{
    KILN_ASSIGN_OR_RETURN(ShapeVec neg, math.less(axes, ShapeMath::filled(1, 0)));
    KILN_ASSIGN_OR_RETURN(ShapeVec shift, math.mul(neg, ShapeMath::filled(1, rank)));
    return math.add(axes, shift);
}

Status importSqueeze(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ITensor * x, ctx.tensor(node, 0));
    nvinfer1::Dims const in = x->getDimensions();
    int32_t const r = in.nbDims;
    bool present = false;
    KILN_ASSIGN_OR_RETURN(ShapeVec axes, squeezeAxes(ctx, node, present));
    if (!present)
    {
        std::vector<int32_t> ones;
        for (int32_t i = 0; i < r; ++i)
        {
            if (in.d[i] < 0)
            {
                return unsupported(describeNode(node) + ": Squeeze without axes needs every input extent known when "
                    "the network is built (dimension " + std::to_string(i) + " is dynamic)");
            }
            if (in.d[i] == 1)
            {
                ones.push_back(i);
            }
        }
        KILN_ASSIGN_OR_RETURN(ITensor * y, squeeze(ctx, node, x, ones));
        outputs.emplace_back(y);
        return Status::ok();
    }
    if (axes.isStatic())
    {
        KILN_ASSIGN_OR_RETURN(std::vector<int32_t> a, normalizeAxes(node, axes.values, r));
        KILN_ASSIGN_OR_RETURN(ITensor * y, squeeze(ctx, node, x, a));
        outputs.emplace_back(y);
        return Status::ok();
    }
    // Run-time axes: the output rank is r - len(axes); each output extent is the j-th kept input extent.
    ShapeMath math(ctx, node);
    int32_t const outRank = r - axes.length;
    if (outRank < 0)
    {
        return invalidArgument(describeNode(node) + ": input 'axes' has more entries than the input has dimensions");
    }
    KILN_ASSIGN_OR_RETURN(ShapeVec norm, normalizeAxesVec(math, axes, r));
    KILN_ASSIGN_OR_RETURN(ShapeVec inShape, math.shapeOf(x));
    std::vector<ShapeVec> keepParts;
    for (int32_t k = 0; k < r; ++k)
    {
        KILN_ASSIGN_OR_RETURN(ShapeVec hit, math.equal(norm, ShapeMath::filled(1, k)));
        KILN_ASSIGN_OR_RETURN(ShapeVec isAxis, math.sum(hit));
        KILN_ASSIGN_OR_RETURN(ShapeVec keep, math.sub(ShapeMath::filled(1, 1), isAxis));
        keepParts.push_back(keep);
    }
    KILN_ASSIGN_OR_RETURN(ShapeVec keep, math.concat(keepParts));
    KILN_ASSIGN_OR_RETURN(ShapeVec pos, math.exclusivePrefixSum(keep));
    KILN_ASSIGN_OR_RETURN(ShapeVec kept, math.mul(keep, inShape));
    std::vector<ShapeVec> outParts;
    for (int32_t j = 0; j < outRank; ++j)
    {
        KILN_ASSIGN_OR_RETURN(ShapeVec at, math.equal(pos, ShapeMath::filled(1, j)));
        KILN_ASSIGN_OR_RETURN(ShapeVec pick, math.mul(at, kept));
        KILN_ASSIGN_OR_RETURN(ShapeVec extent, math.sum(pick));
        outParts.push_back(extent);
    }
    KILN_ASSIGN_OR_RETURN(ShapeVec outShape, math.concat(outParts));
    KILN_ASSIGN_OR_RETURN(ITensor * y, reshapeToVec(ctx, node, x, outShape, false));
    outputs.emplace_back(y);
    return Status::ok();
}

Status importUnsqueeze(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ITensor * x, ctx.tensor(node, 0));
    int32_t const r = x->getDimensions().nbDims;
    bool present = false;
    KILN_ASSIGN_OR_RETURN(ShapeVec axes, squeezeAxes(ctx, node, present));
    if (!present)
    {
        return invalidArgument(describeNode(node) + ": Unsqueeze needs axes");
    }
    int32_t const outRank = r + axes.length;
    if (outRank > nvinfer1::Dims::MAX_DIMS)
    {
        return unsupported(describeNode(node) + ": output rank " + std::to_string(outRank) + " exceeds "
            + std::to_string(nvinfer1::Dims::MAX_DIMS));
    }
    if (axes.isStatic())
    {
        KILN_ASSIGN_OR_RETURN(std::vector<int32_t> a, normalizeAxes(node, axes.values, outRank));
        KILN_ASSIGN_OR_RETURN(ITensor * y, unsqueeze(ctx, node, x, a));
        outputs.emplace_back(y);
        return Status::ok();
    }
    // Run-time axes: output extent j is 1 when j is an axis, else input extent j - (number of axes below j).
    ShapeMath math(ctx, node);
    KILN_ASSIGN_OR_RETURN(ShapeVec norm, normalizeAxesVec(math, axes, outRank));
    KILN_ASSIGN_OR_RETURN(ShapeVec inShape, math.shapeOf(x));
    std::vector<ShapeVec> outParts;
    for (int32_t j = 0; j < outRank; ++j)
    {
        ShapeVec const jv = ShapeMath::filled(1, j);
        KILN_ASSIGN_OR_RETURN(ShapeVec hit, math.equal(norm, jv));
        KILN_ASSIGN_OR_RETURN(ShapeVec isAxis, math.sum(hit));
        KILN_ASSIGN_OR_RETURN(ShapeVec below, math.less(norm, jv));
        KILN_ASSIGN_OR_RETURN(ShapeVec nbBelow, math.sum(below));
        KILN_ASSIGN_OR_RETURN(ShapeVec src, math.sub(jv, nbBelow));
        // src is out of range only where j is an axis; clamp it so the gather stays in range.
        KILN_ASSIGN_OR_RETURN(src, math.min(src, ShapeMath::filled(1, std::max(r - 1, 0))));
        ShapeVec extent = ShapeMath::filled(1, 1);
        if (r > 0)
        {
            KILN_ASSIGN_OR_RETURN(extent, math.gather(inShape, src));
        }
        KILN_ASSIGN_OR_RETURN(ShapeVec out, math.select(isAxis, ShapeMath::filled(1, 1), extent));
        outParts.push_back(out);
    }
    KILN_ASSIGN_OR_RETURN(ShapeVec outShape, math.concat(outParts));
    KILN_ASSIGN_OR_RETURN(ITensor * y, reshapeToVec(ctx, node, x, outShape, false));
    outputs.emplace_back(y);
    return Status::ok();
}

} // namespace

std::vector<OpImporterEntry> shapeImporters()
{
    std::vector<OpImporterEntry> entries{
        {"Shape", importShape},
        {"Size", importSize},
        {"Reshape", importReshape},
        {"Flatten", importFlatten},
        {"Squeeze", importSqueeze},
        {"Unsqueeze", importUnsqueeze},
    };
    for (OpImporterEntry const& e : shapeCreationImporters())
    {
        entries.push_back(e);
    }
    return entries;
}

} // namespace kiln
