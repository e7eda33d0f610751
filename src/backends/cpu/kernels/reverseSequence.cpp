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

Status executeReverseSequence(
    KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
{
    KILN_ASSIGN_OR_RETURN(ReverseSequenceParams const p, makeReverseSequenceParams(setup, inputs, outputs));
    TensorView const& in = inputs[0];
    TensorView const& lens = inputs[1];
    TensorView const& out = outputs[0];
    int64_t const seqLen = p.seqLen;
    int64_t const batch = p.batch;
    for (int64_t b = 0; b < batch; ++b)
    {
        KILN_RETURN_IF_ERROR(checkSequenceLength(setup, b, loadInt(lens.data, lens.type, b), seqLen));
    }
    int64_t const total = in.volume();
    size_t const size = static_cast<size_t>(elementSize(in.type));
    auto const* src = static_cast<uint8_t const*>(in.data);
    auto* dst = static_cast<uint8_t*>(out.data);
    int64_t const seqStride = p.seqStride;
    int64_t const batchStride = p.batchStride;
    for (int64_t e = 0; e < total; ++e)
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

} // namespace

StatusOr<std::unique_ptr<CpuKernel>> createReverseSequenceKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("ReverseSequence kernel: no plan node");
    }
    return makeFunctionKernel(setup, executeReverseSequence);
}

} // namespace kiln
