// CPU kernels of IQuantizeLayer and IDequantizeLayer (INT8, explicit quantization):
//   quantize:   q = saturate(roundHalfToEven(x / scale)) to [-128, 127] (NaN gives 0);
//   dequantize: y = q * scale, rounded to the output type.
// The scale is per-tensor or per-axis (FP32/FP16/BF16); a zero point must be zero (backends/common/quantizeParams.h).
// The tensor is cut into pieces of at least kGRAIN elements on the thread pool; inside a piece each run of elements
// sharing one scale is a plain loop the compiler vectorises (FP32 data: one clone per instruction set, simd.h).
//
// GCC vectorises the clamp and the NaN select only without -ftrapping-math (with it, a float comparison may trap and
// stays a branch): this file is compiled without it. Floating-point exception flags are not part of Kiln's results.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-trapping-math")
#endif
#include "backends/common/quantizeParams.h"
#include "backends/cpu/kernels/kernelFactories.h"
#include "backends/cpu/kernels/simd.h"
#include "core/dataType.h"
#include "core/threadPool.h"

#include <algorithm>
#include <cmath>
#include <type_traits>

namespace kiln
{
namespace
{
using nvinfer1::DataType;

constexpr int64_t kGRAIN = 16384;
constexpr float kROUND_MAGIC = 12582912.0F; // 1.5 * 2^23: x + magic - magic rounds |x| < 2^22 half to even

//! One element: x / scale, NaN to 0, clamped to [-128, 127], then rounded half to even (exact after the clamp).
inline int8_t quantizeOne(float x, float scale)
{
    float v = x / scale;
    v = v == v ? v : 0.0F;
    v = std::min(std::max(v, -128.0F), 127.0F);
    return static_cast<int8_t>((v + kROUND_MAGIC) - kROUND_MAGIC);
}

template <typename T>
void quantizeRun(T const* x, int8_t* q, int64_t count, float scale)
{
    for (int64_t i = 0; i < count; ++i)
    {
        q[i] = quantizeOne(static_cast<float>(x[i]), scale);
    }
}

template <typename T>
void dequantizeRun(int8_t const* q, T* y, int64_t count, float scale)
{
    for (int64_t i = 0; i < count; ++i)
    {
        y[i] = static_cast<T>(static_cast<float>(q[i]) * scale);
    }
}

KILN_CPU_CLONES void quantizeFloat(float const* x, int8_t* q, int64_t count, float scale)
{
    quantizeRun(x, q, count, scale);
}

KILN_CPU_CLONES void dequantizeFloat(int8_t const* q, float* y, int64_t count, float scale)
{
    dequantizeRun(q, y, count, scale);
}

//! create: params and types; reshape: shape checks, geometry and room for the scales; run: the scales to FP32,
//! then the elements on the pool.
class QuantizeKernel final : public Kernel
{
public:
    QuantizeKernel(KernelSetup const& setup, QuantizeParams params)
        : mSetup(setup)
        , mParams(params)
        , mCheckZeroPoint(zeroPointNeedsRunCheck(setup))
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mReady = false;
        KILN_ASSIGN_OR_RETURN(mGeometry, quantizeGeometry(mSetup, mParams, inputs, outputs));
        mScales.resize(static_cast<size_t>(mGeometry.n));
        mReady = true;
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs, RunContext const&) override
    {
        if (!mReady)
        {
            return notReshaped(mSetup, mParams.kind);
        }
        QuantizeGeometry const g = mGeometry;
        if (g.volume == 0)
        {
            return Status::ok();
        }
        TensorView const& scale = inputs[1];
        for (int64_t i = 0; i < g.n; ++i)
        {
            float const s = static_cast<float>(loadElement(scale.data, scale.type, i));
            if (mParams.quantize && !(s > 0.0F && std::isfinite(s)))
            {
                return quantizeError(mSetup, mParams, "scale " + std::to_string(i) + " is " + std::to_string(s)
                    + "; quantization scales must be positive and finite");
            }
            mScales[static_cast<size_t>(i)] = s;
        }
        if (mCheckZeroPoint && inputs.size() > 2 && inputs[2].present())
        {
            auto const* zp = static_cast<int8_t const*>(inputs[2].data);
            if (std::any_of(zp, zp + inputs[2].volume(), [](int8_t z) { return z != 0; }))
            {
                return quantizeError(mSetup, mParams, "non-zero zero points are not supported");
            }
        }
        void const* src = inputs[0].data;
        void* dst = outputs[0].data;
        DataType const realType = mParams.quantize ? inputs[0].type : outputs[0].type;
        dispatchType(realType, [&](auto tag) {
            using T = decltype(tag);
            if constexpr (std::is_same_v<T, float> || std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>)
            {
                parallelFor(g.volume, kGRAIN, [&](int64_t begin, int64_t end) { piece<T>(src, dst, begin, end); });
            }
        });
        return Status::ok();
    }

private:
    //! Elements [begin, end), one loop per run of elements sharing a scale.
    template <typename T>
    void piece(void const* src, void* dst, int64_t begin, int64_t end) const
    {
        int64_t const inner = mGeometry.inner;
        int64_t i = begin;
        while (i < end)
        {
            int64_t const stop = std::min(end, (i / inner + 1) * inner);
            float const s = mScales[static_cast<size_t>((i / inner) % mGeometry.n)];
            if constexpr (std::is_same_v<T, float>)
            {
                if (mParams.quantize)
                {
                    quantizeFloat(static_cast<float const*>(src) + i, static_cast<int8_t*>(dst) + i, stop - i, s);
                }
                else
                {
                    dequantizeFloat(static_cast<int8_t const*>(src) + i, static_cast<float*>(dst) + i, stop - i, s);
                }
            }
            else if (mParams.quantize)
            {
                quantizeRun(static_cast<T const*>(src) + i, static_cast<int8_t*>(dst) + i, stop - i, s);
            }
            else
            {
                dequantizeRun(static_cast<int8_t const*>(src) + i, static_cast<T*>(dst) + i, stop - i, s);
            }
            i = stop;
        }
    }

    KernelSetup mSetup;
    QuantizeParams mParams;
    bool mCheckZeroPoint;
    QuantizeGeometry mGeometry;
    std::vector<float> mScales;
    bool mReady{false};
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createQuantizeKernel(KernelSetup const& setup)
{
    KILN_ASSIGN_OR_RETURN(QuantizeParams const p, readQuantizeParams(setup, true, true));
    return std::unique_ptr<Kernel>(std::make_unique<QuantizeKernel>(setup, p));
}

StatusOr<std::unique_ptr<Kernel>> createDequantizeKernel(KernelSetup const& setup)
{
    KILN_ASSIGN_OR_RETURN(QuantizeParams const p, readQuantizeParams(setup, false, true));
    return std::unique_ptr<Kernel>(std::make_unique<QuantizeKernel>(setup, p));
}

} // namespace kiln
