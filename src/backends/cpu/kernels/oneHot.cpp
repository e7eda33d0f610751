// CPU reference kernel of IOneHotLayer: output[..., j, ...] (j along the new axis) is values[1] (on) where
// j == index (negative indices count from depth) and values[0] (off) elsewhere. Indices outside [-depth, depth) give
// an all-off row. Elements are copied bit for bit, so every values type works. depth is the output extent along axis.
#include "backends/cpu/kernels/kernelFactories.h"
#include "core/dataType.h"

#include <cstring>

namespace kiln
{
namespace
{
using nvinfer1::DataType;

Status oneHotError(KernelSetup const& setup, std::string const& message)
{
    return failedExecution("layer '" + setup.node->name + "' (OneHot): " + message);
}

Status executeOneHot(
    KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
{
    if (inputs.size() != 3 || outputs.size() != 1 || !inputs[0].present() || !inputs[1].present()
        || !outputs[0].present())
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
    int64_t axis = setup.node->attrs.getInt("axis", -1);
    if (axis < 0)
    {
        axis += rank + 1;
    }
    if (axis < 0 || axis > rank)
    {
        return oneHotError(setup, "axis " + std::to_string(axis) + " is out of range");
    }
    int64_t outer = 1;
    int64_t inner = 1;
    for (int32_t d = 0; d < rank; ++d)
    {
        int64_t const e = indices.dims.d[d];
        int32_t const od = d < axis ? d : d + 1;
        if (out.dims.d[od] != e)
        {
            return oneHotError(setup, "output shape does not match the indices in dimension " + std::to_string(d));
        }
        (d < axis ? outer : inner) *= e;
    }
    int64_t const depth = out.dims.d[axis];
    if (outer * inner * depth == 0)
    {
        return Status::ok();
    }
    size_t const size = static_cast<size_t>(elementSize(values.type));
    auto const* off = static_cast<uint8_t const*>(values.data);
    uint8_t const* on = off + size;
    auto* dst = static_cast<uint8_t*>(out.data);
    for (int64_t o = 0; o < outer; ++o)
    {
        for (int64_t j = 0; j < depth; ++j)
        {
            for (int64_t i = 0; i < inner; ++i)
            {
                int64_t index = loadInt(indices.data, indices.type, o * inner + i);
                if (index < 0)
                {
                    index += depth;
                }
                uint8_t const* src = index == j ? on : off;
                std::memcpy(dst + static_cast<size_t>((o * depth + j) * inner + i) * size, src, size);
            }
        }
    }
    return Status::ok();
}

} // namespace

StatusOr<std::unique_ptr<CpuKernel>> createOneHotKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("OneHot kernel: no plan node");
    }
    return makeFunctionKernel(setup, executeOneHot);
}

} // namespace kiln
