// CPU reference kernel of ILRNLayer: across-channel local response normalization along axis rank - 3.
// y = x / (k + alpha / window * sum_{c' in [c - h, c + h] within bounds} x[c']^2) ^ beta, h = (window - 1) / 2.
// FP16/BF16 compute in float.
#include "backends/cpu/kernels/kernelFactories.h"
#include "core/dataType.h"

#include <cmath>
#include <type_traits>

namespace kiln
{
namespace
{

Status lrnError(KernelSetup const& setup, std::string const& message)
{
    return failedExecution("layer '" + setup.node->name + "' (LRN): " + message);
}

template <typename T>
void lrn(T const* in, T* out, int64_t outer, int64_t channels, int64_t inner, int64_t half, double alphaOverN,
    double beta, double k)
{
    std::vector<double> squares(static_cast<size_t>(channels));
    for (int64_t o = 0; o < outer; ++o)
    {
        for (int64_t i = 0; i < inner; ++i)
        {
            int64_t const base = o * channels * inner + i;
            for (int64_t c = 0; c < channels; ++c)
            {
                double const v = static_cast<float>(in[base + c * inner]);
                squares[static_cast<size_t>(c)] = v * v;
            }
            for (int64_t c = 0; c < channels; ++c)
            {
                double sum = 0;
                int64_t const lo = c - half < 0 ? 0 : c - half;
                int64_t const hi = c + half >= channels ? channels - 1 : c + half;
                for (int64_t j = lo; j <= hi; ++j)
                {
                    sum += squares[static_cast<size_t>(j)];
                }
                double const x = static_cast<float>(in[base + c * inner]);
                out[base + c * inner] = static_cast<T>(static_cast<float>(x / std::pow(k + alphaOverN * sum, beta)));
            }
        }
    }
}

Status executeLRN(KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
{
    if (inputs.size() != 1 || outputs.size() != 1 || !inputs[0].present() || !outputs[0].present())
    {
        return lrnError(setup, "expects one input and one output");
    }
    TensorView const& in = inputs[0];
    TensorView const& out = outputs[0];
    int32_t const rank = in.dims.nbDims;
    if (rank < 3 || out.dims.nbDims != rank || out.type != in.type)
    {
        return lrnError(setup, "input must have rank >= 3 and the output its shape and type");
    }
    Attributes const& attrs = setup.node->attrs;
    int64_t const window = attrs.getInt("window", 0);
    if (window < 1 || window % 2 == 0)
    {
        return lrnError(setup, "invalid window size " + std::to_string(window));
    }
    int32_t const axis = rank - 3;
    int64_t outer = 1;
    int64_t inner = 1;
    for (int32_t d = 0; d < rank; ++d)
    {
        if (out.dims.d[d] != in.dims.d[d])
        {
            return lrnError(setup, "output shape does not match the input");
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
    int64_t const channels = in.dims.d[axis];
    if (outer * inner * channels == 0)
    {
        return Status::ok();
    }
    double const alphaOverN = attrs.getFloat("alpha") / static_cast<double>(window);
    double const beta = attrs.getFloat("beta");
    double const k = attrs.getFloat("k");
    Status status;
    bool const known = dispatchType(in.type, [&](auto tag) {
        using T = decltype(tag);
        if constexpr (std::is_same_v<T, float> || std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>)
        {
            lrn(static_cast<T const*>(in.data), static_cast<T*>(out.data), outer, channels, inner, (window - 1) / 2,
                alphaOverN, beta, k);
        }
        else
        {
            status = lrnError(setup, std::string("type ") + dataTypeName(in.type) + " is not supported");
        }
    });
    if (!known)
    {
        return lrnError(setup, std::string("type ") + dataTypeName(in.type) + " is not supported");
    }
    return status;
}

} // namespace

StatusOr<std::unique_ptr<CpuKernel>> createLRNKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("LRN kernel: no plan node");
    }
    return makeFunctionKernel(setup, executeLRN);
}

} // namespace kiln
