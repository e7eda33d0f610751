// GatherLayer, INetworkDefinition::addGather / addGatherV2 and the gather shape/type/value inference.
#include "network/layers/gatherLayer.h"

#include "core/dataType.h"
#include "core/geometry.h"
#include "network/layerTable.h"
#include "network/networkDefinition.h"

namespace kiln
{
using nvinfer1::DataType;
using nvinfer1::GatherMode;

namespace
{

bool validGatherMode(GatherMode mode)
{
    return mode == GatherMode::kDEFAULT || mode == GatherMode::kELEMENT || mode == GatherMode::kND;
}

//! x == y, checked now when both are constants, else as a runtime constraint.
Status requireEqual(InferContext& ctx, DimExpr x, DimExpr y, std::string const& what)
{
    if (x.isConstant() && y.isConstant())
    {
        if (x.constant() != y.constant())
        {
            return ctx.error(what + " (" + std::to_string(x.constant()) + " vs " + std::to_string(y.constant()) + ")");
        }
        return Status::ok();
    }
    return ctx.require(x.eq(y), what);
}

//! x <= y, checked now when both are constants, else as a runtime constraint.
Status requireNotGreater(InferContext& ctx, DimExpr x, DimExpr y, std::string const& what)
{
    if (x.isConstant() && y.isConstant())
    {
        if (x.constant() > y.constant())
        {
            return ctx.error(what + " (" + std::to_string(x.constant()) + " > " + std::to_string(y.constant()) + ")");
        }
        return Status::ok();
    }
    return ctx.require(x.le(y), what);
}

bool allConstant(ShapeExpr const& dims)
{
    for (DimExpr const& d : dims)
    {
        if (!d.isConstant())
        {
            return false;
        }
    }
    return true;
}

//! Values of a kDEFAULT gather (nbElementWiseDims 0) when data values and constant index values are known.
Status gatherValues(InferContext& ctx, int32_t axis, TensorInfo const& data, TensorInfo const& indices, TensorInfo& out)
{
    if (!data.values || !indices.values || !allConstant(data.dims) || !allConstant(indices.dims)
        || (out.type != DataType::kINT32 && out.type != DataType::kINT64))
    {
        return Status::ok();
    }
    int32_t const rank = data.rank();
    // Products checked: an empty tensor's other extents may not multiply within int64_t (no values then).
    int64_t outer = 1;
    int64_t inner = 1;
    for (int32_t d = 0; d < axis && outer >= 0; ++d)
    {
        outer = checkedMul(outer, data.dims[static_cast<size_t>(d)].constant());
    }
    for (int32_t d = axis + 1; d < rank && inner >= 0; ++d)
    {
        inner = checkedMul(inner, data.dims[static_cast<size_t>(d)].constant());
    }
    int64_t const extent = data.dims[static_cast<size_t>(axis)].constant();
    int64_t indexCount = 1;
    for (DimExpr const& d : indices.dims)
    {
        indexCount = indexCount < 0 ? -1 : checkedMul(indexCount, d.constant());
    }
    if (outer < 0 || inner < 0 || checkedMul(checkedMul(outer, extent), inner) < 0 || indexCount < 0)
    {
        return Status::ok();
    }
    std::vector<DimExpr> const& dv = *data.values;
    if (static_cast<int64_t>(dv.size()) != outer * extent * inner)
    {
        return ctx.error("data '" + data.name + "' carries " + std::to_string(dv.size())
            + " values but its shape holds " + std::to_string(outer * extent * inner));
    }
    if (static_cast<int64_t>(indices.values->size()) != indexCount)
    {
        return ctx.error("indices '" + indices.name + "' carry " + std::to_string(indices.values->size())
            + " values but their shape holds " + std::to_string(indexCount));
    }
    std::vector<DimExpr> values;
    for (int64_t o = 0; o < outer; ++o)
    {
        for (DimExpr const& iv : *indices.values)
        {
            if (!iv.isConstant())
            {
                // Index known only at run time (e.g. from a shape-tensor input): select among the candidates, and
                // require the index to be in range.
                KILN_RETURN_IF_ERROR(ctx.require(ctx.constant(-extent).le(iv).logicalAnd(iv.lt(ctx.constant(extent))),
                    "an index in '" + indices.name + "' is out of range for axis " + std::to_string(axis) + " of extent "
                        + std::to_string(extent)));
                for (int64_t i = 0; i < inner; ++i)
                {
                    DimExpr picked = ctx.constant(0);
                    for (int64_t j = extent - 1; j >= 0; --j)
                    {
                        DimExpr const hit = iv.eq(ctx.constant(j)).logicalOr(iv.eq(ctx.constant(j - extent)));
                        picked = hit.select(dv[static_cast<size_t>((o * extent + j) * inner + i)], picked);
                    }
                    values.push_back(picked);
                }
                continue;
            }
            int64_t index = iv.constant();
            if (index < -extent || index >= extent)
            {
                return ctx.error("index " + std::to_string(index) + " in '" + indices.name
                    + "' is out of range for axis " + std::to_string(axis) + " of extent " + std::to_string(extent));
            }
            if (index < 0)
            {
                index += extent;
            }
            for (int64_t i = 0; i < inner; ++i)
            {
                values.push_back(dv[static_cast<size_t>((o * extent + index) * inner + i)]);
            }
        }
    }
    out.values = std::move(values);
    return Status::ok();
}

} // namespace

GatherLayer::GatherLayer(NetworkDefinition& network, Tensor* data, Tensor* indices, GatherMode mode, int32_t axis)
    : LayerBase<nvinfer1::IGatherLayer>(network, nvinfer1::LayerType::kGATHER, {data, indices}, 1)
{
    attrs().setInt("mode", static_cast<int64_t>(mode));
    attrs().setInt("axis", axis);
    attrs().setInt("nbElementWiseDims", 0);
}

void GatherLayer::setGatherAxis(int32_t axis) noexcept
{
    if (axis < 0 || axis >= nvinfer1::Dims::MAX_DIMS)
    {
        network().reportError(invalidArgument("IGatherLayer::setGatherAxis on layer '" + name() + "': axis "
            + std::to_string(axis) + " is out of range [0, " + std::to_string(nvinfer1::Dims::MAX_DIMS - 1) + "]"));
        return;
    }
    attrs().setInt("axis", axis);
    touch();
}

int32_t GatherLayer::getGatherAxis() const noexcept
{
    return static_cast<int32_t>(attrs().getInt("axis"));
}

void GatherLayer::setNbElementWiseDims(int32_t elementWiseDims) noexcept
{
    if (elementWiseDims < 0 || elementWiseDims >= nvinfer1::Dims::MAX_DIMS)
    {
        network().reportError(invalidArgument("IGatherLayer::setNbElementWiseDims on layer '" + name() + "': "
            + std::to_string(elementWiseDims) + " is out of range"));
        return;
    }
    attrs().setInt("nbElementWiseDims", elementWiseDims);
    touch();
}

int32_t GatherLayer::getNbElementWiseDims() const noexcept
{
    return static_cast<int32_t>(attrs().getInt("nbElementWiseDims"));
}

void GatherLayer::setMode(GatherMode mode) noexcept
{
    if (!validGatherMode(mode))
    {
        network().reportError(invalidArgument("IGatherLayer::setMode on layer '" + name() + "': mode "
            + std::to_string(static_cast<int32_t>(mode)) + " is not kDEFAULT, kELEMENT or kND"));
        return;
    }
    attrs().setInt("mode", static_cast<int64_t>(mode));
    touch();
}

GatherMode GatherLayer::getMode() const noexcept
{
    return static_cast<GatherMode>(attrs().getInt("mode"));
}

nvinfer1::IGatherLayer* NetworkDefinition::addGather(
    nvinfer1::ITensor& data, nvinfer1::ITensor& indices, int32_t axis) noexcept
{
    try
    {
        Tensor* d = ownTensor(&data, "addGather data");
        Tensor* i = d != nullptr ? ownTensor(&indices, "addGather indices") : nullptr;
        if (d == nullptr || i == nullptr)
        {
            return nullptr;
        }
        if (axis < 0 || axis >= nvinfer1::Dims::MAX_DIMS)
        {
            reportError(invalidArgument("addGather: axis " + std::to_string(axis) + " is out of range [0, "
                + std::to_string(nvinfer1::Dims::MAX_DIMS - 1) + "] (negative axes are not accepted)"));
            return nullptr;
        }
        return adopt(std::make_unique<GatherLayer>(*this, d, i, GatherMode::kDEFAULT, axis));
    }
    catch (...)
    {
        reportError(internalError("addGather: unexpected exception"));
        return nullptr;
    }
}

nvinfer1::IGatherLayer* NetworkDefinition::addGatherV2(
    nvinfer1::ITensor& data, nvinfer1::ITensor& indices, GatherMode mode) noexcept
{
    try
    {
        Tensor* d = ownTensor(&data, "addGatherV2 data");
        Tensor* i = d != nullptr ? ownTensor(&indices, "addGatherV2 indices") : nullptr;
        if (d == nullptr || i == nullptr)
        {
            return nullptr;
        }
        if (!validGatherMode(mode))
        {
            reportError(invalidArgument("addGatherV2: mode " + std::to_string(static_cast<int32_t>(mode))
                + " is not kDEFAULT, kELEMENT or kND"));
            return nullptr;
        }
        return adopt(std::make_unique<GatherLayer>(*this, d, i, mode, 0));
    }
    catch (...)
    {
        reportError(internalError("addGatherV2: unexpected exception"));
        return nullptr;
    }
}

Status inferGather(InferContext& ctx)
{
    KILN_RETURN_IF_ERROR(ctx.requireInput(0, 1, nvinfer1::Dims::MAX_DIMS));
    KILN_RETURN_IF_ERROR(ctx.requireInput(1, 0, nvinfer1::Dims::MAX_DIMS));
    TensorInfo const& data = ctx.input(0);
    TensorInfo const& indices = ctx.input(1);
    if (elementSize(data.type) <= 0)
    {
        return ctx.error("data '" + data.name + "' has unsupported type " + dataTypeName(data.type));
    }
    if (indices.type != DataType::kINT32 && indices.type != DataType::kINT64)
    {
        return ctx.error("indices '" + indices.name + "' have type " + dataTypeName(indices.type)
            + "; they must be INT32 or INT64");
    }
    auto const mode = static_cast<GatherMode>(ctx.attrs().getInt("mode", -1));
    if (!validGatherMode(mode))
    {
        return ctx.error("invalid gather mode " + std::to_string(static_cast<int32_t>(mode)));
    }
    int64_t const axis = ctx.attrs().getInt("axis", 0);
    int64_t const b = ctx.attrs().getInt("nbElementWiseDims", 0);
    int32_t const r = data.rank();
    int32_t const q = indices.rank();
    ShapeExpr dims;

    if (mode == GatherMode::kDEFAULT)
    {
        if (b != 0 && b != 1)
        {
            return ctx.error("nbElementWiseDims is " + std::to_string(b) + "; kDEFAULT gather accepts 0 or 1");
        }
        if (axis < b || axis >= r)
        {
            return ctx.error("gather axis " + std::to_string(axis) + " is out of range [" + std::to_string(b) + ", "
                + std::to_string(r - 1) + "] for data '" + data.name + "' of rank " + std::to_string(r)
                + (b == 1 ? " with nbElementWiseDims 1" : ""));
        }
        if (q < b)
        {
            return ctx.error("indices '" + indices.name + "' must have rank >= 1 when nbElementWiseDims is 1");
        }
        if (r + q - 1 - b > nvinfer1::Dims::MAX_DIMS)
        {
            return ctx.error("output rank " + std::to_string(r + q - 1 - b) + " exceeds Dims::MAX_DIMS");
        }
        if (b == 1)
        {
            ShapeExpr const d0{data.dims[0]};
            ShapeExpr const i0{indices.dims[0]};
            KILN_ASSIGN_OR_RETURN(ShapeExpr batch,
                broadcastShapes(ctx, d0, i0, "elementwise dimension 0 of data '" + data.name + "' and indices '"
                    + indices.name + "'"));
            dims.push_back(batch[0]);
        }
        for (int64_t d = b; d < axis; ++d)
        {
            dims.push_back(data.dims[static_cast<size_t>(d)]);
        }
        for (int64_t d = b; d < q; ++d)
        {
            dims.push_back(indices.dims[static_cast<size_t>(d)]);
        }
        for (int64_t d = axis + 1; d < r; ++d)
        {
            dims.push_back(data.dims[static_cast<size_t>(d)]);
        }
    }
    else if (mode == GatherMode::kELEMENT)
    {
        if (b != 0)
        {
            return ctx.error("nbElementWiseDims must be 0 for kELEMENT gather (it is " + std::to_string(b) + ")");
        }
        if (q != r)
        {
            return ctx.error("kELEMENT gather needs indices '" + indices.name + "' of the same rank as data '"
                + data.name + "' (" + std::to_string(q) + " vs " + std::to_string(r) + ")");
        }
        if (axis < 0 || axis >= r)
        {
            return ctx.error("gather axis " + std::to_string(axis) + " is out of range for data '" + data.name
                + "' of rank " + std::to_string(r));
        }
        for (int32_t d = 0; d < r; ++d)
        {
            if (d != axis)
            {
                KILN_RETURN_IF_ERROR(requireNotGreater(ctx, indices.dims[static_cast<size_t>(d)],
                    data.dims[static_cast<size_t>(d)],
                    "kELEMENT gather: indices '" + indices.name + "' are larger than data '" + data.name
                        + "' in dimension " + std::to_string(d)));
            }
        }
        dims = indices.dims;
    }
    else
    {
        if (q < 1)
        {
            return ctx.error("kND gather needs indices '" + indices.name + "' of rank >= 1");
        }
        DimExpr const last = indices.dims[static_cast<size_t>(q - 1)];
        if (!last.isConstant())
        {
            return ctx.error("kND gather needs the last dimension of indices '" + indices.name
                + "' to be a build-time constant");
        }
        int64_t const k = last.constant();
        if (b < 0 || b >= r || b > q - 1)
        {
            return ctx.error("nbElementWiseDims " + std::to_string(b) + " is out of range for kND gather with data rank "
                + std::to_string(r) + " and indices rank " + std::to_string(q));
        }
        if (k < 1 || k > r - b)
        {
            return ctx.error("the last dimension of indices '" + indices.name + "' is " + std::to_string(k)
                + "; kND gather needs it in [1, " + std::to_string(r - b) + "] (data rank minus nbElementWiseDims)");
        }
        if (q - 1 + r - b - k > nvinfer1::Dims::MAX_DIMS)
        {
            return ctx.error("output rank exceeds Dims::MAX_DIMS");
        }
        for (int64_t d = 0; d < b; ++d)
        {
            KILN_RETURN_IF_ERROR(requireEqual(ctx, data.dims[static_cast<size_t>(d)],
                indices.dims[static_cast<size_t>(d)],
                "kND gather: elementwise dimension " + std::to_string(d) + " of data '" + data.name
                    + "' and indices '" + indices.name + "' must be equal"));
        }
        for (int32_t d = 0; d < q - 1; ++d)
        {
            dims.push_back(indices.dims[static_cast<size_t>(d)]);
        }
        for (int64_t d = b + k; d < r; ++d)
        {
            dims.push_back(data.dims[static_cast<size_t>(d)]);
        }
    }

    TensorInfo& out = ctx.output(0);
    out.type = data.type;
    out.dims = dims;
    if (mode == GatherMode::kDEFAULT && b == 0)
    {
        KILN_RETURN_IF_ERROR(gatherValues(ctx, static_cast<int32_t>(axis), data, indices, out));
    }
    return Status::ok();
}

} // namespace kiln
