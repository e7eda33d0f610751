// CPU reference kernel of ICumulativeLayer (kSUM): y[j] = sum of x over 0..j (forward inclusive), 0..j-1 (forward
// exclusive), j..n-1 (reverse inclusive) or j+1..n-1 (reverse exclusive) along the axis given by input 1. Floating
// point sums accumulate in double and integer sums in int64 (INT32 results wrap as the stored type does).
#include "backends/common/cumulativeParams.h"
#include "backends/cpu/kernels/kernelFactories.h"
#include "core/dataType.h"

#include <type_traits>

namespace kiln
{
namespace
{
using nvinfer1::CumulativeOperation;
using nvinfer1::DataType;

template <typename T>
void cumulativeSum(T const* in, T* out, int64_t outer, int64_t n, int64_t inner, bool exclusive, bool reverse)
{
    using Acc = std::conditional_t<std::is_integral_v<T>, int64_t, double>;
    for (int64_t o = 0; o < outer; ++o)
    {
        for (int64_t i = 0; i < inner; ++i)
        {
            int64_t const base = o * n * inner + i;
            Acc sum = 0;
            for (int64_t step = 0; step < n; ++step)
            {
                int64_t const j = reverse ? n - 1 - step : step;
                int64_t const at = base + j * inner;
                Acc const x = static_cast<Acc>(static_cast<std::conditional_t<std::is_integral_v<T>, T, float>>(in[at]));
                if (exclusive)
                {
                    out[at] = static_cast<T>(sum);
                    sum += x;
                }
                else
                {
                    sum += x;
                    out[at] = static_cast<T>(sum);
                }
            }
        }
    }
}

Status executeCumulative(
    KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
{
    KILN_ASSIGN_OR_RETURN(CumulativeParams const p, makeCumulativeParams(setup, inputs, outputs, true));
    TensorView const& in = inputs[0];
    TensorView const& out = outputs[0];
    int64_t const outer = p.outer;
    int64_t const inner = p.inner;
    int64_t const n = p.n;
    if (outer * inner * n == 0)
    {
        return Status::ok();
    }
    bool const exclusive = p.exclusive;
    bool const reverse = p.reverse;
    Status status;
    bool const known = dispatchType(in.type, [&](auto tag) {
        using T = decltype(tag);
        if constexpr (std::is_same_v<T, float> || std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>
            || std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t>)
        {
            cumulativeSum(static_cast<T const*>(in.data), static_cast<T*>(out.data), outer, n, inner, exclusive,
                reverse);
        }
        else
        {
            status = cumulativeError(setup, std::string("type ") + dataTypeName(in.type) + " is not supported");
        }
    });
    if (!known)
    {
        return cumulativeError(setup, std::string("type ") + dataTypeName(in.type) + " is not supported");
    }
    return status;
}

} // namespace

StatusOr<std::unique_ptr<CpuKernel>> createCumulativeKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("Cumulative kernel: no plan node");
    }
    return makeFunctionKernel(setup, executeCumulative);
}

} // namespace kiln
