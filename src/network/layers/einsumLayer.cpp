// EinsumLayer, INetworkDefinition::addEinsum and the Einsum shape/type inference.
#include "network/layers/einsumLayer.h"

#include "core/dataType.h"
#include "network/layerTable.h"
#include "network/layers/einsumEquation.h"
#include "network/networkDefinition.h"

#include <array>
#include <optional>

namespace kiln
{
using nvinfer1::DataType;

EinsumLayer::EinsumLayer(NetworkDefinition& network, std::vector<Tensor*> inputs, std::string const& equation)
    : LayerBase<nvinfer1::IEinsumLayer>(network, nvinfer1::LayerType::kEINSUM, std::move(inputs), 1)
    , mEquation(equation)
{
    attrs().setString("equation", equation);
}

bool EinsumLayer::setEquation(char const* equation) noexcept
{
    try
    {
        if (equation == nullptr)
        {
            network().reportError(invalidArgument("IEinsumLayer::setEquation on layer '" + name() + "': equation is null"));
            return false;
        }
        StatusOr<EinsumEquation> parsed = parseEinsumEquation(equation, static_cast<int32_t>(inputs().size()));
        if (!parsed.isOk())
        {
            network().reportError(invalidArgument(
                "IEinsumLayer::setEquation on layer '" + name() + "': " + parsed.status().message()));
            return false;
        }
        mEquation = equation;
        attrs().setString("equation", mEquation);
        touch();
        return true;
    }
    catch (...)
    {
        network().reportError(internalError("IEinsumLayer::setEquation: unexpected exception"));
        return false;
    }
}

char const* EinsumLayer::getEquation() const noexcept
{
    return mEquation.c_str();
}

nvinfer1::IEinsumLayer* NetworkDefinition::addEinsum(
    nvinfer1::ITensor* const* inputs, int32_t nbInputs, char const* equation) noexcept
{
    try
    {
        if (inputs == nullptr || nbInputs < 1)
        {
            reportError(invalidArgument("addEinsum: needs at least one input (nbInputs = " + std::to_string(nbInputs) + ")"));
            return nullptr;
        }
        if (equation == nullptr)
        {
            reportError(invalidArgument("addEinsum: equation is null"));
            return nullptr;
        }
        std::vector<Tensor*> ins;
        for (int32_t i = 0; i < nbInputs; ++i)
        {
            Tensor* t = ownTensor(inputs[i], "addEinsum input");
            if (t == nullptr)
            {
                return nullptr;
            }
            ins.push_back(t);
        }
        StatusOr<EinsumEquation> parsed = parseEinsumEquation(equation, nbInputs);
        if (!parsed.isOk())
        {
            reportError(invalidArgument("addEinsum: " + parsed.status().message()));
            return nullptr;
        }
        return adopt(std::make_unique<EinsumLayer>(*this, std::move(ins), equation));
    }
    catch (...)
    {
        reportError(internalError("addEinsum: unexpected exception"));
        return nullptr;
    }
}

Status inferEinsum(InferContext& ctx)
{
    StatusOr<EinsumEquation> parsed = parseEinsumEquation(ctx.attrs().getString("equation"), ctx.nbInputs());
    if (!parsed.isOk())
    {
        return ctx.error(parsed.status().message());
    }
    EinsumEquation const& eq = *parsed;
    DataType type = DataType::kFLOAT;
    std::array<std::optional<DimExpr>, 26> extent;
    for (int32_t i = 0; i < ctx.nbInputs(); ++i)
    {
        KILN_RETURN_IF_ERROR(ctx.requireInput(i));
        TensorInfo const& in = ctx.input(i);
        if (in.type != DataType::kFLOAT && in.type != DataType::kHALF && in.type != DataType::kBF16)
        {
            return ctx.error("input " + std::to_string(i) + " '" + in.name + "' has type " + dataTypeName(in.type)
                + "; Einsum supports FP32, FP16 and BF16");
        }
        if (i == 0)
        {
            type = in.type;
        }
        else if (in.type != type)
        {
            return ctx.error("input " + std::to_string(i) + " '" + in.name + "' has type " + dataTypeName(in.type)
                + " but input 0 has type " + dataTypeName(type) + "; all inputs must have the same type");
        }
        std::string const& term = eq.inputs[static_cast<size_t>(i)];
        if (in.rank() != static_cast<int32_t>(term.size()))
        {
            return ctx.error("input " + std::to_string(i) + " '" + in.name + "' has rank " + std::to_string(in.rank())
                + " but its subscripts '" + term + "' name " + std::to_string(term.size()) + " dimension(s)");
        }
        for (size_t d = 0; d < term.size(); ++d)
        {
            auto const letter = static_cast<size_t>(term[d] - 'a');
            DimExpr const e = in.dims[d];
            if (!extent[letter].has_value())
            {
                extent[letter] = e;
                continue;
            }
            DimExpr const prev = *extent[letter];
            std::string const what = std::string("subscript '") + term[d] + "' has different extents (dimension "
                + std::to_string(d) + " of input " + std::to_string(i) + " '" + in.name + "')";
            if (prev.isConstant() && e.isConstant())
            {
                if (prev.constant() != e.constant())
                {
                    return ctx.error(what + ": " + std::to_string(prev.constant()) + " vs " + std::to_string(e.constant()));
                }
                continue;
            }
            KILN_RETURN_IF_ERROR(ctx.require(prev.eq(e), what));
        }
    }
    TensorInfo& out = ctx.output(0);
    out.type = type;
    out.dims.clear();
    for (char c : eq.output)
    {
        out.dims.push_back(*extent[static_cast<size_t>(c - 'a')]);
    }
    return Status::ok();
}

} // namespace kiln
