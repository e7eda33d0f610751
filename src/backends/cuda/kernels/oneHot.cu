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

//! create: nothing to read (the axis is checked with the shapes); reshape: the attribute, the checks and the
//! geometry; run: one launch.
class OneHotCudaKernel final : public Kernel
{
public:
    explicit OneHotCudaKernel(KernelSetup const& setup)
        : mSetup(setup)
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mTotal = -1;
        ReshapeViews const v = reshapeViews(mSetup, inputs, outputs);
        KILN_ASSIGN_OR_RETURN(mParams, makeOneHotParams(mSetup, v.inputs, v.outputs));
        int64_t const total = mParams.outer * mParams.depth * mParams.inner;
        if (total != 0 && mParams.esize != 1 && mParams.esize != 2 && mParams.esize != 4 && mParams.esize != 8)
        {
            return oneHotError(
                mSetup, std::string("values type ") + dataTypeName(inputs[1].type) + " is not supported");
        }
        mTotal = total;
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs,
        RunContext const& ctx) override
    {
        if (mTotal <= 0)
        {
            return mTotal == 0 ? Status::ok() : notReshaped(nodeLabel(mSetup, "OneHot"));
        }
        oneHotKernel<<<gridFor(mTotal), kBLOCK, 0, ctx.stream>>>(inputs[0].data, inputs[0].type, inputs[1].data,
            outputs[0].data, mTotal, mParams.depth, mParams.inner, static_cast<int32_t>(mParams.esize));
        return launchStatus("OneHot kernel");
    }

private:
    KernelSetup mSetup;
    OneHotParams mParams;
    int64_t mTotal{-1};
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createOneHotCudaKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("OneHot kernel: no plan node");
    }
    return std::unique_ptr<Kernel>(std::make_unique<OneHotCudaKernel>(setup));
}

} // namespace kiln::cuda
