// CUDA kernel of IReduceLayer with the CPU reference's semantics (backends/cpu/kernels/reduce.cpp): kSUM, kPROD,
// kMAX, kMIN, kAVG over any axes mask, keepDims or not. Floating-point storage accumulates in double (NaN propagates
// through kMAX/kMIN); INT32/INT64 compute exactly with two's-complement wrap-around, kAVG truncating toward zero.
// Empty reductions give the identities (0, 1, lowest, highest; kAVG: NaN for floats, 0 for integers).
// One thread per output element, walking its reduced elements, for any axes; floating-point reductions of the
// trailing axes with rows of 64 or more elements (global average pools, squeeze-excitation means) run one warp per
// output with coalesced loads instead (EfficientNet-B0's first one took 6.5 ms, 850x its floor, one thread per output).
// kHWC8 input (a reader of the builder's channel-last region): kSUM/kAVG/kMAX/kMIN over H and W of an FP16/BF16
// [N, C, H, W] tensor without padding channels, stored [N, H, W, C], accumulated in float. A thread owns one 8-channel
// 16-byte vector and a slice of the pixels; a block covers up to 32 consecutive vectors (coalesced along the channels)
// and 256 / that many pixel slices, combined in shared memory; where N x the channel tiles would give too few blocks
// (few channels, many pixels: [32, 32, 112, 112]) the pixels are also split over chunks of blocks whose float partial
// results a second kernel combines in a fixed order (no atomics: deterministic). The [N, C] result is written linear,
// whose bytes are those of kHWC8 [N, C, 1, 1] (the output may be kHWC8: RegionFormat::readerOutputs).
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

//! How reduceHwc8Kernel splits an input of `vectors` 8-channel vectors per pixel and `pixels` pixels per image.
struct Hwc8Split
{
    int32_t tx{1};      //!< vectors per block (a power of two up to 32)
    int32_t slices{1};  //!< pixel slices per block (kBLOCK / tx)
    int64_t tiles{1};   //!< blocks along the vectors
    int64_t chunks{1};  //!< blocks along the pixels (> 1: float partial results, then reduceHwc8CombineKernel)
    int64_t chunkPixels{1};
};

//! Blocks reduceHwc8Kernel aims at: about 4 per SM of an H100 (132 SMs); each thread sums at least 8 pixels.
constexpr int64_t kHWC8_TARGET_BLOCKS = 512;

Hwc8Split hwc8Split(int64_t batch, int64_t pixels, int64_t vectors)
{
    Hwc8Split s;
    while (s.tx < 32 && s.tx < vectors)
    {
        s.tx *= 2;
    }
    s.slices = kBLOCK / s.tx;
    s.tiles = (vectors + s.tx - 1) / s.tx;
    int64_t const base = std::max<int64_t>(batch * s.tiles, 1);
    int64_t const byBlocks = (kHWC8_TARGET_BLOCKS + base - 1) / base;
    int64_t const byWork = std::max<int64_t>(pixels / (int64_t{s.slices} * 8), 1);
    s.chunks = std::max<int64_t>(std::min({byBlocks, byWork, int64_t{65535}}), 1);
    s.chunkPixels = (pixels + s.chunks - 1) / s.chunks;
    s.chunks = std::max<int64_t>((pixels + s.chunkPixels - 1) / s.chunkPixels, 1);
    return s;
}

__device__ __forceinline__ float combineFloat(ReduceOperation op, float a, float b)
{
    switch (op)
    {
    case ReduceOperation::kMAX: return (a != a || b != b) ? NAN : fmaxf(a, b);
    case ReduceOperation::kMIN: return (a != a || b != b) ? NAN : fminf(a, b);
    default: return a + b;
    }
}

__device__ __forceinline__ float hwc8Identity(ReduceOperation op)
{
    return op == ReduceOperation::kMAX ? -INFINITY : op == ReduceOperation::kMIN ? INFINITY : 0.F;
}

//! Block (tile, chunk, image): thread (x, y) combines vector tile * tx + x over pixels y, y + slices, ... of the
//! chunk; the block's slices are combined in shared memory; the result (scaled by `scale` for kAVG) goes to `out`
//! ([N, C] in T) when there is one chunk, else to `partial` ([N, chunks, C] float).
template <typename T>
__global__ void reduceHwc8Kernel(ReduceOperation op, int64_t batch, int64_t pixels, int64_t vectors, Hwc8Split split,
    bool aligned, float scale, T const* in, T* out, float* partial)
{
    extern __shared__ float shared[]; // [slices][8][tx]: a warp's stores hit consecutive banks
    int32_t const x = static_cast<int32_t>(threadIdx.x) % split.tx;
    int32_t const y = static_cast<int32_t>(threadIdx.x) / split.tx;
    int64_t const v = static_cast<int64_t>(blockIdx.x) * split.tx + x;
    int64_t const chunk = blockIdx.y;
    int64_t const first = chunk * split.chunkPixels;
    int64_t const last = first + split.chunkPixels < pixels ? first + split.chunkPixels : pixels;
    int64_t const channels = vectors * 8;
    for (int64_t n = blockIdx.z; n < batch; n += gridDim.z)
    {
        float acc[8];
#pragma unroll
        for (int32_t j = 0; j < 8; ++j)
        {
            acc[j] = hwc8Identity(op);
        }
        if (v < vectors)
        {
            T const* base = in + n * pixels * channels + v * 8;
            for (int64_t p = first + y; p < last; p += split.slices)
            {
                uint4 raw;
                T* e = reinterpret_cast<T*>(&raw);
                if (aligned)
                {
                    raw = *reinterpret_cast<uint4 const*>(base + p * channels);
                }
                else
                {
#pragma unroll
                    for (int32_t j = 0; j < 8; ++j)
                    {
                        e[j] = base[p * channels + j];
                    }
                }
#pragma unroll
                for (int32_t j = 0; j < 8; ++j)
                {
                    acc[j] = combineFloat(op, acc[j], static_cast<float>(e[j]));
                }
            }
        }
        int32_t const stride = split.tx; // between one thread's 8 values
        float* mine = shared + static_cast<int64_t>(y) * 8 * split.tx + x;
#pragma unroll
        for (int32_t j = 0; j < 8; ++j)
        {
            mine[j * stride] = acc[j];
        }
        __syncthreads();
        for (int32_t half = split.slices / 2; half > 0; half /= 2)
        {
            if (y < half)
            {
                float const* other = mine + static_cast<int64_t>(half) * 8 * split.tx;
#pragma unroll
                for (int32_t j = 0; j < 8; ++j)
                {
                    mine[j * stride] = combineFloat(op, mine[j * stride], other[j * stride]);
                }
            }
            __syncthreads();
        }
        if (y == 0 && v < vectors)
        {
#pragma unroll
            for (int32_t j = 0; j < 8; ++j)
            {
                if (split.chunks == 1)
                {
                    out[n * channels + v * 8 + j] = static_cast<T>(mine[j * stride] * scale);
                }
                else
                {
                    partial[(n * split.chunks + chunk) * channels + v * 8 + j] = mine[j * stride];
                }
            }
        }
        __syncthreads(); // the shared slots are reused by the next image
    }
}

//! Combines the chunks' partial results of reduceHwc8Kernel in chunk order: one thread per output element.
template <typename T>
__global__ void reduceHwc8CombineKernel(
    ReduceOperation op, int64_t batch, int64_t channels, int64_t chunks, float scale, float const* partial, T* out)
{
    for (int64_t o = dev::globalThread(); o < batch * channels; o += dev::gridThreads())
    {
        int64_t const n = o / channels;
        int64_t const c = o - n * channels;
        float acc = hwc8Identity(op);
        for (int64_t k = 0; k < chunks; ++k)
        {
            acc = combineFloat(op, acc, partial[(n * chunks + k) * channels + c]);
        }
        out[o] = static_cast<T>(acc * scale);
    }
}

template <typename T>
Status launchHwc8(ReduceOperation op, int64_t batch, int64_t pixels, int64_t channels, void const* in, void* out,
    RunContext const& ctx)
{
    int64_t const vectors = channels / 8;
    Hwc8Split const split = hwc8Split(batch, pixels, vectors);
    float const scale = op == ReduceOperation::kAVG ? 1.F / static_cast<float>(pixels) : 1.F;
    auto* partial = static_cast<float*>(ctx.workspace);
    if (split.chunks > 1 && (partial == nullptr || ctx.workspaceBytes < batch * split.chunks * channels * 4))
    {
        return internalError("Reduce kernel (kHWC8): the workspace is smaller than workspaceSize()");
    }
    bool const aligned = reinterpret_cast<uintptr_t>(in) % 16 == 0;
    dim3 const grid(static_cast<uint32_t>(split.tiles), static_cast<uint32_t>(split.chunks),
        static_cast<uint32_t>(std::min<int64_t>(batch, 65535)));
    size_t const sharedBytes = static_cast<size_t>(kBLOCK) * 8 * sizeof(float);
    reduceHwc8Kernel<T><<<grid, kBLOCK, sharedBytes, ctx.stream>>>(op, batch, pixels, vectors, split, aligned, scale,
        static_cast<T const*>(in), static_cast<T*>(out), partial);
    if (split.chunks > 1)
    {
        reduceHwc8CombineKernel<T><<<gridFor(batch * channels), kBLOCK, 0, ctx.stream>>>(op, batch, channels,
            split.chunks, scale, partial, static_cast<T*>(out));
    }
    return launchStatus("Reduce kernel (kHWC8)");
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
        mHwc8 = !mSetup.inputFormats.empty() && mSetup.inputFormats[0] == nvinfer1::TensorFormat::kHWC8;
        bool const outHwc8 = mSetup.outputFormats.size() == 1 && mSetup.outputFormats[0] == nvinfer1::TensorFormat::kHWC8;
        if (mHwc8 || outHwc8)
        {
            KILN_RETURN_IF_ERROR(reshapeHwc8(p, in, outputs[0], outHwc8));
            return Status::ok();
        }
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

    int64_t workspaceSize(std::vector<TensorView> const& inputs, std::vector<TensorView> const& /*outputs*/) const override
    {
        bool const hwc8 = !mSetup.inputFormats.empty() && mSetup.inputFormats[0] == nvinfer1::TensorFormat::kHWC8;
        if (!hwc8 || inputs.empty() || inputs[0].dims.nbDims != 4)
        {
            return 0;
        }
        // Asked at the profile's largest shapes, it must cover every smaller one: fewer images get more chunks, but
        // batch x chunks stays below batch + kTARGET_BLOCKS / tiles; fewer pixels give fewer chunks.
        nvinfer1::Dims const& d = inputs[0].dims;
        Hwc8Split const split = hwc8Split(d.d[0], d.d[2] * d.d[3], d.d[1] / 8);
        if (d.d[2] * d.d[3] < int64_t{split.slices} * 16)
        {
            return 0; // one chunk at these and all smaller shapes
        }
        int64_t const images = d.d[0] + (kHWC8_TARGET_BLOCKS + split.tiles - 1) / split.tiles;
        return images * d.d[1] * static_cast<int64_t>(sizeof(float));
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs,
        RunContext const& ctx) override
    {
        if (mOutVolume <= 0)
        {
            return mOutVolume == 0 ? Status::ok() : notReshaped(nodeLabel(mSetup, "Reduce"));
        }
        if (mHwc8)
        {
            nvinfer1::Dims const& d = inputs[0].dims;
            return inputs[0].type == DataType::kHALF
                ? launchHwc8<__half>(mOp, d.d[0], d.d[2] * d.d[3], d.d[1], inputs[0].data, outputs[0].data, ctx)
                : launchHwc8<__nv_bfloat16>(mOp, d.d[0], d.d[2] * d.d[3], d.d[1], inputs[0].data, outputs[0].data, ctx);
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
    //! The checks of a kHWC8 input (and of a kHWC8 output, which needs one): kSUM/kAVG/kMAX/kMIN over axes 2 and 3 of
    //! a 4-D FP16/BF16 tensor with whole vectors of 8 channels, the output [N, C(, 1, 1)] of the same type.
    Status reshapeHwc8(ReduceParams const& p, TensorView const& in, TensorView const& out, bool outHwc8)
    {
        if (!mHwc8)
        {
            return reduceError(mSetup, "a kHWC8 output needs a kHWC8 input");
        }
        bool const opOk = p.op == ReduceOperation::kSUM || p.op == ReduceOperation::kAVG || p.op == ReduceOperation::kMAX
            || p.op == ReduceOperation::kMIN;
        if (!opOk || p.rank != 4 || p.mask != 0b1100)
        {
            return reduceError(mSetup, "a kHWC8 input is reduced only by kSUM, kAVG, kMAX or kMIN over axes 2 and 3 "
                                       "(H and W) of a 4-D tensor");
        }
        if ((in.type != DataType::kHALF && in.type != DataType::kBF16) || out.type != in.type)
        {
            return reduceError(mSetup, std::string("a kHWC8 input must be HALF or BF16 with an output of its type, got ")
                + dataTypeName(in.type) + " -> " + dataTypeName(out.type));
        }
        if (in.dims.d[1] % 8 != 0 || (outHwc8 && out.dims.nbDims != 4))
        {
            return reduceError(mSetup, "a kHWC8 input needs whole vectors of 8 channels (got "
                + std::to_string(in.dims.d[1]) + "), and a kHWC8 output the extents [N, C, 1, 1]");
        }
        if (in.dims.d[2] * in.dims.d[3] == 0)
        {
            return reduceError(mSetup, "an empty kHWC8 reduction (H x W = 0) is not implemented");
        }
        mOp = p.op;
        mCount = p.count;
        mOutVolume = p.outVolume;
        return Status::ok();
    }

    KernelSetup mSetup;
    IndexMap mKept;
    IndexMap mReduced;
    ReduceOperation mOp{ReduceOperation::kSUM};
    int64_t mCount{0};
    int64_t mOutVolume{-1};
    bool mRows{false}; //!< reduceRowsKernel applies
    bool mHwc8{false}; //!< kHWC8 input: reduceHwc8Kernel
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
