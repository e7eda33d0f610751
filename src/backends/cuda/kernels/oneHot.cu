// CUDA kernel of IOneHotLayer, as the CPU reference (backends/cpu/kernels/oneHot.cpp): output[..., j, ...] along
// the new axis is values[1] (on) where j equals the index (negative indices count from depth) and values[0] (off)
// elsewhere; indices outside [-depth, depth) give an all-off row. Elements are copied as bits (any 1/2/4/8-byte
// values type); one thread per output element.
#include "backends/common/oneHotParams.h"
#include "backends/cuda/kernels/cudaKernelFactories.h"
#include "backends/cuda/kernels/kernelCommon.cuh"

namespace kiln::cuda
{
using nvinfer1::DataType;

namespace
{

__global__ void oneHotKernel(void const* indices, DataType indexType, void const* values, void* out, int64_t total,
    int64_t depth, int64_t inner, int32_t size)
{
    for (int64_t e = dev::globalThread(); e < total; e += dev::gridThreads())
    {
        int64_t const i = e % inner;
        int64_t const j = (e / inner) % depth;
        int64_t const o = e / (inner * depth);
        int64_t index = dev::loadInt(indices, indexType, o * inner + i);
        if (index < 0)
        {
            index += depth;
        }
        dev::copyElement(out, e, values, index == j ? 1 : 0, size);
    }
}

Status enqueueOneHot(KernelSetup const& setup, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs, CudaRunContext const& ctx)
{
    KILN_ASSIGN_OR_RETURN(OneHotParams const p, makeOneHotParams(setup, inputs, outputs));
    int64_t const total = p.outer * p.depth * p.inner;
    if (total == 0)
    {
        return Status::ok();
    }
    if (p.esize != 1 && p.esize != 2 && p.esize != 4 && p.esize != 8)
    {
        return oneHotError(setup, std::string("values type ") + dataTypeName(inputs[1].type) + " is not supported");
    }
    oneHotKernel<<<gridFor(total), kBLOCK, 0, ctx.stream>>>(inputs[0].data, inputs[0].type, inputs[1].data,
        outputs[0].data, total, p.depth, p.inner, static_cast<int32_t>(p.esize));
    return launchStatus("OneHot kernel");
}

} // namespace

StatusOr<std::unique_ptr<CudaKernel>> createOneHotCudaKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("OneHot kernel: no plan node");
    }
    return makeCudaFunctionKernel(setup, enqueueOneHot);
}

} // namespace kiln::cuda
