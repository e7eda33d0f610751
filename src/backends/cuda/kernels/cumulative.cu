// CUDA kernel of ICumulativeLayer (kSUM) with the CPU reference's semantics (backends/cpu/kernels/cumulative.cpp):
// forward/reverse, inclusive/exclusive prefix sums along the axis given by input 1; floating-point sums accumulate in
// double, integer sums in int64 (INT32 results wrap as the stored type does). The axis must have host values (it is a
// build-time constant shape tensor in every network Kiln builds). One thread per scanned line.
#include "backends/common/cumulativeParams.h"
#include "backends/cuda/kernels/cudaKernelFactories.h"
#include "backends/cuda/kernels/kernelCommon.cuh"

namespace kiln::cuda
{
using nvinfer1::CumulativeOperation;
using nvinfer1::DataType;

namespace
{

__global__ void cumulativeKernel(int64_t lines, int64_t n, int64_t inner, bool exclusive, bool reverse, void const* in,
    void* out, DataType t)
{
    bool const isFloat = t == DataType::kFLOAT || t == DataType::kHALF || t == DataType::kBF16;
    for (int64_t line = dev::globalThread(); line < lines; line += dev::gridThreads())
    {
        int64_t const base = (line / inner) * n * inner + line % inner;
        double sumF = 0.0;
        int64_t sumI = 0;
        for (int64_t step = 0; step < n; ++step)
        {
            int64_t const j = reverse ? n - 1 - step : step;
            int64_t const at = base + j * inner;
            if (isFloat)
            {
                double const x = static_cast<double>(dev::loadFloat(in, t, at));
                if (!exclusive)
                {
                    sumF += x;
                }
                dev::storeFloat(out, t, at, static_cast<float>(sumF));
                if (exclusive)
                {
                    sumF += x;
                }
            }
            else
            {
                int64_t const x = dev::loadInt(in, t, at);
                if (!exclusive)
                {
                    sumI = static_cast<int64_t>(static_cast<uint64_t>(sumI) + static_cast<uint64_t>(x));
                }
                dev::storeInt(out, t, at, sumI);
                if (exclusive)
                {
                    sumI = static_cast<int64_t>(static_cast<uint64_t>(sumI) + static_cast<uint64_t>(x));
                }
            }
        }
    }
}

Status enqueueCumulative(KernelSetup const& setup, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs, CudaRunContext const& ctx)
{
    KILN_ASSIGN_OR_RETURN(CumulativeParams const p, makeCumulativeParams(setup, inputs, outputs, false));
    TensorView const& in = inputs[0];
    TensorView const& out = outputs[0];
    bool const supported = ew::isFloatKernelType(in.type) || in.type == DataType::kINT32 || in.type == DataType::kINT64;
    if (!supported)
    {
        return cumulativeError(setup, std::string("type ") + dataTypeName(in.type) + " is not supported");
    }
    if (p.outer * p.inner * p.n == 0)
    {
        return Status::ok();
    }
    int64_t const lines = p.outer * p.inner;
    cumulativeKernel<<<gridFor(lines), kBLOCK, 0, ctx.stream>>>(lines, p.n, p.inner, p.exclusive, p.reverse, in.data,
        out.data, in.type);
    return launchStatus("Cumulative kernel");
}

} // namespace

StatusOr<std::unique_ptr<CudaKernel>> createCumulativeCudaKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("Cumulative kernel: no plan node");
    }
    return makeCudaFunctionKernel(setup, enqueueCumulative);
}

} // namespace kiln::cuda
