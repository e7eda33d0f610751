// CUDA kernels of IConcatenationLayer (one 2-D device copy per input into its band of the output, any storage
// type) and of ISqueezeLayer / IUnsqueezeLayer (a device copy unless the builder aliased the output), with the CPU
// reference's checks and messages (backends/cpu/kernels/concatenation.cpp, squeeze.cpp).
#include "backends/cuda/kernels/cudaKernelFactories.h"
#include "backends/cuda/kernels/kernelCommon.cuh"

namespace kiln::cuda
{

namespace
{

Status concatError(KernelSetup const& setup, std::string const& message)
{
    return failedExecution("layer '" + setup.node->name + "' (Concatenation): " + message);
}

Status enqueueConcatenation(KernelSetup const& setup, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs, CudaRunContext const& ctx)
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
    int64_t const outPitch = axisTotal * innerBytes;
    int64_t offset = 0;
    for (TensorView const& in : inputs)
    {
        int64_t const chunk = in.dims.d[axis] * innerBytes;
        if (chunk > 0 && outer > 0)
        {
            KILN_CUDA_CHECK(cudaMemcpy2DAsync(static_cast<uint8_t*>(out.data) + offset, static_cast<size_t>(outPitch),
                in.data, static_cast<size_t>(chunk), static_cast<size_t>(chunk), static_cast<size_t>(outer),
                cudaMemcpyDeviceToDevice, ctx.stream));
        }
        offset += chunk;
    }
    return Status::ok();
}

Status enqueueCopy(KernelSetup const& setup, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs, CudaRunContext const& ctx)
{
    char const* kind = setup.node->kind == nvinfer1::LayerType::kSQUEEZE ? "Squeeze" : "Unsqueeze";
    if (inputs.empty() || outputs.size() != 1 || !inputs[0].present() || !outputs[0].present()
        || inputs[0].volume() != outputs[0].volume() || inputs[0].type != outputs[0].type)
    {
        return failedExecution("layer '" + setup.node->name + "' (" + kind
            + "): the output must hold the input's elements in the input's type");
    }
    int64_t const bytes = byteSize(inputs[0].type, inputs[0].volume());
    if (bytes > 0 && outputs[0].data != inputs[0].data)
    {
        KILN_CUDA_CHECK(cudaMemcpyAsync(outputs[0].data, inputs[0].data, static_cast<size_t>(bytes),
            cudaMemcpyDeviceToDevice, ctx.stream));
    }
    return Status::ok();
}

} // namespace

StatusOr<std::unique_ptr<CudaKernel>> createConcatenationCudaKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("Concatenation kernel: no plan node");
    }
    return makeCudaFunctionKernel(setup, enqueueConcatenation);
}

StatusOr<std::unique_ptr<CudaKernel>> createSqueezeCudaKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("Squeeze/Unsqueeze kernel: no plan node");
    }
    return makeCudaFunctionKernel(setup, enqueueCopy);
}

} // namespace kiln::cuda
