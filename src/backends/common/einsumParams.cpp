// Host-side logic of IEinsumLayer kernels: see einsumParams.h.
#include "backends/common/einsumParams.h"

#include "network/layers/einsumEquation.h"

#include <array>

namespace kiln
{

Status einsumError(KernelSetup const& setup, std::string const& message)
{
    return failedExecution("layer '" + setup.node->name + "' (Einsum): " + message);
}

namespace
{
//! The node's equation for `nbInputs` inputs and one output (`nbOutputs`).
StatusOr<EinsumEquation> parseFor(KernelSetup const& setup, size_t nbInputs, size_t nbOutputs)
{
    if (nbInputs == 0 || nbOutputs != 1)
    {
        return einsumError(setup, "expects at least one input and one output");
    }
    StatusOr<EinsumEquation> parsed
        = parseEinsumEquation(setup.node->attrs.getString("equation"), static_cast<int32_t>(nbInputs));
    if (!parsed.isOk())
    {
        return einsumError(setup, parsed.status().message());
    }
    return parsed;
}
} // namespace

StatusOr<EinsumEquation> readEinsumEquation(KernelSetup const& setup)
{
    return parseFor(setup, setup.inputTypes.size(), setup.outputTypes.size());
}

StatusOr<EinsumParams> makeEinsumParams(
    KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
{
    KILN_ASSIGN_OR_RETURN(EinsumEquation const eq, parseFor(setup, inputs.size(), outputs.size()));
    for (size_t i = 0; i < inputs.size(); ++i)
    {
        if (!inputs[i].present())
        {
            return einsumError(
                setup, "input " + std::to_string(i) + " does not match its subscripts '" + eq.inputs[i] + "'");
        }
    }
    return einsumShapes(setup, eq, inputs, outputs);
}

StatusOr<EinsumParams> einsumShapes(KernelSetup const& setup, EinsumEquation const& eq,
    std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
{
    if (inputs.size() != eq.inputs.size() || outputs.size() != 1)
    {
        return einsumError(setup, "expects " + std::to_string(eq.inputs.size()) + " inputs and one output");
    }
    std::array<int64_t, 26> extent;
    extent.fill(-1);
    for (size_t i = 0; i < inputs.size(); ++i)
    {
        TensorView const& in = inputs[i];
        std::string const& term = eq.inputs[i];
        if (in.dims.nbDims != static_cast<int32_t>(term.size()))
        {
            return einsumError(setup, "input " + std::to_string(i) + " does not match its subscripts '" + term + "'");
        }
        for (size_t d = 0; d < term.size(); ++d)
        {
            int64_t& e = extent[static_cast<size_t>(term[d] - 'a')];
            if (e >= 0 && e != in.dims.d[d])
            {
                return einsumError(setup, std::string("subscript '") + term[d] + "' has extents " + std::to_string(e)
                    + " and " + std::to_string(in.dims.d[d]));
            }
            e = in.dims.d[d];
        }
    }
    if (outputs[0].dims.nbDims != static_cast<int32_t>(eq.output.size()))
    {
        return einsumError(setup, "output rank does not match the subscripts '" + eq.output + "'");
    }
    // Loop order: output subscripts first (outer), then the summed ones.
    std::string letters = eq.output;
    for (std::string const& term : eq.inputs)
    {
        for (char c : term)
        {
            if (letters.find(c) == std::string::npos)
            {
                letters += c;
            }
        }
    }
    EinsumParams p;
    p.nbOut = eq.output.size();
    size_t const nbAll = letters.size();
    p.extents.resize(nbAll);
    for (size_t l = 0; l < nbAll; ++l)
    {
        p.extents[l] = extent[static_cast<size_t>(letters[l] - 'a')];
    }
    p.steps.assign(inputs.size(), std::vector<int64_t>(nbAll, 0));
    for (size_t i = 0; i < inputs.size(); ++i)
    {
        std::vector<int64_t> const s = contiguousStrides(inputs[i].dims);
        std::string const& term = eq.inputs[i];
        for (size_t d = 0; d < term.size(); ++d)
        {
            p.steps[i][letters.find(term[d])] += s[d];
        }
    }
    for (size_t l = 0; l < p.nbOut; ++l)
    {
        p.outCount *= p.extents[l];
    }
    for (size_t l = p.nbOut; l < nbAll; ++l)
    {
        p.sumCount *= p.extents[l];
    }
    return p;
}

} // namespace kiln
