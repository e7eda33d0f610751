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

//! create: nothing to read (the attributes come with the axis input); reshape: the attributes, the axis's host
//! value, the checks and the geometry; run: one launch.
class CumulativeCudaKernel final : public Kernel
{
public:
    explicit CumulativeCudaKernel(KernelSetup const& setup)
        : mSetup(setup)
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mLines = -1;
        ReshapeViews const v = reshapeViews(mSetup, inputs, outputs);
        KILN_ASSIGN_OR_RETURN(mParams, makeCumulativeParams(mSetup, v.inputs, v.outputs, false));
        DataType const t = inputs[0].type;
        if (!ew::isFloatKernelType(t) && t != DataType::kINT32 && t != DataType::kINT64)
        {
            return cumulativeError(mSetup, std::string("type ") + dataTypeName(t) + " is not supported");
        }
        mLines = mParams.n == 0 ? 0 : mParams.outer * mParams.inner;
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs,
        RunContext const& ctx) override
    {
        if (mLines <= 0)
        {
            return mLines == 0 ? Status::ok() : notReshaped(nodeLabel(mSetup, "Cumulative"));
        }
        cumulativeKernel<<<gridFor(mLines), kBLOCK, 0, ctx.stream>>>(mLines, mParams.n, mParams.inner,
            mParams.exclusive, mParams.reverse, inputs[0].data, outputs[0].data, inputs[0].type);
        return launchStatus("Cumulative kernel");
    }

private:
    KernelSetup mSetup;
    CumulativeParams mParams;
    int64_t mLines{-1};
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createCumulativeCudaKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("Cumulative kernel: no plan node");
    }
    return std::unique_ptr<Kernel>(std::make_unique<CumulativeCudaKernel>(setup));
}

} // namespace kiln::cuda
