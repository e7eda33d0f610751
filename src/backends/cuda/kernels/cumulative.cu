// CUDA kernel of ICumulativeLayer (kSUM) with the CPU reference's semantics (backends/cpu/kernels/cumulative.cpp):
// forward/reverse, inclusive/exclusive prefix sums along the axis given by input 1; floating-point sums accumulate in
// double, integer sums in int64 (INT32 results wrap as the stored type does). The axis must have host values (it is a
// build-time constant shape tensor in every network Kiln builds). Two launches: one thread per scanned line where
// lines are short or many (they fill the GPU, and with an inner stride > 1 neighbouring threads read neighbouring
// values), and one block per line for long lines that are few (GPT-2's position ids: 8 lines of 512): the block walks
// its line in tiles of kSCAN_ITEMS x 256 values; each thread scans kSCAN_ITEMS consecutive values in registers, a
// warp-shuffle scan and a scan of the warp totals give each thread its offset within the tile, and the running total
// of the earlier tiles is carried on. Integer sums (int64, wrapping) are exact in any order, so both launches give
// the CPU's results bit for bit; floating-point partial sums (double) differ from the CPU's sequential order only by
// double rounding before the store.
#include "backends/common/cumulativeParams.h"
#include "backends/cuda/kernels/cudaKernelFactories.h"
#include "backends/cuda/kernels/kernelCommon.cuh"

#include <algorithm>

namespace kiln::cuda
{
using nvinfer1::CumulativeOperation;
using nvinfer1::DataType;

namespace
{

__global__ void cumulativeKernel(int64_t lines, int64_t n, int64_t inner, bool exclusive, bool reverse, void const* in,
    void* out, DataType t)
{
    bool const isFloat = t == DataType::kFLOAT || t == DataType::kHALF || t == DataType::kBF16;
    for (int64_t line = dev::globalThread(); line < lines; line += dev::gridThreads())
    {
        int64_t const base = (line / inner) * n * inner + line % inner;
        double sumF = 0.0;
        int64_t sumI = 0;
        for (int64_t step = 0; step < n; ++step)
        {
            int64_t const j = reverse ? n - 1 - step : step;
            int64_t const at = base + j * inner;
            if (isFloat)
            {
                double const x = static_cast<double>(dev::loadFloat(in, t, at));
                if (!exclusive)
                {
                    sumF += x;
                }
                dev::storeFloat(out, t, at, static_cast<float>(sumF));
                if (exclusive)
                {
                    sumF += x;
                }
            }
            else
            {
                int64_t const x = dev::loadInt(in, t, at);
                if (!exclusive)
                {
                    sumI = static_cast<int64_t>(static_cast<uint64_t>(sumI) + static_cast<uint64_t>(x));
                }
                dev::storeInt(out, t, at, sumI);
                if (exclusive)
                {
                    sumI = static_cast<int64_t>(static_cast<uint64_t>(sumI) + static_cast<uint64_t>(x));
                }
            }
        }
    }
}

constexpr int32_t kSCAN_ITEMS = 8;  //!< consecutive values of a line per thread and tile
constexpr int32_t kSCAN_BLOCK = 256; //!< threads of a line's block
constexpr int32_t kSCAN_WARPS = kSCAN_BLOCK / 32;

//! Adds in int64 with two's-complement wrapping (the CPU reference's integer sum).
__device__ __forceinline__ int64_t wrapAdd(int64_t a, int64_t b)
{
    return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
__device__ __forceinline__ double wrapAdd(double a, double b)
{
    return a + b;
}

template <typename Acc>
__device__ __forceinline__ Acc loadAcc(void const* in, DataType t, int64_t at);
template <>
__device__ __forceinline__ double loadAcc<double>(void const* in, DataType t, int64_t at)
{
    return static_cast<double>(dev::loadFloat(in, t, at));
}
template <>
__device__ __forceinline__ int64_t loadAcc<int64_t>(void const* in, DataType t, int64_t at)
{
    return dev::loadInt(in, t, at);
}
__device__ __forceinline__ void storeAcc(void* out, DataType t, int64_t at, double v)
{
    dev::storeFloat(out, t, at, static_cast<float>(v));
}
__device__ __forceinline__ void storeAcc(void* out, DataType t, int64_t at, int64_t v)
{
    dev::storeInt(out, t, at, v);
}

//! One block per line (grid-stride over lines): Acc is double for float types, int64 for integers.
template <typename Acc>
__global__ void __launch_bounds__(kSCAN_BLOCK) cumulativeLineKernel(int64_t lines, int64_t n, int64_t inner,
    bool exclusive, bool reverse, void const* in, void* out, DataType t)
{
    __shared__ Acc warpTotals[kSCAN_WARPS];
    __shared__ Acc tileTotal;
    int32_t const lane = static_cast<int32_t>(threadIdx.x) % 32;
    int32_t const warp = static_cast<int32_t>(threadIdx.x) / 32;
    constexpr int64_t kTILE = int64_t{kSCAN_ITEMS} * kSCAN_BLOCK;
    for (int64_t line = blockIdx.x; line < lines; line += gridDim.x)
    {
        int64_t const base = (line / inner) * n * inner + line % inner;
        Acc carry{};
        for (int64_t tile = 0; tile < n; tile += kTILE)
        {
            // Steps (in scan order) of this thread: tile + threadIdx.x * kSCAN_ITEMS + i.
            int64_t const first = tile + int64_t{threadIdx.x} * kSCAN_ITEMS;
            Acc v[kSCAN_ITEMS];
            Acc own{};
#pragma unroll
            for (int32_t i = 0; i < kSCAN_ITEMS; ++i)
            {
                int64_t const step = first + i;
                v[i] = Acc{};
                if (step < n)
                {
                    v[i] = loadAcc<Acc>(in, t, base + (reverse ? n - 1 - step : step) * inner);
                }
                own = wrapAdd(own, v[i]);
            }
            // Inclusive warp scan of the threads' totals, then the warp totals' scan by warp 0.
            Acc scan = own;
#pragma unroll
            for (int32_t d = 1; d < 32; d *= 2)
            {
                Acc const up = __shfl_up_sync(0xffffffffU, scan, d);
                if (lane >= d)
                {
                    scan = wrapAdd(scan, up);
                }
            }
            if (lane == 31)
            {
                warpTotals[warp] = scan;
            }
            __syncthreads();
            if (warp == 0)
            {
                Acc total = lane < kSCAN_WARPS ? warpTotals[lane] : Acc{};
#pragma unroll
                for (int32_t d = 1; d < kSCAN_WARPS; d *= 2)
                {
                    Acc const up = __shfl_up_sync(0xffffffffU, total, d);
                    if (lane >= d)
                    {
                        total = wrapAdd(total, up);
                    }
                }
                if (lane < kSCAN_WARPS)
                {
                    warpTotals[lane] = total; // inclusive
                }
                if (lane == kSCAN_WARPS - 1)
                {
                    tileTotal = total;
                }
            }
            __syncthreads();
            Acc before = __shfl_up_sync(0xffffffffU, scan, 1); // the warp's earlier threads' total
            if (lane == 0)
            {
                before = Acc{};
            }
            Acc running = wrapAdd(carry, wrapAdd(warp > 0 ? warpTotals[warp - 1] : Acc{}, before));
#pragma unroll
            for (int32_t i = 0; i < kSCAN_ITEMS; ++i)
            {
                int64_t const step = first + i;
                if (step < n)
                {
                    if (!exclusive)
                    {
                        running = wrapAdd(running, v[i]);
                    }
                    storeAcc(out, t, base + (reverse ? n - 1 - step : step) * inner, running);
                    if (exclusive)
                    {
                        running = wrapAdd(running, v[i]);
                    }
                }
            }
            carry = wrapAdd(carry, tileTotal);
            __syncthreads(); // warpTotals and tileTotal are rewritten by the next tile
        }
    }
}

//! Whether one block per line beats one thread per line: lines of 64 values or more that are too few to fill the GPU
//! with a thread each (fewer than 32 Ki lines).
bool blockPerLine(int64_t lines, int64_t n)
{
    return n >= 64 && lines < 32768;
}

//! create: nothing to read (the attributes come with the axis input); reshape: the attributes, the axis's host
//! value, the checks and the geometry; run: one launch.
class CumulativeCudaKernel final : public Kernel
{
public:
    explicit CumulativeCudaKernel(KernelSetup const& setup)
        : mSetup(setup)
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mLines = -1;
        ReshapeViews const v = reshapeViews(mSetup, inputs, outputs);
        KILN_ASSIGN_OR_RETURN(mParams, makeCumulativeParams(mSetup, v.inputs, v.outputs, false));
        DataType const t = inputs[0].type;
        if (!ew::isFloatKernelType(t) && t != DataType::kINT32 && t != DataType::kINT64)
        {
            return cumulativeError(mSetup, std::string("type ") + dataTypeName(t) + " is not supported");
        }
        mLines = mParams.n == 0 ? 0 : mParams.outer * mParams.inner;
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs,
        RunContext const& ctx) override
    {
        if (mLines <= 0)
        {
            return mLines == 0 ? Status::ok() : notReshaped(nodeLabel(mSetup, "Cumulative"));
        }
        DataType const t = inputs[0].type;
        if (blockPerLine(mLines, mParams.n))
        {
            auto const grid = static_cast<unsigned int>(std::min<int64_t>(mLines, 65535));
            bool const isFloat = t == DataType::kFLOAT || t == DataType::kHALF || t == DataType::kBF16;
            if (isFloat)
            {
                cumulativeLineKernel<double><<<grid, kSCAN_BLOCK, 0, ctx.stream>>>(mLines, mParams.n,
                    mParams.inner, mParams.exclusive, mParams.reverse, inputs[0].data, outputs[0].data, t);
            }
            else
            {
                cumulativeLineKernel<int64_t><<<grid, kSCAN_BLOCK, 0, ctx.stream>>>(mLines, mParams.n,
                    mParams.inner, mParams.exclusive, mParams.reverse, inputs[0].data, outputs[0].data, t);
            }
            return launchStatus("Cumulative kernel (a block per line)");
        }
        cumulativeKernel<<<gridFor(mLines), kBLOCK, 0, ctx.stream>>>(mLines, mParams.n, mParams.inner,
            mParams.exclusive, mParams.reverse, inputs[0].data, outputs[0].data, t);
        return launchStatus("Cumulative kernel");
    }

private:
    KernelSetup mSetup;
    CumulativeParams mParams;
    int64_t mLines{-1};
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createCumulativeCudaKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("Cumulative kernel: no plan node");
    }
    return std::unique_ptr<Kernel>(std::make_unique<CumulativeCudaKernel>(setup));
}

} // namespace kiln::cuda
