// CPU reference kernel of IEinsumLayer: a loop over the output index space and, for every output element, over the
// summed (contracted) subscripts, multiplying the operands in double precision. A subscript repeated within one input
// takes that input's diagonal.
#include "backends/cpu/kernels/kernelFactories.h"
#include "core/dataType.h"
#include "network/layers/einsumEquation.h"

#include <array>
#include <vector>

namespace kiln
{
namespace
{

Status einsumError(KernelSetup const& setup, std::string const& message)
{
    return failedExecution("layer '" + setup.node->name + "' (Einsum): " + message);
}

Status executeEinsum(
    KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
{
    if (inputs.empty() || outputs.size() != 1)
    {
        return einsumError(setup, "expects at least one input and one output");
    }
    StatusOr<EinsumEquation> parsed
        = parseEinsumEquation(setup.node->attrs.getString("equation"), static_cast<int32_t>(inputs.size()));
    if (!parsed.isOk())
    {
        return einsumError(setup, parsed.status().message());
    }
    EinsumEquation const& eq = *parsed;
    std::array<int64_t, 26> extent;
    extent.fill(-1);
    std::vector<std::vector<double>> values(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i)
    {
        TensorView const& in = inputs[i];
        std::string const& term = eq.inputs[i];
        if (!in.present() || in.dims.nbDims != static_cast<int32_t>(term.size()))
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
        int64_t const n = in.volume();
        values[i].resize(static_cast<size_t>(n));
        for (int64_t k = 0; k < n; ++k)
        {
            values[i][static_cast<size_t>(k)] = loadElement(in.data, in.type, k);
        }
    }
    TensorView const& out = outputs[0];
    if (out.dims.nbDims != static_cast<int32_t>(eq.output.size()))
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
    size_t const nbOut = eq.output.size();
    size_t const nbAll = letters.size();
    std::vector<int64_t> ext(nbAll);
    for (size_t l = 0; l < nbAll; ++l)
    {
        ext[l] = extent[static_cast<size_t>(letters[l] - 'a')];
    }
    // strides[i][l]: step in input i's storage when subscript l advances by one (summed for repeated subscripts).
    std::vector<std::vector<int64_t>> strides(inputs.size(), std::vector<int64_t>(nbAll, 0));
    for (size_t i = 0; i < inputs.size(); ++i)
    {
        std::vector<int64_t> const s = contiguousStrides(inputs[i].dims);
        std::string const& term = eq.inputs[i];
        for (size_t d = 0; d < term.size(); ++d)
        {
            strides[i][letters.find(term[d])] += s[d];
        }
    }
    int64_t outCount = 1;
    for (size_t l = 0; l < nbOut; ++l)
    {
        outCount *= ext[l];
    }
    int64_t sumCount = 1;
    for (size_t l = nbOut; l < nbAll; ++l)
    {
        sumCount *= ext[l];
    }
    std::vector<int64_t> index(nbAll, 0);
    std::vector<int64_t> base(inputs.size(), 0); // offsets from the output subscripts
    for (int64_t o = 0; o < outCount; ++o)
    {
        double acc = 0.0;
        std::vector<int64_t> offset = base;
        std::fill(index.begin() + static_cast<std::ptrdiff_t>(nbOut), index.end(), 0);
        for (int64_t s = 0; s < sumCount; ++s)
        {
            double p = 1.0;
            for (size_t i = 0; i < inputs.size(); ++i)
            {
                p *= values[i][static_cast<size_t>(offset[i])];
            }
            acc += p;
            // Advance the summed subscripts (last fastest).
            for (size_t l = nbAll; l-- > nbOut;)
            {
                if (++index[l] < ext[l])
                {
                    for (size_t i = 0; i < inputs.size(); ++i)
                    {
                        offset[i] += strides[i][l];
                    }
                    break;
                }
                index[l] = 0;
                for (size_t i = 0; i < inputs.size(); ++i)
                {
                    offset[i] -= strides[i][l] * (ext[l] - 1);
                }
            }
        }
        storeElement(out.data, out.type, o, acc);
        // Advance the output subscripts (last fastest, row-major output).
        for (size_t l = nbOut; l-- > 0;)
        {
            if (++index[l] < ext[l])
            {
                for (size_t i = 0; i < inputs.size(); ++i)
                {
                    base[i] += strides[i][l];
                }
                break;
            }
            index[l] = 0;
            for (size_t i = 0; i < inputs.size(); ++i)
            {
                base[i] -= strides[i][l] * (ext[l] - 1);
            }
        }
    }
    return Status::ok();
}

} // namespace

StatusOr<std::unique_ptr<CpuKernel>> createEinsumKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("Einsum kernel: no plan node");
    }
    return makeFunctionKernel(setup, executeEinsum);
}

} // namespace kiln
