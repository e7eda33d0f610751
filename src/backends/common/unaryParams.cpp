// Backend-neutral host-side check of the one-input, one-output, same-shape kernels, shared by the CPU kernels
// (backends/cpu/kernels/identity.cpp, unary.cpp, activation.cpp) and their CUDA counterparts.
#include "backends/common/unaryParams.h"
#include "backends/common/elementWiseChecks.h"

namespace kiln
{

Status checkUnaryViews(
    KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
{
    KILN_RETURN_IF_ERROR(ew::checkViews(setup, inputs, outputs, 1, 1));
    return ew::checkSameDims(setup, inputs[0].dims, outputs[0].dims, "input and output");
}

Status checkUnaryShapes(
    KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
{
    KILN_RETURN_IF_ERROR(ew::checkViewCounts(setup, inputs, outputs, 1, 1));
    return ew::checkSameDims(setup, inputs[0].dims, outputs[0].dims, "input and output");
}

} // namespace kiln
