// CUDA kernel of IPoolingLayer with the CPU kernel's semantics (pooling.cpp): max (padding is -inf; a window with no
// input value gives -inf), average dividing by the window's overlap with the unpadded input
// (averageCountExcludesPadding) or with the padded input, and the max-average blend. Tactic "cudnn":
// cudnnPoolingForward where cuDNN's symmetric padding gives exactly these windows and divisors (same input and output
// type, FP32/FP16/BF16, kMAX, kAVERAGE or a blend factor of 0 or 1); every other case, and tactic "kiln", runs Kiln's
// own kernel (one thread per output value, any of FP32/FP16/BF16/INT8 in and out; INT8 rounds half to even and
// saturates, as the CPU does). Nodes the builder made channel-last (kCHANNEL_LAST_ATTRIBUTE: input and output in
// kHWC8 without padding channels) run on cuDNN only, with NHWC descriptors.
#include "backends/common/convolutionParams.h"
#include "backends/common/poolingParams.h"
#include "backends/cuda/cudaLibraries.h"
#include "backends/cuda/kernels/cudaKernelFactories.h"
#include "backends/cuda/kernels/cudnnCommon.h"
#include "backends/cuda/kernels/deviceTypes.cuh"
#include "backends/cuda/kernels/kernelCommon.cuh"
#include "core/tensorFormat.h"

#include <cfloat>
#include <memory>

namespace kiln::cuda
{
using nvinfer1::DataType;
using nvinfer1::PoolingType;

namespace
{

constexpr char const* kTACTIC_CUDNN_POOL = "cudnn";
constexpr char const* kTACTIC_KILN_POOL = "kiln";

struct PoolArgs
{
    void const* x{nullptr};
    DataType xType{DataType::kFLOAT};
    void* y{nullptr};
    DataType yType{DataType::kFLOAT};
    int64_t planes{0};
    WindowGeometry g;
    int32_t mode{0}; //!< 0 max, 1 average, 2 blend
    double blend{0.0};
    bool excludePadding{true};
};

__device__ __forceinline__ int64_t overlap(int64_t a0, int64_t a1, int64_t b0, int64_t b1)
{
    int64_t const v = min(a1, b1) - max(a0, b0);
    return v > 0 ? v : 0;
}

__global__ void poolingKernel(PoolArgs a, int64_t total)
{
    WindowGeometry const& g = a.g;
    int64_t const inVol = g.in[0] * g.in[1] * g.in[2];
    for (int64_t idx = dev::globalThread(); idx < total; idx += dev::gridThreads())
    {
        int64_t r = idx;
        int64_t o[3];
        o[2] = r % g.out[2];
        r /= g.out[2];
        o[1] = r % g.out[1];
        r /= g.out[1];
        o[0] = r % g.out[0];
        int64_t const pl = r / g.out[0];
        int64_t lo[3];
        int64_t hi[3];
        int64_t padded = 1;
#pragma unroll
        for (int32_t j = 0; j < 3; ++j)
        {
            int64_t const start = o[j] * g.stride[j] - g.padBefore[j];
            int64_t const end = start + g.kernel[j];
            padded *= overlap(start, end, -g.padBefore[j], g.in[j] + g.padAfter[j]);
            lo[j] = start > 0 ? start : 0;
            hi[j] = end < g.in[j] ? end : g.in[j];
        }
        float mx = -INFINITY;
        double sum = 0.0;
        int64_t valid = 0;
        int64_t const base = pl * inVol;
        for (int64_t d = lo[0]; d < hi[0]; ++d)
        {
            for (int64_t h = lo[1]; h < hi[1]; ++h)
            {
                for (int64_t w = lo[2]; w < hi[2]; ++w)
                {
                    float const v = dev::loadFloat(a.x, a.xType, base + (d * g.in[1] + h) * g.in[2] + w);
                    mx = mx < v ? v : mx; // as std::max on the CPU: a NaN value is skipped
                    sum += static_cast<double>(v);
                    ++valid;
                }
            }
        }
        int64_t const count = a.excludePadding ? valid : padded;
        // The final combination in double, as the CPU: INT8 results then round exactly alike.
        double const avg = count > 0 ? sum / static_cast<double>(count) : 0.0;
        double const m = static_cast<double>(mx);
        double res = m;
        if (a.mode == 1)
        {
            res = avg;
        }
        else if (a.mode == 2)
        {
            res = a.blend == 0.0 ? m : (a.blend == 1.0 ? avg : (1.0 - a.blend) * m + a.blend * avg);
        }
        if (a.yType == DataType::kINT8)
        {
            res = rint(res); // half to even, then saturation in storeFloat
        }
        dev::storeFloat(a.y, a.yType, idx, static_cast<float>(res));
    }
}

struct PoolPlan
{
    std::vector<int64_t> key;
    bool cudnn{false};
#if KILN_HAVE_CUDNN
    TensorDesc xDesc;
    TensorDesc yDesc;
    PoolDesc poolDesc;
#endif
};

//! create: the window configuration, the tactic and the session's library handles; reshape: the shape checks, the
//! geometry and, for tactic "cudnn", the descriptors of these shapes (kept per shape, up to kMAX_PLANS) and the cuDNN
//! handle; run: cudnnPoolingForward on the run's stream or Kiln's kernel.
class PoolingCudaKernel final : public Kernel
{
public:
    PoolingCudaKernel(KernelSetup const& setup, PoolConfig cfg, bool useCudnn)
        : mSetup(setup)
        , mCfg(std::move(cfg))
        , mUseCudnn(useCudnn)
        , mChannelLast(setup.node->attrs.getInt(kCHANNEL_LAST_ATTRIBUTE, 0) != 0)
        , mLibraries(sessionLibraries(setup))
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mTotal = -1;
        std::vector<WindowExtent> ext;
        ReshapeViews const v = reshapeViews(mSetup, inputs, outputs);
        KILN_RETURN_IF_ERROR(checkPoolShapes(*mSetup.node, mCfg, v.inputs, v.outputs, ext));
        TensorView const& in = inputs[0];
        TensorView const& out = outputs[0];
        WindowGeometry const g = toWindowGeometry(mCfg.params, ext);
        mCudnnPlan = nullptr;
#if KILN_HAVE_CUDNN
        if (mUseCudnn && out.volume() != 0)
        {
            PoolPlan const& plan = findPlan(in, out, g);
            if (plan.cudnn && mLibraries != nullptr)
            {
                StatusOr<cudnnHandle_t> h = mLibraries->cudnn();
                if (!h.isOk())
                {
                    return h.status().withContext(label());
                }
                mCudnn = *h;
                mCudnnPlan = &plan;
            }
        }
#endif
        if (mChannelLast && mCudnnPlan == nullptr && out.volume() != 0)
        {
            return invalidArgument(label() + ": channel-last pooling runs on cuDNN only, which cannot express this "
                                             "window, these types or this rank");
        }
        PoolArgs a;
        a.xType = in.type;
        a.yType = out.type;
        a.planes = in.dims.d[0] * in.dims.d[1];
        a.g = g;
        a.mode = mCfg.type == PoolingType::kMAX ? 0 : (mCfg.type == PoolingType::kAVERAGE ? 1 : 2);
        a.blend = mCfg.blend;
        a.excludePadding = mCfg.excludePadding;
        mArgs = a;
        mTotal = out.volume();
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs,
        RunContext const& ctx) override
    {
        if (mTotal <= 0)
        {
            return mTotal == 0 ? Status::ok() : notReshaped(label());
        }
#if KILN_HAVE_CUDNN
        if (mCudnnPlan != nullptr)
        {
            Status const st = runCudnn(*mCudnnPlan, inputs[0], outputs[0], ctx);
            return st.isOk() ? st : st.withContext(label());
        }
#endif
        PoolArgs a = mArgs;
        a.x = inputs[0].data;
        a.y = outputs[0].data;
        poolingKernel<<<gridFor(mTotal), kBLOCK, 0, ctx.stream>>>(a, mTotal);
        Status const st = launchStatus("poolingKernel");
        return st.isOk() ? st : st.withContext(label());
    }

private:
    std::string label() const
    {
        return nodeLabel(mSetup, "Pooling");
    }

#if KILN_HAVE_CUDNN
    //! Whether cuDNN computes exactly the CPU's windows and divisors for this geometry, and its mode.
    bool cudnnExpresses(WindowGeometry const& g, cudnnPoolingMode_t& mode) const
    {
        bool const isMax = mCfg.type == PoolingType::kMAX || (mCfg.type == PoolingType::kMAX_AVERAGE_BLEND && mCfg.blend == 0.0);
        bool const isAvg = mCfg.type == PoolingType::kAVERAGE || (mCfg.type == PoolingType::kMAX_AVERAGE_BLEND && mCfg.blend == 1.0);
        if (!isMax && !isAvg)
        {
            return false;
        }
        mode = isMax ? CUDNN_POOLING_MAX
                     : (mCfg.excludePadding ? CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING
                                            : CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING);
        for (int32_t j = 3 - mCfg.params.nbSpatial; j < 3; ++j)
        {
            int64_t const k = g.kernel[j];
            int64_t const s = g.stride[j];
            int64_t const pb = g.padBefore[j];
            if (pb >= k || g.in[j] + 2 * pb < k)
            {
                return false;
            }
            if ((g.in[j] + 2 * pb - k) / s + 1 != g.out[j]) // cuDNN's symmetric output extent
            {
                return false;
            }
            if ((g.out[j] - 1) * s - pb >= g.in[j]) // a window wholly in the padding
            {
                return false;
            }
            int64_t const reach = (g.out[j] - 1) * s + k - g.in[j] - pb;
            if (isAvg && !mCfg.excludePadding && reach > g.padAfter[j]) // divisor clipped by the CPU
            {
                return false;
            }
        }
        return true;
    }

    //! The plan of these shapes: kept from an earlier reshape, else made (evicting the oldest beyond kMAX_PLANS).
    PoolPlan const& findPlan(TensorView const& in, TensorView const& out, WindowGeometry const& g)
    {
        std::vector<int64_t> key(in.dims.d, in.dims.d + in.dims.nbDims);
        key.push_back(static_cast<int64_t>(in.type));
        key.push_back(static_cast<int64_t>(out.type));
        for (auto const& p : mPlans)
        {
            if (p->key == key)
            {
                return *p;
            }
        }
        auto plan = std::make_unique<PoolPlan>();
        plan->key = key;
        plan->cudnn = planCudnn(*plan, in, out, g).isOk();
        if (mPlans.size() >= kMAX_PLANS)
        {
            mPlans.erase(mPlans.begin());
        }
        mPlans.push_back(std::move(plan));
        return *mPlans.back();
    }

    Status planCudnn(PoolPlan& p, TensorView const& in, TensorView const& out, WindowGeometry const& g)
    {
        cudnnDataType_t dt{};
        cudnnPoolingMode_t mode{};
        if (in.type != out.type || !toCudnnType(in.type, dt) || !cudnnExpresses(g, mode))
        {
            return invalidArgument("not a cuDNN case");
        }
        std::vector<int64_t> const x(in.dims.d, in.dims.d + in.dims.nbDims);
        std::vector<int64_t> const y(out.dims.d, out.dims.d + out.dims.nbDims);
        if (!fitsCudnnInt(x) || !fitsCudnnInt(y))
        {
            return invalidArgument("extents");
        }
        std::vector<int64_t> window;
        std::vector<int64_t> pads;
        std::vector<int64_t> strides;
        for (int32_t j = 3 - mCfg.params.nbSpatial; j < 3; ++j)
        {
            window.push_back(g.kernel[j]);
            pads.push_back(g.padBefore[j]);
            strides.push_back(g.stride[j]);
        }
        KILN_RETURN_IF_ERROR(p.xDesc.set(dt, x, mChannelLast));
        KILN_RETURN_IF_ERROR(p.yDesc.set(dt, y, mChannelLast));
        KILN_RETURN_IF_ERROR(p.poolDesc.set(mode, window, pads, strides));
        return Status::ok();
    }

    Status runCudnn(PoolPlan const& p, TensorView const& in, TensorView const& out, RunContext const& ctx)
    {
        KILN_CUDNN_CHECK(cudnnSetStream(mCudnn, ctx.stream));
        float const one = 1.F;
        float const zero = 0.F;
        KILN_CUDNN_CHECK(cudnnPoolingForward(mCudnn, p.poolDesc.get(), &one, p.xDesc.get(), in.data, &zero,
            p.yDesc.get(), out.data));
        return Status::ok();
    }

    static constexpr size_t kMAX_PLANS = 16;
    std::vector<std::unique_ptr<PoolPlan>> mPlans;
    cudnnHandle_t mCudnn{nullptr};
#endif

    KernelSetup mSetup;
    PoolConfig mCfg;
    bool mUseCudnn{false};
    bool mChannelLast{false}; //!< input and output are NHWC (cuDNN only)
    CudaLibraries* mLibraries{nullptr};
    PoolPlan const* mCudnnPlan{nullptr}; //!< the cuDNN plan of the last reshape; nullptr: Kiln's kernel
    PoolArgs mArgs;
    int64_t mTotal{-1};
};

bool typesSupported(KernelSetup const& setup)
{
    return setup.inputTypes.size() == 1 && setup.outputTypes.size() == 1 && isPoolStorage(setup.inputTypes[0])
        && isPoolStorage(setup.outputTypes[0]);
}

} // namespace

StatusOr<std::unique_ptr<Kernel>> createPoolingCudaKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("pooling CUDA kernel created without a plan node");
    }
    std::string const label = nodeLabel(setup, "Pooling");
    KILN_ASSIGN_OR_RETURN(PoolConfig cfg, readPoolConfig(*setup.node));
    if (!typesSupported(setup))
    {
        return invalidArgument(label + ": expected 1 input and 1 output of kFLOAT, kHALF, kBF16 or kINT8");
    }
    std::string const& tactic = setup.node->tactic;
    if (tactic == kTACTIC_CUDNN_POOL && !cudnnBuilt())
    {
        return invalidArgument(label + ": tactic cudnn needs a Kiln built with cuDNN");
    }
    bool const useCudnn = cudnnBuilt() && tactic != kTACTIC_KILN_POOL;
    if (setup.node->attrs.getInt(kCHANNEL_LAST_ATTRIBUTE, 0) != 0
        && (!useCudnn || setup.inputRanks[0] != 4 || setup.inputTypes[0] == DataType::kINT8))
    {
        return invalidArgument(label + ": channel-last pooling needs 4-D tensors, the cudnn tactic and a float type");
    }
    return std::unique_ptr<Kernel>(std::make_unique<PoolingCudaKernel>(setup, std::move(cfg), useCudnn));
}

std::vector<std::string> poolingCudaTactics(KernelSetup const& setup)
{
    if (setup.node == nullptr || !typesSupported(setup))
    {
        return {};
    }
    auto cfg = readPoolConfig(*setup.node);
    if (!cfg.isOk())
    {
        return {};
    }
    DataType const t = setup.inputTypes[0];
    bool const blendOnly = cfg.value().type == PoolingType::kMAX_AVERAGE_BLEND && cfg.value().blend != 0.0
        && cfg.value().blend != 1.0;
    bool const cudnnCase = cudnnBuilt() && t != DataType::kINT8 && setup.outputTypes[0] == t && !blendOnly;
    if (setup.node->attrs.getInt(kCHANNEL_LAST_ATTRIBUTE, 0) != 0)
    {
        return cudnnCase ? std::vector<std::string>{kTACTIC_CUDNN_POOL} : std::vector<std::string>{};
    }
    if (cudnnCase)
    {
        return {kTACTIC_CUDNN_POOL, kTACTIC_KILN_POOL};
    }
    return {kTACTIC_KILN_POOL};
}

} // namespace kiln::cuda
