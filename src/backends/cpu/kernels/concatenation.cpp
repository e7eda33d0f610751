// CPU kernel of IConcatenationLayer: copies each input's block into the output along the concatenation axis
// (type-agnostic byte copies, so every storage type works).
#include "backends/common/concatenationParams.h"
#include "backends/cpu/kernels/kernelFactories.h"
#include "core/dataType.h"

#include <cstring>
#include <vector>

namespace kiln
{
namespace
{

Status executeConcatenation(
    KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
{
    KILN_ASSIGN_OR_RETURN(ConcatenationParams const p, makeConcatenationParams(setup, inputs, outputs));
    TensorView const& out = outputs[0];
    int32_t const axis = p.axis;
    int64_t const outer = p.outer;
    int64_t const innerBytes = p.innerBytes;
    auto* dst = static_cast<uint8_t*>(out.data);
    for (int64_t o = 0; o < outer; ++o)
    {
        for (TensorView const& in : inputs)
        {
            int64_t const chunk = in.dims.d[axis] * innerBytes;
            if (chunk == 0)
            {
                continue;
            }
            std::memcpy(dst, static_cast<uint8_t const*>(in.data) + o * chunk, static_cast<size_t>(chunk));
            dst += chunk;
        }
    }
    return Status::ok();
}

} // namespace

StatusOr<std::unique_ptr<CpuKernel>> createConcatenationKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("Concatenation kernel: no plan node");
    }
    return makeFunctionKernel(setup, executeConcatenation);
}

} // namespace kiln
