// ScatterLayer, INetworkDefinition::addScatter and the scatter shape/type inference.
#include "network/layers/scatterLayer.h"

#include "core/dataType.h"
#include "network/layerTable.h"
#include "network/networkDefinition.h"

namespace kiln
{
using nvinfer1::DataType;
using nvinfer1::ScatterMode;

namespace
{

bool validScatterMode(ScatterMode mode)
{
    return mode == ScatterMode::kELEMENT || mode == ScatterMode::kND;
}

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

} // namespace

ScatterLayer::ScatterLayer(NetworkDefinition& network, Tensor* data, Tensor* indices, Tensor* updates, ScatterMode mode)
    : LayerBase<nvinfer1::IScatterLayer>(network, nvinfer1::LayerType::kSCATTER, {data, indices, updates}, 1)
{
    attrs().setInt("mode", static_cast<int64_t>(mode));
    attrs().setInt("axis", 0);
}

void ScatterLayer::setMode(ScatterMode mode) noexcept
{
    if (!validScatterMode(mode))
    {
        network().reportError(invalidArgument("IScatterLayer::setMode on layer '" + name() + "': mode "
            + std::to_string(static_cast<int32_t>(mode)) + " is not kELEMENT or kND"));
        return;
    }
    attrs().setInt("mode", static_cast<int64_t>(mode));
    touch();
}

ScatterMode ScatterLayer::getMode() const noexcept
{
    return static_cast<ScatterMode>(attrs().getInt("mode"));
}

void ScatterLayer::setAxis(int32_t axis) noexcept
{
    if (axis < 0 || axis >= nvinfer1::Dims::MAX_DIMS)
    {
        network().reportError(invalidArgument("IScatterLayer::setAxis on layer '" + name() + "': axis "
            + std::to_string(axis) + " is out of range [0, " + std::to_string(nvinfer1::Dims::MAX_DIMS - 1) + "]"));
        return;
    }
    attrs().setInt("axis", axis);
    touch();
}

int32_t ScatterLayer::getAxis() const noexcept
{
    return static_cast<int32_t>(attrs().getInt("axis"));
}

nvinfer1::IScatterLayer* NetworkDefinition::addScatter(
    nvinfer1::ITensor& data, nvinfer1::ITensor& indices, nvinfer1::ITensor& updates, ScatterMode mode) noexcept
{
    try
    {
        Tensor* d = ownTensor(&data, "addScatter data");
        Tensor* i = d != nullptr ? ownTensor(&indices, "addScatter indices") : nullptr;
        Tensor* u = i != nullptr ? ownTensor(&updates, "addScatter updates") : nullptr;
        if (u == nullptr)
        {
            return nullptr;
        }
        if (!validScatterMode(mode))
        {
            reportError(invalidArgument(
                "addScatter: mode " + std::to_string(static_cast<int32_t>(mode)) + " is not kELEMENT or kND"));
            return nullptr;
        }
        return adopt(std::make_unique<ScatterLayer>(*this, d, i, u, mode));
    }
    catch (...)
    {
        reportError(internalError("addScatter: unexpected exception"));
        return nullptr;
    }
}

Status inferScatter(InferContext& ctx)
{
    KILN_RETURN_IF_ERROR(ctx.requireInput(0, 1, nvinfer1::Dims::MAX_DIMS));
    KILN_RETURN_IF_ERROR(ctx.requireInput(1, 0, nvinfer1::Dims::MAX_DIMS));
    KILN_RETURN_IF_ERROR(ctx.requireInput(2, 0, nvinfer1::Dims::MAX_DIMS));
    TensorInfo const& data = ctx.input(0);
    TensorInfo const& indices = ctx.input(1);
    TensorInfo const& updates = ctx.input(2);
    if (elementSize(data.type) <= 0)
    {
        return ctx.error("data '" + data.name + "' has unsupported type " + dataTypeName(data.type));
    }
    if (updates.type != data.type)
    {
        return ctx.error("updates '" + updates.name + "' have type " + dataTypeName(updates.type) + " but data '"
            + data.name + "' has type " + dataTypeName(data.type) + "; they must match");
    }
    if (indices.type != DataType::kINT32 && indices.type != DataType::kINT64)
    {
        return ctx.error("indices '" + indices.name + "' have type " + dataTypeName(indices.type)
            + "; they must be INT32 or INT64");
    }
    auto const mode = static_cast<ScatterMode>(ctx.attrs().getInt("mode", -1));
    int32_t const r = data.rank();
    int32_t const q = indices.rank();
    if (mode == ScatterMode::kELEMENT)
    {
        int64_t const axis = ctx.attrs().getInt("axis", 0);
        if (axis < 0 || axis >= r)
        {
            return ctx.error("scatter axis " + std::to_string(axis) + " is out of range for data '" + data.name
                + "' of rank " + std::to_string(r));
        }
        if (q != r || updates.rank() != r)
        {
            return ctx.error("kELEMENT scatter needs data '" + data.name + "', indices '" + indices.name
                + "' and updates '" + updates.name + "' of equal rank (" + std::to_string(r) + ", "
                + std::to_string(q) + ", " + std::to_string(updates.rank()) + ")");
        }
        for (int32_t d = 0; d < r; ++d)
        {
            KILN_RETURN_IF_ERROR(requireEqual(ctx, indices.dims[static_cast<size_t>(d)],
                updates.dims[static_cast<size_t>(d)],
                "kELEMENT scatter: indices '" + indices.name + "' and updates '" + updates.name
                    + "' differ in dimension " + std::to_string(d)));
            if (d != axis)
            {
                KILN_RETURN_IF_ERROR(requireNotGreater(ctx, indices.dims[static_cast<size_t>(d)],
                    data.dims[static_cast<size_t>(d)],
                    "kELEMENT scatter: indices '" + indices.name + "' are larger than data '" + data.name
                        + "' in dimension " + std::to_string(d)));
            }
        }
    }
    else if (mode == ScatterMode::kND)
    {
        if (q < 1)
        {
            return ctx.error("kND scatter needs indices '" + indices.name + "' of rank >= 1");
        }
        DimExpr const last = indices.dims[static_cast<size_t>(q - 1)];
        if (!last.isConstant())
        {
            return ctx.error("kND scatter needs the last dimension of indices '" + indices.name
                + "' to be a build-time constant");
        }
        int64_t const k = last.constant();
        if (k < 1 || k > r)
        {
            return ctx.error("the last dimension of indices '" + indices.name + "' is " + std::to_string(k)
                + "; kND scatter needs it in [1, " + std::to_string(r) + "] (the rank of data '" + data.name + "')");
        }
        int64_t const s = q - 1 + r - k;
        if (updates.rank() != s)
        {
            return ctx.error("kND scatter: updates '" + updates.name + "' have rank " + std::to_string(updates.rank())
                + "; expected " + std::to_string(s) + " (indices rank - 1 + data rank - " + std::to_string(k) + ")");
        }
        for (int32_t d = 0; d < q - 1; ++d)
        {
            KILN_RETURN_IF_ERROR(requireEqual(ctx, updates.dims[static_cast<size_t>(d)],
                indices.dims[static_cast<size_t>(d)],
                "kND scatter: dimension " + std::to_string(d) + " of updates '" + updates.name
                    + "' must equal dimension " + std::to_string(d) + " of indices '" + indices.name + "'"));
        }
        for (int64_t d = k; d < r; ++d)
        {
            size_t const u = static_cast<size_t>(q - 1 + d - k);
            KILN_RETURN_IF_ERROR(requireEqual(ctx, updates.dims[u], data.dims[static_cast<size_t>(d)],
                "kND scatter: dimension " + std::to_string(u) + " of updates '" + updates.name
                    + "' must equal dimension " + std::to_string(d) + " of data '" + data.name + "'"));
        }
    }
    else
    {
        return ctx.error("invalid scatter mode " + std::to_string(static_cast<int32_t>(mode)));
    }
    TensorInfo& out = ctx.output(0);
    out.type = data.type;
    out.dims = data.dims;
    return Status::ok();
}

} // namespace kiln
