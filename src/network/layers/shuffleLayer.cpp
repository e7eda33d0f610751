// IShuffleLayer: the layer class, INetworkDefinition::addShuffle and shape/value inference. Reshape
// dimensions may come from a shape tensor (input 1) whose values are symbolic; the 0 (placeholder) and -1
// (inferred) rules are then expressed with select/eq expressions and runtime constraints.
#include "network/layers/shuffleLayer.h"

#include "core/dataType.h"
#include "network/inferContext.h"
#include "network/layerTable.h"
#include "network/networkDefinition.h"

#include <algorithm>

namespace kiln
{
using nvinfer1::DataType;
using nvinfer1::Dims;
using nvinfer1::LayerType;
using nvinfer1::Permutation;

namespace
{
constexpr char const* kFIRST = "first_transpose";
constexpr char const* kSECOND = "second_transpose";
constexpr char const* kRESHAPE = "reshape";
constexpr char const* kZERO = "zero_is_placeholder";
constexpr int32_t kMAX_SHAPE_VALUES = 64;

std::vector<int64_t> identityOrder()
{
    std::vector<int64_t> v(Dims::MAX_DIMS);
    for (int32_t i = 0; i < Dims::MAX_DIMS; ++i)
    {
        v[static_cast<size_t>(i)] = i;
    }
    return v;
}

//! The first `rank` entries of `order` as a permutation of 0..rank-1, or an error naming `what`.
StatusOr<std::vector<int32_t>> permutationFor(
    InferContext& ctx, std::vector<int64_t> const& order, int32_t rank, char const* what)
{
    if (static_cast<int32_t>(order.size()) < rank)
    {
        return ctx.error(std::string(what) + " has " + std::to_string(order.size()) + " entries, rank is "
            + std::to_string(rank));
    }
    std::vector<int32_t> perm(static_cast<size_t>(rank));
    std::vector<bool> seen(static_cast<size_t>(rank), false);
    for (int32_t i = 0; i < rank; ++i)
    {
        int64_t const p = order[static_cast<size_t>(i)];
        if (p < 0 || p >= rank || seen[static_cast<size_t>(p)])
        {
            std::string text;
            for (int32_t j = 0; j < rank; ++j)
            {
                text += (j ? "," : "") + std::to_string(order[static_cast<size_t>(j)]);
            }
            return ctx.error(std::string(what) + " {" + text + "} is not a permutation of the "
                + std::to_string(rank) + " dimensions it applies to");
        }
        seen[static_cast<size_t>(p)] = true;
        perm[static_cast<size_t>(i)] = static_cast<int32_t>(p);
    }
    return perm;
}

//! The volume of `dims` when every extent is non-negative and the volume at most kMAX_SHAPE_VALUES, else -1.
int64_t smallVolume(std::vector<int64_t> const& dims)
{
    int64_t volume = 1;
    for (int64_t d : dims)
    {
        if (d < 0 || __builtin_mul_overflow(volume, d, &volume) || volume > kMAX_SHAPE_VALUES)
        {
            return -1;
        }
    }
    return volume;
}

//! For each element of transpose(x, perm) (x of dims `dims`, row-major, of a volume smallVolume accepts), the flat
//! index of its source in x; none for an empty x.
std::vector<int64_t> transposeSources(std::vector<int64_t> const& dims, std::vector<int32_t> const& perm)
{
    size_t const rank = dims.size();
    if (std::find(dims.begin(), dims.end(), 0) != dims.end())
    {
        return {}; // empty: no sources, and the other extents' strides alone may not fit in int64_t
    }
    std::vector<int64_t> stride(rank, 1);
    for (size_t i = rank; i-- > 1;)
    {
        stride[i - 1] = stride[i] * dims[i];
    }
    int64_t volume = 1;
    for (int64_t d : dims)
    {
        volume *= d;
    }
    std::vector<int64_t> outDims(rank);
    for (size_t i = 0; i < rank; ++i)
    {
        outDims[i] = dims[static_cast<size_t>(perm[i])];
    }
    std::vector<int64_t> sources(static_cast<size_t>(volume));
    std::vector<int64_t> coord(rank, 0);
    for (int64_t o = 0; o < volume; ++o)
    {
        int64_t src = 0;
        for (size_t i = 0; i < rank; ++i)
        {
            src += coord[i] * stride[static_cast<size_t>(perm[i])];
        }
        sources[static_cast<size_t>(o)] = src;
        for (size_t i = rank; i-- > 0;)
        {
            if (++coord[i] < outDims[i])
            {
                break;
            }
            coord[i] = 0;
        }
    }
    return sources;
}

bool allConstant(ShapeExpr const& s)
{
    return std::all_of(s.begin(), s.end(), [](DimExpr const& d) { return d.isConstant(); });
}

std::vector<int64_t> constants(ShapeExpr const& s)
{
    std::vector<int64_t> v;
    for (auto const& d : s)
    {
        v.push_back(d.constant());
    }
    return v;
}

} // namespace

ShuffleLayer::ShuffleLayer(NetworkDefinition& network, Tensor* input)
    : LayerBase(network, LayerType::kSHUFFLE, {input}, 1)
{
    setMaxInputs(2);
    attrs().setInts(kFIRST, identityOrder());
    attrs().setInts(kSECOND, identityOrder());
    attrs().setInt(kZERO, 1);
}

bool ShuffleLayer::dynamicReshape() const
{
    return inputs().size() > 1 && inputs()[1] != nullptr;
}

void ShuffleLayer::setPermutation(char const* key, Permutation const& permutation)
{
    std::vector<int64_t> v(Dims::MAX_DIMS);
    for (int32_t i = 0; i < Dims::MAX_DIMS; ++i)
    {
        v[static_cast<size_t>(i)] = permutation.order[i];
    }
    attrs().setInts(key, std::move(v));
    touch();
}

Permutation ShuffleLayer::getPermutation(char const* key) const
{
    Permutation p{};
    std::vector<int64_t> const v = attrs().getInts(key);
    for (int32_t i = 0; i < Dims::MAX_DIMS; ++i)
    {
        p.order[i] = i < static_cast<int32_t>(v.size()) ? static_cast<int32_t>(v[static_cast<size_t>(i)]) : i;
    }
    return p;
}

void ShuffleLayer::setFirstTranspose(Permutation permutation) noexcept
{
    setPermutation(kFIRST, permutation);
}

Permutation ShuffleLayer::getFirstTranspose() const noexcept
{
    return getPermutation(kFIRST);
}

void ShuffleLayer::setSecondTranspose(Permutation permutation) noexcept
{
    setPermutation(kSECOND, permutation);
}

Permutation ShuffleLayer::getSecondTranspose() const noexcept
{
    return getPermutation(kSECOND);
}

void ShuffleLayer::setReshapeDimensions(Dims const& dimensions) noexcept
{
    try
    {
        std::string const who = "IShuffleLayer '" + name() + "': setReshapeDimensions: ";
        if (dimensions.nbDims < 0 || dimensions.nbDims > Dims::MAX_DIMS)
        {
            network().reportError(invalidArgument(who + "invalid number of dimensions "
                + std::to_string(dimensions.nbDims)));
            return;
        }
        int32_t inferred = 0;
        for (int32_t i = 0; i < dimensions.nbDims; ++i)
        {
            if (dimensions.d[i] < -1)
            {
                network().reportError(invalidArgument(who + "dimension " + std::to_string(i) + " is "
                    + std::to_string(dimensions.d[i]) + " (allowed: -1 to infer, 0 to copy, or an extent)"));
                return;
            }
            inferred += dimensions.d[i] == -1 ? 1 : 0;
        }
        if (inferred > 1)
        {
            network().reportError(invalidArgument(who + "at most one dimension may be -1"));
            return;
        }
        attrs().setDims(kRESHAPE, dimensions);
        if (dynamicReshape())
        {
            inputs()[1] = nullptr; // as TensorRT: the static dimensions replace the shape tensor input
        }
        touch();
    }
    catch (...)
    {
        network().reportError(internalError("IShuffleLayer::setReshapeDimensions: unexpected exception"));
    }
}

Dims ShuffleLayer::getReshapeDimensions() const noexcept
{
    if (dynamicReshape() || !attrs().has(kRESHAPE))
    {
        Dims d{};
        d.nbDims = -1;
        return d;
    }
    return attrs().getDims(kRESHAPE);
}

void ShuffleLayer::setZeroIsPlaceholder(bool zeroIsPlaceholder) noexcept
{
    attrs().setInt(kZERO, zeroIsPlaceholder ? 1 : 0);
    touch();
}

bool ShuffleLayer::getZeroIsPlaceholder() const noexcept
{
    return attrs().getInt(kZERO, 1) != 0;
}

void ShuffleLayer::setInput(int32_t index, nvinfer1::ITensor& tensor) noexcept
{
    if (index < 0 || index > 1)
    {
        network().reportError(invalidArgument("IShuffleLayer '" + name() + "': setInput: index "
            + std::to_string(index) + " is out of range (0: data, 1: reshape dimensions)"));
        return;
    }
    setInputImpl(index, tensor);
}

nvinfer1::IShuffleLayer* NetworkDefinition::addShuffle(nvinfer1::ITensor& input) noexcept
{
    try
    {
        Tensor* t = ownTensor(&input, "addShuffle input");
        if (t == nullptr)
        {
            return nullptr;
        }
        return adopt(std::make_unique<ShuffleLayer>(*this, t));
    }
    catch (...)
    {
        reportError(internalError("addShuffle: unexpected exception"));
        return nullptr;
    }
}

Status inferShuffle(InferContext& ctx)
{
    KILN_RETURN_IF_ERROR(ctx.requireInput(0));
    TensorInfo const& in = ctx.input(0);
    Attributes const& attrs = ctx.attrs();
    int32_t const rank = in.rank();

    std::vector<int64_t> firstOrder = attrs.has(kFIRST) ? attrs.getInts(kFIRST) : identityOrder();
    KILN_ASSIGN_OR_RETURN(std::vector<int32_t> const perm1, permutationFor(ctx, firstOrder, rank, "first transpose"));
    ShapeExpr transposed(static_cast<size_t>(rank));
    for (int32_t i = 0; i < rank; ++i)
    {
        transposed[static_cast<size_t>(i)] = in.dims[static_cast<size_t>(perm1[static_cast<size_t>(i)])];
    }

    // Reshape values: a constant list (static) or the symbolic values of input 1 (dynamic).
    bool reshape = false;
    std::vector<DimExpr> request;
    if (ctx.nbInputs() > 1 && ctx.hasInput(1))
    {
        TensorInfo const& shape = ctx.input(1);
        if (shape.type != DataType::kINT32 && shape.type != DataType::kINT64)
        {
            return ctx.error("reshape dimensions (input 1) must be INT32 or INT64, not "
                + std::string(dataTypeName(shape.type)));
        }
        if (shape.rank() != 1)
        {
            return ctx.error("reshape dimensions (input 1) must be a 1-D tensor, got rank "
                + std::to_string(shape.rank()));
        }
        if (!shape.dims[0].isConstant() || shape.dims[0].constant() > nvinfer1::Dims::MAX_DIMS)
        {
            return ctx.error("reshape dimensions (input 1) must have a build-time length of at most "
                + std::to_string(nvinfer1::Dims::MAX_DIMS) + ", got " + ctx.graph().toString(shape.dims[0].id()));
        }
        KILN_RETURN_IF_ERROR(ctx.requireValues(1));
        if (static_cast<int64_t>(shape.values->size()) != shape.dims[0].constant())
        {
            return ctx.error("reshape dimensions (input 1): value count does not match its length");
        }
        request = *shape.values;
        reshape = true;
    }
    else if (attrs.has(kRESHAPE))
    {
        for (int64_t v : attrs.getInts(kRESHAPE))
        {
            request.push_back(ctx.constant(v));
        }
        reshape = true;
    }

    ShapeExpr reshaped;
    if (!reshape)
    {
        reshaped = transposed;
    }
    else
    {
        bool const zeroCopies = attrs.getInt(kZERO, 1) != 0;
        DimExpr const volume = volumeOf(ctx.graph(), transposed);
        size_t const n = request.size();
        std::vector<DimExpr> base(n);
        std::vector<DimExpr> isInferred(n);
        DimExpr inferredCount = ctx.constant(0);
        DimExpr known = ctx.constant(1);
        for (size_t i = 0; i < n; ++i)
        {
            DimExpr const v = request[i];
            std::string const which = "reshape dimension " + std::to_string(i);
            KILN_RETURN_IF_ERROR(ctx.require(ctx.constant(-2).lt(v), which + " must be -1, 0 or positive"));
            if (zeroCopies && static_cast<int32_t>(i) < rank)
            {
                base[i] = v.eq(0).select(transposed[i], v);
            }
            else
            {
                if (zeroCopies)
                {
                    KILN_RETURN_IF_ERROR(ctx.require(v.eq(0).logicalNot(),
                        which + " is 0 (copy the input extent) but the input has only " + std::to_string(rank)
                            + " dimensions"));
                }
                base[i] = v;
            }
            isInferred[i] = v.eq(-1);
            inferredCount = inferredCount + isInferred[i];
            known = known * isInferred[i].select(ctx.constant(1), base[i]);
        }
        KILN_RETURN_IF_ERROR(
            ctx.require(inferredCount.lt(2), "at most one reshape dimension may be -1"));
        DimExpr const hasInferred = ctx.constant(0).lt(inferredCount);
        DimExpr const inferred = volume.floorDiv(known.max(1));
        KILN_RETURN_IF_ERROR(ctx.require(hasInferred.logicalNot().logicalOr(known.eq(0).logicalNot()),
            "the -1 reshape dimension is indeterminate because the other reshape dimensions have zero volume"));
        DimExpr const volumeOk = hasInferred.select((inferred * known).eq(volume), known.eq(volume));
        std::string const inText = shapeToString(ctx.graph(), transposed);
        KILN_RETURN_IF_ERROR(ctx.require(volumeOk,
            "reshape changes the volume: input " + inText + " cannot be reshaped to the requested dimensions"));
        reshaped.resize(n);
        for (size_t i = 0; i < n; ++i)
        {
            reshaped[i] = isInferred[i].select(inferred, base[i]);
        }
    }

    int32_t const outRank = static_cast<int32_t>(reshaped.size());
    std::vector<int64_t> secondOrder = attrs.has(kSECOND) ? attrs.getInts(kSECOND) : identityOrder();
    KILN_ASSIGN_OR_RETURN(
        std::vector<int32_t> const perm2, permutationFor(ctx, secondOrder, outRank, "second transpose"));
    TensorInfo& out = ctx.output(0);
    out.type = in.type;
    out.dims.resize(static_cast<size_t>(outRank));
    for (int32_t i = 0; i < outRank; ++i)
    {
        out.dims[static_cast<size_t>(i)] = reshaped[static_cast<size_t>(perm2[static_cast<size_t>(i)])];
    }

    // Values of shape tensors follow the data movement when every extent is known at build time.
    if (in.values && allConstant(in.dims) && allConstant(reshaped))
    {
        std::vector<int64_t> const inDims = constants(in.dims);
        std::vector<int64_t> const midDims = constants(reshaped);
        // Both volumes must be small (an edited model can make the reshaped extents overflow while their wrapped
        // product matches) and equal.
        int64_t const volume = smallVolume(inDims);
        if (volume >= 0 && smallVolume(midDims) == volume && static_cast<int64_t>(in.values->size()) == volume)
        {
            std::vector<int64_t> const first = transposeSources(inDims, perm1);
            std::vector<int64_t> const second = transposeSources(midDims, perm2);
            if (static_cast<int64_t>(second.size()) == volume)
            {
                std::vector<DimExpr> values(static_cast<size_t>(volume));
                for (size_t i = 0; i < values.size(); ++i)
                {
                    values[i] = (*in.values)[static_cast<size_t>(first[static_cast<size_t>(second[i])])];
                }
                out.values = std::move(values);
            }
        }
    }
    return Status::ok();
}

} // namespace kiln
