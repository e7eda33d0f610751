// CPU reference kernel of IEinsumLayer: a loop over the output index space and, for every output element, over the
// summed (contracted) subscripts, multiplying the operands in double precision. A subscript repeated within one input
// takes that input's diagonal.
#include "backends/common/einsumParams.h"
#include "backends/cpu/kernels/kernelFactories.h"
#include "core/dataType.h"

#include <algorithm>
#include <vector>

namespace kiln
{
namespace
{

Status executeEinsum(
    KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
{
    KILN_ASSIGN_OR_RETURN(EinsumParams const params, makeEinsumParams(setup, inputs, outputs));
    std::vector<std::vector<double>> values(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i)
    {
        int64_t const n = inputs[i].volume();
        values[i].resize(static_cast<size_t>(n));
        for (int64_t k = 0; k < n; ++k)
        {
            values[i][static_cast<size_t>(k)] = loadElement(inputs[i].data, inputs[i].type, k);
        }
    }
    TensorView const& out = outputs[0];
    size_t const nbOut = params.nbOut;
    size_t const nbAll = params.extents.size();
    std::vector<int64_t> const& ext = params.extents;
    std::vector<std::vector<int64_t>> const& strides = params.steps;
    int64_t const outCount = params.outCount;
    int64_t const sumCount = params.sumCount;
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
