// CUDA kernels of IConcatenationLayer (one 2-D device copy per input into its band of the output, any storage
// type) and of ISqueezeLayer / IUnsqueezeLayer (a device copy unless the builder aliased the output), with the CPU
// reference's checks and messages (backends/cpu/kernels/concatenation.cpp, squeeze.cpp).
#include "backends/common/concatenationParams.h"
#include "backends/common/squeezeParams.h"
#include "backends/cuda/kernels/cudaKernelFactories.h"
#include "backends/cuda/kernels/kernelCommon.cuh"

namespace kiln::cuda
{

namespace
{

//! create: nothing to read (the axis is checked with the shapes); reshape: the checks and every input's band (bytes
//! per row and offset in the output row); run: one 2-D device copy per non-empty input.
class ConcatenationCudaKernel final : public Kernel
{
public:
    explicit ConcatenationCudaKernel(KernelSetup const& setup)
        : mSetup(setup)
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mReady = false;
        ReshapeViews const v = reshapeViews(mSetup, inputs, outputs);
        KILN_ASSIGN_OR_RETURN(ConcatenationParams const p, makeConcatenationParams(mSetup, v.inputs, v.outputs));
        mOuter = p.outer;
        mOutPitch = p.axisTotal * p.innerBytes;
        mChunks.assign(inputs.size(), 0);
        mOffsets.assign(inputs.size(), 0);
        int64_t offset = 0;
        for (size_t i = 0; i < inputs.size(); ++i)
        {
            mChunks[i] = inputs[i].dims.d[p.axis] * p.innerBytes;
            mOffsets[i] = offset;
            offset += mChunks[i];
        }
        mReady = true;
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs,
        RunContext const& ctx) override
    {
        if (!mReady)
        {
            return notReshaped(nodeLabel(mSetup, "Concatenation"));
        }
        auto* out = static_cast<uint8_t*>(outputs[0].data);
        for (size_t i = 0; i < inputs.size(); ++i)
        {
            auto const chunk = static_cast<size_t>(mChunks[i]);
            if (chunk > 0 && mOuter > 0)
            {
                KILN_CUDA_CHECK(cudaMemcpy2DAsync(out + mOffsets[i], static_cast<size_t>(mOutPitch), inputs[i].data,
                    chunk, chunk, static_cast<size_t>(mOuter), cudaMemcpyDeviceToDevice, ctx.stream));
            }
        }
        return Status::ok();
    }

private:
    KernelSetup mSetup;
    int64_t mOuter{0};
    int64_t mOutPitch{0};
    std::vector<int64_t> mChunks;  //!< bytes of each input per output row
    std::vector<int64_t> mOffsets; //!< where each input's band starts in an output row
    bool mReady{false};
};

//! create: nothing to read; reshape: the checks and the byte count; run: one device copy unless the builder aliased
//! the output onto the input.
class SqueezeCudaKernel final : public Kernel
{
public:
    explicit SqueezeCudaKernel(KernelSetup const& setup)
        : mSetup(setup)
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mBytes = -1;
        ReshapeViews const v = reshapeViews(mSetup, inputs, outputs);
        KILN_ASSIGN_OR_RETURN(mBytes, squeezeCopyBytes(mSetup, v.inputs, v.outputs));
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs,
        RunContext const& ctx) override
    {
        if (mBytes < 0)
        {
            return notReshaped(nodeLabel(mSetup, "Squeeze/Unsqueeze"));
        }
        if (mBytes > 0 && outputs[0].data != inputs[0].data)
        {
            KILN_CUDA_CHECK(cudaMemcpyAsync(outputs[0].data, inputs[0].data, static_cast<size_t>(mBytes),
                cudaMemcpyDeviceToDevice, ctx.stream));
        }
        return Status::ok();
    }

private:
    KernelSetup mSetup;
    int64_t mBytes{-1};
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createConcatenationCudaKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("Concatenation kernel: no plan node");
    }
    return std::unique_ptr<Kernel>(std::make_unique<ConcatenationCudaKernel>(setup));
}

StatusOr<std::unique_ptr<Kernel>> createSqueezeCudaKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("Squeeze/Unsqueeze kernel: no plan node");
    }
    return std::unique_ptr<Kernel>(std::make_unique<SqueezeCudaKernel>(setup));
}

} // namespace kiln::cuda
