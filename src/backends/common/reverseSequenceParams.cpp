// Host-side logic of IReverseSequenceLayer kernels: see reverseSequenceParams.h.
#include "backends/common/reverseSequenceParams.h"

#include "core/dataType.h"

namespace kiln
{
using nvinfer1::DataType;

Status reverseSequenceError(KernelSetup const& setup, std::string const& message)
{
    return failedExecution("layer '" + setup.node->name + "' (ReverseSequence): " + message);
}

ReverseSequenceParams readReverseSequenceParams(KernelSetup const& setup)
{
    ReverseSequenceParams p;
    p.batchAxis = setup.node->attrs.getInt("batchAxis", 1);
    p.sequenceAxis = setup.node->attrs.getInt("sequenceAxis", 0);
    return p;
}

Status reverseSequenceShapes(KernelSetup const& setup, ReverseSequenceParams& p, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs)
{
    if (inputs.size() != 2 || outputs.size() != 1)
    {
        return reverseSequenceError(setup, "expects data and sequenceLens inputs and one output");
    }
    TensorView const& in = inputs[0];
    TensorView const& lens = inputs[1];
    TensorView const& out = outputs[0];
    int32_t const rank = in.dims.nbDims;
    int64_t const batchAxis = p.batchAxis;
    int64_t const seqAxis = p.sequenceAxis;
    if (rank < 2 || batchAxis < 0 || batchAxis >= rank || seqAxis < 0 || seqAxis >= rank || batchAxis == seqAxis
        || out.type != in.type || out.dims.nbDims != rank
        || (lens.type != DataType::kINT32 && lens.type != DataType::kINT64)
        || lens.volume() != in.dims.d[batchAxis])
    {
        return reverseSequenceError(setup, "axes, types or shapes do not match");
    }
    p.seqLen = in.dims.d[seqAxis];
    p.batch = in.dims.d[batchAxis];
    std::vector<int64_t> const strides = contiguousStrides(in.dims);
    p.seqStride = strides[static_cast<size_t>(seqAxis)];
    p.batchStride = strides[static_cast<size_t>(batchAxis)];
    p.total = in.volume();
    p.esize = elementSize(in.type);
    return Status::ok();
}

StatusOr<ReverseSequenceParams> makeReverseSequenceParams(
    KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
{
    if (inputs.size() != 2 || outputs.size() != 1 || !inputs[0].present() || !inputs[1].present()
        || !outputs[0].present())
    {
        return reverseSequenceError(setup, "expects data and sequenceLens inputs and one output");
    }
    ReverseSequenceParams p = readReverseSequenceParams(setup);
    KILN_RETURN_IF_ERROR(reverseSequenceShapes(setup, p, inputs, outputs));
    return p;
}

Status checkSequenceLength(KernelSetup const& setup, int64_t b, int64_t len, int64_t seqLen)
{
    if (len < 0 || len > seqLen)
    {
        return reverseSequenceError(setup, "sequenceLens[" + std::to_string(b) + "] = " + std::to_string(len)
            + " is out of range [0, " + std::to_string(seqLen) + "]");
    }
    return Status::ok();
}

} // namespace kiln
