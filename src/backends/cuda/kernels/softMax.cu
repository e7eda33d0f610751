// CUDA kernel of ISoftMaxLayer with the CPU reference's semantics (backends/cpu/kernels/softMax.cpp): numerically
// stable softmax (max subtracted) along one axis, FP16/BF16 storage computed in float. The sum accumulates in
// float here (the CPU uses double). One thread per slice for now: correct for any shape, not yet fast for long
// rows (a warp-per-row kernel is the next step).
#include "backends/cuda/kernels/cudaKernelFactories.h"
#include "backends/cuda/kernels/kernelCommon.cuh"

namespace kiln::cuda
{
using nvinfer1::DataType;

namespace
{

__global__ void softMaxKernel(int64_t slices, int64_t n, int64_t inner, void const* in, void* out, DataType t)
{
    for (int64_t s = dev::globalThread(); s < slices; s += dev::gridThreads())
    {
        int64_t const base = (s / inner) * n * inner + s % inner;
        float maxValue = -INFINITY;
        for (int64_t j = 0; j < n; ++j)
        {
            float const x = dev::loadFloat(in, t, base + j * inner);
            maxValue = x > maxValue ? x : maxValue;
        }
        float sum = 0.F;
        for (int64_t j = 0; j < n; ++j)
        {
            sum += expf(dev::loadFloat(in, t, base + j * inner) - maxValue);
        }
        float const scale = 1.F / sum;
        for (int64_t j = 0; j < n; ++j)
        {
            dev::storeFloat(out, t, base + j * inner, expf(dev::loadFloat(in, t, base + j * inner) - maxValue) * scale);
        }
    }
}

Status softMaxError(KernelSetup const& setup, std::string const& message)
{
    return failedExecution("layer '" + setup.node->name + "' (SoftMax): " + message);
}

Status enqueueSoftMax(KernelSetup const& setup, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs, CudaRunContext const& ctx)
{
    if (inputs.size() != 1 || outputs.size() != 1 || !inputs[0].present() || !outputs[0].present())
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
    int32_t axis = rank >= 3 ? rank - 3 : 0;
    if (setup.node->attrs.has("axes"))
    {
        StatusOr<int64_t> mask = setup.node->attrs.requireInt("axes");
        if (!mask.isOk() || *mask <= 0 || __builtin_popcountll(static_cast<unsigned long long>(*mask)) != 1)
        {
            return softMaxError(setup, "attribute 'axes' must be a one-bit mask");
        }
        axis = __builtin_ctzll(static_cast<unsigned long long>(*mask));
    }
    if (axis >= rank)
    {
        return softMaxError(setup, "axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
    }
    if (!ew::isFloatKernelType(in.type))
    {
        return softMaxError(setup, std::string("type ") + dataTypeName(in.type) + " is not supported");
    }
    int64_t outer = 1;
    int64_t inner = 1;
    for (int32_t d = 0; d < axis; ++d)
    {
        outer *= in.dims.d[d];
    }
    for (int32_t d = axis + 1; d < rank; ++d)
    {
        inner *= in.dims.d[d];
    }
    int64_t const n = in.dims.d[axis];
    if (outer * n * inner == 0)
    {
        return Status::ok();
    }
    int64_t const slices = outer * inner;
    softMaxKernel<<<gridFor(slices), kBLOCK, 0, ctx.stream>>>(slices, n, inner, in.data, out.data, in.type);
    return launchStatus("SoftMax kernel");
}

} // namespace

StatusOr<std::unique_ptr<CudaKernel>> createSoftMaxCudaKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("SoftMax kernel: no plan node");
    }
    return makeCudaFunctionKernel(setup, enqueueSoftMax);
}

} // namespace kiln::cuda
