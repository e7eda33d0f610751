// ConcatenationLayer, INetworkDefinition::addConcatenation and the concatenation shape/type/value inference.
#include "network/layers/concatenationLayer.h"

#include "core/dataType.h"
#include "core/geometry.h"
#include "network/layerTable.h"
#include "network/layers/softMaxLayer.h"
#include "network/networkDefinition.h"

namespace kiln
{
using nvinfer1::DataType;

ConcatenationLayer::ConcatenationLayer(NetworkDefinition& network, std::vector<Tensor*> inputs)
    : LayerBase<nvinfer1::IConcatenationLayer>(network, nvinfer1::LayerType::kCONCATENATION, std::move(inputs), 1)
{
}

void ConcatenationLayer::setAxis(int32_t axis) noexcept
{
    if (axis < 0 || axis >= nvinfer1::Dims::MAX_DIMS)
    {
        network().reportError(invalidArgument("IConcatenationLayer::setAxis on layer '" + name() + "': axis "
            + std::to_string(axis) + " is out of range [0, " + std::to_string(nvinfer1::Dims::MAX_DIMS - 1) + "]"));
        return;
    }
    attrs().setInt("axis", axis);
    touch();
}

int32_t ConcatenationLayer::getAxis() const noexcept
{
    if (attrs().has("axis"))
    {
        return static_cast<int32_t>(attrs().getInt("axis"));
    }
    int32_t rank = 0;
    if (!inputs().empty() && inputs()[0] != nullptr)
    {
        rank = inputs()[0]->getDimensions().nbDims;
    }
    return defaultChannelAxis(rank < 0 ? 0 : rank);
}

nvinfer1::IConcatenationLayer* NetworkDefinition::addConcatenation(
    nvinfer1::ITensor* const* inputs, int32_t nbInputs) noexcept
{
    try
    {
        if (inputs == nullptr || nbInputs <= 0)
        {
            reportError(invalidArgument("addConcatenation: needs at least one input tensor (got nbInputs = "
                + std::to_string(nbInputs) + (inputs == nullptr ? " and a null array)" : ")")));
            return nullptr;
        }
        std::vector<Tensor*> tensors;
        for (int32_t i = 0; i < nbInputs; ++i)
        {
            if (inputs[i] == nullptr)
            {
                reportError(invalidArgument("addConcatenation: input " + std::to_string(i) + " is null"));
                return nullptr;
            }
            Tensor* t = ownTensor(inputs[i], "addConcatenation input");
            if (t == nullptr)
            {
                return nullptr;
            }
            tensors.push_back(t);
        }
        return adopt(std::make_unique<ConcatenationLayer>(*this, std::move(tensors)));
    }
    catch (...)
    {
        reportError(internalError("addConcatenation: unexpected exception"));
        return nullptr;
    }
}

Status inferConcatenation(InferContext& ctx)
{
    int32_t const nb = ctx.nbInputs();
    if (nb < 1)
    {
        return ctx.error("needs at least one input");
    }
    KILN_RETURN_IF_ERROR(ctx.requireInput(0, 1, nvinfer1::Dims::MAX_DIMS));
    TensorInfo const& first = ctx.input(0);
    int32_t const rank = first.rank();
    if (elementSize(first.type) <= 0)
    {
        return ctx.error(std::string("input type ") + dataTypeName(first.type) + " is not supported");
    }
    int32_t axis = defaultChannelAxis(rank);
    if (ctx.attrs().has("axis"))
    {
        int64_t const a = ctx.attrs().getInt("axis");
        if (a < 0 || a >= rank)
        {
            return ctx.error("concatenation axis " + std::to_string(a) + " is out of range for inputs of rank "
                + std::to_string(rank));
        }
        axis = static_cast<int32_t>(a);
    }
    ShapeExpr dims = first.dims;
    DimExpr total = first.dims[static_cast<size_t>(axis)];
    for (int32_t i = 1; i < nb; ++i)
    {
        KILN_RETURN_IF_ERROR(ctx.requireInput(i, rank, rank));
        TensorInfo const& in = ctx.input(i);
        if (in.type != first.type)
        {
            return ctx.error("input " + std::to_string(i) + " '" + in.name + "' has type " + dataTypeName(in.type)
                + " but input 0 '" + first.name + "' has type " + dataTypeName(first.type)
                + "; all inputs must have the same type");
        }
        for (int32_t d = 0; d < rank; ++d)
        {
            DimExpr const x = dims[static_cast<size_t>(d)];
            DimExpr const y = in.dims[static_cast<size_t>(d)];
            if (d == axis)
            {
                continue;
            }
            if (x.isConstant() && y.isConstant())
            {
                if (x.constant() != y.constant())
                {
                    return ctx.error("input " + std::to_string(i) + " '" + in.name + "' has extent "
                        + std::to_string(y.constant()) + " in dimension " + std::to_string(d) + " but input 0 '"
                        + first.name + "' has " + std::to_string(x.constant())
                        + "; dimensions other than the concatenation axis " + std::to_string(axis) + " must match");
                }
                continue;
            }
            KILN_RETURN_IF_ERROR(ctx.require(x.eq(y),
                "input " + std::to_string(i) + " '" + in.name + "' and input 0 '" + first.name
                    + "' differ in dimension " + std::to_string(d) + " (only the concatenation axis "
                    + std::to_string(axis) + " may differ)"));
            if (y.isConstant())
            {
                dims[static_cast<size_t>(d)] = y; // prefer a build-time constant extent
            }
        }
        total = total + in.dims[static_cast<size_t>(axis)];
    }
    dims[static_cast<size_t>(axis)] = total;

    TensorInfo& out = ctx.output(0);
    out.type = first.type;
    out.dims = dims;

    // Values (shape tensors): concatenate the inputs' element values when every input carries them.
    bool const intType = first.type == DataType::kINT32 || first.type == DataType::kINT64;
    bool haveValues = intType;
    for (int32_t i = 0; i < nb && haveValues; ++i)
    {
        TensorInfo const& in = ctx.input(i);
        haveValues = in.values.has_value();
        for (DimExpr const& d : in.dims)
        {
            haveValues = haveValues && d.isConstant();
        }
    }
    if (haveValues)
    {
        int64_t outer = 1;
        int64_t inner = 1;
        for (int32_t d = 0; d < axis && outer >= 0; ++d)
        {
            outer = checkedMul(outer, dims[static_cast<size_t>(d)].constant());
        }
        for (int32_t d = axis + 1; d < rank && inner >= 0; ++d)
        {
            inner = checkedMul(inner, dims[static_cast<size_t>(d)].constant());
        }
        if (outer < 0 || inner < 0)
        {
            return Status::ok(); // an empty tensor whose other extents do not multiply within int64_t: no values
        }
        std::vector<DimExpr> values;
        for (int64_t o = 0; o < outer; ++o)
        {
            for (int32_t i = 0; i < nb; ++i)
            {
                TensorInfo const& in = ctx.input(i);
                int64_t const chunk = checkedMul(in.dims[static_cast<size_t>(axis)].constant(), inner);
                int64_t const total = chunk < 0 ? -1 : checkedMul(outer, chunk);
                std::vector<DimExpr> const& v = *in.values;
                if (total < 0 || static_cast<int64_t>(v.size()) != total)
                {
                    return ctx.error("input " + std::to_string(i) + " '" + in.name + "' carries "
                        + std::to_string(v.size()) + " values but its shape holds "
                        + (total < 0 ? std::string("more than int64_t counts") : std::to_string(total)));
                }
                for (int64_t k = 0; k < chunk; ++k)
                {
                    values.push_back(v[static_cast<size_t>(o * chunk + k)]);
                }
            }
        }
        out.values = std::move(values);
    }
    return Status::ok();
}

} // namespace kiln
