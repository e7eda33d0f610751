// CPU kernel of IConcatenationLayer: copies each input's block into the output along the concatenation axis
// (type-agnostic byte copies, so every storage type works).
#include "backends/cpu/kernels/kernelFactories.h"
#include "core/dataType.h"

#include <cstring>
#include <vector>

namespace kiln
{
namespace
{

Status concatError(KernelSetup const& setup, std::string const& message)
{
    return failedExecution("layer '" + setup.node->name + "' (Concatenation): " + message);
}

Status executeConcatenation(
    KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
{
    if (inputs.empty() || outputs.size() != 1 || !outputs[0].present())
    {
        return concatError(setup, "expects at least one input and one output");
    }
    TensorView const& out = outputs[0];
    int32_t const rank = out.dims.nbDims;
    if (rank < 1 || rank > nvinfer1::Dims::MAX_DIMS)
    {
        return concatError(setup, "output rank " + std::to_string(rank) + " is invalid");
    }
    int32_t axis = rank >= 3 ? rank - 3 : 0;
    if (setup.node->attrs.has("axis"))
    {
        StatusOr<int64_t> a = setup.node->attrs.requireInt("axis");
        if (!a.isOk() || *a < 0 || *a >= rank)
        {
            return concatError(setup, "attribute 'axis' is missing or out of range");
        }
        axis = static_cast<int32_t>(*a);
    }
    int64_t const esize = elementSize(out.type);
    if (esize <= 0)
    {
        return concatError(setup, std::string("type ") + dataTypeName(out.type) + " is not supported");
    }
    int64_t axisTotal = 0;
    for (size_t i = 0; i < inputs.size(); ++i)
    {
        TensorView const& in = inputs[i];
        if (!in.present() || in.type != out.type || in.dims.nbDims != rank)
        {
            return concatError(setup, "input " + std::to_string(i) + " is missing or its rank/type differs from the output");
        }
        for (int32_t d = 0; d < rank; ++d)
        {
            if (in.dims.d[d] < 0 || (d != axis && in.dims.d[d] != out.dims.d[d]))
            {
                return concatError(setup, "input " + std::to_string(i) + " has extent " + std::to_string(in.dims.d[d])
                    + " in dimension " + std::to_string(d) + " but the output has " + std::to_string(out.dims.d[d]));
            }
        }
        axisTotal += in.dims.d[axis];
    }
    if (axisTotal != out.dims.d[axis])
    {
        return concatError(setup, "the inputs' extents along axis " + std::to_string(axis) + " sum to "
            + std::to_string(axisTotal) + " but the output has " + std::to_string(out.dims.d[axis]));
    }
    int64_t outer = 1;
    int64_t innerBytes = esize;
    for (int32_t d = 0; d < axis; ++d)
    {
        outer *= out.dims.d[d];
    }
    for (int32_t d = axis + 1; d < rank; ++d)
    {
        innerBytes *= out.dims.d[d];
    }
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
