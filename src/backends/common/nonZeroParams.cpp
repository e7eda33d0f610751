// Host-side logic of INonZeroLayer kernels: see nonZeroParams.h.
#include "backends/common/nonZeroParams.h"

namespace kiln
{
using nvinfer1::DataType;

Status nonZeroError(KernelSetup const& setup, std::string const& message)
{
    return failedExecution("layer '" + setup.node->name + "' (NonZero): " + message);
}

Status checkNonZeroShapes(KernelSetup const& setup, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs)
{
    if (inputs.size() != 1 || outputs.size() != 2)
    {
        return nonZeroError(setup, "expects one input, the indices output and the count output");
    }
    TensorView const& indices = outputs[0];
    if (indices.dims.nbDims != 2 || indices.dims.d[0] != inputs[0].dims.nbDims
        || (indices.type != DataType::kINT32 && indices.type != DataType::kINT64))
    {
        return nonZeroError(setup, "the indices output must be an INT32/INT64 [rank, count] tensor");
    }
    return Status::ok();
}

Status checkNonZeroViews(KernelSetup const& setup, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs)
{
    if (inputs.size() != 1 || outputs.size() != 2 || !inputs[0].present() || outputs[1].data == nullptr)
    {
        return nonZeroError(setup, "expects one input, the indices output and the count output");
    }
    return checkNonZeroShapes(setup, inputs, outputs);
}

} // namespace kiln
