// Backend-neutral host-side logic of IConcatenationLayer kernels, shared by the CPU kernel
// (backends/cpu/kernels/concatenation.cpp) and the CUDA kernel (backends/cuda/kernels/concatenation.cu).
#include "backends/common/concatenationParams.h"
#include "core/dataType.h"

#include <string>

namespace kiln
{

namespace
{

Status concatError(KernelSetup const& setup, std::string const& message)
{
    return failedExecution("layer '" + setup.node->name + "' (Concatenation): " + message);
}

} // namespace

StatusOr<int32_t> readConcatenationAxis(KernelSetup const& setup, int32_t rank)
{
    if (rank < 1 || rank > nvinfer1::Dims::MAX_DIMS)
    {
        return concatError(setup, "output rank " + std::to_string(rank) + " is invalid");
    }
    if (!setup.node->attrs.has("axis"))
    {
        return rank >= 3 ? rank - 3 : 0;
    }
    StatusOr<int64_t> a = setup.node->attrs.requireInt("axis");
    if (!a.isOk() || *a < 0 || *a >= rank)
    {
        return concatError(setup, "attribute 'axis' is missing or out of range");
    }
    return static_cast<int32_t>(*a);
}

StatusOr<ConcatenationParams> concatenationShapes(KernelSetup const& setup, int32_t axis,
    std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
{
    if (inputs.empty() || outputs.size() != 1)
    {
        return concatError(setup, "expects at least one input and one output");
    }
    TensorView const& out = outputs[0];
    int32_t const rank = out.dims.nbDims;
    if (rank < 1 || rank > nvinfer1::Dims::MAX_DIMS || axis < 0 || axis >= rank)
    {
        return concatError(setup, "output rank " + std::to_string(rank) + " is invalid");
    }
    ConcatenationParams p;
    p.axis = axis;
    int64_t const esize = elementSize(out.type);
    if (esize <= 0)
    {
        return concatError(setup, std::string("type ") + dataTypeName(out.type) + " is not supported");
    }
    for (size_t i = 0; i < inputs.size(); ++i)
    {
        TensorView const& in = inputs[i];
        if (in.type != out.type || in.dims.nbDims != rank)
        {
            return concatError(
                setup, "input " + std::to_string(i) + " is missing or its rank/type differs from the output");
        }
        for (int32_t d = 0; d < rank; ++d)
        {
            if (in.dims.d[d] < 0 || (d != p.axis && in.dims.d[d] != out.dims.d[d]))
            {
                return concatError(setup, "input " + std::to_string(i) + " has extent " + std::to_string(in.dims.d[d])
                    + " in dimension " + std::to_string(d) + " but the output has " + std::to_string(out.dims.d[d]));
            }
        }
        p.axisTotal += in.dims.d[p.axis];
    }
    if (p.axisTotal != out.dims.d[p.axis])
    {
        return concatError(setup, "the inputs' extents along axis " + std::to_string(p.axis) + " sum to "
            + std::to_string(p.axisTotal) + " but the output has " + std::to_string(out.dims.d[p.axis]));
    }
    p.innerBytes = esize;
    for (int32_t d = 0; d < p.axis; ++d)
    {
        p.outer *= out.dims.d[d];
    }
    for (int32_t d = p.axis + 1; d < rank; ++d)
    {
        p.innerBytes *= out.dims.d[d];
    }
    return p;
}

StatusOr<ConcatenationParams> makeConcatenationParams(
    KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
{
    if (inputs.empty() || outputs.size() != 1 || !outputs[0].present())
    {
        return concatError(setup, "expects at least one input and one output");
    }
    for (size_t i = 0; i < inputs.size(); ++i)
    {
        if (!inputs[i].present())
        {
            return concatError(
                setup, "input " + std::to_string(i) + " is missing or its rank/type differs from the output");
        }
    }
    KILN_ASSIGN_OR_RETURN(int32_t const axis, readConcatenationAxis(setup, outputs[0].dims.nbDims));
    return concatenationShapes(setup, axis, inputs, outputs);
}

} // namespace kiln
