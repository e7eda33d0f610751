// Host-side logic of IOneHotLayer kernels: see oneHotParams.h.
#include "backends/common/oneHotParams.h"

#include "core/dataType.h"

namespace kiln
{
using nvinfer1::DataType;

Status oneHotError(KernelSetup const& setup, std::string const& message)
{
    return failedExecution("layer '" + setup.node->name + "' (OneHot): " + message);
}

int64_t readOneHotAxis(KernelSetup const& setup)
{
    return setup.node->attrs.getInt("axis", -1);
}

StatusOr<OneHotParams> oneHotShapes(KernelSetup const& setup, int64_t axis, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs)
{
    if (inputs.size() != 3 || outputs.size() != 1)
    {
        return oneHotError(setup, "expects indices, values and depth inputs and one output");
    }
    TensorView const& indices = inputs[0];
    TensorView const& values = inputs[1];
    TensorView const& out = outputs[0];
    int32_t const rank = indices.dims.nbDims;
    if (out.dims.nbDims != rank + 1 || out.type != values.type || values.volume() != 2
        || (indices.type != DataType::kINT32 && indices.type != DataType::kINT64))
    {
        return oneHotError(setup, "output rank/type or values shape do not match the inputs");
    }
    if (axis < 0)
    {
        axis += rank + 1;
    }
    if (axis < 0 || axis > rank)
    {
        return oneHotError(setup, "axis " + std::to_string(axis) + " is out of range");
    }
    OneHotParams p;
    for (int32_t d = 0; d < rank; ++d)
    {
        int64_t const e = indices.dims.d[d];
        int32_t const od = d < axis ? d : d + 1;
        if (out.dims.d[od] != e)
        {
            return oneHotError(setup, "output shape does not match the indices in dimension " + std::to_string(d));
        }
        (d < axis ? p.outer : p.inner) *= e;
    }
    p.depth = out.dims.d[axis];
    p.esize = elementSize(values.type);
    return p;
}

StatusOr<OneHotParams> makeOneHotParams(
    KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
{
    if (inputs.size() != 3 || outputs.size() != 1 || !inputs[0].present() || !inputs[1].present()
        || !outputs[0].present())
    {
        return oneHotError(setup, "expects indices, values and depth inputs and one output");
    }
    return oneHotShapes(setup, readOneHotAxis(setup), inputs, outputs);
}

} // namespace kiln
