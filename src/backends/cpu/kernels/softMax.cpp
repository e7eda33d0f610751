// CPU reference kernel of ISoftMaxLayer: numerically stable softmax (max subtracted) along one axis; FP16/BF16
// storage computes in float, sums accumulate in double.
#include "backends/cpu/kernels/kernelFactories.h"
#include "core/dataType.h"

#include <bit>
#include <cmath>
#include <type_traits>
#include <vector>

namespace kiln
{
namespace
{

template <typename T>
constexpr bool kIS_FLOAT_STORAGE = std::is_same_v<T, float> || std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

Status softMaxError(KernelSetup const& setup, std::string const& message)
{
    return failedExecution("layer '" + setup.node->name + "' (SoftMax): " + message);
}

template <typename T>
void softMaxSlices(T const* in, T* out, int64_t outer, int64_t n, int64_t inner)
{
    std::vector<float> row(static_cast<size_t>(n));
    for (int64_t o = 0; o < outer; ++o)
    {
        for (int64_t i = 0; i < inner; ++i)
        {
            int64_t const base = o * n * inner + i;
            float maxValue = -INFINITY;
            for (int64_t j = 0; j < n; ++j)
            {
                float const x = static_cast<float>(in[base + j * inner]);
                row[static_cast<size_t>(j)] = x;
                // NaN propagates through the sum below; keep the max finite-or-inf for stability.
                maxValue = x > maxValue ? x : maxValue;
            }
            double sum = 0.0;
            for (int64_t j = 0; j < n; ++j)
            {
                float const e = std::exp(row[static_cast<size_t>(j)] - maxValue);
                row[static_cast<size_t>(j)] = e;
                sum += static_cast<double>(e);
            }
            float const scale = static_cast<float>(1.0 / sum);
            for (int64_t j = 0; j < n; ++j)
            {
                out[base + j * inner] = T(row[static_cast<size_t>(j)] * scale);
            }
        }
    }
}

Status executeSoftMax(KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
{
    if (inputs.size() != 1 || outputs.size() != 1 || !inputs[0].present() || !outputs[0].present())
    {
        return softMaxError(setup, "expects one input and one output");
    }
    TensorView const& in = inputs[0];
    TensorView const& out = outputs[0];
    int32_t const rank = in.dims.nbDims;
    if (rank < 1 || rank > nvinfer1::Dims::MAX_DIMS || out.dims.nbDims != rank || in.type != out.type)
    {
        return softMaxError(setup, "input and output must have the same rank (>= 1) and type");
    }
    for (int32_t d = 0; d < rank; ++d)
    {
        if (in.dims.d[d] != out.dims.d[d] || in.dims.d[d] < 0)
        {
            return softMaxError(setup, "input and output shapes differ in dimension " + std::to_string(d));
        }
    }
    int32_t axis = rank >= 3 ? rank - 3 : 0;
    if (setup.node->attrs.has("axes"))
    {
        StatusOr<int64_t> mask = setup.node->attrs.requireInt("axes");
        if (!mask.isOk() || *mask <= 0 || std::popcount(static_cast<uint64_t>(*mask)) != 1)
        {
            return softMaxError(setup, "attribute 'axes' must be a one-bit mask");
        }
        axis = std::countr_zero(static_cast<uint64_t>(*mask));
    }
    if (axis >= rank)
    {
        return softMaxError(setup, "axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
    }
    int64_t outer = 1;
    int64_t inner = 1;
    for (int32_t d = 0; d < axis; ++d)
    {
        outer *= in.dims.d[d];
    }
    for (int32_t d = axis + 1; d < rank; ++d)
    {
        inner *= in.dims.d[d];
    }
    int64_t const n = in.dims.d[axis];
    if (outer * n * inner == 0)
    {
        return Status::ok();
    }
    Status status;
    bool const known = dispatchType(in.type, [&](auto tag) {
        using T = decltype(tag);
        if constexpr (kIS_FLOAT_STORAGE<T>)
        {
            softMaxSlices(static_cast<T const*>(in.data), static_cast<T*>(out.data), outer, n, inner);
        }
        else
        {
            status = softMaxError(setup, std::string("type ") + dataTypeName(in.type) + " is not supported");
        }
    });
    if (!known)
    {
        return softMaxError(setup, std::string("type ") + dataTypeName(in.type) + " is not supported");
    }
    return status;
}

} // namespace

StatusOr<std::unique_ptr<CpuKernel>> createSoftMaxKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("SoftMax kernel: no plan node");
    }
    return makeFunctionKernel(setup, executeSoftMax);
}

} // namespace kiln
