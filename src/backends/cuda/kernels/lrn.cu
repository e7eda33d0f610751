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

//! create: nothing to read (the attributes are checked with the shapes); reshape: the attributes, the checks and the
//! geometry; run: one launch.
class LRNCudaKernel final : public Kernel
{
public:
    explicit LRNCudaKernel(KernelSetup const& setup)
        : mSetup(setup)
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mTotal = -1;
        ReshapeViews const v = reshapeViews(mSetup, inputs, outputs);
        KILN_ASSIGN_OR_RETURN(mParams, makeLRNParams(mSetup, v.inputs, v.outputs));
        mTotal = mParams.empty ? 0 : mParams.outer * mParams.channels * mParams.inner;
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs,
        RunContext const& ctx) override
    {
        if (mTotal <= 0)
        {
            return mTotal == 0 ? Status::ok() : notReshaped(nodeLabel(mSetup, "LRN"));
        }
        lrnKernel<<<gridFor(mTotal), kBLOCK, 0, ctx.stream>>>(inputs[0].data, outputs[0].data, inputs[0].type, mTotal,
            mParams.channels, mParams.inner, mParams.half, mParams.alphaOverN, mParams.beta, mParams.k);
        return launchStatus("LRN kernel");
    }

private:
    KernelSetup mSetup;
    LRNParams mParams;
    int64_t mTotal{-1};
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createLRNCudaKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("LRN kernel: no plan node");
    }
    return std::unique_ptr<Kernel>(std::make_unique<LRNCudaKernel>(setup));
}

} // namespace kiln::cuda
