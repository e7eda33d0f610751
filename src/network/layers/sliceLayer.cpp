// ISliceLayer: the layer class, INetworkDefinition::addSlice and shape/value inference. Start, size, stride
// and axes may be symbolic (shape tensors); bounds rules of each SampleMode become runtime constraints.
#include "network/layers/sliceLayer.h"

#include "core/dataType.h"
#include "network/inferContext.h"
#include "network/layerTable.h"
#include "network/networkDefinition.h"

#include <algorithm>
#include <optional>

namespace kiln
{
using nvinfer1::DataType;
using nvinfer1::Dims;
using nvinfer1::LayerType;
using nvinfer1::SampleMode;

namespace
{
constexpr int32_t kSTART = 1;
constexpr int32_t kSIZE = 2;
constexpr int32_t kSTRIDE = 3;
constexpr int32_t kFILL_VALUE = 4;
constexpr int32_t kAXES = 5;
constexpr int32_t kNB_SLOTS = 6;
constexpr int64_t kMAX_SHAPE_VALUES = 64;

char const* slotName(int32_t slot)
{
    switch (slot)
    {
    case kSTART: return "start";
    case kSIZE: return "size";
    case kSTRIDE: return "stride";
    case kFILL_VALUE: return "fill value";
    case kAXES: return "axes";
    default: return "data";
    }
}

bool isFloatLike(DataType t)
{
    return t == DataType::kFLOAT || t == DataType::kHALF || t == DataType::kBF16 || t == DataType::kINT8
        || t == DataType::kFP8;
}

//! A parameter list (start, size, stride or axes) from its input's values or its static attribute.
StatusOr<std::optional<std::vector<DimExpr>>> readParameter(InferContext& ctx, int32_t slot)
{
    char const* what = slotName(slot);
    if (ctx.hasInput(slot))
    {
        TensorInfo const& t = ctx.input(slot);
        if (t.type != DataType::kINT32 && t.type != DataType::kINT64)
        {
            return ctx.error(std::string(what) + " (input " + std::to_string(slot) + ") must be INT32 or INT64, not "
                + dataTypeName(t.type));
        }
        if (t.rank() != 1)
        {
            return ctx.error(std::string(what) + " (input " + std::to_string(slot) + ") must be a 1-D tensor, got rank "
                + std::to_string(t.rank()));
        }
        if (!t.dims[0].isConstant() || t.dims[0].constant() > Dims::MAX_DIMS)
        {
            return ctx.error(std::string(what) + " (input " + std::to_string(slot)
                + ") must have a build-time length of at most " + std::to_string(Dims::MAX_DIMS));
        }
        KILN_RETURN_IF_ERROR(ctx.requireValues(slot));
        if (static_cast<int64_t>(t.values->size()) != t.dims[0].constant())
        {
            return ctx.error(std::string(what) + " (input " + std::to_string(slot) + "): value count mismatch");
        }
        return std::optional<std::vector<DimExpr>>(*t.values);
    }
    if (ctx.attrs().has(what))
    {
        std::vector<DimExpr> v;
        for (int64_t x : ctx.attrs().getInts(what))
        {
            v.push_back(ctx.constant(x));
        }
        return std::optional<std::vector<DimExpr>>(std::move(v));
    }
    return std::optional<std::vector<DimExpr>>();
}

//! Input coordinate of `x` (a coordinate along a dimension of extent `n`) under `mode`; `inBounds` is 1 when
//! the result addresses a real element (only kFILL can address none).
DimExpr mapCoordinate(InferContext& ctx, SampleMode mode, DimExpr x, DimExpr n, DimExpr& inBounds)
{
    DimExpr const zero = ctx.constant(0);
    inBounds = ctx.constant(1);
    switch (mode)
    {
    case SampleMode::kWRAP: return x.floorMod(n.max(1));
    case SampleMode::kCLAMP: return x.min(n - 1).max(0);
    case SampleMode::kREFLECT:
    {
        DimExpr const period = (n * 2 - 2).max(1);
        DimExpr const c = x.max(zero - x).floorMod(period);
        DimExpr const z = c.lt(n).select(c, period - c);
        return n.lt(2).select(zero, z);
    }
    case SampleMode::kFILL: inBounds = zero.le(x).logicalAnd(x.lt(n)); return x;
    case SampleMode::kSTRICT_BOUNDS:
    default: return x;
    }
}

} // namespace

std::string SliceLayer::checkDims(Dims const& d, char const* what, bool nonNegative)
{
    if (d.nbDims < 0 || d.nbDims > Dims::MAX_DIMS)
    {
        return std::string(what) + " has an invalid number of dimensions " + std::to_string(d.nbDims);
    }
    if (nonNegative)
    {
        for (int32_t i = 0; i < d.nbDims; ++i)
        {
            if (d.d[i] < 0)
            {
                return std::string(what) + "[" + std::to_string(i) + "] is negative (" + std::to_string(d.d[i]) + ")";
            }
        }
    }
    return "";
}

SliceLayer::SliceLayer(
    NetworkDefinition& network, Tensor* input, Dims const& start, Dims const& size, Dims const& stride)
    : LayerBase(network, LayerType::kSLICE, {input}, 1)
{
    setMaxInputs(kNB_SLOTS);
    attrs().setDims("start", start);
    attrs().setDims("size", size);
    attrs().setDims("stride", stride);
    attrs().setInt("mode", static_cast<int64_t>(SampleMode::kSTRICT_BOUNDS));
}

bool SliceLayer::hasInputAt(int32_t slot) const
{
    return static_cast<int32_t>(inputs().size()) > slot && inputs()[static_cast<size_t>(slot)] != nullptr;
}

void SliceLayer::setParameter(char const* key, int32_t slot, Dims const& d, bool nonNegative, char const* api)
{
    std::string const problem = checkDims(d, key, nonNegative);
    if (!problem.empty())
    {
        network().reportError(invalidArgument("ISliceLayer::" + std::string(api) + " on layer '" + name() + "': " + problem));
        return;
    }
    attrs().setDims(key, d);
    if (hasInputAt(slot))
    {
        inputs()[static_cast<size_t>(slot)] = nullptr; // the static value replaces the tensor input
    }
    touch();
}

Dims SliceLayer::getParameter(char const* key, int32_t slot) const
{
    if (hasInputAt(slot) || !attrs().has(key))
    {
        Dims d{};
        d.nbDims = -1;
        return d;
    }
    return attrs().getDims(key);
}

void SliceLayer::setStart(Dims const& start) noexcept
{
    setParameter("start", kSTART, start, false, "setStart");
}

Dims SliceLayer::getStart() const noexcept
{
    return getParameter("start", kSTART);
}

void SliceLayer::setSize(Dims const& size) noexcept
{
    setParameter("size", kSIZE, size, true, "setSize");
}

Dims SliceLayer::getSize() const noexcept
{
    return getParameter("size", kSIZE);
}

void SliceLayer::setStride(Dims const& stride) noexcept
{
    setParameter("stride", kSTRIDE, stride, false, "setStride");
}

Dims SliceLayer::getStride() const noexcept
{
    return getParameter("stride", kSTRIDE);
}

void SliceLayer::setAxes(Dims const& axes) noexcept
{
    setParameter("axes", kAXES, axes, false, "setAxes");
}

Dims SliceLayer::getAxes() const noexcept
{
    return getParameter("axes", kAXES);
}

void SliceLayer::setMode(SampleMode mode) noexcept
{
    int32_t const m = static_cast<int32_t>(mode);
    if (m < 0 || m >= nvinfer1::EnumMax<SampleMode>())
    {
        network().reportError(invalidArgument(
            "ISliceLayer::setMode on layer '" + name() + "': invalid SampleMode " + std::to_string(m)));
        return;
    }
    attrs().setInt("mode", m);
    touch();
}

SampleMode SliceLayer::getMode() const noexcept
{
    return static_cast<SampleMode>(attrs().getInt("mode", 0));
}

void SliceLayer::setInput(int32_t index, nvinfer1::ITensor& tensor) noexcept
{
    try
    {
        if (index < 0 || index >= kNB_SLOTS)
        {
            network().reportError(invalidArgument("ISliceLayer::setInput on layer '" + name() + "': index "
                + std::to_string(index) + " is out of range (0 data, 1 start, 2 size, 3 stride, 4 fill value, 5 axes)"));
            return;
        }
        if (network().ownTensor(&tensor, "ISliceLayer::setInput tensor") == nullptr)
        {
            return;
        }
        // TensorRT lets any slot be set; slots skipped over stay empty (null).
        if (static_cast<int32_t>(inputs().size()) < index)
        {
            inputs().resize(static_cast<size_t>(index), nullptr);
        }
        setInputImpl(index, tensor);
    }
    catch (...)
    {
        network().reportError(internalError("ISliceLayer::setInput: unexpected exception"));
    }
}

nvinfer1::ISliceLayer* NetworkDefinition::addSlice(
    nvinfer1::ITensor& input, Dims const& start, Dims const& size, Dims const& stride) noexcept
{
    try
    {
        Tensor* t = ownTensor(&input, "addSlice input");
        if (t == nullptr)
        {
            return nullptr;
        }
        for (auto const& [d, what, nonNegative] :
            {std::tuple{&start, "start", false}, std::tuple{&size, "size", true}, std::tuple{&stride, "stride", false}})
        {
            std::string const problem = SliceLayer::checkDims(*d, what, nonNegative);
            if (!problem.empty())
            {
                reportError(invalidArgument("addSlice: " + problem));
                return nullptr;
            }
        }
        return adopt(std::make_unique<SliceLayer>(*this, t, start, size, stride));
    }
    catch (...)
    {
        reportError(internalError("addSlice: unexpected exception"));
        return nullptr;
    }
}

Status inferSlice(InferContext& ctx)
{
    KILN_RETURN_IF_ERROR(ctx.requireInput(0));
    TensorInfo const& in = ctx.input(0);
    int32_t const rank = in.rank();
    int64_t const modeValue = ctx.attrs().getInt("mode", 0);
    if (modeValue < 0 || modeValue >= nvinfer1::EnumMax<SampleMode>())
    {
        return ctx.error("invalid sample mode " + std::to_string(modeValue));
    }
    auto const mode = static_cast<SampleMode>(modeValue);

    KILN_ASSIGN_OR_RETURN(auto start, readParameter(ctx, kSTART));
    KILN_ASSIGN_OR_RETURN(auto size, readParameter(ctx, kSIZE));
    KILN_ASSIGN_OR_RETURN(auto stride, readParameter(ctx, kSTRIDE));
    KILN_ASSIGN_OR_RETURN(auto axes, readParameter(ctx, kAXES));
    if (!start || !size || !stride)
    {
        return ctx.error(std::string("the slice ") + (!start ? "start" : !size ? "size" : "stride") + " is not set");
    }
    size_t const count = axes ? axes->size() : static_cast<size_t>(rank);
    for (auto const& [list, what] : {std::pair{&*start, "start"}, std::pair{&*size, "size"}, std::pair{&*stride, "stride"}})
    {
        if (list->size() != count)
        {
            return ctx.error(std::string(what) + " has " + std::to_string(list->size()) + " entries but "
                + (axes ? "axes has " + std::to_string(count) : "the input has rank " + std::to_string(rank))
                + " (they must match)");
        }
    }

    // Fill value: a scalar of (or convertible to) the data type, only with kFILL.
    bool const hasFill = ctx.hasInput(kFILL_VALUE);
    if (hasFill)
    {
        TensorInfo const& f = ctx.input(kFILL_VALUE);
        if (mode != SampleMode::kFILL)
        {
            return ctx.error("a fill value (input 4) is only allowed with SampleMode::kFILL");
        }
        if (f.type != in.type && !(isFloatLike(f.type) && isFloatLike(in.type)))
        {
            return ctx.error(std::string("the fill value type ") + dataTypeName(f.type)
                + " cannot be converted to the data type " + dataTypeName(in.type));
        }
        for (auto const& d : f.dims)
        {
            if (!d.is(1))
            {
                return ctx.error("the fill value (input 4) must be a scalar, got dims " + shapeToString(ctx.graph(), f.dims));
            }
        }
    }

    // Normalised axes (negative axes count from the back).
    std::vector<DimExpr> axis(count);
    for (size_t k = 0; k < count; ++k)
    {
        if (!axes)
        {
            axis[k] = ctx.constant(static_cast<int64_t>(k));
            continue;
        }
        DimExpr const a = (*axes)[k];
        std::string const which = "axes[" + std::to_string(k) + "]";
        KILN_RETURN_IF_ERROR(ctx.require(ctx.constant(-rank).le(a).logicalAnd(a.lt(rank)),
            which + " is outside [" + std::to_string(-rank) + ", " + std::to_string(rank - 1) + "]"));
        axis[k] = a.lt(0).select(a + rank, a);
        for (size_t j = 0; j < k; ++j)
        {
            KILN_RETURN_IF_ERROR(ctx.require(axis[j].eq(axis[k]).logicalNot(), "axes must be unique"));
        }
    }

    // Per-dimension parameters.
    std::vector<DimExpr> dimStart(static_cast<size_t>(rank));
    std::vector<DimExpr> dimSize(static_cast<size_t>(rank));
    std::vector<DimExpr> dimStride(static_cast<size_t>(rank));
    std::vector<bool> sliced(static_cast<size_t>(rank), false);
    for (int32_t d = 0; d < rank; ++d)
    {
        size_t const du = static_cast<size_t>(d);
        dimStart[du] = ctx.constant(0);
        dimSize[du] = in.dims[du];
        dimStride[du] = ctx.constant(1);
        for (size_t k = 0; k < count; ++k)
        {
            DimExpr const match = axis[k].eq(d);
            if (match.is(0))
            {
                continue;
            }
            sliced[du] = true;
            dimStart[du] = match.select((*start)[k], dimStart[du]);
            dimSize[du] = match.select((*size)[k], dimSize[du]);
            dimStride[du] = match.select((*stride)[k], dimStride[du]);
        }
    }
    for (size_t k = 0; k < count; ++k)
    {
        KILN_RETURN_IF_ERROR(ctx.require(
            ctx.constant(0).le((*size)[k]), "size[" + std::to_string(k) + "] must not be negative"));
    }

    // Bounds rules of the sample mode.
    for (int32_t d = 0; d < rank; ++d)
    {
        size_t const du = static_cast<size_t>(d);
        if (!sliced[du])
        {
            continue;
        }
        DimExpr const n = in.dims[du];
        DimExpr const empty = dimSize[du].eq(0);
        std::string const which = "dimension " + std::to_string(d);
        switch (mode)
        {
        case SampleMode::kSTRICT_BOUNDS:
        {
            DimExpr const first = dimStart[du];
            DimExpr const last = first + (dimSize[du] - 1) * dimStride[du];
            DimExpr const zero = ctx.constant(0);
            DimExpr const ok = zero.le(first).logicalAnd(first.lt(n)).logicalAnd(zero.le(last)).logicalAnd(last.lt(n));
            KILN_RETURN_IF_ERROR(ctx.require(empty.logicalOr(ok),
                which + ": the slice reads outside the input (start " + ctx.graph().toString(first.id()) + ", size "
                    + ctx.graph().toString(dimSize[du].id()) + ", stride " + ctx.graph().toString(dimStride[du].id())
                    + ", extent " + ctx.graph().toString(n.id()) + ") with SampleMode::kSTRICT_BOUNDS"));
            break;
        }
        case SampleMode::kWRAP:
        case SampleMode::kCLAMP:
        case SampleMode::kREFLECT:
            KILN_RETURN_IF_ERROR(ctx.require(empty.logicalOr(ctx.constant(0).lt(n)),
                which + ": an input extent of 0 needs an output extent of 0 in this sample mode"));
            break;
        default: break;
        }
    }

    TensorInfo& out = ctx.output(0);
    out.type = in.type;
    out.dims = dimSize;

    // Values: the selected elements of a shape tensor (or small constant) with known extents.
    bool knownExtents = true;
    int64_t outVolume = 1;
    int64_t inVolume = 1;
    for (int32_t d = 0; d < rank; ++d)
    {
        size_t const du = static_cast<size_t>(d);
        knownExtents = knownExtents && dimSize[du].isConstant() && in.dims[du].isConstant();
        if (knownExtents)
        {
            // Volumes beyond 64 bits are far beyond the values kept here: treated as unknown.
            knownExtents = !__builtin_mul_overflow(outVolume, dimSize[du].constant(), &outVolume)
                && !__builtin_mul_overflow(inVolume, in.dims[du].constant(), &inVolume);
        }
    }
    std::optional<DimExpr> fillValue;
    if (mode == SampleMode::kFILL)
    {
        if (!hasFill)
        {
            fillValue = ctx.constant(0);
        }
        else if (ctx.input(kFILL_VALUE).values && ctx.input(kFILL_VALUE).values->size() == 1)
        {
            fillValue = (*ctx.input(kFILL_VALUE).values)[0];
        }
    }
    if (in.values && knownExtents && outVolume <= kMAX_SHAPE_VALUES
        && static_cast<int64_t>(in.values->size()) == inVolume && (mode != SampleMode::kFILL || fillValue))
    {
        std::vector<DimExpr> const& src = *in.values;
        std::vector<DimExpr> values;
        std::vector<int64_t> coord(static_cast<size_t>(rank), 0);
        bool ok = true;
        for (int64_t o = 0; o < outVolume && ok; ++o)
        {
            DimExpr flat = ctx.constant(0);
            DimExpr inside = ctx.constant(1);
            for (int32_t d = 0; d < rank; ++d)
            {
                size_t const du = static_cast<size_t>(d);
                DimExpr const x = dimStart[du] + dimStride[du] * coord[du];
                DimExpr bounds;
                DimExpr const mapped = mapCoordinate(ctx, mode, x, in.dims[du], bounds);
                inside = inside.logicalAnd(bounds);
                flat = flat * in.dims[du].constant() + mapped;
            }
            DimExpr value;
            if (flat.isConstant())
            {
                int64_t const f = flat.constant();
                if (inside.is(0))
                {
                    value = *fillValue;
                }
                else if (f >= 0 && f < inVolume)
                {
                    value = src[static_cast<size_t>(f)];
                }
                else
                {
                    ok = false; // out of bounds: a build-time error was reported by the constraints above
                    break;
                }
            }
            else if (rank == 1 && src.empty() && fillValue)
            {
                value = *fillValue;
            }
            else if (rank == 1 && !src.empty())
            {
                // Symbolic position in a vector: a select chain over its elements.
                value = src.back();
                for (size_t j = src.size() - 1; j-- > 0;)
                {
                    value = flat.eq(static_cast<int64_t>(j)).select(src[j], value);
                }
            }
            else
            {
                ok = false;
                break;
            }
            if (mode == SampleMode::kFILL && !inside.is(1))
            {
                value = inside.select(value, *fillValue);
            }
            values.push_back(value);
            for (int32_t d = rank; d-- > 0;)
            {
                size_t const du = static_cast<size_t>(d);
                if (++coord[du] < dimSize[du].constant())
                {
                    break;
                }
                coord[du] = 0;
            }
        }
        if (ok)
        {
            out.values = std::move(values);
        }
    }
    return Status::ok();
}

} // namespace kiln
