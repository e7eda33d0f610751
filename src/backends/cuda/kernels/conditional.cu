// CUDA kernel of IIfConditionalOutputLayer (kCONDITIONAL_OUTPUT), as the CPU kernel (createConditionalOutputKernel
// in backends/cpu/kernels/loopBoundary.cpp): the output is a copy of input 0 (condition true) or input 1 (false);
// input 2 is the 0-D BOOL condition. (kCONDITIONAL_INPUT is an identity: the table maps it to the identity kernel.)
// When the condition has a host value the branch is chosen on the host, with the CPU's checks and messages.
// Otherwise the condition is read on the device by the copy kernel itself (no synchronisation); a branch whose
// size or type does not match the output is then left out of the copy (the output keeps its contents), because the
// mismatch cannot be reported without reading the condition on the host.
#include "backends/cuda/kernels/cudaKernelFactories.h"
#include "backends/cuda/kernels/kernelCommon.cuh"

namespace kiln::cuda
{
using nvinfer1::DataType;

namespace
{

__global__ void selectCopy(uint8_t const* cond, void const* whenTrue, void const* whenFalse, void* out, int64_t n,
    int32_t size)
{
    void const* src = *cond != 0 ? whenTrue : whenFalse;
    if (src == nullptr || src == out)
    {
        return;
    }
    for (int64_t i = dev::globalThread(); i < n; i += dev::gridThreads())
    {
        dev::copyElement(out, i, src, i, size);
    }
}

//! create: the I/O types and ranks; reshape: the branch chosen on the host when the condition has a host value
//! (with its checks), else the element size and which branches can be copied on the device; run: one copy or launch.
class ConditionalOutputCudaKernel final : public Kernel
{
public:
    explicit ConditionalOutputCudaKernel(KernelSetup const& setup)
        : mSetup(setup)
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mReady = false;
        std::string const label = "conditional output '" + mSetup.node->name + "'";
        ReshapeViews const v = reshapeViews(mSetup, inputs, outputs);
        if (v.inputs.size() != 3 || v.outputs.size() != 1 || v.inputs[2].data == nullptr)
        {
            return invalidArgument(label + ": needs the true value, the false value and the condition");
        }
        TensorView const& out = outputs[0];
        mVolume = out.volume();
        mHostBranch = -1;
        if (inputs[2].values != nullptr)
        {
            bool const cond = inputs[2].values[0] != 0;
            TensorView const& in = inputs[cond ? 0 : 1];
            if (in.volume() != mVolume || in.type != out.type)
            {
                return invalidArgument(label + ": the " + (cond ? "true" : "false") + " branch's value has "
                    + std::to_string(in.volume()) + " elements but the output has " + std::to_string(mVolume));
            }
            mHostBranch = cond ? 0 : 1;
            mBytes = byteSize(out.type, mVolume);
            mReady = true;
            return Status::ok();
        }
        mSize = elementSize(out.type);
        if (mVolume > 0 && mSize != 1 && mSize != 2 && mSize != 4 && mSize != 8)
        {
            return invalidArgument(label + ": type " + dataTypeName(out.type) + " is not supported");
        }
        for (size_t b = 0; b < 2; ++b)
        {
            mBranchFits[b] = inputs[b].volume() == mVolume && inputs[b].type == out.type;
        }
        mReady = true;
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs,
        RunContext const& ctx) override
    {
        if (!mReady)
        {
            return notReshaped("conditional output '" + mSetup.node->name + "'");
        }
        TensorView const& out = outputs[0];
        if (mHostBranch >= 0)
        {
            void const* src = inputs[static_cast<size_t>(mHostBranch)].data;
            if (mBytes > 0 && src != out.data)
            {
                KILN_CUDA_CHECK(cudaMemcpyAsync(out.data, src, static_cast<size_t>(mBytes), cudaMemcpyDeviceToDevice,
                    ctx.stream));
            }
            return Status::ok();
        }
        if (mVolume == 0)
        {
            return Status::ok();
        }
        selectCopy<<<gridFor(mVolume), kBLOCK, 0, ctx.stream>>>(static_cast<uint8_t const*>(inputs[2].data),
            mBranchFits[0] ? inputs[0].data : nullptr, mBranchFits[1] ? inputs[1].data : nullptr, out.data, mVolume,
            static_cast<int32_t>(mSize));
        return launchStatus("conditional output kernel");
    }

private:
    KernelSetup mSetup;
    bool mReady{false};
    int64_t mVolume{0};
    int32_t mHostBranch{-1}; //!< the input copied when the condition has a host value, else -1
    int64_t mBytes{0};
    int64_t mSize{0};
    bool mBranchFits[2]{};   //!< device path: the branch has the output's size and type (else it is left out)
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createConditionalOutputCudaKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("conditional output kernel: no plan node");
    }
    if (setup.inputTypes.size() != 3 || setup.outputTypes.size() != 1 || setup.inputTypes[2] != DataType::kBOOL
        || setup.inputRanks[2] != 0)
    {
        return invalidArgument("conditional output '" + setup.node->name
            + "': expected inputs (true value, false value, 0-D BOOL condition) and one output");
    }
    return std::unique_ptr<Kernel>(std::make_unique<ConditionalOutputCudaKernel>(setup));
}

} // namespace kiln::cuda
