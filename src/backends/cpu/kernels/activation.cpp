// CPU kernel of IActivationLayer, computed in float (kRELU on INT32/INT64 exactly in int64). The formulas, with
// alpha and beta as TensorRT defines them, are listed in docs/layers/elementwise.md.
#include "backends/cpu/kernels/elementWiseCommon.h"
#include "backends/common/activationParams.h"
#include "backends/common/unaryParams.h"
#include "backends/cpu/kernels/kernelFactories.h"
#include "backends/cpu/kernels/simd.h"

namespace kiln
{
using nvinfer1::ActivationType;
using nvinfer1::DataType;

namespace
{
using Act = ActivationType;

template <typename F>
void each(float const* x, float* r, int64_t n, F&& f)
{
    for (int64_t i = 0; i < n; ++i)
    {
        r[i] = f(x[i]);
    }
}

//! log(1 + exp(t)) without overflow for large t.
float softplusCore(float t)
{
    return t > 0.F ? t + std::log1p(std::exp(-t)) : std::log1p(std::exp(t));
}

KILN_CPU_CLONES void applyActivation(Act type, float alpha, float beta, float const* x, float* r, int64_t n)
{
    switch (type)
    {
    case Act::kRELU: each(x, r, n, [](float v) { return v > 0.F ? v : 0.F; }); break;
    case Act::kSIGMOID:
        each(x, r, n, [](float v) {
            if (v >= 0.F)
            {
                return 1.F / (1.F + std::exp(-v));
            }
            float const e = std::exp(v);
            return e / (1.F + e);
        });
        break;
    case Act::kTANH: each(x, r, n, [](float v) { return std::tanh(v); }); break;
    case Act::kLEAKY_RELU: each(x, r, n, [=](float v) { return v >= 0.F ? v : alpha * v; }); break;
    case Act::kELU: each(x, r, n, [=](float v) { return v >= 0.F ? v : alpha * std::expm1(v); }); break;
    case Act::kSELU:
        each(x, r, n, [=](float v) { return v > 0.F ? beta * v : beta * (alpha * std::exp(v) - alpha); });
        break;
    case Act::kSOFTSIGN: each(x, r, n, [](float v) { return v / (1.F + std::fabs(v)); }); break;
    case Act::kSOFTPLUS: each(x, r, n, [=](float v) { return alpha * softplusCore(beta * v); }); break;
    case Act::kCLIP: each(x, r, n, [=](float v) { return std::max(alpha, std::min(beta, v)); }); break;
    case Act::kHARD_SIGMOID:
        each(x, r, n, [=](float v) { return std::max(0.F, std::min(1.F, alpha * v + beta)); });
        break;
    case Act::kSCALED_TANH: each(x, r, n, [=](float v) { return alpha * std::tanh(beta * v); }); break;
    case Act::kTHRESHOLDED_RELU: each(x, r, n, [=](float v) { return v > alpha ? v : 0.F; }); break;
    case Act::kGELU_ERF:
        each(x, r, n, [](float v) { return 0.5F * v * (1.F + std::erf(v * 0.70710678118654752F)); });
        break;
    case Act::kGELU_TANH:
        each(x, r, n, [](float v) {
            float const inner = 0.79788456080286536F * (v + 0.044715F * v * v * v);
            return 0.5F * v * (1.F + std::tanh(inner));
        });
        break;
    default: each(x, r, n, [](float v) { return v; }); break; // unreachable: validated at kernel creation
    }
}

//! Activations of a few cycles per element (memory-bound): split over the pool only for large tensors.
bool cheap(Act type)
{
    switch (type)
    {
    case Act::kRELU:
    case Act::kLEAKY_RELU:
    case Act::kSOFTSIGN:
    case Act::kCLIP:
    case Act::kHARD_SIGMOID:
    case Act::kTHRESHOLDED_RELU: return true;
    default: return false;
    }
}

//! create: the activation and its alpha/beta (readActivationParams); reshape: the shapes and the element count.
class ActivationKernel final : public Kernel
{
public:
    ActivationKernel(KernelSetup const& setup, ActivationParams params)
        : mSetup(setup)
        , mParams(params)
        , mFloat(ew::isFloatKernelType(setup.inputTypes[0]))
        , mFloat32(setup.inputTypes[0] == DataType::kFLOAT && setup.outputTypes[0] == DataType::kFLOAT)
        , mGrain(cheap(params.type) ? ew::kGRAIN : ew::kGRAIN_HEAVY)
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mVolume = -1;
        KILN_RETURN_IF_ERROR(checkUnaryShapes(mSetup, inputs, outputs));
        mVolume = outputs[0].volume();
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs, RunContext const&) override
    {
        if (mVolume < 0)
        {
            return notReshaped(mSetup, "Activation");
        }
        TensorView const& in = inputs[0];
        TensorView const& out = outputs[0];
        Act const type = mParams.type;
        float const alpha = mParams.alpha;
        float const beta = mParams.beta;
        int64_t const n = mVolume;
        if (mFloat32)
        {
            // FP32 in and out: compute in place of the chunked conversions (the common case), split over the pool.
            auto const* x = static_cast<float const*>(in.data);
            auto* r = static_cast<float*>(out.data);
            parallelFor(n, mGrain,
                [&](int64_t begin, int64_t end) { applyActivation(type, alpha, beta, x + begin, r + begin, end - begin); });
            return Status::ok();
        }
        // Other types: chunked conversions (integer inputs: only kRELU is accepted by inference).
        ew::mapChunks(
            in, out, n, mFloat,
            [=](float const* x, float* r, int64_t m) { applyActivation(type, alpha, beta, x, r, m); },
            [](int64_t const* x, int64_t* r, int64_t m) {
                for (int64_t i = 0; i < m; ++i)
                {
                    r[i] = x[i] > 0 ? x[i] : 0;
                }
            },
            mGrain);
        return Status::ok();
    }

private:
    KernelSetup mSetup;
    ActivationParams mParams;
    bool mFloat;
    bool mFloat32;
    int64_t mGrain; //!< least elements per thread-pool task
    int64_t mVolume{-1}; //!< output elements; -1 until a successful reshape
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createActivationKernel(KernelSetup const& setup)
{
    KILN_ASSIGN_OR_RETURN(ActivationParams const params, readActivationParams(setup));
    return std::unique_ptr<Kernel>(std::make_unique<ActivationKernel>(setup, params));
}

} // namespace kiln
