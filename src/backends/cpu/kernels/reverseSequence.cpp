// CPU reference kernel of IReverseSequenceLayer: for batch index b, output position t < len[b] along the sequence
// axis takes input position len[b] - 1 - t; positions >= len[b] are copied. Elements are copied bit for bit, so every
// data type works. A length outside [0, sequence extent] fails execution.
#include "backends/common/reverseSequenceParams.h"
#include "backends/cpu/kernels/kernelFactories.h"
#include "core/dataType.h"

#include <cstring>

namespace kiln
{
namespace
{
using nvinfer1::DataType;

//! create: the axes; reshape: the geometry; run: checks the lengths (data), then copies.
class ReverseSequenceKernel final : public Kernel
{
public:
    explicit ReverseSequenceKernel(KernelSetup const& setup)
        : mSetup(setup)
        , mParams(readReverseSequenceParams(setup))
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mReady = false;
        KILN_RETURN_IF_ERROR(reverseSequenceShapes(mSetup, mParams, inputs, outputs));
        mReady = true;
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs, RunContext const&) override
    {
        if (!mReady)
        {
            return notReshaped(mSetup, "ReverseSequence");
        }
        TensorView const& in = inputs[0];
        TensorView const& lens = inputs[1];
        TensorView const& out = outputs[0];
        int64_t const seqLen = mParams.seqLen;
        int64_t const batch = mParams.batch;
        for (int64_t b = 0; b < batch; ++b)
        {
            KILN_RETURN_IF_ERROR(checkSequenceLength(mSetup, b, loadInt(lens.data, lens.type, b), seqLen));
        }
        size_t const size = static_cast<size_t>(mParams.esize);
        auto const* src = static_cast<uint8_t const*>(in.data);
        auto* dst = static_cast<uint8_t*>(out.data);
        int64_t const seqStride = mParams.seqStride;
        int64_t const batchStride = mParams.batchStride;
        for (int64_t e = 0; e < mParams.total; ++e)
        {
            int64_t const t = (e / seqStride) % seqLen;
            int64_t const b = (e / batchStride) % batch;
            int64_t const len = loadInt(lens.data, lens.type, b);
            int64_t from = e;
            if (t < len)
            {
                from = e + (len - 1 - 2 * t) * seqStride;
            }
            std::memcpy(dst + static_cast<size_t>(e) * size, src + static_cast<size_t>(from) * size, size);
        }
        return Status::ok();
    }

private:
    KernelSetup mSetup;
    ReverseSequenceParams mParams;
    bool mReady{false};
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createReverseSequenceKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("ReverseSequence kernel: no plan node");
    }
    return std::unique_ptr<Kernel>(std::make_unique<ReverseSequenceKernel>(setup));
}

} // namespace kiln
