// Backend-neutral host-side logic of ISoftMaxLayer kernels, shared by the CPU kernel
// (backends/cpu/kernels/softMax.cpp) and the CUDA kernel (backends/cuda/kernels/softMax.cu).
#include "backends/common/softMaxParams.h"

#include <bit>

namespace kiln
{

Status softMaxError(KernelSetup const& setup, std::string const& message)
{
    return failedExecution("layer '" + setup.node->name + "' (SoftMax): " + message);
}

StatusOr<int32_t> readSoftMaxAxis(KernelSetup const& setup, int32_t rank)
{
    int32_t axis = rank >= 3 ? rank - 3 : 0;
    if (setup.node->attrs.has("axes"))
    {
        StatusOr<int64_t> mask = setup.node->attrs.requireInt("axes");
        if (!mask.isOk() || *mask <= 0 || std::popcount(static_cast<uint64_t>(*mask)) != 1)
        {
            return softMaxError(setup, "attribute 'axes' must be a one-bit mask");
        }
        axis = std::countr_zero(static_cast<uint64_t>(*mask));
    }
    return axis;
}

StatusOr<SoftMaxParams> softMaxShapes(KernelSetup const& setup, int32_t axis, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs)
{
    if (inputs.size() != 1 || outputs.size() != 1)
    {
        return softMaxError(setup, "expects one input and one output");
    }
    TensorView const& in = inputs[0];
    TensorView const& out = outputs[0];
    int32_t const rank = in.dims.nbDims;
    if (rank < 1 || rank > nvinfer1::Dims::MAX_DIMS || out.dims.nbDims != rank || in.type != out.type)
    {
        return softMaxError(setup, "input and output must have the same rank (>= 1) and type");
    }
    for (int32_t d = 0; d < rank; ++d)
    {
        if (in.dims.d[d] != out.dims.d[d] || in.dims.d[d] < 0)
        {
            return softMaxError(setup, "input and output shapes differ in dimension " + std::to_string(d));
        }
    }
    if (axis >= rank)
    {
        return softMaxError(
            setup, "axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
    }
    SoftMaxParams p;
    static_cast<AxisSplit&>(p) = splitAtAxis(in.dims, axis);
    return p;
}

StatusOr<SoftMaxParams> makeSoftMaxParams(
    KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
{
    if (inputs.size() != 1 || outputs.size() != 1 || !inputs[0].present() || !outputs[0].present())
    {
        return softMaxError(setup, "expects one input and one output");
    }
    KILN_ASSIGN_OR_RETURN(int32_t const axis, readSoftMaxAxis(setup, inputs[0].dims.nbDims));
    return softMaxShapes(setup, axis, inputs, outputs);
}

} // namespace kiln
