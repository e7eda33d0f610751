// CUDA kernel of INormalizationLayer with the CPU reference's semantics (backends/cpu/kernels/normalization.cpp):
// y = (x - mean) / sqrt(var + eps) * scale + bias, mean and biased variance over the masked axes and, with
// nbGroups > 1, over the channels (axis 1) of each group; statistics in two passes in double; FP16/BF16 storage
// through float. One block per statistics key (a row of layer norm, a group of group norm, a channel of instance
// norm); its threads share the members and reduce in double with warp shuffles. Layer norm over contiguous trailing
// axes with per-member scale and bias (BERT's, ViT's) takes a leaner kernel with the same arithmetic: the row's
// values stay in registers between the passes and no index map is evaluated. FP16/BF16 rows of at most 1,024 members
// (a multiple of 8) run one warp per row with 16-byte accesses and float statistics: the layer norms of BERT-sized
// transformers, which the block-per-row kernel ran at 14x their memory floor. Its scale and bias are read as 16-byte
// vectors (FP32, FP16 or BF16, one type switch per vector rather than per element).
// The fused residual form ("fuse.residualNorm", normalizationParams.h): the warp-per-row kernel reads x and the
// residual r (of x's shape, or a row block repeating over the leading axes), rounds x + r to the storage type as the
// unfused addition would, normalises the rounded row and writes y and, when the node outputs it, the sum: one pass,
// (2 inputs + 2 outputs) x rows x members x 2 bytes. Shapes the warp kernel does not serve (FP32, long rows,
// misaligned pointers, other broadcasts) add first (residualAddKernel, into the sum output or the workspace) and then
// normalise the sum with the kernels above.
#include "backends/common/normalizationParams.h"
#include "backends/cuda/kernels/cudaKernelFactories.h"
#include "backends/cuda/kernels/kernelCommon.cuh"
#include "backends/cuda/kernels/vector8.cuh"
#include "core/dataType.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>

namespace kiln::cuda
{
using nvinfer1::DataType;

namespace
{

constexpr int32_t kNORM_BLOCK = 256;

constexpr int32_t kROW_CACHE = 8;    //!< values per thread the row kernel keeps in registers
constexpr int32_t kROW_THREADS = 512; //!< the row kernel's largest block (longer rows re-read their tail)

//! Sum of `v` over the block (every thread gets it). Called by all threads of the block; `shared` holds 32 doubles.
__device__ double blockSum(double v, double* shared)
{
    for (int32_t offset = 16; offset > 0; offset >>= 1)
    {
        v += __shfl_down_sync(0xffffffffU, v, offset);
    }
    int32_t const lane = static_cast<int32_t>(threadIdx.x) & 31;
    int32_t const warp = static_cast<int32_t>(threadIdx.x) >> 5;
    if (lane == 0)
    {
        shared[warp] = v;
    }
    __syncthreads();
    if (warp == 0)
    {
        double total = lane < static_cast<int32_t>(blockDim.x) / 32 ? shared[lane] : 0.0;
        for (int32_t offset = 16; offset > 0; offset >>= 1)
        {
            total += __shfl_down_sync(0xffffffffU, total, offset);
        }
        if (lane == 0)
        {
            shared[0] = total;
        }
    }
    __syncthreads();
    double const total = shared[0];
    __syncthreads(); // `shared` is reused by the next call
    return total;
}

//! One block per statistics key; its threads share the key's members. Operand 0: x (and y), 1: scale, 2: bias.
__global__ void normalizationKernel(IndexMap keyMap, IndexMap memberMap, int64_t keys, int64_t members, double eps,
    void const* x, void const* scale, DataType ts, void const* bias, DataType tb, void* y, DataType t)
{
    __shared__ double shared[32];
    for (int64_t key = blockIdx.x; key < keys; key += gridDim.x)
    {
        int64_t base[kMAX_OPERANDS];
        mapOffsets(keyMap, key, base);
        double sum = 0.0;
        for (int64_t m = threadIdx.x; m < members; m += blockDim.x)
        {
            int64_t off[kMAX_OPERANDS];
            mapOffsets(memberMap, m, off);
            sum += static_cast<double>(dev::loadFloat(x, t, base[0] + off[0]));
        }
        double const mean = blockSum(sum, shared) / static_cast<double>(members);
        double squares = 0.0;
        for (int64_t m = threadIdx.x; m < members; m += blockDim.x)
        {
            int64_t off[kMAX_OPERANDS];
            mapOffsets(memberMap, m, off);
            double const diff = static_cast<double>(dev::loadFloat(x, t, base[0] + off[0])) - mean;
            squares += diff * diff;
        }
        double const var = blockSum(squares, shared) / static_cast<double>(members);
        double const invStd = 1.0 / sqrt(var + eps);
        for (int64_t m = threadIdx.x; m < members; m += blockDim.x)
        {
            int64_t off[kMAX_OPERANDS];
            mapOffsets(memberMap, m, off);
            int64_t const xi = base[0] + off[0];
            double const normalized = (static_cast<double>(dev::loadFloat(x, t, xi)) - mean) * invStd;
            double const value = normalized * static_cast<double>(dev::loadFloat(scale, ts, base[1] + off[1]))
                + static_cast<double>(dev::loadFloat(bias, tb, base[2] + off[2]));
            dev::storeFloat(y, t, xi, static_cast<float>(value));
        }
    }
}

//! Layer norm of contiguous rows of `members` values with scale and bias indexed by the member: one block per row, the
//! first kROW_CACHE * blockDim.x values of the row cached in registers, statistics in double as normalizationKernel.
__global__ void __launch_bounds__(kROW_THREADS) normalizationRowsKernel(int64_t rows, int64_t members, double eps, void const* x, void const* scale,
    DataType ts, void const* bias, DataType tb, void* y, DataType t)
{
    __shared__ double shared[32];
    int64_t const step = blockDim.x;
    int64_t const cached = kROW_CACHE * step;
    for (int64_t row = blockIdx.x; row < rows; row += gridDim.x)
    {
        int64_t const base = row * members;
        float v[kROW_CACHE];
        double sum = 0.0;
#pragma unroll
        for (int32_t i = 0; i < kROW_CACHE; ++i)
        {
            int64_t const m = threadIdx.x + i * step;
            v[i] = m < members ? dev::loadFloat(x, t, base + m) : 0.F;
            sum += static_cast<double>(v[i]);
        }
        for (int64_t m = threadIdx.x + cached; m < members; m += step)
        {
            sum += static_cast<double>(dev::loadFloat(x, t, base + m));
        }
        double const mean = blockSum(sum, shared) / static_cast<double>(members);
        double squares = 0.0;
#pragma unroll
        for (int32_t i = 0; i < kROW_CACHE; ++i)
        {
            double const diff = static_cast<double>(v[i]) - mean;
            squares += threadIdx.x + i * step < members ? diff * diff : 0.0;
        }
        for (int64_t m = threadIdx.x + cached; m < members; m += step)
        {
            double const diff = static_cast<double>(dev::loadFloat(x, t, base + m)) - mean;
            squares += diff * diff;
        }
        double const invStd = 1.0 / sqrt(blockSum(squares, shared) / static_cast<double>(members) + eps);
        auto const finish = [&](int64_t m, float value) {
            double const normalized = (static_cast<double>(value) - mean) * invStd;
            double const out = normalized * static_cast<double>(dev::loadFloat(scale, ts, m))
                + static_cast<double>(dev::loadFloat(bias, tb, m));
            dev::storeFloat(y, t, base + m, static_cast<float>(out));
        };
#pragma unroll
        for (int32_t i = 0; i < kROW_CACHE; ++i)
        {
            int64_t const m = threadIdx.x + i * step;
            if (m < members)
            {
                finish(m, v[i]);
            }
        }
        for (int64_t m = threadIdx.x + cached; m < members; m += step)
        {
            finish(m, dev::loadFloat(x, t, base + m));
        }
    }
}

constexpr int32_t kWARP_ROW_VECTORS = 4; //!< 16-byte vectors per lane in the warp-per-row kernel (rows up to 1,024)
constexpr int32_t kWARP_ROWS_PER_BLOCK = 4;

//! Elements 8 * vec .. 8 * vec + 7 of a dense FP32, FP16 or BF16 vector (16-byte aligned) as float.
__device__ __forceinline__ void loadEight(void const* p, DataType t, int32_t vec, float (&out)[kVECTOR8])
{
    if (t == DataType::kFLOAT)
    {
        float4 const* f = reinterpret_cast<float4 const*>(p) + 2 * vec;
        float4 const pair[2] = {f[0], f[1]};
        float const* v = reinterpret_cast<float const*>(pair);
#pragma unroll
        for (int32_t j = 0; j < kVECTOR8; ++j)
        {
            out[j] = v[j];
        }
        return;
    }
    uint4 const raw = reinterpret_cast<uint4 const*>(p)[vec];
    if (t == DataType::kHALF)
    {
        unpack8<__half>(raw, out);
    }
    else
    {
        unpack8<__nv_bfloat16>(raw, out);
    }
}

//! Layer norm of short FP16/BF16 rows (members a multiple of 8, at most 32 · 8 · kWARP_ROW_VECTORS): one warp per row,
//! 16-byte loads and stores, the row in registers, statistics in float (mean, then the squared deviations from it);
//! scale and bias dense over the row, 16-byte aligned. What BERT-sized models run (768 or 1,024 members). With
//! `residual` (not null), the row is x + r rounded to T, r's row being row % residualRows; `sumRows` (may be null) gets it.
template <typename T>
__global__ void __launch_bounds__(32 * kWARP_ROWS_PER_BLOCK) normalizationWarpRowsKernel(int64_t rows, int32_t members,
    float eps, T const* x, void const* scale, DataType ts, void const* bias, DataType tb, T* y, T const* residual,
    int64_t residualRows, T* sumRows)
{
    constexpr int32_t kLANES = 32;
    int32_t const lane = threadIdx.x & 31;
    int64_t const row = static_cast<int64_t>(blockIdx.x) * kWARP_ROWS_PER_BLOCK + (threadIdx.x >> 5);
    if (row >= rows)
    {
        return;
    }
    int32_t const vectors = members / 8;
    uint4 raw[kWARP_ROW_VECTORS];
    float sum = 0.F;
    uint4 const* in = reinterpret_cast<uint4 const*>(x + row * members);
    uint4 const* res = residual != nullptr ? reinterpret_cast<uint4 const*>(residual + (row % residualRows) * members)
                                           : nullptr;
    uint4* sumOut = sumRows != nullptr ? reinterpret_cast<uint4*>(sumRows + row * members) : nullptr;
#pragma unroll
    for (int32_t i = 0; i < kWARP_ROW_VECTORS; ++i)
    {
        int32_t const vec = lane + i * kLANES;
        raw[i] = vec < vectors ? in[vec] : make_uint4(0, 0, 0, 0);
        T* e = reinterpret_cast<T*>(&raw[i]);
        if (res != nullptr && vec < vectors)
        {
            uint4 const other = res[vec];
            T const* o = reinterpret_cast<T const*>(&other);
#pragma unroll
            for (int32_t j = 0; j < 8; ++j)
            {
                e[j] = static_cast<T>(static_cast<float>(e[j]) + static_cast<float>(o[j]));
            }
            if (sumOut != nullptr)
            {
                sumOut[vec] = raw[i];
            }
        }
#pragma unroll
        for (int32_t j = 0; j < 8; ++j)
        {
            sum += static_cast<float>(e[j]);
        }
    }
    for (int32_t offset = 16; offset > 0; offset >>= 1)
    {
        sum += __shfl_xor_sync(0xffffffffU, sum, offset);
    }
    float const mean = sum / static_cast<float>(members);
    float squares = 0.F;
#pragma unroll
    for (int32_t i = 0; i < kWARP_ROW_VECTORS; ++i)
    {
        if (lane + i * kLANES < vectors)
        {
            T const* e = reinterpret_cast<T const*>(&raw[i]);
#pragma unroll
            for (int32_t j = 0; j < 8; ++j)
            {
                float const d = static_cast<float>(e[j]) - mean;
                squares += d * d;
            }
        }
    }
    for (int32_t offset = 16; offset > 0; offset >>= 1)
    {
        squares += __shfl_xor_sync(0xffffffffU, squares, offset);
    }
    float const invStd = rsqrtf(squares / static_cast<float>(members) + eps);
    uint4* out = reinterpret_cast<uint4*>(y + row * members);
#pragma unroll
    for (int32_t i = 0; i < kWARP_ROW_VECTORS; ++i)
    {
        int32_t const vec = lane + i * kLANES;
        if (vec < vectors)
        {
            T const* e = reinterpret_cast<T const*>(&raw[i]);
            float g[kVECTOR8];
            float b[kVECTOR8];
            loadEight(scale, ts, vec, g);
            loadEight(bias, tb, vec, b);
            uint4 result;
            T* r = reinterpret_cast<T*>(&result);
#pragma unroll
            for (int32_t j = 0; j < 8; ++j)
            {
                r[j] = static_cast<T>((static_cast<float>(e[j]) - mean) * invStd * g[j] + b[j]);
            }
            out[vec] = result;
        }
    }
}

//! sum[i] = x[i] + r[i % period], added in float and stored in `t` (the fused residual form's first step where the
//! warp kernel does not apply).
__global__ void residualAddKernel(int64_t volume, int64_t period, void const* x, void const* r, void* sum, DataType t)
{
    for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < volume;
         i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    {
        dev::storeFloat(sum, t, i, dev::loadFloat(x, t, i) + dev::loadFloat(r, t, i % period));
    }
}

bool aligned16(void const* p)
{
    return reinterpret_cast<uintptr_t>(p) % 16 == 0;
}

//! create: nothing to read (the attributes are checked with the shapes); reshape: the attributes, the checks and the
//! index maps of the statistics keys and their members; run: one launch.
class NormalizationCudaKernel final : public Kernel
{
public:
    explicit NormalizationCudaKernel(KernelSetup const& setup)
        : mSetup(setup)
        , mResidual(isResidualNormalization(setup))
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mKeys = -1;
        if (!mResidual)
        {
            return reshapeLayer(inputs, outputs);
        }
        KILN_ASSIGN_OR_RETURN(mResidualShapes, residualNormShapes(mSetup, inputs, outputs));
        return reshapeLayer(normalizationInputs(inputs), normalizationOutputs(outputs));
    }

    //! The sum, where the node does not output it and the warp kernel may not apply (decided at run: alignment).
    int64_t workspaceSize(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) const override
    {
        return mResidual && outputs.size() == 1 && !inputs.empty() ? inputs[0].volume() * elementSize(inputs[0].type) : 0;
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs,
        RunContext const& ctx) override
    {
        if (!mResidual || mKeys <= 0)
        {
            return runLayer(inputs, outputs, ctx, nullptr);
        }
        std::vector<TensorView> const layerInputs = normalizationInputs(inputs);
        std::vector<TensorView> const layerOutputs = normalizationOutputs(outputs);
        TensorView const& x = inputs[0];
        TensorView const& r = inputs[3];
        int64_t const members = mMembers;
        bool const rowBlocks = mResidualShapes.period % members == 0 && aligned16(r.data)
            && (!mResidualShapes.sumOutput || aligned16(outputs[1].data));
        if (rowBlocks && warpRowsApply(layerInputs, layerOutputs))
        {
            return runLayer(layerInputs, layerOutputs, ctx, &inputs[3],
                mResidualShapes.sumOutput ? outputs[1].data : nullptr);
        }
        TensorView sum = x;
        sum.data = mResidualShapes.sumOutput ? outputs[1].data : ctx.workspace;
        int64_t const bytes = x.volume() * elementSize(x.type);
        if (sum.data == nullptr || (!mResidualShapes.sumOutput && ctx.workspaceBytes < bytes))
        {
            return internalError(nodeLabel(mSetup, "Normalization") + ": no room for the residual sum ("
                + std::to_string(bytes) + " bytes of workspace needed)");
        }
        int64_t const volume = x.volume();
        auto const blocks = static_cast<uint32_t>(std::min<int64_t>((volume + 255) / 256, int64_t{1} << 16));
        residualAddKernel<<<blocks, 256, 0, ctx.stream>>>(volume, mResidualShapes.period, x.data, r.data, sum.data,
            x.type);
        KILN_RETURN_IF_ERROR(launchStatus("Normalization residual addition kernel"));
        return runLayer({sum, inputs[1], inputs[2]}, layerOutputs, ctx, nullptr);
    }

private:
    //! The layer itself: inputs (x, scale, bias), output y.
    Status reshapeLayer(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
    {
        ReshapeViews const v = reshapeViews(mSetup, inputs, outputs);
        KILN_ASSIGN_OR_RETURN(NormalizationParams const p, makeNormalizationParams(mSetup, v.inputs, v.outputs));
        TensorView const& x = inputs[0];
        TensorView const& scale = inputs[1];
        TensorView const& bias = inputs[2];
        std::vector<int64_t> const xs = contiguousStrides(x.dims);
        std::vector<int64_t> const ss = contiguousStrides(scale.dims);
        std::vector<int64_t> const bs = contiguousStrides(bias.dims);
        IndexMap keyMap;
        IndexMap memberMap;
        int64_t keys = 1;
        int64_t members = 1;
        // Rows: the members are the trailing axes, scale and bias are indexed by the member alone.
        bool rows = p.groups <= 1;
        bool memberSeen = false;
        auto const add = [](IndexMap& m, int64_t extent, int64_t sx, int64_t sScale, int64_t sBias) {
            m.dims[m.rank] = extent;
            m.strides[0][m.rank] = sx;
            m.strides[1][m.rank] = sScale;
            m.strides[2][m.rank] = sBias;
            ++m.rank;
        };
        for (int32_t d = 0; d < p.rank; ++d)
        {
            auto const i = static_cast<size_t>(d);
            int64_t const sScale = scale.dims.d[d] == 1 ? 0 : ss[i];
            int64_t const sBias = bias.dims.d[d] == 1 ? 0 : bs[i];
            if ((p.mask >> d) & 1)
            {
                add(memberMap, x.dims.d[d], xs[i], sScale, sBias);
                members *= x.dims.d[d];
                memberSeen = true;
                rows = rows && (x.dims.d[d] == 1 || (sScale == xs[i] && sBias == xs[i]));
            }
            else if (d == 1 && p.groups > 1)
            {
                // Channel c = g * perGroup + j: the group g is part of the key, j a member.
                add(keyMap, p.groups, p.perGroup * xs[i], p.perGroupScale ? sScale : p.perGroup * sScale,
                    p.perGroupScale ? sBias : p.perGroup * sBias);
                add(memberMap, p.perGroup, xs[i], p.perGroupScale ? 0 : sScale, p.perGroupScale ? 0 : sBias);
                keys *= p.groups;
                members *= p.perGroup;
            }
            else
            {
                add(keyMap, x.dims.d[d], xs[i], sScale, sBias);
                keys *= x.dims.d[d];
                rows = rows && !memberSeen && (x.dims.d[d] == 1 || (sScale == 0 && sBias == 0));
            }
        }
        mRows = rows;
        mKeyMap = keyMap;
        mMemberMap = memberMap;
        mMembers = members;
        mEps = p.eps;
        // Nothing to compute for an empty x (then keys or members is 0, and the division by members never happens).
        mKeys = x.volume() == 0 || members == 0 ? 0 : keys;
        return Status::ok();
    }

    //! The warp-per-row kernel serves these tensors: FP16/BF16 rows of a multiple of 8 members, at most 1,024, x and
    //! y 16-byte aligned, scale and bias FP32/FP16/BF16 and 16-byte aligned.
    bool warpRowsApply(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) const
    {
        TensorView const& y = outputs[0];
        auto const paramType = [](DataType t) {
            return t == DataType::kFLOAT || t == DataType::kHALF || t == DataType::kBF16;
        };
        bool const narrow = y.type == DataType::kHALF || y.type == DataType::kBF16;
        return mRows && narrow && inputs[0].type == y.type && mMembers % 8 == 0 && mMembers <= 256 * kWARP_ROW_VECTORS
            && aligned16(inputs[0].data) && aligned16(y.data) && aligned16(inputs[1].data) && aligned16(inputs[2].data)
            && paramType(inputs[1].type) && paramType(inputs[2].type);
    }

    //! One launch for inputs (x, scale, bias) and output y; with `residual`, the warp kernel adds it first (the
    //! caller checked that it applies) and writes the sum to `sum` when not null.
    Status runLayer(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs,
        RunContext const& ctx, TensorView const* residual, void* sum = nullptr)
    {
        if (mKeys <= 0)
        {
            return mKeys == 0 ? Status::ok() : notReshaped(nodeLabel(mSetup, "Normalization"));
        }
        TensorView const& scale = inputs[1];
        TensorView const& bias = inputs[2];
        TensorView const& y = outputs[0];
        auto const blocks = static_cast<uint32_t>(std::min<int64_t>(mKeys, int64_t{1} << 20));
        if (residual != nullptr || warpRowsApply(inputs, outputs))
        {
            auto const warpBlocks = static_cast<uint32_t>((mKeys + kWARP_ROWS_PER_BLOCK - 1) / kWARP_ROWS_PER_BLOCK);
            auto const members = static_cast<int32_t>(mMembers);
            auto const eps = static_cast<float>(mEps);
            void const* r = residual != nullptr ? residual->data : nullptr;
            int64_t const residualRows = residual != nullptr ? std::max<int64_t>(1, mResidualShapes.period / mMembers) : 1;
            if (y.type == DataType::kHALF)
            {
                normalizationWarpRowsKernel<__half><<<warpBlocks, 32 * kWARP_ROWS_PER_BLOCK, 0, ctx.stream>>>(mKeys,
                    members, eps, static_cast<__half const*>(inputs[0].data), scale.data, scale.type, bias.data,
                    bias.type, static_cast<__half*>(y.data), static_cast<__half const*>(r), residualRows,
                    static_cast<__half*>(sum));
            }
            else
            {
                normalizationWarpRowsKernel<__nv_bfloat16><<<warpBlocks, 32 * kWARP_ROWS_PER_BLOCK, 0, ctx.stream>>>(
                    mKeys, members, eps, static_cast<__nv_bfloat16 const*>(inputs[0].data), scale.data, scale.type,
                    bias.data, bias.type, static_cast<__nv_bfloat16*>(y.data), static_cast<__nv_bfloat16 const*>(r),
                    residualRows, static_cast<__nv_bfloat16*>(sum));
            }
            return launchStatus("Normalization kernel");
        }
        if (mRows)
        {
            // Enough threads that most rows fit the register cache, in whole warps, 64 to kROW_THREADS.
            int64_t const threads
                = std::clamp<int64_t>((mMembers + kROW_CACHE * 32 - 1) / (kROW_CACHE * 32) * 32, 64, kROW_THREADS);
            normalizationRowsKernel<<<blocks, static_cast<uint32_t>(threads), 0, ctx.stream>>>(mKeys, mMembers, mEps,
                inputs[0].data, scale.data, scale.type, bias.data, bias.type, y.data, y.type);
            return launchStatus("Normalization kernel");
        }
        normalizationKernel<<<blocks, kNORM_BLOCK, 0, ctx.stream>>>(mKeyMap, mMemberMap, mKeys, mMembers, mEps,
            inputs[0].data, scale.data, scale.type, bias.data, bias.type, y.data, y.type);
        return launchStatus("Normalization kernel");
    }

private:
    KernelSetup mSetup;
    IndexMap mKeyMap;
    IndexMap mMemberMap;
    int64_t mKeys{-1};
    int64_t mMembers{0};
    double mEps{0.0};
    bool mRows{false}; //!< normalizationRowsKernel applies
    bool mResidual{false};              //!< the fused residual form (normalizationParams.h)
    ResidualNormShapes mResidualShapes; //!< its shapes at the last reshape
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createNormalizationCudaKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("Normalization kernel: no plan node");
    }
    return std::unique_ptr<Kernel>(std::make_unique<NormalizationCudaKernel>(setup));
}

} // namespace kiln::cuda
