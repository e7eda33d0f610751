// CPU reference kernel of ICumulativeLayer (kSUM): y[j] = sum of x over 0..j (forward inclusive), 0..j-1 (forward
// exclusive), j..n-1 (reverse inclusive) or j+1..n-1 (reverse exclusive) along the axis given by input 1. Floating
// point sums accumulate in double and integer sums in int64 (INT32 results wrap as the stored type does).
#include "backends/cpu/kernels/kernelFactories.h"
#include "core/dataType.h"

#include <type_traits>

namespace kiln
{
namespace
{
using nvinfer1::CumulativeOperation;
using nvinfer1::DataType;

Status cumulativeError(KernelSetup const& setup, std::string const& message)
{
    return failedExecution("layer '" + setup.node->name + "' (Cumulative): " + message);
}

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
    if (inputs.size() != 2 || outputs.size() != 1 || !inputs[0].present() || !outputs[0].present())
    {
        return cumulativeError(setup, "expects data and axis inputs and one output");
    }
    TensorView const& in = inputs[0];
    TensorView const& axisView = inputs[1];
    TensorView const& out = outputs[0];
    Attributes const& attrs = setup.node->attrs;
    if (attrs.getInt("operation", -1) != static_cast<int64_t>(CumulativeOperation::kSUM))
    {
        return cumulativeError(setup, "invalid operation " + std::to_string(attrs.getInt("operation", -1)));
    }
    if (axisView.volume() != 1 || (axisView.data == nullptr && axisView.values == nullptr)
        || (axisView.type != DataType::kINT32 && axisView.type != DataType::kINT64))
    {
        return cumulativeError(setup, "axis (input 1) must be one INT32/INT64 value");
    }
    int64_t axis = axisView.data != nullptr ? loadInt(axisView.data, axisView.type, 0) : axisView.values[0];
    int32_t const rank = in.dims.nbDims;
    if (axis < -rank || axis >= rank)
    {
        return cumulativeError(setup, "axis " + std::to_string(axis) + " (input 1) is out of range ["
            + std::to_string(-rank) + ", " + std::to_string(rank - 1) + "]");
    }
    if (axis < 0)
    {
        axis += rank;
    }
    if (out.type != in.type || out.dims.nbDims != rank)
    {
        return cumulativeError(setup, "output type or rank does not match the input");
    }
    int64_t outer = 1;
    int64_t inner = 1;
    for (int32_t d = 0; d < rank; ++d)
    {
        if (out.dims.d[d] != in.dims.d[d])
        {
            return cumulativeError(setup, "output shape does not match the input in dimension " + std::to_string(d));
        }
        if (d < axis)
        {
            outer *= in.dims.d[d];
        }
        else if (d > axis)
        {
            inner *= in.dims.d[d];
        }
    }
    int64_t const n = in.dims.d[axis];
    if (outer * inner * n == 0)
    {
        return Status::ok();
    }
    bool const exclusive = attrs.getInt("exclusive") != 0;
    bool const reverse = attrs.getInt("reverse") != 0;
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
