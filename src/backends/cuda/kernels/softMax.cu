// CUDA kernel of ISoftMaxLayer with the CPU reference's semantics (backends/cpu/kernels/softMax.cpp): numerically
// stable softmax (max subtracted) along one axis, FP16/BF16 storage computed in float. The sum accumulates in
// float here (the CPU uses double). Softmax over the innermost axis (attention's) runs one warp per row with
// coalesced accesses and the row in registers; other axes run one thread per slice.
#include "backends/common/softMaxParams.h"
#include "backends/cuda/kernels/cudaKernelFactories.h"
#include "backends/cuda/kernels/kernelCommon.cuh"

#include <algorithm>

namespace kiln::cuda
{
using nvinfer1::DataType;

namespace
{

__global__ void softMaxKernel(int64_t slices, int64_t n, int64_t inner, void const* in, void* out, DataType t)
{
    for (int64_t s = dev::globalThread(); s < slices; s += dev::gridThreads())
    {
        int64_t const base = (s / inner) * n * inner + s % inner;
        float maxValue = -INFINITY;
        for (int64_t j = 0; j < n; ++j)
        {
            float const x = dev::loadFloat(in, t, base + j * inner);
            maxValue = x > maxValue ? x : maxValue;
        }
        float sum = 0.F;
        for (int64_t j = 0; j < n; ++j)
        {
            sum += expf(dev::loadFloat(in, t, base + j * inner) - maxValue);
        }
        float const scale = 1.F / sum;
        for (int64_t j = 0; j < n; ++j)
        {
            dev::storeFloat(out, t, base + j * inner, expf(dev::loadFloat(in, t, base + j * inner) - maxValue) * scale);
        }
    }
}

constexpr int32_t kSOFTMAX_CACHE = 8; //!< values per lane the row kernel keeps in registers

__device__ __forceinline__ float warpMax(float v)
{
    for (int32_t offset = 16; offset > 0; offset >>= 1)
    {
        v = fmaxf(v, __shfl_xor_sync(0xffffffffU, v, offset));
    }
    return v;
}

__device__ __forceinline__ float warpSum(float v)
{
    for (int32_t offset = 16; offset > 0; offset >>= 1)
    {
        v += __shfl_xor_sync(0xffffffffU, v, offset);
    }
    return v;
}

//! The softmax axis is the innermost (inner == 1): one warp per row, coalesced accesses, the first
//! 32 * kSOFTMAX_CACHE values of the row kept in registers; the same arithmetic as softMaxKernel.
__global__ void softMaxRowsKernel(int64_t rows, int64_t n, void const* in, void* out, DataType t)
{
    int64_t const lane = threadIdx.x & 31;
    int64_t const warps = (static_cast<int64_t>(gridDim.x) * blockDim.x) >> 5;
    int64_t const cached = 32 * kSOFTMAX_CACHE;
    for (int64_t row = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5; row < rows; row += warps)
    {
        int64_t const base = row * n;
        float v[kSOFTMAX_CACHE];
        float maxValue = -INFINITY;
#pragma unroll
        for (int32_t i = 0; i < kSOFTMAX_CACHE; ++i)
        {
            int64_t const j = lane + 32 * i;
            v[i] = j < n ? dev::loadFloat(in, t, base + j) : -INFINITY;
            maxValue = v[i] > maxValue ? v[i] : maxValue;
        }
        for (int64_t j = lane + cached; j < n; j += 32)
        {
            float const x = dev::loadFloat(in, t, base + j);
            maxValue = x > maxValue ? x : maxValue;
        }
        maxValue = warpMax(maxValue);
        float sum = 0.F;
#pragma unroll
        for (int32_t i = 0; i < kSOFTMAX_CACHE; ++i)
        {
            v[i] = lane + 32 * i < n ? expf(v[i] - maxValue) : 0.F;
            sum += v[i];
        }
        for (int64_t j = lane + cached; j < n; j += 32)
        {
            sum += expf(dev::loadFloat(in, t, base + j) - maxValue);
        }
        float const scale = 1.F / warpSum(sum);
#pragma unroll
        for (int32_t i = 0; i < kSOFTMAX_CACHE; ++i)
        {
            int64_t const j = lane + 32 * i;
            if (j < n)
            {
                dev::storeFloat(out, t, base + j, v[i] * scale);
            }
        }
        for (int64_t j = lane + cached; j < n; j += 32)
        {
            dev::storeFloat(out, t, base + j, expf(dev::loadFloat(in, t, base + j) - maxValue) * scale);
        }
    }
}

//! create: nothing to read (the axis is checked with the shapes); reshape: the attribute, the checks and the
//! geometry; run: one launch.
class SoftMaxCudaKernel final : public Kernel
{
public:
    explicit SoftMaxCudaKernel(KernelSetup const& setup)
        : mSetup(setup)
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mSlices = -1;
        ReshapeViews const v = reshapeViews(mSetup, inputs, outputs);
        KILN_ASSIGN_OR_RETURN(mParams, makeSoftMaxParams(mSetup, v.inputs, v.outputs));
        if (!ew::isFloatKernelType(inputs[0].type))
        {
            return softMaxError(mSetup, std::string("type ") + dataTypeName(inputs[0].type) + " is not supported");
        }
        mSlices = mParams.n == 0 ? 0 : mParams.outer * mParams.inner;
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs,
        RunContext const& ctx) override
    {
        if (mSlices <= 0)
        {
            return mSlices == 0 ? Status::ok() : notReshaped(nodeLabel(mSetup, "SoftMax"));
        }
        if (mParams.inner == 1)
        {
            int64_t const blocks = std::min<int64_t>((mSlices * 32 + kBLOCK - 1) / kBLOCK, int64_t{1} << 20);
            softMaxRowsKernel<<<static_cast<uint32_t>(blocks), kBLOCK, 0, ctx.stream>>>(mSlices, mParams.n,
                inputs[0].data, outputs[0].data, inputs[0].type);
            return launchStatus("SoftMax kernel");
        }
        softMaxKernel<<<gridFor(mSlices), kBLOCK, 0, ctx.stream>>>(mSlices, mParams.n, mParams.inner, inputs[0].data,
            outputs[0].data, inputs[0].type);
        return launchStatus("SoftMax kernel");
    }

private:
    KernelSetup mSetup;
    SoftMaxParams mParams;
    int64_t mSlices{-1};
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createSoftMaxCudaKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("SoftMax kernel: no plan node");
    }
    return std::unique_ptr<Kernel>(std::make_unique<SoftMaxCudaKernel>(setup));
}

} // namespace kiln::cuda
