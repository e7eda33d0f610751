// CUDA kernel of ILRNLayer, as the CPU reference (backends/cpu/kernels/lrn.cpp): across-channel local response
// normalization along axis rank - 3, one thread per output element, the window's squares summed and the power
// taken in double as on the CPU. FLOAT, HALF and BF16 (computed in float/double).
#include "backends/common/lrnParams.h"
#include "backends/cuda/kernels/cudaKernelFactories.h"
#include "backends/cuda/kernels/kernelCommon.cuh"

namespace kiln::cuda
{
using nvinfer1::DataType;

namespace
{

__global__ void lrnKernel(void const* in, void* out, DataType type, int64_t total, int64_t channels, int64_t inner,
    int64_t half, double alphaOverN, double beta, double k)
{
    for (int64_t e = dev::globalThread(); e < total; e += dev::gridThreads())
    {
        int64_t const c = (e / inner) % channels;
        int64_t const base = e - c * inner; // element (o, 0, i)
        int64_t const lo = c - half < 0 ? 0 : c - half;
        int64_t const hi = c + half >= channels ? channels - 1 : c + half;
        double sum = 0.0;
        for (int64_t j = lo; j <= hi; ++j)
        {
            double const v = dev::loadFloat(in, type, base + j * inner);
            sum += v * v;
        }
        double const x = dev::loadFloat(in, type, e);
        dev::storeFloat(out, type, e, static_cast<float>(x / pow(k + alphaOverN * sum, beta)));
    }
}

Status enqueueLRN(KernelSetup const& setup, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs, CudaRunContext const& ctx)
{
    KILN_ASSIGN_OR_RETURN(LRNParams const p, makeLRNParams(setup, inputs, outputs));
    if (p.empty)
    {
        return Status::ok();
    }
    int64_t const total = p.outer * p.channels * p.inner;
    lrnKernel<<<gridFor(total), kBLOCK, 0, ctx.stream>>>(inputs[0].data, outputs[0].data, inputs[0].type, total,
        p.channels, p.inner, p.half, p.alphaOverN, p.beta, p.k);
    return launchStatus("LRN kernel");
}

} // namespace

StatusOr<std::unique_ptr<CudaKernel>> createLRNCudaKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("LRN kernel: no plan node");
    }
    return makeCudaFunctionKernel(setup, enqueueLRN);
}

} // namespace kiln::cuda
