// CPU reference kernel of IOneHotLayer: output[..., j, ...] (j along the new axis) is values[1] (on) where
// j == index (negative indices count from depth) and values[0] (off) elsewhere. Indices outside [-depth, depth) give
// an all-off row. Elements are copied bit for bit, so every values type works. depth is the output extent along axis.
#include "backends/common/oneHotParams.h"
#include "backends/cpu/kernels/kernelFactories.h"
#include "core/dataType.h"

#include <cstring>

namespace kiln
{
namespace
{
using nvinfer1::DataType;

Status executeOneHot(
    KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
{
    KILN_ASSIGN_OR_RETURN(OneHotParams const p, makeOneHotParams(setup, inputs, outputs));
    TensorView const& indices = inputs[0];
    TensorView const& values = inputs[1];
    TensorView const& out = outputs[0];
    int64_t const outer = p.outer;
    int64_t const inner = p.inner;
    int64_t const depth = p.depth;
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
