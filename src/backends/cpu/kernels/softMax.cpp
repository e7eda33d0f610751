// CPU reference kernel of ISoftMaxLayer: numerically stable softmax (max subtracted) along one axis; FP16/BF16
// storage computes in float, sums accumulate in double.
#include "backends/common/softMaxParams.h"
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
    KILN_ASSIGN_OR_RETURN(SoftMaxParams const p, makeSoftMaxParams(setup, inputs, outputs));
    TensorView const& in = inputs[0];
    TensorView const& out = outputs[0];
    int64_t const outer = p.outer;
    int64_t const inner = p.inner;
    int64_t const n = p.n;
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
