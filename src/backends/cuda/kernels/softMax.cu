// CUDA kernel of ISoftMaxLayer with the CPU reference's semantics (backends/cpu/kernels/softMax.cpp): numerically
// stable softmax (max subtracted) along one axis, FP16/BF16 storage computed in float. The sum accumulates in
// float here (the CPU uses double). One thread per slice for now: correct for any shape, not yet fast for long
// rows (a warp-per-row kernel is the next step).
#include "backends/common/softMaxParams.h"
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

//! create: nothing to read (the axis is checked with the shapes); reshape: the attribute, the checks and the
//! geometry; run: one launch.
class SoftMaxCudaKernel final : public Kernel
{
public:
    explicit SoftMaxCudaKernel(KernelSetup const& setup)
        : mSetup(setup)
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mSlices = -1;
        ReshapeViews const v = reshapeViews(mSetup, inputs, outputs);
        KILN_ASSIGN_OR_RETURN(mParams, makeSoftMaxParams(mSetup, v.inputs, v.outputs));
        if (!ew::isFloatKernelType(inputs[0].type))
        {
            return softMaxError(mSetup, std::string("type ") + dataTypeName(inputs[0].type) + " is not supported");
        }
        mSlices = mParams.n == 0 ? 0 : mParams.outer * mParams.inner;
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs,
        RunContext const& ctx) override
    {
        if (mSlices <= 0)
        {
            return mSlices == 0 ? Status::ok() : notReshaped(nodeLabel(mSetup, "SoftMax"));
        }
        softMaxKernel<<<gridFor(mSlices), kBLOCK, 0, ctx.stream>>>(mSlices, mParams.n, mParams.inner, inputs[0].data,
            outputs[0].data, inputs[0].type);
        return launchStatus("SoftMax kernel");
    }

private:
    KernelSetup mSetup;
    SoftMaxParams mParams;
    int64_t mSlices{-1};
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createSoftMaxCudaKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("SoftMax kernel: no plan node");
    }
    return std::unique_ptr<Kernel>(std::make_unique<SoftMaxCudaKernel>(setup));
}

} // namespace kiln::cuda
