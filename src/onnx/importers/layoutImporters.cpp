// Importers of the layout op family: Transpose, DepthToSpace, SpaceToDepth, Concat and Split (plus Slice and Pad,
// registered from sliceImporters.cpp). Rearrangements are IShuffleLayer reshape/transpose chains whose shapes are
// computed with ShapeMath, so they work for dynamic dimensions too.
#include "onnx/importers/shapeFamily.h"
#include "onnx/importers/shapeMath.h"

#include "onnx/importerHelpers.h"
#include "onnx/onnxAttributes.h"
#include "onnx/opImporters.h"

namespace kiln
{
namespace
{

using nvinfer1::ITensor;

Status importTranspose(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ITensor * x, ctx.tensor(node, 0));
    int32_t const r = x->getDimensions().nbDims;
    std::vector<int64_t> permAttr = attrInts(node, "perm");
    std::vector<int32_t> perm;
    if (!hasAttribute(node, "perm"))
    {
        for (int32_t i = r - 1; i >= 0; --i)
        {
            perm.push_back(i);
        }
    }
    else
    {
        if (static_cast<int32_t>(permAttr.size()) != r)
        {
            return invalidArgument(describeNode(node) + ": attribute 'perm' has " + std::to_string(permAttr.size())
                + " entries but the input has rank " + std::to_string(r));
        }
        KILN_ASSIGN_OR_RETURN(perm, normalizeAxes(node, permAttr, r));
    }
    KILN_ASSIGN_OR_RETURN(ITensor * y, transpose(ctx, node, x, perm));
    outputs.emplace_back(y);
    return Status::ok();
}

StatusOr<int64_t> blockSize(::onnx::NodeProto const& node, ITensor* x)
{
    KILN_ASSIGN_OR_RETURN(int64_t b, requireAttrInt(node, "blocksize"));
    if (b < 1)
    {
        return invalidArgument(describeNode(node) + ": attribute 'blocksize' must be >= 1, not " + std::to_string(b));
    }
    if (x->getDimensions().nbDims != 4)
    {
        return invalidArgument(describeNode(node) + ": the input must be 4-D [N, C, H, W]");
    }
    return b;
}

Status importDepthToSpace(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ITensor * x, ctx.tensor(node, 0));
    KILN_ASSIGN_OR_RETURN(int64_t b, blockSize(node, x));
    std::string const mode = attrString(node, "mode", "DCR");
    if (mode != "DCR" && mode != "CRD")
    {
        return invalidArgument(describeNode(node) + ": attribute 'mode' must be DCR or CRD, not '" + mode + "'");
    }
    ShapeMath math(ctx, node);
    KILN_ASSIGN_OR_RETURN(ShapeVec shape, math.shapeOf(x));
    if (shape.isStatic() && shape.values[1] % (b * b) != 0)
    {
        return invalidArgument(describeNode(node) + ": channels " + std::to_string(shape.values[1])
            + " are not divisible by blocksize^2 = " + std::to_string(b * b));
    }
    ShapeVec const bv = ShapeMath::filled(1, b);
    KILN_ASSIGN_OR_RETURN(ShapeVec n, math.slice(shape, 0, 1));
    KILN_ASSIGN_OR_RETURN(ShapeVec c, math.slice(shape, 1, 2));
    KILN_ASSIGN_OR_RETURN(ShapeVec h, math.slice(shape, 2, 3));
    KILN_ASSIGN_OR_RETURN(ShapeVec w, math.slice(shape, 3, 4));
    KILN_ASSIGN_OR_RETURN(ShapeVec c2, math.floorDiv(c, ShapeMath::filled(1, b * b)));
    KILN_ASSIGN_OR_RETURN(ShapeVec hb, math.mul(h, bv));
    KILN_ASSIGN_OR_RETURN(ShapeVec wb, math.mul(w, bv));
    bool const dcr = mode == "DCR";
    KILN_ASSIGN_OR_RETURN(ShapeVec s1, dcr ? math.concat({n, bv, bv, c2, h, w}) : math.concat({n, c2, bv, bv, h, w}));
    KILN_ASSIGN_OR_RETURN(ShapeVec s2, math.concat({n, c2, hb, wb}));
    std::vector<int32_t> const perm = dcr ? std::vector<int32_t>{0, 3, 4, 1, 5, 2} : std::vector<int32_t>{0, 1, 4, 2, 5, 3};
    KILN_ASSIGN_OR_RETURN(ITensor * t, reshapeToVec(ctx, node, x, s1, false, "split_blocks"));
    KILN_ASSIGN_OR_RETURN(t, transpose(ctx, node, t, perm, "move_blocks"));
    KILN_ASSIGN_OR_RETURN(t, reshapeToVec(ctx, node, t, s2, false, "merge_blocks"));
    outputs.emplace_back(t);
    return Status::ok();
}

Status importSpaceToDepth(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ITensor * x, ctx.tensor(node, 0));
    KILN_ASSIGN_OR_RETURN(int64_t b, blockSize(node, x));
    ShapeMath math(ctx, node);
    KILN_ASSIGN_OR_RETURN(ShapeVec shape, math.shapeOf(x));
    if (shape.isStatic() && (shape.values[2] % b != 0 || shape.values[3] % b != 0))
    {
        return invalidArgument(describeNode(node) + ": spatial extents " + std::to_string(shape.values[2]) + "x"
            + std::to_string(shape.values[3]) + " are not divisible by blocksize " + std::to_string(b));
    }
    ShapeVec const bv = ShapeMath::filled(1, b);
    KILN_ASSIGN_OR_RETURN(ShapeVec n, math.slice(shape, 0, 1));
    KILN_ASSIGN_OR_RETURN(ShapeVec c, math.slice(shape, 1, 2));
    KILN_ASSIGN_OR_RETURN(ShapeVec h, math.slice(shape, 2, 3));
    KILN_ASSIGN_OR_RETURN(ShapeVec w, math.slice(shape, 3, 4));
    KILN_ASSIGN_OR_RETURN(ShapeVec hb, math.floorDiv(h, bv));
    KILN_ASSIGN_OR_RETURN(ShapeVec wb, math.floorDiv(w, bv));
    KILN_ASSIGN_OR_RETURN(ShapeVec cbb, math.mul(c, ShapeMath::filled(1, b * b)));
    KILN_ASSIGN_OR_RETURN(ShapeVec s1, math.concat({n, c, hb, bv, wb, bv}));
    KILN_ASSIGN_OR_RETURN(ShapeVec s2, math.concat({n, cbb, hb, wb}));
    KILN_ASSIGN_OR_RETURN(ITensor * t, reshapeToVec(ctx, node, x, s1, false, "split_space"));
    KILN_ASSIGN_OR_RETURN(t, transpose(ctx, node, t, {0, 3, 5, 1, 2, 4}, "move_blocks"));
    KILN_ASSIGN_OR_RETURN(t, reshapeToVec(ctx, node, t, s2, false, "merge_blocks"));
    outputs.emplace_back(t);
    return Status::ok();
}

Status importConcat(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    std::vector<ITensor*> inputs;
    for (int32_t i = 0; i < node.input_size(); ++i)
    {
        if (!ctx.hasInput(node, i))
        {
            continue;
        }
        KILN_ASSIGN_OR_RETURN(ITensor * t, ctx.tensor(node, i));
        inputs.push_back(t);
    }
    if (inputs.empty())
    {
        return invalidArgument(describeNode(node) + ": Concat needs at least one input");
    }
    int32_t const r = inputs[0]->getDimensions().nbDims;
    KILN_ASSIGN_OR_RETURN(int64_t axisAttr, requireAttrInt(node, "axis"));
    KILN_ASSIGN_OR_RETURN(int32_t axis, normalizeAxis(node, axisAttr, r));
    for (size_t i = 1; i < inputs.size(); ++i)
    {
        if (inputs[i]->getDimensions().nbDims != r)
        {
            return invalidArgument(describeNode(node) + ": input " + std::to_string(i) + " has rank "
                + std::to_string(inputs[i]->getDimensions().nbDims) + " but input 0 has rank " + std::to_string(r));
        }
        if (inputs[i]->getType() != inputs[0]->getType())
        {
            return invalidArgument(describeNode(node) + ": input " + std::to_string(i)
                + " has a different element type than input 0");
        }
    }
    auto* layer = ctx.network().addConcatenation(inputs.data(), static_cast<int32_t>(inputs.size()));
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, layer, "addConcatenation"));
    layer->setAxis(axis);
    outputs.emplace_back(layer->getOutput(0));
    return Status::ok();
}

Status importSplit(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ITensor * x, ctx.tensor(node, 0));
    int32_t const r = x->getDimensions().nbDims;
    KILN_ASSIGN_OR_RETURN(int32_t axis, normalizeAxis(node, attrInt(node, "axis", 0), r));
    int32_t const nbOutputs = node.output_size();
    if (nbOutputs < 1)
    {
        return invalidArgument(describeNode(node) + ": Split needs at least one output");
    }
    ShapeMath math(ctx, node);
    KILN_ASSIGN_OR_RETURN(ShapeVec shape, math.shapeOf(x));
    KILN_ASSIGN_OR_RETURN(ShapeVec dim, math.slice(shape, axis, axis + 1));
    bool haveSplit = false;
    ShapeVec sizes;
    if (ctx.opsetVersion() < 13 && hasAttribute(node, "split"))
    {
        haveSplit = true;
        sizes = ShapeMath::constant(attrInts(node, "split"));
    }
    else if (ctx.opsetVersion() >= 13 && ctx.hasInput(node, 1))
    {
        haveSplit = true;
        KILN_ASSIGN_OR_RETURN(sizes, math.input(1, "split"));
    }
    std::vector<ShapeVec> starts;
    std::vector<ShapeVec> lengths;
    if (haveSplit)
    {
        if (sizes.length != nbOutputs)
        {
            return invalidArgument(describeNode(node) + ": 'split' has " + std::to_string(sizes.length)
                + " entries but the node has " + std::to_string(nbOutputs) + " outputs");
        }
        if (sizes.isStatic())
        {
            int64_t total = 0;
            for (int64_t s : sizes.values)
            {
                if (s < 0)
                {
                    return invalidArgument(describeNode(node) + ": 'split' holds a negative size");
                }
                total += s;
            }
            if (dim.isStatic() && total != dim.values[0])
            {
                return invalidArgument(describeNode(node) + ": 'split' sums to " + std::to_string(total)
                    + " but the axis has extent " + std::to_string(dim.values[0]));
            }
        }
        KILN_ASSIGN_OR_RETURN(ShapeVec offsets, math.exclusivePrefixSum(sizes));
        for (int32_t i = 0; i < nbOutputs; ++i)
        {
            KILN_ASSIGN_OR_RETURN(ShapeVec s, math.slice(offsets, i, i + 1));
            KILN_ASSIGN_OR_RETURN(ShapeVec l, math.slice(sizes, i, i + 1));
            starts.push_back(s);
            lengths.push_back(l);
        }
    }
    else
    {
        int64_t parts = nbOutputs;
        bool const uneven = ctx.opsetVersion() >= 18 && hasAttribute(node, "num_outputs");
        if (uneven)
        {
            parts = attrInt(node, "num_outputs", nbOutputs);
            if (parts != nbOutputs)
            {
                return invalidArgument(describeNode(node) + ": attribute 'num_outputs' is " + std::to_string(parts)
                    + " but the node has " + std::to_string(nbOutputs) + " outputs");
            }
        }
        else if (dim.isStatic() && dim.values[0] % parts != 0)
        {
            return invalidArgument(describeNode(node) + ": axis extent " + std::to_string(dim.values[0])
                + " does not split into " + std::to_string(parts) + " equal parts");
        }
        ShapeVec const pv = ShapeMath::filled(1, parts);
        ShapeVec chunk;
        if (uneven)
        {
            KILN_ASSIGN_OR_RETURN(chunk, math.ceilDiv(dim, pv));
        }
        else
        {
            KILN_ASSIGN_OR_RETURN(chunk, math.floorDiv(dim, pv));
        }
        for (int32_t i = 0; i < nbOutputs; ++i)
        {
            KILN_ASSIGN_OR_RETURN(ShapeVec s, math.mul(chunk, ShapeMath::filled(1, i)));
            KILN_ASSIGN_OR_RETURN(s, math.min(s, dim));
            KILN_ASSIGN_OR_RETURN(ShapeVec rest, math.sub(dim, s));
            KILN_ASSIGN_OR_RETURN(ShapeVec l, math.min(chunk, rest));
            starts.push_back(s);
            lengths.push_back(l);
        }
    }
    for (int32_t i = 0; i < nbOutputs; ++i)
    {
        KILN_ASSIGN_OR_RETURN(auto* slice, addSliceLayer(ctx, node, x, starts[static_cast<size_t>(i)],
            lengths[static_cast<size_t>(i)], ShapeMath::filled(1, 1), {axis}, "split_" + std::to_string(i)));
        outputs.emplace_back(slice->getOutput(0));
    }
    return Status::ok();
}

} // namespace

std::vector<OpImporterEntry> layoutImporters()
{
    std::vector<OpImporterEntry> entries{
        {"Transpose", importTranspose},
        {"DepthToSpace", importDepthToSpace},
        {"SpaceToDepth", importSpaceToDepth},
        {"Concat", importConcat},
        {"Split", importSplit},
    };
    for (OpImporterEntry const& e : sliceImporters())
    {
        entries.push_back(e);
    }
    return entries;
}

} // namespace kiln
