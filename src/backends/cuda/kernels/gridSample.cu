// CUDA kernel of IGridSampleLayer (4-D), as the CPU reference (backends/cpu/kernels/gridSample.cpp): the grid's
// normalized (x, y) mapped to input coordinates (alignCorners or not), sampled with nearest (round half to even),
// bilinear or bicubic (a = -0.75) interpolation; out-of-range locations read zeros (kFILL), clamp (kCLAMP) or
// reflect (kREFLECT). One thread per output element, FP32 arithmetic; the coordinate arithmetic uses
// round-to-nearest intrinsics (no contraction into FMAs) so that tap positions match the CPU's bit for bit.
// FLOAT, HALF and BF16 input, grid and output.
#include "backends/common/gridSampleParams.h"
#include "backends/cuda/kernels/cudaKernelFactories.h"
#include "backends/cuda/kernels/kernelCommon.cuh"

namespace kiln::cuda
{
using nvinfer1::DataType;
using nvinfer1::InterpolationMode;
using nvinfer1::SampleMode;

namespace
{

struct GridAxis
{
    int64_t size{0};
    float lo{0.0F}; // border used by reflection
    float hi{0.0F};
};

struct GridArgs
{
    InterpolationMode mode;
    SampleMode sample;
    bool alignCorners;
    int64_t c;
    int64_t h;
    int64_t w;
    int64_t ho;
    int64_t wo;
    GridAxis ax;
    GridAxis ay;
    DataType inType;
    DataType gridType;
    DataType outType;
};

__device__ __forceinline__ float denormalize(float n, int64_t length, bool alignCorners)
{
    float const len = static_cast<float>(length);
    float const n1 = __fadd_rn(n, 1.0F);
    return alignCorners ? __fmul_rn(__fdiv_rn(n1, 2.0F), __fsub_rn(len, 1.0F))
                        : __fdiv_rn(__fsub_rn(__fmul_rn(n1, len), 1.0F), 2.0F);
}

__device__ __forceinline__ float reflect(float x, float lo, float hi)
{
    float const range = __fsub_rn(hi, lo);
    if (!(range > 0.0F))
    {
        return lo;
    }
    if (x < lo)
    {
        float const dx = __fsub_rn(lo, x);
        auto const n = static_cast<int64_t>(__fdiv_rn(dx, range));
        float const r = __fsub_rn(dx, __fmul_rn(static_cast<float>(n), range));
        return n % 2 == 0 ? __fadd_rn(lo, r) : __fsub_rn(hi, r);
    }
    if (x > hi)
    {
        float const dx = __fsub_rn(x, hi);
        auto const n = static_cast<int64_t>(__fdiv_rn(dx, range));
        float const r = __fsub_rn(dx, __fmul_rn(static_cast<float>(n), range));
        return n % 2 == 0 ? __fsub_rn(hi, r) : __fadd_rn(lo, r);
    }
    return x;
}

__device__ __forceinline__ int64_t clampIndex(int64_t i, int64_t lo, int64_t hi)
{
    return i < lo ? lo : (hi < i ? hi : i);
}

//! Index `i` along `axis` after padding; -1 means "reads zero" (kFILL out of range).
__device__ __forceinline__ int64_t padIndex(int64_t i, GridAxis const& axis, SampleMode mode)
{
    if (i >= 0 && i < axis.size)
    {
        return i;
    }
    switch (mode)
    {
    case SampleMode::kCLAMP: return clampIndex(i, 0, axis.size - 1);
    case SampleMode::kREFLECT:
        return clampIndex(static_cast<int64_t>(reflect(static_cast<float>(i), axis.lo, axis.hi)), 0, axis.size - 1);
    default: return -1;
    }
}

__device__ __forceinline__ float adjust(float v, GridAxis const& axis, SampleMode mode)
{
    if (v >= axis.lo && v <= axis.hi)
    {
        return v;
    }
    if (mode == SampleMode::kCLAMP)
    {
        float const hi = static_cast<float>(axis.size - 1);
        return v < 0.0F ? 0.0F : (hi < v ? hi : v); // std::clamp's comparisons
    }
    if (mode == SampleMode::kREFLECT)
    {
        return reflect(v, axis.lo, axis.hi);
    }
    return v;
}

__device__ __forceinline__ void cubicCoefficients(float t, float (&c)[4])
{
    float const a = -0.75F;
    t = fabsf(t);
    float const t1 = t + 1.0F;
    float const t2 = 1.0F - t;
    float const t3 = 2.0F - t;
    c[0] = ((a * t1 - 5.0F * a) * t1 + 8.0F * a) * t1 - 4.0F * a;
    c[1] = ((a + 2.0F) * t - (a + 3.0F)) * t * t + 1.0F;
    c[2] = ((a + 2.0F) * t2 - (a + 3.0F)) * t2 * t2 + 1.0F;
    c[3] = ((a * t3 - 5.0F * a) * t3 + 8.0F * a) * t3 - 4.0F * a;
}

__global__ void gridSampleKernel(GridArgs a, void const* in, void const* grid, void* out, int64_t total)
{
    for (int64_t e = dev::globalThread(); e < total; e += dev::gridThreads())
    {
        int64_t const ox = e % a.wo;
        int64_t const oy = (e / a.wo) % a.ho;
        int64_t const bc = e / (a.wo * a.ho); // b * c + ch
        int64_t const b = bc / a.c;
        int64_t const g = ((b * a.ho + oy) * a.wo + ox) * 2;
        float x = denormalize(dev::loadFloat(grid, a.gridType, g), a.w, a.alignCorners);
        float y = denormalize(dev::loadFloat(grid, a.gridType, g + 1), a.h, a.alignCorners);
        if (a.mode == InterpolationMode::kNEAREST)
        {
            x = rintf(x);
            y = rintf(y);
        }
        x = adjust(x, a.ax, a.sample);
        y = adjust(y, a.ay, a.sample);
        int64_t ix[4] = {0, 0, 0, 0};
        int64_t iy[4] = {0, 0, 0, 0};
        float wx[4] = {0.0F, 0.0F, 0.0F, 0.0F};
        float wy[4] = {0.0F, 0.0F, 0.0F, 0.0F};
        int32_t taps = 1;
        if (a.mode == InterpolationMode::kNEAREST)
        {
            ix[0] = padIndex(static_cast<int64_t>(x), a.ax, a.sample);
            iy[0] = padIndex(static_cast<int64_t>(y), a.ay, a.sample);
            wx[0] = 1.0F;
            wy[0] = 1.0F;
        }
        else
        {
            float const fx = floorf(x);
            float const fy = floorf(y);
            auto const x0 = static_cast<int64_t>(fx);
            auto const y0 = static_cast<int64_t>(fy);
            if (a.mode == InterpolationMode::kLINEAR)
            {
                taps = 2;
                float const tx = fabsf(__fsub_rn(x, fx));
                float const ty = fabsf(__fsub_rn(y, fy));
                wx[0] = 1.0F - tx;
                wx[1] = tx;
                wy[0] = 1.0F - ty;
                wy[1] = ty;
                for (int32_t k = 0; k < 2; ++k)
                {
                    ix[k] = padIndex(x0 + k, a.ax, a.sample);
                    iy[k] = padIndex(y0 + k, a.ay, a.sample);
                }
            }
            else
            {
                taps = 4;
                cubicCoefficients(__fsub_rn(x, fx), wx);
                cubicCoefficients(__fsub_rn(y, fy), wy);
                for (int32_t k = 0; k < 4; ++k)
                {
                    ix[k] = padIndex(x0 - 1 + k, a.ax, a.sample);
                    iy[k] = padIndex(y0 - 1 + k, a.ay, a.sample);
                }
            }
        }
        int64_t const plane = bc * a.h * a.w;
        float acc = 0.0F;
        for (int32_t t = 0; t < taps; ++t)
        {
            float row = 0.0F;
            int64_t const yy = iy[t];
            if (yy >= 0)
            {
                for (int32_t k = 0; k < taps; ++k)
                {
                    int64_t const xx = ix[k];
                    row += wx[k] * (xx >= 0 ? dev::loadFloat(in, a.inType, plane + yy * a.w + xx) : 0.0F);
                }
            }
            acc += wy[t] * row;
        }
        dev::storeFloat(out, a.outType, e, acc);
    }
}

bool isFloatType(DataType t)
{
    return t == DataType::kFLOAT || t == DataType::kHALF || t == DataType::kBF16;
}

//! create: nothing to read (the attributes are checked with the shapes); reshape: the attributes, the checks and
//! the launch arguments; run: one launch.
class GridSampleCudaKernel final : public Kernel
{
public:
    explicit GridSampleCudaKernel(KernelSetup const& setup)
        : mSetup(setup)
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mTotal = -1;
        ReshapeViews const v = reshapeViews(mSetup, inputs, outputs);
        KILN_ASSIGN_OR_RETURN(GridSampleParams const p, makeGridSampleParams(mSetup, v.inputs, v.outputs));
        int64_t const total = outputs[0].volume();
        if (total == 0)
        {
            mTotal = 0;
            return Status::ok();
        }
        if (!isFloatType(inputs[0].type) || !isFloatType(inputs[1].type) || !isFloatType(outputs[0].type))
        {
            return gridSampleError(mSetup, "the CUDA kernel supports FLOAT, HALF and BF16 input, grid and output");
        }
        if (total != p.n * p.c * p.ho * p.wo)
        {
            return gridSampleError(mSetup, "the output shape does not match [N, C, Hout, Wout]");
        }
        GridArgs a;
        a.mode = p.mode;
        a.sample = p.sample;
        a.alignCorners = p.alignCorners;
        a.c = p.c;
        a.h = p.h;
        a.w = p.w;
        a.ho = p.ho;
        a.wo = p.wo;
        float const lo = p.alignCorners ? 0.0F : -0.5F;
        a.ay = GridAxis{p.h, lo, p.alignCorners ? static_cast<float>(p.h - 1) : static_cast<float>(p.h) - 0.5F};
        a.ax = GridAxis{p.w, lo, p.alignCorners ? static_cast<float>(p.w - 1) : static_cast<float>(p.w) - 0.5F};
        a.inType = inputs[0].type;
        a.gridType = inputs[1].type;
        a.outType = outputs[0].type;
        mArgs = a;
        mTotal = total;
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs,
        RunContext const& ctx) override
    {
        if (mTotal <= 0)
        {
            return mTotal == 0 ? Status::ok() : notReshaped(nodeLabel(mSetup, "GridSample"));
        }
        gridSampleKernel<<<gridFor(mTotal), kBLOCK, 0, ctx.stream>>>(mArgs, inputs[0].data, inputs[1].data,
            outputs[0].data, mTotal);
        return launchStatus("GridSample kernel");
    }

private:
    KernelSetup mSetup;
    GridArgs mArgs{};
    int64_t mTotal{-1};
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createGridSampleCudaKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("GridSample kernel: no plan node");
    }
    return std::unique_ptr<Kernel>(std::make_unique<GridSampleCudaKernel>(setup));
}

} // namespace kiln::cuda
