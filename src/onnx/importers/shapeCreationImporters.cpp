// Importers of the shape family that create or broadcast tensors: Expand, Tile, ConstantOfShape, Range, EyeLike and
// Trilu. Broadcasts and tiles are ISliceLayer reads (stride 0 / kWRAP); index grids come from IFillLayer kLINSPACE.
#include "onnx/importers/shapeFamily.h"
#include "onnx/importers/shapeMath.h"

#include "core/dataType.h"
#include "onnx/importerHelpers.h"
#include "onnx/onnxAttributes.h"
#include "onnx/tensorConversion.h"

#include <cmath>
#include <cstring>
#include <sstream>

namespace kiln
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::ElementWiseOperation;
using nvinfer1::ITensor;

Status importExpand(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ITensor * x, ctx.tensor(node, 0));
    ShapeMath math(ctx, node);
    KILN_ASSIGN_OR_RETURN(ShapeVec shape, math.input(1, "shape"));
    int32_t const r = x->getDimensions().nbDims;
    int32_t const n = shape.length;
    int32_t const outRank = std::max(r, n);
    if (outRank > nvinfer1::Dims::MAX_DIMS)
    {
        return unsupported(describeNode(node) + ": output rank " + std::to_string(outRank) + " is too large");
    }
    if (outRank == 0)
    {
        outputs.emplace_back(x);
        return Status::ok();
    }
    if (r < outRank)
    {
        KILN_ASSIGN_OR_RETURN(x, unsqueezeToRank(ctx, node, x, outRank));
    }
    KILN_ASSIGN_OR_RETURN(ShapeVec inShape, math.shapeOf(x));
    KILN_ASSIGN_OR_RETURN(ShapeVec target, math.concat({ShapeMath::filled(outRank - n, 1), shape}));
    if (inShape.isStatic() && target.isStatic())
    {
        for (int32_t i = 0; i < outRank; ++i)
        {
            int64_t const a = inShape.values[static_cast<size_t>(i)];
            int64_t const b = target.values[static_cast<size_t>(i)];
            if (a != b && a != 1 && b != 1)
            {
                return invalidArgument(describeNode(node) + ": cannot broadcast input extent " + std::to_string(a)
                    + " to " + std::to_string(b) + " at output dimension " + std::to_string(i));
            }
        }
    }
    // out = (in == 1) ? target : in, read with stride 0 where in == 1.
    KILN_ASSIGN_OR_RETURN(ShapeVec isOne, math.equal(inShape, ShapeMath::filled(1, 1)));
    KILN_ASSIGN_OR_RETURN(ShapeVec outShape, math.select(isOne, target, inShape));
    KILN_ASSIGN_OR_RETURN(ShapeVec stride, math.sub(ShapeMath::filled(1, 1), isOne));
    if (stride.length == 1 && outRank != 1)
    {
        KILN_ASSIGN_OR_RETURN(stride, math.mul(stride, ShapeMath::filled(outRank, 1)));
    }
    KILN_ASSIGN_OR_RETURN(auto* slice,
        addSliceLayer(ctx, node, x, ShapeMath::filled(outRank, 0), outShape, stride, {}));
    outputs.emplace_back(slice->getOutput(0));
    return Status::ok();
}

Status importTile(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ITensor * x, ctx.tensor(node, 0));
    ShapeMath math(ctx, node);
    KILN_ASSIGN_OR_RETURN(ShapeVec repeats, math.input(1, "repeats"));
    int32_t const r = x->getDimensions().nbDims;
    if (repeats.length != r)
    {
        return invalidArgument(describeNode(node) + ": input 'repeats' has " + std::to_string(repeats.length)
            + " entries but the input has rank " + std::to_string(r));
    }
    if (repeats.isStatic())
    {
        for (int64_t v : repeats.values)
        {
            if (v < 0)
            {
                return invalidArgument(describeNode(node) + ": input 'repeats' holds a negative value");
            }
        }
    }
    KILN_ASSIGN_OR_RETURN(ShapeVec inShape, math.shapeOf(x));
    KILN_ASSIGN_OR_RETURN(ShapeVec outShape, math.mul(inShape, repeats));
    KILN_ASSIGN_OR_RETURN(
        auto* slice, addSliceLayer(ctx, node, x, ShapeMath::filled(r, 0), outShape, ShapeMath::filled(r, 1), {}));
    slice->setMode(nvinfer1::SampleMode::kWRAP);
    outputs.emplace_back(slice->getOutput(0));
    return Status::ok();
}

Status importConstantOfShape(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    OnnxConstant value = OnnxConstant::fromFloat({0.0F}, {1});
    if (hasAttribute(node, "value"))
    {
        KILN_ASSIGN_OR_RETURN(value, attrTensor(node, "value"));
    }
    if (value.count() != 1)
    {
        return invalidArgument(describeNode(node) + ": attribute 'value' must hold exactly one element, not "
            + std::to_string(value.count()));
    }
    ShapeMath math(ctx, node);
    KILN_ASSIGN_OR_RETURN(ShapeVec shape, math.input(0, "input"));
    size_t const elemSize = value.bytes.size();
    if (shape.isStatic())
    {
        int64_t count = 1;
        for (int64_t d : shape.values)
        {
            if (d < 0)
            {
                return invalidArgument(describeNode(node) + ": input 'input' holds a negative extent");
            }
            if (__builtin_mul_overflow(count, d, &count))
            {
                return invalidArgument(describeNode(node) + ": the shape in input 'input' has more elements "
                    "than int64 counts");
            }
        }
        if (count <= (int64_t{1} << 20))
        {
            OnnxConstant out;
            out.type = value.type;
            out.shape = shape.values;
            out.bytes.resize(static_cast<size_t>(count) * elemSize);
            for (int64_t i = 0; i < count; ++i)
            {
                std::memcpy(out.bytes.data() + static_cast<size_t>(i) * elemSize, value.bytes.data(), elemSize);
            }
            outputs.emplace_back(std::move(out));
            return Status::ok();
        }
    }
    // A one-element constant of the output rank read with stride 0 into the requested shape.
    OnnxConstant seed = value;
    seed.shape.assign(static_cast<size_t>(shape.length), 1);
    KILN_ASSIGN_OR_RETURN(ITensor * seedT, ctx.constantTensor(seed, node.name() + "_value"));
    if (shape.length == 0)
    {
        outputs.emplace_back(seedT);
        return Status::ok();
    }
    KILN_ASSIGN_OR_RETURN(auto* slice,
        addSliceLayer(ctx, node, seedT, ShapeMath::filled(shape.length, 0), shape,
            ShapeMath::filled(shape.length, 0), {}));
    outputs.emplace_back(slice->getOutput(0));
    return Status::ok();
}

StatusOr<OnnxConstant> rangeConstant(::onnx::NodeProto const& node, OnnxConstant const& start,
    OnnxConstant const& limit, OnnxConstant const& delta)
{
    DataType const type = start.type;
    if (type == DataType::kINT32 || type == DataType::kINT64)
    {
        KILN_ASSIGN_OR_RETURN(std::vector<int64_t> s, start.toInt64());
        KILN_ASSIGN_OR_RETURN(std::vector<int64_t> l, limit.toInt64());
        KILN_ASSIGN_OR_RETURN(std::vector<int64_t> d, delta.toInt64());
        if (d[0] == 0)
        {
            return invalidArgument(describeNode(node) + ": input 'delta' is 0");
        }
        int64_t const span = l[0] - s[0];
        int64_t n = span / d[0] + ((span % d[0] != 0 && ((span < 0) == (d[0] < 0))) ? 1 : 0);
        n = std::max<int64_t>(n, 0);
        std::vector<int64_t> values;
        for (int64_t i = 0; i < n; ++i)
        {
            values.push_back(s[0] + i * d[0]);
        }
        if (type == DataType::kINT64)
        {
            return OnnxConstant::fromInt64(values, {n});
        }
        std::vector<int32_t> v32(values.begin(), values.end());
        return OnnxConstant::fromInt32(v32, {n});
    }
    KILN_ASSIGN_OR_RETURN(std::vector<double> s, start.toDouble());
    KILN_ASSIGN_OR_RETURN(std::vector<double> l, limit.toDouble());
    KILN_ASSIGN_OR_RETURN(std::vector<double> d, delta.toDouble());
    if (d[0] == 0.0)
    {
        return invalidArgument(describeNode(node) + ": input 'delta' is 0");
    }
    double const steps = std::ceil((l[0] - s[0]) / d[0]);
    if (!(steps < 1e9))
    {
        if (steps > 0)
        {
            return invalidArgument(describeNode(node) + ": the range has too many elements");
        }
    }
    int64_t const n = steps > 0 ? static_cast<int64_t>(steps) : 0;
    std::vector<double> values;
    for (int64_t i = 0; i < n; ++i)
    {
        values.push_back(s[0] + static_cast<double>(i) * d[0]);
    }
    return OnnxConstant::fromDouble(type, values, {n});
}

std::string formatDouble(double v)
{
    std::ostringstream os;
    os << v;
    return os.str();
}

//! The integer tensor `t` holds: t itself when it is INT32/INT64, or the input of the ICastLayer that produced `t`
//! from an integer tensor; nullptr otherwise.
ITensor* integerSource(ImporterContext& ctx, ITensor* t)
{
    auto isInt = [](DataType type) { return type == DataType::kINT32 || type == DataType::kINT64; };
    if (isInt(t->getType()))
    {
        return t;
    }
    nvinfer1::INetworkDefinition& network = ctx.network();
    for (int32_t i = network.getNbLayers() - 1; i >= 0; --i)
    {
        nvinfer1::ILayer* layer = network.getLayer(i);
        if (layer->getNbOutputs() < 1 || layer->getOutput(0) != t)
        {
            continue;
        }
        if (layer->getType() == nvinfer1::LayerType::kCAST && layer->getNbInputs() >= 1
            && layer->getInput(0) != nullptr && isInt(layer->getInput(0)->getType()))
        {
            return layer->getInput(0);
        }
        return nullptr;
    }
    return nullptr;
}

Status importRange(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    OnnxConstant const* cs = ctx.constant(node, 0);
    OnnxConstant const* cl = ctx.constant(node, 1);
    OnnxConstant const* cd = ctx.constant(node, 2);
    for (OnnxConstant const* c : {cs, cl, cd})
    {
        if (c != nullptr && c->count() != 1)
        {
            return invalidArgument(describeNode(node) + ": start, limit and delta must be scalars");
        }
    }
    if (cs != nullptr && cl != nullptr && cd != nullptr)
    {
        if (cs->type != cl->type || cs->type != cd->type)
        {
            return invalidArgument(describeNode(node) + ": start, limit and delta must have one type");
        }
        KILN_ASSIGN_OR_RETURN(OnnxConstant out, rangeConstant(node, *cs, *cl, *cd));
        outputs.emplace_back(std::move(out));
        return Status::ok();
    }
    // Run-time inputs: the length must be a shape value, so every input must hold an integer: an integer tensor, a
    // cast of one to a floating-point type (as exported window functions do), or an integral constant.
    ShapeMath math(ctx, node);
    DataType outType = DataType::kINT64;
    ShapeVec params[3];
    char const* const names[3] = {"start", "limit", "delta"};
    for (int32_t i = 0; i < 3; ++i)
    {
        if (OnnxConstant const* c = ctx.constant(node, i))
        {
            outType = c->type;
            KILN_ASSIGN_OR_RETURN(std::vector<double> v, c->toDouble());
            if (v[0] != std::floor(v[0]) || std::fabs(v[0]) > 9.0e15)
            {
                return unsupported(describeNode(node) + ": Range with run-time inputs needs integral values, but input '"
                    + names[i] + "' is " + formatDouble(v[0]));
            }
            params[i] = ShapeMath::constant({static_cast<int64_t>(v[0])});
            continue;
        }
        KILN_ASSIGN_OR_RETURN(ITensor * t, ctx.tensor(node, i));
        outType = t->getType();
        ITensor* source = integerSource(ctx, t);
        if (source == nullptr)
        {
            return unsupported(describeNode(node) + ": Range with run-time " + std::string(dataTypeName(t->getType()))
                + " input '" + names[i] + "' is not supported (its length would depend on floating-point values; give "
                "start, limit and delta as constants or integers)");
        }
        KILN_ASSIGN_OR_RETURN(params[i], math.fromTensor(source, names[i]));
    }
    for (ShapeVec const& p : params)
    {
        if (p.length != 1)
        {
            return invalidArgument(describeNode(node) + ": start, limit and delta must be scalars");
        }
    }
    if (params[2].isStatic() && params[2].values[0] == 0)
    {
        return invalidArgument(describeNode(node) + ": input 'delta' is 0");
    }
    KILN_ASSIGN_OR_RETURN(ShapeVec span, math.sub(params[1], params[0]));
    KILN_ASSIGN_OR_RETURN(ShapeVec n, math.ceilDiv(span, params[2]));
    KILN_ASSIGN_OR_RETURN(n, math.max(n, ShapeMath::filled(1, 0)));
    nvinfer1::Dims one{};
    one.nbDims = 1;
    one.d[0] = n.isStatic() ? n.values[0] : 0;
    auto* fill = ctx.network().addFill(one, nvinfer1::FillOperation::kLINSPACE, DataType::kINT64);
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, fill, "addFill"));
    if (!n.isStatic())
    {
        KILN_ASSIGN_OR_RETURN(ITensor * nT, math.toTensor(n));
        fill->setInput(0, *nT);
    }
    nvinfer1::Dims scalar{};
    scalar.nbDims = 0;
    KILN_ASSIGN_OR_RETURN(ITensor * alpha, math.toTensor(params[0]));
    KILN_ASSIGN_OR_RETURN(alpha, reshape(ctx, node, alpha, scalar, "alpha_scalar"));
    KILN_ASSIGN_OR_RETURN(ITensor * beta, math.toTensor(params[2]));
    fill->setInput(1, *alpha);
    fill->setInput(2, *beta);
    KILN_ASSIGN_OR_RETURN(ITensor * y, castTo(ctx, node, fill->getOutput(0), outType, "to_output_type"));
    outputs.emplace_back(y);
    return Status::ok();
}

//! An INT64 [rows, cols] grid holding col - row, where `rc` holds the two extents.
StatusOr<ITensor*> diagonalGrid(ImporterContext& ctx, ::onnx::NodeProto const& node, ShapeVec const& rc)
{
    ShapeMath math(ctx, node);
    nvinfer1::Dims dims{};
    dims.nbDims = 2;
    dims.d[0] = rc.isStatic() ? rc.values[0] : 0;
    dims.d[1] = rc.isStatic() ? rc.values[1] : 0;
    auto* fill = ctx.network().addFill(dims, nvinfer1::FillOperation::kLINSPACE, DataType::kINT64);
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, fill, "addFill", "grid"));
    if (!rc.isStatic())
    {
        fill->setInput(0, *rc.tensor);
    }
    KILN_ASSIGN_OR_RETURN(
        ITensor * alpha, ctx.constantTensor(OnnxConstant::fromInt64({0}, {}), node.name() + "_grid_alpha"));
    KILN_ASSIGN_OR_RETURN(
        ITensor * beta, ctx.constantTensor(OnnxConstant::fromInt64({-1, 1}, {2}), node.name() + "_grid_beta"));
    fill->setInput(1, *alpha);
    fill->setInput(2, *beta);
    return fill->getOutput(0);
}

Status importEyeLike(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ITensor * x, ctx.tensor(node, 0));
    if (x->getDimensions().nbDims != 2)
    {
        return invalidArgument(describeNode(node) + ": the input must be 2-D");
    }
    DataType type = x->getType();
    if (hasAttribute(node, "dtype"))
    {
        auto t = onnxToKilnType(static_cast<int32_t>(attrInt(node, "dtype", 1)));
        if (!t.isOk())
        {
            return t.status().withContext(describeNode(node) + ": attribute 'dtype'");
        }
        type = *t;
    }
    int64_t const k = attrInt(node, "k", 0);
    ShapeMath math(ctx, node);
    KILN_ASSIGN_OR_RETURN(ShapeVec shape, math.shapeOf(x));
    // A small static matrix becomes a constant; a large one (or one whose element count overflows) is computed by the
    // network like a dynamic one, instead of being stored in the engine.
    constexpr int64_t kMAX_FOLDED = int64_t{1} << 16;
    int64_t count = 0;
    bool const fold = shape.isStatic() && shape.values[0] >= 0 && shape.values[1] >= 0
        && !__builtin_mul_overflow(shape.values[0], shape.values[1], &count) && count <= kMAX_FOLDED;
    if (fold)
    {
        int64_t const rows = shape.values[0];
        int64_t const cols = shape.values[1];
        std::vector<double> values(static_cast<size_t>(count), 0.0);
        // An empty matrix has no diagonal (rows may then be huge: a 2^62 x 0 matrix); otherwise rows <= count. k is
        // compared, never added, so that an extreme k does not overflow.
        for (int64_t i = 0; count > 0 && i < rows; ++i)
        {
            if (k >= -i && k < cols - i)
            {
                values[static_cast<size_t>(i * cols + i + k)] = 1.0;
            }
        }
        KILN_ASSIGN_OR_RETURN(OnnxConstant out, OnnxConstant::fromDouble(type, values, {rows, cols}));
        outputs.emplace_back(std::move(out));
        return Status::ok();
    }
    KILN_ASSIGN_OR_RETURN(ITensor * grid, diagonalGrid(ctx, node, shape));
    KILN_ASSIGN_OR_RETURN(ITensor * kT, ctx.constantTensor(OnnxConstant::fromInt64({k}, {1, 1}), node.name() + "_k"));
    KILN_ASSIGN_OR_RETURN(ITensor * mask, addElementWise(ctx, node, grid, kT, ElementWiseOperation::kEQUAL, "diag"));
    KILN_ASSIGN_OR_RETURN(ITensor * y, castTo(ctx, node, mask, type));
    outputs.emplace_back(y);
    return Status::ok();
}

Status importTrilu(ImporterContext& ctx, ::onnx::NodeProto const& node, std::vector<OnnxValue>& outputs)
{
    KILN_ASSIGN_OR_RETURN(ITensor * x, ctx.tensor(node, 0));
    int32_t const r = x->getDimensions().nbDims;
    if (r < 2)
    {
        return invalidArgument(describeNode(node) + ": the input must have rank >= 2");
    }
    bool const upper = attrInt(node, "upper", 1) != 0;
    ShapeMath math(ctx, node);
    ShapeVec k = ShapeMath::filled(1, 0);
    if (ctx.hasInput(node, 1))
    {
        KILN_ASSIGN_OR_RETURN(k, math.input(1, "k"));
        if (k.length != 1)
        {
            return invalidArgument(describeNode(node) + ": input 'k' must be a scalar");
        }
    }
    KILN_ASSIGN_OR_RETURN(ShapeVec shape, math.shapeOf(x));
    KILN_ASSIGN_OR_RETURN(ShapeVec rc, math.slice(shape, r - 2, r));
    KILN_ASSIGN_OR_RETURN(ITensor * grid, diagonalGrid(ctx, node, rc));
    // upper keeps col - row >= k (> k - 1); lower keeps col - row <= k (< k + 1).
    KILN_ASSIGN_OR_RETURN(ShapeVec threshold, math.add(k, ShapeMath::filled(1, upper ? -1 : 1)));
    KILN_ASSIGN_OR_RETURN(ITensor * thr, math.toTensor(threshold));
    nvinfer1::Dims oneOne{};
    oneOne.nbDims = 2;
    oneOne.d[0] = 1;
    oneOne.d[1] = 1;
    KILN_ASSIGN_OR_RETURN(thr, reshape(ctx, node, thr, oneOne, "k"));
    KILN_ASSIGN_OR_RETURN(ITensor * mask,
        addElementWise(ctx, node, grid, thr, upper ? ElementWiseOperation::kGREATER : ElementWiseOperation::kLESS,
            "mask"));
    KILN_ASSIGN_OR_RETURN(mask, unsqueezeToRank(ctx, node, mask, r));
    KILN_ASSIGN_OR_RETURN(ITensor * zero, scalarLike(ctx, node, 0.0, x->getType(), r));
    auto* select = ctx.network().addSelect(*mask, *x, *zero);
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, select, "addSelect"));
    outputs.emplace_back(select->getOutput(0));
    return Status::ok();
}

} // namespace

std::vector<OpImporterEntry> shapeCreationImporters()
{
    return {
        {"Expand", importExpand},
        {"Tile", importTile},
        {"ConstantOfShape", importConstantOfShape},
        {"Range", importRange},
        {"EyeLike", importEyeLike},
        {"Trilu", importTrilu},
    };
}

} // namespace kiln
