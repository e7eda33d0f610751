// CUDA kernel of IReduceLayer with the CPU reference's semantics (backends/cpu/kernels/reduce.cpp): kSUM, kPROD,
// kMAX, kMIN, kAVG over any axes mask, keepDims or not. Floating-point storage accumulates in double (NaN propagates
// through kMAX/kMIN); INT32/INT64 compute exactly with two's-complement wrap-around, kAVG truncating toward zero.
// Empty reductions give the identities (0, 1, lowest, highest; kAVG: NaN for floats, 0 for integers).
// One thread per output element, walking its reduced elements, for any axes; floating-point reductions of the
// trailing axes with rows of 64 or more elements (global average pools, squeeze-excitation means) run one warp per
// output with coalesced loads instead (EfficientNet-B0's first one took 6.5 ms, 850x its floor, one thread per output).
#include "backends/common/reduceParams.h"
#include "backends/cuda/kernels/cudaKernelFactories.h"
#include "backends/cuda/kernels/kernelCommon.cuh"

#include <algorithm>

namespace kiln::cuda
{
using nvinfer1::DataType;
using nvinfer1::ReduceOperation;

namespace
{

__global__ void reduceKernel(ReduceOperation op, IndexMap kept, IndexMap reduced, int64_t outVolume, int64_t count,
    void const* in, void* out, DataType t)
{
    bool const isFloat = t == DataType::kFLOAT || t == DataType::kHALF || t == DataType::kBF16;
    for (int64_t o = dev::globalThread(); o < outVolume; o += dev::gridThreads())
    {
        int64_t base[kMAX_OPERANDS];
        mapOffsets(kept, o, base);
        if (isFloat)
        {
            double acc = op == ReduceOperation::kPROD ? 1.0
                : op == ReduceOperation::kMAX        ? -INFINITY
                : op == ReduceOperation::kMIN        ? INFINITY
                                                     : 0.0;
            for (int64_t r = 0; r < count; ++r)
            {
                int64_t off[kMAX_OPERANDS];
                mapOffsets(reduced, r, off);
                double const v = static_cast<double>(dev::loadFloat(in, t, base[0] + off[0]));
                switch (op)
                {
                case ReduceOperation::kPROD: acc *= v; break;
                case ReduceOperation::kMAX: acc = (acc != acc || v != v) ? NAN : (v > acc ? v : acc); break;
                case ReduceOperation::kMIN: acc = (acc != acc || v != v) ? NAN : (v < acc ? v : acc); break;
                default: acc += v; break;
                }
            }
            if (op == ReduceOperation::kAVG)
            {
                acc = count == 0 ? NAN : acc / static_cast<double>(count);
            }
            dev::storeFloat(out, t, o, static_cast<float>(acc));
            continue;
        }
        bool const is32 = t == DataType::kINT32;
        int64_t acc = op == ReduceOperation::kPROD ? 1
            : op == ReduceOperation::kMAX          ? (is32 ? -2147483648LL : (-0x7fffffffffffffffLL - 1))
            : op == ReduceOperation::kMIN          ? (is32 ? 2147483647LL : 0x7fffffffffffffffLL)
                                                   : 0;
        for (int64_t r = 0; r < count; ++r)
        {
            int64_t off[kMAX_OPERANDS];
            mapOffsets(reduced, r, off);
            int64_t const v = dev::loadInt(in, t, base[0] + off[0]);
            switch (op)
            {
            case ReduceOperation::kPROD: acc = static_cast<int64_t>(static_cast<uint64_t>(acc) * static_cast<uint64_t>(v)); break;
            case ReduceOperation::kMAX: acc = v > acc ? v : acc; break;
            case ReduceOperation::kMIN: acc = v < acc ? v : acc; break;
            default: acc = static_cast<int64_t>(static_cast<uint64_t>(acc) + static_cast<uint64_t>(v)); break;
            }
        }
        if (op == ReduceOperation::kAVG)
        {
            acc = count == 0 ? 0 : acc / count;
        }
        dev::storeInt(out, t, o, acc); // narrower types wrap, as the CPU's per-step wrap-around
    }
}

//! Combines two partial results of `op` with reduceKernel's semantics (NaN propagates through kMAX/kMIN).
__device__ __forceinline__ double combine(ReduceOperation op, double a, double b)
{
    switch (op)
    {
    case ReduceOperation::kPROD: return a * b;
    case ReduceOperation::kMAX: return (a != a || b != b) ? NAN : (b > a ? b : a);
    case ReduceOperation::kMIN: return (a != a || b != b) ? NAN : (b < a ? b : a);
    default: return a + b;
    }
}

//! Floating-point reductions over the contiguous trailing axes (a global average pool, a squeeze-excitation mean):
//! one warp per output, the lanes striding over the row with coalesced loads, partial results combined by shuffles;
//! the same double accumulation as reduceKernel.
__global__ void reduceRowsKernel(ReduceOperation op, int64_t rows, int64_t count, void const* in, void* out, DataType t)
{
    int64_t const lane = threadIdx.x & 31;
    int64_t const warps = (static_cast<int64_t>(gridDim.x) * blockDim.x) >> 5;
    double const identity = op == ReduceOperation::kPROD ? 1.0
        : op == ReduceOperation::kMAX                    ? -INFINITY
        : op == ReduceOperation::kMIN                    ? INFINITY
                                                         : 0.0;
    for (int64_t row = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5; row < rows; row += warps)
    {
        double acc = identity;
        for (int64_t r = lane; r < count; r += 32)
        {
            acc = combine(op, acc, static_cast<double>(dev::loadFloat(in, t, row * count + r)));
        }
        for (int32_t offset = 16; offset > 0; offset >>= 1)
        {
            acc = combine(op, acc, __shfl_xor_sync(0xffffffffU, acc, offset));
        }
        if (lane == 0)
        {
            if (op == ReduceOperation::kAVG)
            {
                acc = acc / static_cast<double>(count);
            }
            dev::storeFloat(out, t, row, static_cast<float>(acc));
        }
    }
}

//! create: nothing to read (the attributes are checked with the shapes); reshape: the attributes, the checks and the
//! index maps of the kept and the reduced dimensions; run: one launch.
class ReduceCudaKernel final : public Kernel
{
public:
    explicit ReduceCudaKernel(KernelSetup const& setup)
        : mSetup(setup)
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mOutVolume = -1;
        ReshapeViews const v = reshapeViews(mSetup, inputs, outputs);
        KILN_ASSIGN_OR_RETURN(ReduceParams const p, makeReduceParams(mSetup, v.inputs, v.outputs));
        TensorView const& in = inputs[0];
        bool const supported
            = ew::isFloatKernelType(in.type) || in.type == DataType::kINT32 || in.type == DataType::kINT64;
        if (!supported)
        {
            return reduceError(mSetup, std::string("type ") + dataTypeName(in.type) + " is not supported");
        }
        std::vector<int64_t> const strides = contiguousStrides(in.dims);
        IndexMap kept;
        IndexMap reduced;
        for (int32_t d = 0; d < p.rank; ++d)
        {
            int64_t const e = in.dims.d[d];
            if ((p.mask >> d) & 1)
            {
                reduced.dims[reduced.rank] = e;
                reduced.strides[0][reduced.rank++] = strides[static_cast<size_t>(d)];
            }
            else
            {
                kept.dims[kept.rank] = e;
                kept.strides[0][kept.rank++] = strides[static_cast<size_t>(d)];
            }
        }
        // Float reductions of the trailing axes with long rows: a warp per output.
        bool trailing = p.rank > 0;
        for (int32_t d = 0; d < p.rank; ++d)
        {
            bool const isReduced = ((p.mask >> d) & 1) != 0;
            bool const anyReducedBefore = (p.mask & ((int64_t{1} << d) - 1)) != 0;
            trailing = trailing && !(anyReducedBefore && !isReduced);
        }
        mRows = trailing && ew::isFloatKernelType(in.type) && p.count >= 64;
        mKept = kept;
        mReduced = reduced;
        mOp = p.op;
        mCount = p.count;
        mOutVolume = p.outVolume;
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs,
        RunContext const& ctx) override
    {
        if (mOutVolume <= 0)
        {
            return mOutVolume == 0 ? Status::ok() : notReshaped(nodeLabel(mSetup, "Reduce"));
        }
        if (mRows)
        {
            int64_t const blocks = std::min<int64_t>((mOutVolume * 32 + kBLOCK - 1) / kBLOCK, int64_t{1} << 20);
            reduceRowsKernel<<<static_cast<uint32_t>(blocks), kBLOCK, 0, ctx.stream>>>(mOp, mOutVolume, mCount,
                inputs[0].data, outputs[0].data, inputs[0].type);
            return launchStatus("Reduce kernel");
        }
        reduceKernel<<<gridFor(mOutVolume), kBLOCK, 0, ctx.stream>>>(mOp, mKept, mReduced, mOutVolume, mCount,
            inputs[0].data, outputs[0].data, inputs[0].type);
        return launchStatus("Reduce kernel");
    }

private:
    KernelSetup mSetup;
    IndexMap mKept;
    IndexMap mReduced;
    ReduceOperation mOp{ReduceOperation::kSUM};
    int64_t mCount{0};
    int64_t mOutVolume{-1};
    bool mRows{false}; //!< reduceRowsKernel applies
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createReduceCudaKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("Reduce kernel: no plan node");
    }
    return std::unique_ptr<Kernel>(std::make_unique<ReduceCudaKernel>(setup));
}

} // namespace kiln::cuda
