// CUDA kernel of IReverseSequenceLayer, as the CPU reference (backends/cpu/kernels/reverseSequence.cpp): for batch
// index b, output position t < len[b] along the sequence axis takes input position len[b] - 1 - t, the others are
// copied; elements move as bits (any 1/2/4/8-byte type), one thread per element. The CPU fails the run on a length
// outside [0, sequence extent]. The GPU does the same when the lengths have host values (shape tensors); lengths
// that exist only in device memory cannot be checked without a synchronisation, so an out-of-range length there
// copies its batch item unchanged (never reading outside the data) and is not reported.
#include "backends/common/reverseSequenceParams.h"
#include "backends/cuda/kernels/cudaKernelFactories.h"
#include "backends/cuda/kernels/kernelCommon.cuh"

namespace kiln::cuda
{
using nvinfer1::DataType;

namespace
{

__global__ void reverseSequenceKernel(void const* in, void const* lens, DataType lenType, void* out, int64_t total,
    int64_t seqLen, int64_t seqStride, int64_t batch, int64_t batchStride, int32_t size)
{
    for (int64_t e = dev::globalThread(); e < total; e += dev::gridThreads())
    {
        int64_t const t = (e / seqStride) % seqLen;
        int64_t const b = (e / batchStride) % batch;
        int64_t const len = dev::loadInt(lens, lenType, b);
        int64_t from = e;
        if (len >= 0 && len <= seqLen && t < len)
        {
            from = e + (len - 1 - 2 * t) * seqStride;
        }
        dev::copyElement(out, e, in, from, size);
    }
}

//! create: nothing to read (the axes are checked with the shapes); reshape: the attributes, the checks (host-known
//! lengths included) and the geometry; run: one launch.
class ReverseSequenceCudaKernel final : public Kernel
{
public:
    explicit ReverseSequenceCudaKernel(KernelSetup const& setup)
        : mSetup(setup)
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mReady = false;
        ReshapeViews const v = reshapeViews(mSetup, inputs, outputs);
        KILN_ASSIGN_OR_RETURN(ReverseSequenceParams const p, makeReverseSequenceParams(mSetup, v.inputs, v.outputs));
        TensorView const& lens = inputs[1];
        if (lens.values != nullptr)
        {
            for (int64_t b = 0; b < p.batch; ++b)
            {
                KILN_RETURN_IF_ERROR(checkSequenceLength(mSetup, b, lens.values[b], p.seqLen));
            }
        }
        if (p.total != 0 && p.esize != 1 && p.esize != 2 && p.esize != 4 && p.esize != 8)
        {
            return reverseSequenceError(
                mSetup, std::string("type ") + dataTypeName(inputs[0].type) + " is not supported");
        }
        mParams = p;
        mReady = true;
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs,
        RunContext const& ctx) override
    {
        if (!mReady)
        {
            return notReshaped(nodeLabel(mSetup, "ReverseSequence"));
        }
        ReverseSequenceParams const& p = mParams;
        if (p.total == 0)
        {
            return Status::ok();
        }
        reverseSequenceKernel<<<gridFor(p.total), kBLOCK, 0, ctx.stream>>>(inputs[0].data, inputs[1].data,
            inputs[1].type, outputs[0].data, p.total, p.seqLen, p.seqStride, p.batch, p.batchStride,
            static_cast<int32_t>(p.esize));
        return launchStatus("ReverseSequence kernel");
    }

private:
    KernelSetup mSetup;
    ReverseSequenceParams mParams;
    bool mReady{false};
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createReverseSequenceCudaKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("ReverseSequence kernel: no plan node");
    }
    return std::unique_ptr<Kernel>(std::make_unique<ReverseSequenceCudaKernel>(setup));
}

} // namespace kiln::cuda
