// ShapeMath: parse-time or run-time INT64 vector arithmetic shared by the shape, layout and indexing importers.
#include "onnx/importers/shapeMath.h"

#include "onnx/importerHelpers.h"
#include "onnx/onnxAttributes.h"

#include <algorithm>
#include <limits>

namespace kiln
{

using nvinfer1::DataType;
using nvinfer1::ElementWiseOperation;
using nvinfer1::ITensor;

StatusOr<nvinfer1::Dims> toDims(::onnx::NodeProto const& node, std::vector<int64_t> const& values)
{
    if (values.size() > static_cast<size_t>(nvinfer1::Dims::MAX_DIMS))
    {
        return unsupported(describeNode(node) + ": " + std::to_string(values.size())
            + " dimensions exceed the maximum rank " + std::to_string(nvinfer1::Dims::MAX_DIMS));
    }
    nvinfer1::Dims d{};
    d.nbDims = static_cast<int32_t>(values.size());
    for (size_t i = 0; i < values.size(); ++i)
    {
        d.d[i] = values[i];
    }
    return d;
}

std::vector<int64_t> dimsToVector(nvinfer1::Dims const& dims)
{
    std::vector<int64_t> v;
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        v.push_back(dims.d[i]);
    }
    return v;
}

bool hasStaticShape(ITensor const* t)
{
    nvinfer1::Dims const d = t->getDimensions();
    if (d.nbDims < 0)
    {
        return false;
    }
    for (int32_t i = 0; i < d.nbDims; ++i)
    {
        if (d.d[i] < 0)
        {
            return false;
        }
    }
    return true;
}

ShapeVec ShapeMath::constant(std::vector<int64_t> values)
{
    ShapeVec v;
    v.length = static_cast<int32_t>(values.size());
    v.values = std::move(values);
    return v;
}

ShapeVec ShapeMath::filled(int32_t length, int64_t value)
{
    return constant(std::vector<int64_t>(static_cast<size_t>(length), value));
}

StatusOr<ShapeVec> ShapeMath::shapeOf(ITensor* t)
{
    if (hasStaticShape(t))
    {
        return constant(dimsToVector(t->getDimensions()));
    }
    KILN_ASSIGN_OR_RETURN(ITensor * s, kiln::shapeOf(mCtx, mNode, t));
    ShapeVec v;
    v.tensor = s;
    v.length = t->getDimensions().nbDims;
    return v;
}

StatusOr<ShapeVec> ShapeMath::fromTensor(ITensor* t, std::string const& what)
{
    nvinfer1::Dims const d = t->getDimensions();
    if (t->getType() != DataType::kINT32 && t->getType() != DataType::kINT64)
    {
        return invalidArgument(describeNode(mNode) + ": " + what + " must be an INT32 or INT64 tensor");
    }
    if (d.nbDims > 1 || (d.nbDims == 1 && d.d[0] < 0))
    {
        return unsupported(describeNode(mNode) + ": " + what
            + " must be a 0-D or 1-D tensor whose length is known when the network is built");
    }
    // Shape vectors hold shapes, per-axis parameters and split sizes: a few values. A longer one (an edited model's
    // [2^31] tensor) would not fit ShapeVec's int32 length, and nothing can use it.
    constexpr int64_t kMAX_SHAPE_VECTOR = 65536;
    if (d.nbDims == 1 && d.d[0] > kMAX_SHAPE_VECTOR)
    {
        return unsupported(describeNode(mNode) + ": " + what + " has " + std::to_string(d.d[0])
            + " values; shape vectors of more than " + std::to_string(kMAX_SHAPE_VECTOR) + " values are not supported");
    }
    KILN_ASSIGN_OR_RETURN(ITensor * c, castTo(mCtx, mNode, t, DataType::kINT64, "cast_" + what));
    int32_t const length = d.nbDims == 0 ? 1 : static_cast<int32_t>(d.d[0]);
    if (d.nbDims == 0)
    {
        nvinfer1::Dims one{};
        one.nbDims = 1;
        one.d[0] = 1;
        KILN_ASSIGN_OR_RETURN(c, reshape(mCtx, mNode, c, one, "vec_" + what));
    }
    ShapeVec v;
    v.tensor = c;
    v.length = length;
    return v;
}

StatusOr<ShapeVec> ShapeMath::input(int32_t index, std::string const& what)
{
    if (OnnxConstant const* c = mCtx.constant(mNode, index))
    {
        auto values = c->toInt64();
        if (!values.isOk())
        {
            return values.status().withContext(describeNode(mNode) + ": input '" + what + "'");
        }
        if (c->shape.size() > 1)
        {
            return invalidArgument(describeNode(mNode) + ": input '" + what + "' must be 0-D or 1-D");
        }
        return constant(*values);
    }
    KILN_ASSIGN_OR_RETURN(ITensor * t, mCtx.tensor(mNode, index));
    return fromTensor(t, what);
}

StatusOr<ITensor*> ShapeMath::toTensor(ShapeVec const& v)
{
    if (!v.isStatic())
    {
        return v.tensor;
    }
    return int64Vector(mCtx, mNode, v.values);
}

namespace
{

int64_t floorDivide(int64_t a, int64_t b)
{
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0)))
    {
        --q;
    }
    return q;
}

//! Element i of a static vector, a length-1 vector broadcasting its one element.
int64_t broadcastAt(ShapeVec const& v, int32_t i)
{
    return v.values[v.length == 1 ? 0 : static_cast<size_t>(i)];
}

} // namespace

StatusOr<ShapeVec> ShapeMath::binary(ShapeVec const& a, ShapeVec const& b, ElementWiseOperation op)
{
    if (a.length != b.length && a.length != 1 && b.length != 1)
    {
        return internalError(describeNode(mNode) + ": shape vectors of lengths " + std::to_string(a.length) + " and "
            + std::to_string(b.length) + " do not broadcast");
    }
    int32_t const n = (a.length == 1) ? b.length : a.length;
    bool const compare = op == ElementWiseOperation::kEQUAL || op == ElementWiseOperation::kLESS
        || op == ElementWiseOperation::kGREATER;
    if (a.isStatic() && b.isStatic())
    {
        std::vector<int64_t> out(static_cast<size_t>(n));
        for (int32_t i = 0; i < n; ++i)
        {
            int64_t const x = broadcastAt(a, i);
            int64_t const y = broadcastAt(b, i);
            int64_t r = 0;
            bool overflow = false;
            switch (op)
            {
            case ElementWiseOperation::kSUM: overflow = __builtin_add_overflow(x, y, &r); break;
            case ElementWiseOperation::kSUB: overflow = __builtin_sub_overflow(x, y, &r); break;
            case ElementWiseOperation::kPROD: overflow = __builtin_mul_overflow(x, y, &r); break;
            case ElementWiseOperation::kMAX: r = std::max(x, y); break;
            case ElementWiseOperation::kMIN: r = std::min(x, y); break;
            case ElementWiseOperation::kEQUAL: r = x == y ? 1 : 0; break;
            case ElementWiseOperation::kLESS: r = x < y ? 1 : 0; break;
            case ElementWiseOperation::kGREATER: r = x > y ? 1 : 0; break;
            case ElementWiseOperation::kDIV:
            case ElementWiseOperation::kFLOOR_DIV:
                if (y == 0)
                {
                    return invalidArgument(describeNode(mNode) + ": division by zero in a shape computation");
                }
                overflow = x == std::numeric_limits<int64_t>::min() && y == -1;
                r = overflow ? 0 : (op == ElementWiseOperation::kDIV ? x / y : floorDivide(x, y));
                break;
            default: return internalError(describeNode(mNode) + ": unsupported shape operation");
            }
            if (overflow)
            {
                return invalidArgument(describeNode(mNode) + ": a shape computation overflows 64-bit integers ("
                    + std::to_string(x) + " and " + std::to_string(y) + ")");
            }
            out[static_cast<size_t>(i)] = r;
        }
        return constant(std::move(out));
    }
    KILN_ASSIGN_OR_RETURN(ITensor * ta, toTensor(a));
    KILN_ASSIGN_OR_RETURN(ITensor * tb, toTensor(b));
    auto* layer = mCtx.network().addElementWise(*ta, *tb, op);
    KILN_RETURN_IF_ERROR(checkLayer(mCtx, mNode, layer, "addElementWise", "shape_math"));
    ITensor* r = layer->getOutput(0);
    if (compare)
    {
        KILN_ASSIGN_OR_RETURN(r, castTo(mCtx, mNode, r, DataType::kINT64, "shape_math_cast"));
    }
    ShapeVec v;
    v.tensor = r;
    v.length = n;
    return v;
}

StatusOr<ShapeVec> ShapeMath::add(ShapeVec const& a, ShapeVec const& b)
{
    return binary(a, b, ElementWiseOperation::kSUM);
}
StatusOr<ShapeVec> ShapeMath::sub(ShapeVec const& a, ShapeVec const& b)
{
    return binary(a, b, ElementWiseOperation::kSUB);
}
StatusOr<ShapeVec> ShapeMath::mul(ShapeVec const& a, ShapeVec const& b)
{
    return binary(a, b, ElementWiseOperation::kPROD);
}
StatusOr<ShapeVec> ShapeMath::floorDiv(ShapeVec const& a, ShapeVec const& b)
{
    return binary(a, b, ElementWiseOperation::kFLOOR_DIV);
}
StatusOr<ShapeVec> ShapeMath::min(ShapeVec const& a, ShapeVec const& b)
{
    return binary(a, b, ElementWiseOperation::kMIN);
}
StatusOr<ShapeVec> ShapeMath::max(ShapeVec const& a, ShapeVec const& b)
{
    return binary(a, b, ElementWiseOperation::kMAX);
}
StatusOr<ShapeVec> ShapeMath::less(ShapeVec const& a, ShapeVec const& b)
{
    return binary(a, b, ElementWiseOperation::kLESS);
}
StatusOr<ShapeVec> ShapeMath::equal(ShapeVec const& a, ShapeVec const& b)
{
    return binary(a, b, ElementWiseOperation::kEQUAL);
}

StatusOr<ShapeVec> ShapeMath::ceilDiv(ShapeVec const& a, ShapeVec const& b)
{
    // ceil(a / b) = -floor(-a / b)
    KILN_ASSIGN_OR_RETURN(ShapeVec negA, sub(filled(1, 0), a));
    KILN_ASSIGN_OR_RETURN(ShapeVec q, floorDiv(negA, b));
    return sub(filled(1, 0), q);
}

StatusOr<ShapeVec> ShapeMath::select(ShapeVec const& cond, ShapeVec const& a, ShapeVec const& b)
{
    int32_t const n = std::max({cond.length, a.length, b.length});
    for (ShapeVec const* v : {&cond, &a, &b})
    {
        if (v->length != n && v->length != 1)
        {
            return internalError(describeNode(mNode) + ": shape vectors do not broadcast in a select");
        }
    }
    if (cond.isStatic())
    {
        bool allA = true;
        bool allB = true;
        for (int32_t i = 0; i < n; ++i)
        {
            bool const c = broadcastAt(cond, i) != 0;
            allA = allA && c;
            allB = allB && !c;
        }
        if (allA && a.length == n)
        {
            return a;
        }
        if (allB && b.length == n)
        {
            return b;
        }
        if (a.isStatic() && b.isStatic())
        {
            std::vector<int64_t> out(static_cast<size_t>(n));
            for (int32_t i = 0; i < n; ++i)
            {
                bool const c = broadcastAt(cond, i) != 0;
                out[static_cast<size_t>(i)] = c ? broadcastAt(a, i)
                                                : broadcastAt(b, i);
            }
            return constant(std::move(out));
        }
    }
    KILN_ASSIGN_OR_RETURN(ITensor * tc, toTensor(cond));
    KILN_ASSIGN_OR_RETURN(tc, castTo(mCtx, mNode, tc, DataType::kBOOL, "select_cond"));
    KILN_ASSIGN_OR_RETURN(ITensor * ta, toTensor(a));
    KILN_ASSIGN_OR_RETURN(ITensor * tb, toTensor(b));
    auto* layer = mCtx.network().addSelect(*tc, *ta, *tb);
    KILN_RETURN_IF_ERROR(checkLayer(mCtx, mNode, layer, "addSelect", "shape_select"));
    ShapeVec v;
    v.tensor = layer->getOutput(0);
    v.length = n;
    return v;
}

StatusOr<ITensor*> ShapeMath::reduceSum(ITensor* t, int32_t axis, std::string const& suffix)
{
    auto* layer = mCtx.network().addReduce(*t, nvinfer1::ReduceOperation::kSUM, 1U << axis, false);
    KILN_RETURN_IF_ERROR(checkLayer(mCtx, mNode, layer, "addReduce", suffix));
    return layer->getOutput(0);
}

StatusOr<ShapeVec> ShapeMath::gather(ShapeVec const& v, ShapeVec const& idx)
{
    if (idx.isStatic())
    {
        for (int64_t i : idx.values)
        {
            if (i < 0 || i >= v.length)
            {
                return invalidArgument(describeNode(mNode) + ": index " + std::to_string(i)
                    + " is out of range for a shape vector of length " + std::to_string(v.length));
            }
        }
        if (v.isStatic())
        {
            std::vector<int64_t> out;
            for (int64_t i : idx.values)
            {
                out.push_back(v.values[static_cast<size_t>(i)]);
            }
            return constant(std::move(out));
        }
        if (idx.length == 0)
        {
            return constant({});
        }
        KILN_ASSIGN_OR_RETURN(ITensor * ti, toTensor(idx));
        auto* layer = mCtx.network().addGather(*v.tensor, *ti, 0);
        KILN_RETURN_IF_ERROR(checkLayer(mCtx, mNode, layer, "addGather", "shape_gather"));
        ShapeVec r;
        r.tensor = layer->getOutput(0);
        r.length = idx.length;
        return r;
    }
    // Run-time indices: out[k] = sum_j v[j] * (idx[k] == j), computed on a [K, n] grid.
    if (v.length == 0)
    {
        return invalidArgument(describeNode(mNode) + ": gather from an empty shape vector");
    }
    std::vector<int64_t> iota(static_cast<size_t>(v.length));
    for (int32_t j = 0; j < v.length; ++j)
    {
        iota[static_cast<size_t>(j)] = j;
    }
    nvinfer1::Dims row{};
    row.nbDims = 2;
    row.d[0] = 1;
    row.d[1] = v.length;
    nvinfer1::Dims col{};
    col.nbDims = 2;
    col.d[0] = idx.length;
    col.d[1] = 1;
    KILN_ASSIGN_OR_RETURN(ITensor * iotaT, int64Vector(mCtx, mNode, iota));
    KILN_ASSIGN_OR_RETURN(iotaT, reshape(mCtx, mNode, iotaT, row, "gather_iota"));
    KILN_ASSIGN_OR_RETURN(ITensor * vt, toTensor(v));
    KILN_ASSIGN_OR_RETURN(vt, reshape(mCtx, mNode, vt, row, "gather_row"));
    KILN_ASSIGN_OR_RETURN(ITensor * it, reshape(mCtx, mNode, idx.tensor, col, "gather_col"));
    auto* eq = mCtx.network().addElementWise(*it, *iotaT, ElementWiseOperation::kEQUAL);
    KILN_RETURN_IF_ERROR(checkLayer(mCtx, mNode, eq, "addElementWise", "gather_onehot"));
    KILN_ASSIGN_OR_RETURN(ITensor * oneHot, castTo(mCtx, mNode, eq->getOutput(0), DataType::kINT64, "gather_cast"));
    auto* prod = mCtx.network().addElementWise(*oneHot, *vt, ElementWiseOperation::kPROD);
    KILN_RETURN_IF_ERROR(checkLayer(mCtx, mNode, prod, "addElementWise", "gather_pick"));
    KILN_ASSIGN_OR_RETURN(ITensor * picked, reduceSum(prod->getOutput(0), 1, "gather_sum"));
    ShapeVec r;
    r.tensor = picked;
    r.length = idx.length;
    return r;
}

StatusOr<ShapeVec> ShapeMath::slice(ShapeVec const& v, int32_t begin, int32_t end)
{
    if (begin < 0 || end > v.length || begin > end)
    {
        return internalError(describeNode(mNode) + ": bad shape vector slice");
    }
    if (begin == 0 && end == v.length)
    {
        return v;
    }
    std::vector<int64_t> idx;
    for (int32_t i = begin; i < end; ++i)
    {
        idx.push_back(i);
    }
    return gather(v, constant(idx));
}

StatusOr<ShapeVec> ShapeMath::concat(std::vector<ShapeVec> const& parts)
{
    bool allStatic = true;
    int32_t total = 0;
    for (ShapeVec const& p : parts)
    {
        allStatic = allStatic && p.isStatic();
        total += p.length;
    }
    if (allStatic)
    {
        std::vector<int64_t> out;
        for (ShapeVec const& p : parts)
        {
            out.insert(out.end(), p.values.begin(), p.values.end());
        }
        return constant(std::move(out));
    }
    std::vector<ITensor*> tensors;
    for (ShapeVec const& p : parts)
    {
        if (p.length == 0)
        {
            continue;
        }
        KILN_ASSIGN_OR_RETURN(ITensor * t, toTensor(p));
        tensors.push_back(t);
    }
    if (tensors.size() == 1)
    {
        ShapeVec r;
        r.tensor = tensors[0];
        r.length = total;
        return r;
    }
    auto* layer = mCtx.network().addConcatenation(tensors.data(), static_cast<int32_t>(tensors.size()));
    KILN_RETURN_IF_ERROR(checkLayer(mCtx, mNode, layer, "addConcatenation", "shape_concat"));
    layer->setAxis(0);
    ShapeVec r;
    r.tensor = layer->getOutput(0);
    r.length = total;
    return r;
}

StatusOr<ShapeVec> ShapeMath::product(ShapeVec const& v)
{
    ShapeVec acc = filled(1, 1);
    for (int32_t i = 0; i < v.length; ++i)
    {
        KILN_ASSIGN_OR_RETURN(ShapeVec e, slice(v, i, i + 1));
        KILN_ASSIGN_OR_RETURN(acc, mul(acc, e));
    }
    return acc;
}

StatusOr<ShapeVec> ShapeMath::sum(ShapeVec const& v)
{
    ShapeVec acc = filled(1, 0);
    for (int32_t i = 0; i < v.length; ++i)
    {
        KILN_ASSIGN_OR_RETURN(ShapeVec e, slice(v, i, i + 1));
        KILN_ASSIGN_OR_RETURN(acc, add(acc, e));
    }
    return acc;
}

StatusOr<ShapeVec> ShapeMath::exclusivePrefixSum(ShapeVec const& v)
{
    std::vector<ShapeVec> parts;
    ShapeVec acc = filled(1, 0);
    for (int32_t i = 0; i < v.length; ++i)
    {
        parts.push_back(acc);
        KILN_ASSIGN_OR_RETURN(ShapeVec e, slice(v, i, i + 1));
        KILN_ASSIGN_OR_RETURN(acc, add(acc, e));
    }
    return concat(parts);
}

Status setSliceParameter(
    ShapeMath& math, ::onnx::NodeProto const& node, nvinfer1::ISliceLayer* layer, int32_t slot, ShapeVec const& v)
{
    if (v.isStatic())
    {
        KILN_ASSIGN_OR_RETURN(nvinfer1::Dims d, toDims(node, v.values));
        switch (slot)
        {
        case 1: layer->setStart(d); break;
        case 2: layer->setSize(d); break;
        case 3: layer->setStride(d); break;
        case 5: layer->setAxes(d); break;
        default: return internalError("bad slice parameter slot");
        }
        return Status::ok();
    }
    KILN_ASSIGN_OR_RETURN(ITensor * t, math.toTensor(v));
    layer->setInput(slot, *t);
    return Status::ok();
}

StatusOr<nvinfer1::ISliceLayer*> addSliceLayer(ImporterContext& ctx, ::onnx::NodeProto const& node, ITensor* input,
    ShapeVec const& start, ShapeVec const& size, ShapeVec const& stride, std::vector<int64_t> const& axes,
    std::string const& suffix)
{
    ShapeMath math(ctx, node);
    nvinfer1::Dims zeros{};
    zeros.nbDims = start.length;
    for (int32_t i = 0; i < zeros.nbDims && i < nvinfer1::Dims::MAX_DIMS; ++i)
    {
        zeros.d[i] = start.isStatic() ? start.values[static_cast<size_t>(i)] : 0;
    }
    if (start.length > nvinfer1::Dims::MAX_DIMS)
    {
        return unsupported(describeNode(node) + ": too many slice dimensions");
    }
    nvinfer1::Dims ones = zeros;
    for (int32_t i = 0; i < ones.nbDims; ++i)
    {
        ones.d[i] = 1;
    }
    auto* layer = ctx.network().addSlice(*input, zeros, ones, ones);
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, layer, "addSlice", suffix));
    if (!axes.empty())
    {
        KILN_ASSIGN_OR_RETURN(nvinfer1::Dims a, toDims(node, axes));
        layer->setAxes(a);
    }
    KILN_RETURN_IF_ERROR(setSliceParameter(math, node, layer, 1, start));
    KILN_RETURN_IF_ERROR(setSliceParameter(math, node, layer, 2, size));
    KILN_RETURN_IF_ERROR(setSliceParameter(math, node, layer, 3, stride));
    return layer;
}

StatusOr<ITensor*> reshapeToVec(ImporterContext& ctx, ::onnx::NodeProto const& node, ITensor* t, ShapeVec const& shape,
    bool zeroIsPlaceholder, std::string const& suffix)
{
    auto* layer = ctx.network().addShuffle(*t);
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, layer, "addShuffle", suffix));
    layer->setZeroIsPlaceholder(zeroIsPlaceholder);
    if (shape.isStatic())
    {
        KILN_ASSIGN_OR_RETURN(nvinfer1::Dims d, toDims(node, shape.values));
        layer->setReshapeDimensions(d);
    }
    else
    {
        layer->setInput(1, *shape.tensor);
    }
    return layer->getOutput(0);
}

StatusOr<nvinfer1::ITensor*> iotaAlong(
    ImporterContext& ctx, ::onnx::NodeProto const& node, ShapeVec const& dims, int32_t axis, std::string const& suffix)
{
    if (dims.length < 1 || axis < 0 || axis >= dims.length)
    {
        return internalError(describeNode(node) + ": bad iota axis");
    }
    nvinfer1::Dims d{};
    d.nbDims = dims.length;
    for (int32_t i = 0; i < d.nbDims; ++i)
    {
        d.d[i] = dims.isStatic() ? dims.values[static_cast<size_t>(i)] : 0;
    }
    auto* fill = ctx.network().addFill(d, nvinfer1::FillOperation::kLINSPACE, nvinfer1::DataType::kINT64);
    KILN_RETURN_IF_ERROR(checkLayer(ctx, node, fill, "addFill", suffix));
    if (!dims.isStatic())
    {
        fill->setInput(0, *dims.tensor);
    }
    std::vector<int64_t> beta(static_cast<size_t>(dims.length), 0);
    beta[static_cast<size_t>(axis)] = 1;
    KILN_ASSIGN_OR_RETURN(nvinfer1::ITensor * alphaT,
        ctx.constantTensor(OnnxConstant::fromInt64({0}, {}), node.name() + "_" + suffix + "_alpha"));
    KILN_ASSIGN_OR_RETURN(nvinfer1::ITensor * betaT,
        ctx.constantTensor(
            OnnxConstant::fromInt64(beta, {static_cast<int64_t>(beta.size())}), node.name() + "_" + suffix + "_beta"));
    fill->setInput(1, *alphaT);
    fill->setInput(2, *betaT);
    return fill->getOutput(0);
}

} // namespace kiln
