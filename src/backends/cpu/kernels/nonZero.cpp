// CPU reference kernel of INonZeroLayer: the row-major indices of the non-zero elements (NaN counts as non-zero),
// written as [rank, count], and the count into the layer's internal size tensor (output 1), from which the runtime
// learns the data-dependent dimension.
#include "backends/common/nonZeroParams.h"
#include "backends/cpu/kernels/kernelFactories.h"
#include "core/dataType.h"

#include <vector>

namespace kiln
{
namespace
{
using nvinfer1::DataType;

bool isNonZero(void const* data, DataType type, int64_t i)
{
    if (type == DataType::kINT32 || type == DataType::kINT64 || type == DataType::kINT8 || type == DataType::kBOOL)
    {
        return loadInt(data, type, i) != 0;
    }
    return loadElement(data, type, i) != 0.0; // NaN != 0
}

Status executeNonZero(
    KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
{
    KILN_RETURN_IF_ERROR(checkNonZeroViews(setup, inputs, outputs));
    TensorView const& in = inputs[0];
    TensorView const& indices = outputs[0];
    int32_t const rank = in.dims.nbDims;
    int64_t const n = in.volume();
    std::vector<int64_t> hits;
    for (int64_t i = 0; i < n; ++i)
    {
        if (isNonZero(in.data, in.type, i))
        {
            hits.push_back(i);
        }
    }
    auto const count = static_cast<int64_t>(hits.size());
    if (count > 0 && rank > 0)
    {
        if (indices.data == nullptr)
        {
            return nonZeroError(setup, "the indices output has no memory");
        }
        std::vector<int64_t> const strides = contiguousStrides(in.dims);
        for (int64_t k = 0; k < count; ++k)
        {
            int64_t rest = hits[static_cast<size_t>(k)];
            for (int32_t d = 0; d < rank; ++d)
            {
                int64_t const s = strides[static_cast<size_t>(d)];
                storeInt(indices.data, indices.type, d * count + k, rest / s);
                rest %= s;
            }
        }
    }
    storeInt(outputs[1].data, outputs[1].type, 0, count);
    return Status::ok();
}

} // namespace

StatusOr<std::unique_ptr<CpuKernel>> createNonZeroKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("NonZero kernel: no plan node");
    }
    return makeFunctionKernel(setup, executeNonZero);
}

} // namespace kiln
