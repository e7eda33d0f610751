// CPU reference kernel of IReverseSequenceLayer: for batch index b, output position t < len[b] along the sequence
// axis takes input position len[b] - 1 - t; positions >= len[b] are copied. Elements are copied bit for bit, so every
// data type works. A length outside [0, sequence extent] fails execution.
#include "backends/cpu/kernels/kernelFactories.h"
#include "core/dataType.h"

#include <cstring>

namespace kiln
{
namespace
{
using nvinfer1::DataType;

Status reverseSequenceError(KernelSetup const& setup, std::string const& message)
{
    return failedExecution("layer '" + setup.node->name + "' (ReverseSequence): " + message);
}

Status executeReverseSequence(
    KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
{
    if (inputs.size() != 2 || outputs.size() != 1 || !inputs[0].present() || !inputs[1].present()
        || !outputs[0].present())
    {
        return reverseSequenceError(setup, "expects data and sequenceLens inputs and one output");
    }
    TensorView const& in = inputs[0];
    TensorView const& lens = inputs[1];
    TensorView const& out = outputs[0];
    int32_t const rank = in.dims.nbDims;
    int64_t const batchAxis = setup.node->attrs.getInt("batchAxis", 1);
    int64_t const seqAxis = setup.node->attrs.getInt("sequenceAxis", 0);
    if (rank < 2 || batchAxis < 0 || batchAxis >= rank || seqAxis < 0 || seqAxis >= rank || batchAxis == seqAxis
        || out.type != in.type || out.dims.nbDims != rank
        || (lens.type != DataType::kINT32 && lens.type != DataType::kINT64)
        || lens.volume() != in.dims.d[batchAxis])
    {
        return reverseSequenceError(setup, "axes, types or shapes do not match");
    }
    int64_t const seqLen = in.dims.d[seqAxis];
    int64_t const batch = in.dims.d[batchAxis];
    for (int64_t b = 0; b < batch; ++b)
    {
        int64_t const len = loadInt(lens.data, lens.type, b);
        if (len < 0 || len > seqLen)
        {
            return reverseSequenceError(setup, "sequenceLens[" + std::to_string(b) + "] = " + std::to_string(len)
                + " is out of range [0, " + std::to_string(seqLen) + "]");
        }
    }
    std::vector<int64_t> strides = contiguousStrides(in.dims);
    int64_t const total = in.volume();
    size_t const size = static_cast<size_t>(elementSize(in.type));
    auto const* src = static_cast<uint8_t const*>(in.data);
    auto* dst = static_cast<uint8_t*>(out.data);
    int64_t const seqStride = strides[static_cast<size_t>(seqAxis)];
    int64_t const batchStride = strides[static_cast<size_t>(batchAxis)];
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
