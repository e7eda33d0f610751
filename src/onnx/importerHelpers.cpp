// Building blocks shared by the op importers (see importerHelpers.h). Rank changes use one IShuffleLayer with
// zero-as-placeholder reshapes plus a second transpose, so they work for dynamic dimensions without shape arithmetic.
#include "onnx/importerHelpers.h"

#include "onnx/onnxAttributes.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace kiln
{

using nvinfer1::DataType;
using nvinfer1::Dims;
using nvinfer1::ITensor;

namespace
{

Dims dimsOf(std::vector<int64_t> const& values)
{
    Dims d{};
    d.nbDims = static_cast<int32_t>(values.size());
    for (size_t i = 0; i < values.size(); ++i)
    {
        d.d[i] = values[i];
    }
    return d;
}

nvinfer1::Permutation permutationOf(std::vector<int32_t> const& perm)
{
    nvinfer1::Permutation p{};
    for (int32_t i = 0; i < nvinfer1::Dims::MAX_DIMS; ++i)
    {
        p.order[i] = i;
    }
    for (size_t i = 0; i < perm.size(); ++i)
    {
        p.order[i] = perm[i];
    }
    return p;
}

Status rankError(::onnx::NodeProto const& node, int64_t rank)
{
    return invalidArgument(describeNode(node) + ": a tensor of rank " + std::to_string(rank)
        + " exceeds Kiln's maximum rank " + std::to_string(nvinfer1::Dims::MAX_DIMS));
}

} // namespace

Status checkLayer(ImporterContext& ctx, ::onnx::NodeProto const& node, nvinfer1::ILayer* layer, char const* what,
    std::string const& suffix)
{
    if (layer == nullptr)
    {
        return invalidArgument(describeNode(node) + ": INetworkDefinition::" + what
            + " refused the layer (see the logged network error)");
    }
    ctx.nameLayer(layer, node, suffix);
    return Status::ok();
}

StatusOr<int32_t> normalizeAxis(::onnx::NodeProto const& node, int64_t axis, int32_t rank)
{
    if (axis < -static_cast<int64_t>(rank) || axis >= rank)
    {
        return invalidArgument(describeNode(node) + ": axis " + std::to_string(axis) + " is out of range for a tensor of rank "
            + std::to_string(rank) + " (expected [" + std::to_string(-rank) + ", " + std::to_string(rank) + "))");
    }
    return static_cast<int32_t>(axis < 0 ? axis + rank : axis);
}

StatusOr<std::vector<int32_t>> normalizeAxes(
    ::onnx::NodeProto const& node, std::vector<int64_t> const& axes, int32_t rank)
{
    std::vector<int32_t> out;
    for (int64_t axis : axes)
    {
        KILN_ASSIGN_OR_RETURN(int32_t a, normalizeAxis(node, axis, rank));
        if (std::find(out.begin(), out.end(), a) != out.end())
        {
            return invalidArgument(describeNode(node) + ": axis " + std::to_string(axis) + " appears more than once");
        }
        out.push_back(a);
    }
    return out;
}

StatusOr<ITensor*> unsqueezeToRank(ImporterContext& ctx, ::onnx::NodeProto const& node, ITensor* t, int32_t rank)
{
    int32_t const r = t->getDimensions().nbDims;
    if (r >= rank)
    {
        return t;
    }
    std::vector<int32_t> axes(static_cast<size_t>(rank - r));
    std::iota(axes.begin(), axes.end(), 0);
    return unsqueeze(ctx, node, t, axes, "broadcast");
}

StatusOr<std::pair<ITensor*, ITensor*>> broadcastPair(
    ImporterContext& ctx, ::onnx::NodeProto const& node, ITensor* a, ITensor* b)
{
    int32_t const rank = std::max(a->getDimensions().nbDims, b->getDimensions().nbDims);
    KILN_ASSIGN_OR_RETURN(ITensor * a2, unsqueezeToRank(ctx, node, a, rank));
    KILN_ASSIGN_OR_RETURN(ITensor * b2, unsqueezeToRank(ctx, node, b, rank));
    return std::make_pair(a2, b2);
}

StatusOr<ITensor*> addElementWise(ImporterContext& ctx, ::onnx::NodeProto const& node, ITensor* a, ITensor* b,
    nvinfer1::ElementWiseOperation op, std::string const& suffix)
{
    KILN_ASSIGN_OR_RETURN(auto pair, broadcastPair(ctx, node, a, b));
    auto* layer = ctx.network().addElementWise(*pair.first, *pair.second, op);
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, layer, "addElementWise", suffix));
    return layer->getOutput(0);
}

StatusOr<ITensor*> addUnary(ImporterContext& ctx, ::onnx::NodeProto const& node, ITensor* t,
    nvinfer1::UnaryOperation op, std::string const& suffix)
{
    auto* layer = ctx.network().addUnary(*t, op);
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, layer, "addUnary", suffix));
    return layer->getOutput(0);
}

StatusOr<ITensor*> castTo(
    ImporterContext& ctx, ::onnx::NodeProto const& node, ITensor* t, DataType type, std::string const& suffix)
{
    if (t->getType() == type)
    {
        return t;
    }
    auto* layer = ctx.network().addCast(*t, type);
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, layer, "addCast", suffix.empty() ? std::string("cast") : suffix));
    return layer->getOutput(0);
}

StatusOr<ITensor*> scalarLike(
    ImporterContext& ctx, ::onnx::NodeProto const& node, double value, DataType type, int32_t rank)
{
    if (rank < 0 || rank > nvinfer1::Dims::MAX_DIMS)
    {
        return rankError(node, rank);
    }
    auto c = OnnxConstant::fromDouble(type, {value}, std::vector<int64_t>(static_cast<size_t>(rank), 1));
    if (!c.isOk())
    {
        return c.status().withContext(describeNode(node));
    }
    return ctx.constantTensor(*c, node.name().empty() ? std::string("scalar") : node.name() + "_scalar");
}

StatusOr<ITensor*> int64Vector(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<int64_t> const& values)
{
    OnnxConstant const c = OnnxConstant::fromInt64(values, {static_cast<int64_t>(values.size())});
    return ctx.constantTensor(c, node.name().empty() ? std::string("shape") : node.name() + "_shape");
}

StatusOr<ITensor*> shapeOf(ImporterContext& ctx, ::onnx::NodeProto const& node, ITensor* t)
{
    auto* layer = ctx.network().addShape(*t);
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, layer, "addShape", "shape"));
    return layer->getOutput(0);
}

StatusOr<ITensor*> shapeSlice(
    ImporterContext& ctx, ::onnx::NodeProto const& node, ITensor* shape, int32_t begin, int32_t end)
{
    int64_t const n = shape->getDimensions().nbDims == 1 ? shape->getDimensions().d[0] : -1;
    if (begin == 0 && n >= 0 && end == n)
    {
        return shape;
    }
    if (begin < 0 || end < begin || (n >= 0 && end > n))
    {
        return invalidArgument(describeNode(node) + ": shape slice [" + std::to_string(begin) + ", "
            + std::to_string(end) + ") is out of range");
    }
    auto* layer = ctx.network().addSlice(*shape, dimsOf({begin}), dimsOf({end - begin}), dimsOf({1}));
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, layer, "addSlice", "shapeSlice"));
    return layer->getOutput(0);
}

StatusOr<ITensor*> concatShapes(
    ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<ITensor*> const& parts)
{
    if (parts.size() == 1)
    {
        return parts[0];
    }
    if (parts.empty())
    {
        return int64Vector(ctx, node, {});
    }
    auto* layer = ctx.network().addConcatenation(parts.data(), static_cast<int32_t>(parts.size()));
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, layer, "addConcatenation", "shapeConcat"));
    layer->setAxis(0);
    return layer->getOutput(0);
}

StatusOr<ITensor*> shapeProduct(ImporterContext& ctx, ::onnx::NodeProto const& node, ITensor* shape)
{
    auto* layer = ctx.network().addReduce(*shape, nvinfer1::ReduceOperation::kPROD, 1U, true);
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, layer, "addReduce", "shapeProduct"));
    return layer->getOutput(0);
}

StatusOr<ITensor*> reshape(
    ImporterContext& ctx, ::onnx::NodeProto const& node, ITensor* t, Dims const& dims, std::string const& suffix)
{
    auto* layer = ctx.network().addShuffle(*t);
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, layer, "addShuffle", suffix.empty() ? std::string("reshape") : suffix));
    layer->setZeroIsPlaceholder(true);
    layer->setReshapeDimensions(dims);
    return layer->getOutput(0);
}

StatusOr<ITensor*> reshapeTo(
    ImporterContext& ctx, ::onnx::NodeProto const& node, ITensor* t, ITensor* shape, std::string const& suffix)
{
    auto* layer = ctx.network().addShuffle(*t);
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, layer, "addShuffle", suffix.empty() ? std::string("reshape") : suffix));
    layer->setZeroIsPlaceholder(true);
    layer->setInput(1, *shape);
    return layer->getOutput(0);
}

StatusOr<ITensor*> transpose(ImporterContext& ctx, ::onnx::NodeProto const& node, ITensor* t,
    std::vector<int32_t> const& perm, std::string const& suffix)
{
    int32_t const rank = t->getDimensions().nbDims;
    std::vector<int32_t> sorted = perm;
    std::sort(sorted.begin(), sorted.end());
    bool valid = static_cast<int32_t>(perm.size()) == rank;
    for (int32_t i = 0; valid && i < rank; ++i)
    {
        valid = sorted[static_cast<size_t>(i)] == i;
    }
    if (!valid)
    {
        std::string list;
        for (int32_t p : perm)
        {
            list += (list.empty() ? "" : ",") + std::to_string(p);
        }
        return invalidArgument(describeNode(node) + ": perm [" + list + "] is not a permutation of the "
            + std::to_string(rank) + " input dimensions");
    }
    auto* layer = ctx.network().addShuffle(*t);
    KILN_RETURN_IF_ERROR(
        checkLayer(ctx, node, layer, "addShuffle", suffix.empty() ? std::string("transpose") : suffix));
    layer->setFirstTranspose(permutationOf(perm));
    return layer->getOutput(0);
}

StatusOr<ITensor*> unsqueeze(ImporterContext& ctx, ::onnx::NodeProto const& node, ITensor* t,
    std::vector<int32_t> const& axes, std::string const& suffix)
{
    int32_t const r = t->getDimensions().nbDims;
    int32_t const outRank = r + static_cast<int32_t>(axes.size());
    if (outRank > nvinfer1::Dims::MAX_DIMS)
    {
        return rankError(node, outRank);
    }
    std::vector<bool> isNew(static_cast<size_t>(outRank), false);
    for (int32_t a : axes)
    {
        if (a < 0 || a >= outRank || isNew[static_cast<size_t>(a)])
        {
            return invalidArgument(describeNode(node) + ": unsqueeze axis " + std::to_string(a)
                + " is out of range or repeated for output rank " + std::to_string(outRank));
        }
        isNew[static_cast<size_t>(a)] = true;
    }
    // Reshape [d0..d(r-1)] -> [d0..d(r-1), 1, ..., 1] (zeros copy the input extents), then move each appended 1 to
    // its output position with the second transpose.
    Dims reshapeDims{};
    reshapeDims.nbDims = outRank;
    for (int32_t i = 0; i < outRank; ++i)
    {
        reshapeDims.d[i] = i < r ? 0 : 1;
    }
    std::vector<int32_t> perm;
    int32_t nextOld = 0;
    int32_t nextNew = r;
    for (int32_t p = 0; p < outRank; ++p)
    {
        perm.push_back(isNew[static_cast<size_t>(p)] ? nextNew++ : nextOld++);
    }
    auto* layer = ctx.network().addShuffle(*t);
    KILN_RETURN_IF_ERROR(
        checkLayer(ctx, node, layer, "addShuffle", suffix.empty() ? std::string("unsqueeze") : suffix));
    layer->setZeroIsPlaceholder(true);
    layer->setReshapeDimensions(reshapeDims);
    layer->setSecondTranspose(permutationOf(perm));
    return layer->getOutput(0);
}

StatusOr<ITensor*> squeeze(ImporterContext& ctx, ::onnx::NodeProto const& node, ITensor* t,
    std::vector<int32_t> const& axes, std::string const& suffix)
{
    Dims const in = t->getDimensions();
    int32_t const r = in.nbDims;
    std::vector<bool> drop(static_cast<size_t>(r), false);
    for (int32_t a : axes)
    {
        if (a < 0 || a >= r || drop[static_cast<size_t>(a)])
        {
            return invalidArgument(describeNode(node) + ": squeeze axis " + std::to_string(a)
                + " is out of range or repeated for input rank " + std::to_string(r));
        }
        if (in.d[a] > 1 || in.d[a] == 0)
        {
            return invalidArgument(describeNode(node) + ": cannot squeeze axis " + std::to_string(a) + " of extent "
                + std::to_string(in.d[a]) + " (it must be 1)");
        }
        drop[static_cast<size_t>(a)] = true;
    }
    // First transpose moves the dropped axes last; the reshape keeps the first r-k extents (zeros copy them).
    std::vector<int32_t> perm;
    for (int32_t i = 0; i < r; ++i)
    {
        if (!drop[static_cast<size_t>(i)])
        {
            perm.push_back(i);
        }
    }
    int32_t const outRank = static_cast<int32_t>(perm.size());
    for (int32_t i = 0; i < r; ++i)
    {
        if (drop[static_cast<size_t>(i)])
        {
            perm.push_back(i);
        }
    }
    Dims reshapeDims{};
    reshapeDims.nbDims = outRank;
    for (int32_t i = 0; i < outRank; ++i)
    {
        reshapeDims.d[i] = 0;
    }
    auto* layer = ctx.network().addShuffle(*t);
    KILN_RETURN_IF_ERROR(
        checkLayer(ctx, node, layer, "addShuffle", suffix.empty() ? std::string("squeeze") : suffix));
    layer->setFirstTranspose(permutationOf(perm));
    layer->setZeroIsPlaceholder(true);
    layer->setReshapeDimensions(reshapeDims);
    return layer->getOutput(0);
}

StatusOr<ITensor*> flatten2D(
    ImporterContext& ctx, ::onnx::NodeProto const& node, ITensor* t, int32_t axis, std::string const& suffix)
{
    Dims const in = t->getDimensions();
    int32_t const r = in.nbDims;
    if (axis < 0 || axis > r)
    {
        return invalidArgument(describeNode(node) + ": flatten axis " + std::to_string(axis)
            + " is out of range for rank " + std::to_string(r));
    }
    auto knownProduct = [&](int32_t begin, int32_t end, int64_t& product) {
        product = 1;
        for (int32_t i = begin; i < end; ++i)
        {
            if (in.d[i] < 0 || (in.d[i] > 0 && product > std::numeric_limits<int64_t>::max() / in.d[i]))
            {
                return false; // unknown, or too large for a dimension: left to the network's own checks
            }
            product *= in.d[i];
        }
        return true;
    };
    int64_t outer = 1;
    int64_t inner = 1;
    bool const outerKnown = knownProduct(0, axis, outer);
    bool const innerKnown = knownProduct(axis, r, inner);
    std::string const name = suffix.empty() ? std::string("flatten") : suffix;
    if (outerKnown && innerKnown)
    {
        return reshape(ctx, node, t, dimsOf({outer, inner}), name);
    }
    // One unknown side can be inferred with -1 unless the known side is empty (then -1 would be ambiguous).
    if (outerKnown && outer != 0)
    {
        auto* layer = ctx.network().addShuffle(*t);
        KILN_RETURN_IF_ERROR(checkLayer(ctx, node, layer, "addShuffle", name));
        layer->setZeroIsPlaceholder(false);
        layer->setReshapeDimensions(dimsOf({outer, -1}));
        return layer->getOutput(0);
    }
    if (innerKnown && inner != 0)
    {
        auto* layer = ctx.network().addShuffle(*t);
        KILN_RETURN_IF_ERROR(checkLayer(ctx, node, layer, "addShuffle", name));
        layer->setZeroIsPlaceholder(false);
        layer->setReshapeDimensions(dimsOf({-1, inner}));
        return layer->getOutput(0);
    }
    KILN_ASSIGN_OR_RETURN(ITensor * shape, shapeOf(ctx, node, t));
    KILN_ASSIGN_OR_RETURN(ITensor * head, shapeSlice(ctx, node, shape, 0, axis));
    KILN_ASSIGN_OR_RETURN(ITensor * tail, shapeSlice(ctx, node, shape, axis, r));
    ITensor* outerT = nullptr;
    ITensor* innerT = nullptr;
    if (axis == 0)
    {
        KILN_ASSIGN_OR_RETURN(outerT, int64Vector(ctx, node, {1}));
    }
    else
    {
        KILN_ASSIGN_OR_RETURN(outerT, shapeProduct(ctx, node, head));
    }
    if (axis == r)
    {
        KILN_ASSIGN_OR_RETURN(innerT, int64Vector(ctx, node, {1}));
    }
    else
    {
        KILN_ASSIGN_OR_RETURN(innerT, shapeProduct(ctx, node, tail));
    }
    KILN_ASSIGN_OR_RETURN(ITensor * newShape, concatShapes(ctx, node, {outerT, innerT}));
    auto* layer = ctx.network().addShuffle(*t);
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, layer, "addShuffle", name));
    layer->setZeroIsPlaceholder(false);
    layer->setInput(1, *newShape);
    return layer->getOutput(0);
}

// isFloatType is declared in importerHelpers.h with the same signature as core/dataType.h's, and defined there
// (core/dataType.cpp, which also counts kFP8 as floating point).

} // namespace kiln
