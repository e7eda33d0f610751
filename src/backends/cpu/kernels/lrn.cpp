// CPU reference kernel of ILRNLayer: across-channel local response normalization along axis rank - 3.
// y = x / (k + alpha / window * sum_{c' in [c - h, c + h] within bounds} x[c']^2) ^ beta, h = (window - 1) / 2.
// FP16/BF16 compute in float.
#include "backends/common/lrnParams.h"
#include "backends/cpu/kernels/kernelFactories.h"
#include "core/dataType.h"

#include <cmath>
#include <type_traits>

namespace kiln
{
namespace
{

template <typename T>
void lrn(T const* in, T* out, int64_t outer, int64_t channels, int64_t inner, int64_t half, double alphaOverN,
    double beta, double k, std::vector<double>& squares)
{
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

//! create: the window and coefficients; reshape: the geometry and the per-channel scratch.
class LRNKernel final : public Kernel
{
public:
    LRNKernel(KernelSetup const& setup, LRNParams params)
        : mSetup(setup)
        , mParams(params)
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mReady = false;
        KILN_RETURN_IF_ERROR(lrnShapes(mSetup, mParams, inputs, outputs));
        mSquares.resize(static_cast<size_t>(mParams.channels));
        mReady = true;
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs, RunContext const&) override
    {
        if (!mReady)
        {
            return notReshaped(mSetup, "LRN");
        }
        if (mParams.empty)
        {
            return Status::ok();
        }
        TensorView const& in = inputs[0];
        TensorView const& out = outputs[0];
        LRNParams const& p = mParams;
        dispatchType(in.type, [&](auto tag) {
            using T = decltype(tag);
            if constexpr (std::is_same_v<T, float> || std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>)
            {
                lrn(static_cast<T const*>(in.data), static_cast<T*>(out.data), p.outer, p.channels, p.inner, p.half,
                    p.alphaOverN, p.beta, p.k, mSquares);
            }
        });
        return Status::ok();
    }

private:
    KernelSetup mSetup;
    LRNParams mParams;
    std::vector<double> mSquares; //!< one per channel
    bool mReady{false};
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createLRNKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("LRN kernel: no plan node");
    }
    KILN_ASSIGN_OR_RETURN(LRNParams const params, readLRNParams(setup));
    return std::unique_ptr<Kernel>(std::make_unique<LRNKernel>(setup, params));
}

} // namespace kiln
