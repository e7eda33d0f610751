// The "depthwise" tactic of the CUDA convolution kernel: 2-D forward convolutions (1-D ones are [N, C, 1, W]) with
// groups == input channels == output maps (channel multiplier 1: MobileNet / EfficientNet / ConvNeXt blocks), any
// kernel size, stride, dilation and (asymmetric) padding, constant weights, and the fused epilogue of
// fusedEpilogue.h (bias, added tensor, any activation of activationMath.cuh, gated or not: SiLU and hard-swish are
// v · sigmoid(v) and v · hard_sigmoid(v)), accumulated in float.
// - Channel-last nodes (kHWC8: FP16/BF16 data, fused addition and output stored [N, H, W, Cp], Cp = C rounded up
//   to 8): each thread computes one 16-byte vector of 8 channels for a tile of 2 or 4 output pixels of a row,
//   loading each input column of the tile's span once per kernel row (registers, no shared memory) and the
//   weights, stored once at creation as float [R, S, Cp], as two 16-byte vectors per tap. Kernel widths 3, 5 and 7
//   with strides 1 and 2 and horizontal dilation 1 are compiled for; other geometries run a generic per-vector
//   loop. Padding channels of the output are written as zero.
// - Linear NCHW nodes (FP32/FP16/BF16): one thread per output value, weights as float [C, R, S]; coalesced along W.
// Grids are sized from the device's SM count and the kernel's occupancy (grid-stride loops).
#include "backends/cuda/kernels/activationMath.cuh"
#include "backends/cuda/kernels/convolution.h"
#include "backends/cuda/kernels/deviceTypes.cuh"
#include "backends/cuda/kernels/kernelCommon.cuh"
#include "backends/cuda/kernels/vector8.cuh"
#include "core/dataType.h"
#include "core/tensorFormat.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>

namespace kiln::cuda
{
using nvinfer1::DataType;

namespace
{

constexpr int32_t kVEC = kVECTOR8;   //!< channels of a kHWC8 vector
constexpr int32_t kDW_BLOCK = 256;   //!< threads per block

//! Geometry of one run (32-bit: reshape refuses larger tensors).
struct DwGeometry
{
    int32_t n{0};
    int32_t c{0};
    int32_t cp{0}; //!< channel stride of the kHWC8 storage (C rounded up to 8); linear: C
    int32_t inH{1};
    int32_t inW{1};
    int32_t outH{1};
    int32_t outW{1};
    int32_t kh{1};
    int32_t kw{1};
    int32_t sh{1};
    int32_t sw{1};
    int32_t dh{1};
    int32_t dw{1};
    int32_t ph{0}; //!< padding before, H
    int32_t pw{0}; //!< padding before, W
};

//! Operands of one launch (passed by value).
struct DwArgs
{
    void const* x{nullptr};
    void* y{nullptr};
    float const* w{nullptr};    //!< kHWC8: [R, S, Cp]; linear: [C, R, S]
    float const* bias{nullptr}; //!< [Cp] (zero beyond C) or nullptr
    void const* add{nullptr};   //!< kHWC8: the output's layout and type; linear: any float type, 4-D strides
    DataType addType{DataType::kFLOAT};
    int64_t addStrides[4]{};    //!< linear: element strides over [N, C, H, W] (0: broadcast)
    bool hasActivation{false};
    bool gated{false}; //!< v · act(v)
    nvinfer1::ActivationType activation{nvinfer1::ActivationType::kRELU};
    float alpha{0.F};
    float beta{0.F};
    DwGeometry g;
};

__device__ __forceinline__ float finishValue(DwArgs const& a, float v, int32_t c, float added)
{
    if (a.bias != nullptr)
    {
        v += a.bias[c];
    }
    v += added;
    if (!a.hasActivation)
    {
        return v;
    }
    float const act = applyActivation(a.activation, a.alpha, a.beta, v);
    return a.gated ? v * act : act;
}

__device__ __forceinline__ uint4 loadVec(void const* base, int64_t element)
{
    return __ldg(reinterpret_cast<uint4 const*>(static_cast<uint16_t const*>(base) + element));
}

//! The 8 float weights of tap `tap` ([R, S, Cp] flattened to tap * Cp) for channels c0...c0 + 7.
__device__ __forceinline__ void loadWeights(float const* w, int32_t tap, int32_t cp, int32_t c0, float (&f)[kVEC])
{
    float4 const* p = reinterpret_cast<float4 const*>(w + static_cast<int64_t>(tap) * cp + c0);
    float4 const lo = __ldg(p);
    float4 const hi = __ldg(p + 1);
    f[0] = lo.x;
    f[1] = lo.y;
    f[2] = lo.z;
    f[3] = lo.w;
    f[4] = hi.x;
    f[5] = hi.y;
    f[6] = hi.z;
    f[7] = hi.w;
}

//! Epilogue and store of the 8-channel vector `acc` at output pixel (n, oh, ow); channels >= C are written as zero.
template <typename T>
__device__ __forceinline__ void storeVec(DwArgs const& a, float (&acc)[kVEC], int32_t n, int32_t oh, int32_t ow, int32_t c0)
{
    DwGeometry const& g = a.g;
    int64_t const at = ((static_cast<int64_t>(n) * g.outH + oh) * g.outW + ow) * g.cp + c0;
    float added[kVEC]{};
    if (a.add != nullptr)
    {
        unpack8<T>(loadVec(a.add, at), added);
    }
#pragma unroll
    for (int32_t i = 0; i < kVEC; ++i)
    {
        acc[i] = c0 + i < g.c ? finishValue(a, acc[i], c0 + i, added[i]) : 0.F;
    }
    *reinterpret_cast<uint4*>(static_cast<uint16_t*>(a.y) + at) = pack8<T>(acc);
}

//! kHWC8, kernel width KW, stride SW along W, horizontal dilation 1: one thread = 8 channels x TILE output pixels
//! of one row. Per kernel row, the tile's span of (TILE - 1) * SW + KW input columns is loaded once, column by
//! column, and each column feeds every (pixel, tap) pair that reads it.
template <typename T, int32_t KW, int32_t SW, int32_t TILE>
__global__ void __launch_bounds__(kDW_BLOCK) depthwiseHwc8Tiled(DwArgs a, int32_t tilesW, int32_t total)
{
    DwGeometry const& g = a.g;
    int32_t const vectors = g.cp / kVEC;
    constexpr int32_t kSPAN = (TILE - 1) * SW + KW;
    for (int32_t idx = static_cast<int32_t>(blockIdx.x * blockDim.x + threadIdx.x); idx < total;
         idx += static_cast<int32_t>(gridDim.x * blockDim.x))
    {
        int32_t r = idx;
        int32_t const v = r % vectors;
        r /= vectors;
        int32_t const tile = r % tilesW;
        r /= tilesW;
        int32_t const oh = r % g.outH;
        int32_t const n = r / g.outH;
        int32_t const c0 = v * kVEC;
        int32_t const ow0 = tile * TILE;
        int32_t const iw0 = ow0 * SW - g.pw;
        float acc[TILE][kVEC];
#pragma unroll
        for (int32_t t = 0; t < TILE; ++t)
        {
#pragma unroll
            for (int32_t i = 0; i < kVEC; ++i)
            {
                acc[t][i] = 0.F;
            }
        }
        for (int32_t kr = 0; kr < g.kh; ++kr)
        {
            int32_t const ih = oh * g.sh - g.ph + kr * g.dh;
            if (ih < 0 || ih >= g.inH)
            {
                continue;
            }
            int64_t const rowAt = (static_cast<int64_t>(n) * g.inH + ih) * g.inW;
            float wr[KW][kVEC];
#pragma unroll
            for (int32_t s = 0; s < KW; ++s)
            {
                loadWeights(a.w, kr * KW + s, g.cp, c0, wr[s]);
            }
#pragma unroll
            for (int32_t j = 0; j < kSPAN; ++j)
            {
                int32_t const iw = iw0 + j;
                if (iw < 0 || iw >= g.inW)
                {
                    continue;
                }
                float xv[kVEC];
                unpack8<T>(loadVec(a.x, (rowAt + iw) * g.cp + c0), xv);
#pragma unroll
                for (int32_t t = 0; t < TILE; ++t)
                {
                    int32_t const s = j - t * SW;
                    if (s >= 0 && s < KW)
                    {
#pragma unroll
                        for (int32_t i = 0; i < kVEC; ++i)
                        {
                            acc[t][i] = fmaf(xv[i], wr[s][i], acc[t][i]);
                        }
                    }
                }
            }
        }
#pragma unroll
        for (int32_t t = 0; t < TILE; ++t)
        {
            if (ow0 + t < g.outW)
            {
                storeVec<T>(a, acc[t], n, oh, ow0 + t, c0);
            }
        }
    }
}

//! kHWC8, any geometry: one thread = 8 channels of one output pixel.
template <typename T>
__global__ void __launch_bounds__(kDW_BLOCK) depthwiseHwc8Generic(DwArgs a, int32_t total)
{
    DwGeometry const& g = a.g;
    int32_t const vectors = g.cp / kVEC;
    for (int32_t idx = static_cast<int32_t>(blockIdx.x * blockDim.x + threadIdx.x); idx < total;
         idx += static_cast<int32_t>(gridDim.x * blockDim.x))
    {
        int32_t r = idx;
        int32_t const v = r % vectors;
        r /= vectors;
        int32_t const ow = r % g.outW;
        r /= g.outW;
        int32_t const oh = r % g.outH;
        int32_t const n = r / g.outH;
        int32_t const c0 = v * kVEC;
        float acc[kVEC]{};
        for (int32_t kr = 0; kr < g.kh; ++kr)
        {
            int32_t const ih = oh * g.sh - g.ph + kr * g.dh;
            if (ih < 0 || ih >= g.inH)
            {
                continue;
            }
            for (int32_t s = 0; s < g.kw; ++s)
            {
                int32_t const iw = ow * g.sw - g.pw + s * g.dw;
                if (iw < 0 || iw >= g.inW)
                {
                    continue;
                }
                float xv[kVEC];
                float wv[kVEC];
                unpack8<T>(loadVec(a.x, ((static_cast<int64_t>(n) * g.inH + ih) * g.inW + iw) * g.cp + c0), xv);
                loadWeights(a.w, kr * g.kw + s, g.cp, c0, wv);
#pragma unroll
                for (int32_t i = 0; i < kVEC; ++i)
                {
                    acc[i] = fmaf(xv[i], wv[i], acc[i]);
                }
            }
        }
        storeVec<T>(a, acc, n, oh, ow, c0);
    }
}

//! Linear NCHW: one thread per output value (consecutive threads along W).
template <typename T>
__global__ void __launch_bounds__(kDW_BLOCK) depthwiseLinear(DwArgs a, int32_t total)
{
    DwGeometry const& g = a.g;
    T const* x = static_cast<T const*>(a.x);
    for (int32_t idx = static_cast<int32_t>(blockIdx.x * blockDim.x + threadIdx.x); idx < total;
         idx += static_cast<int32_t>(gridDim.x * blockDim.x))
    {
        int32_t r = idx;
        int32_t const ow = r % g.outW;
        r /= g.outW;
        int32_t const oh = r % g.outH;
        r /= g.outH;
        int32_t const c = r % g.c;
        int32_t const n = r / g.c;
        int64_t const plane = (static_cast<int64_t>(n) * g.c + c) * g.inH;
        float const* w = a.w + static_cast<int64_t>(c) * g.kh * g.kw;
        float acc = 0.F;
        for (int32_t kr = 0; kr < g.kh; ++kr)
        {
            int32_t const ih = oh * g.sh - g.ph + kr * g.dh;
            if (ih < 0 || ih >= g.inH)
            {
                continue;
            }
            T const* row = x + (plane + ih) * g.inW;
            for (int32_t s = 0; s < g.kw; ++s)
            {
                int32_t const iw = ow * g.sw - g.pw + s * g.dw;
                if (iw >= 0 && iw < g.inW)
                {
                    acc = fmaf(Storage<T>::toFloat(__ldg(row + iw)), __ldg(w + kr * g.kw + s), acc);
                }
            }
        }
        float added = 0.F;
        if (a.add != nullptr)
        {
            int64_t const off = n * a.addStrides[0] + c * a.addStrides[1] + oh * a.addStrides[2] + ow * a.addStrides[3];
            added = dev::loadFloat(a.add, a.addType, off);
        }
        static_cast<T*>(a.y)[idx] = Storage<T>::fromFloat(finishValue(a, acc, c, added));
    }
}

using DwKernelFn = void (*)(DwArgs, int32_t, int32_t);
using DwPlainFn = void (*)(DwArgs, int32_t);

//! The tiled kHWC8 instantiation for (type, kernel width, stride) and its tile, or nullptr.
template <typename T>
DwKernelFn tiledKernel(int32_t kw, int32_t sw, int32_t& tile)
{
    // Wider kernels keep fewer pixels per thread (registers: TILE x 8 accumulators, KW x 8 weights).
    tile = kw == 3 ? 4 : 2;
    switch (kw * 10 + sw)
    {
    case 31: return depthwiseHwc8Tiled<T, 3, 1, 4>;
    case 32: return depthwiseHwc8Tiled<T, 3, 2, 4>;
    case 51: return depthwiseHwc8Tiled<T, 5, 1, 2>;
    case 52: return depthwiseHwc8Tiled<T, 5, 2, 2>;
    case 71: return depthwiseHwc8Tiled<T, 7, 1, 2>;
    case 72: return depthwiseHwc8Tiled<T, 7, 2, 2>;
    default: return nullptr;
    }
}

//! Blocks of kDW_BLOCK threads for `work` items: every SM filled to the kernel's occupancy, no more than needed.
int32_t gridBlocks(void const* fn, int32_t smCount, int64_t work)
{
    int perSm = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, fn, kDW_BLOCK, 0) != cudaSuccess || perSm < 1)
    {
        (void) cudaGetLastError();
        perSm = 1;
    }
    int64_t const needed = (work + kDW_BLOCK - 1) / kDW_BLOCK;
    return static_cast<int32_t>(std::max<int64_t>(1, std::min<int64_t>(needed, int64_t{perSm} * smCount)));
}

bool fitsIndex(int64_t v)
{
    return v >= 0 && v < (int64_t{1} << 30); // grid-stride indices stay far from int32 overflow
}

//! create: the weights as float in the launch layout and the bias as float [Cp]; reshape: the geometry, the
//! epilogue's layout, the kernel instantiation and its grid; run: the addresses, then one launch.
class DepthwiseConvolutionKernel final : public Kernel
{
public:
    DepthwiseConvolutionKernel(KernelSetup const& setup, ConvConfig cfg, FusedEpilogue epilogue)
        : mSetup(setup)
        , mCfg(std::move(cfg))
        , mEpilogue(epilogue)
        , mChannelLast(setup.node->attrs.getInt(kCHANNEL_LAST_ATTRIBUTE, 0) != 0)
        , mType(setup.inputTypes[0])
    {
    }

    Status init()
    {
        int device = 0;
        KILN_CUDA_CHECK(cudaGetDevice(&device));
        KILN_CUDA_CHECK(cudaDeviceGetAttribute(&mSmCount, cudaDevAttrMultiProcessorCount, device));
        WeightsView const& w = mSetup.weights[0];
        int64_t const c = mCfg.k;
        int64_t const window = w.count / c;
        mCp = mChannelLast ? (c + kVEC - 1) / kVEC * kVEC : c;
        // Linear: [C, R, S] as given. Channel-last: [R, S, Cp], zero beyond C.
        std::vector<float> host(static_cast<size_t>(window * mCp), 0.F);
        for (int64_t ci = 0; ci < c; ++ci)
        {
            for (int64_t p = 0; p < window; ++p)
            {
                size_t const to = static_cast<size_t>(mChannelLast ? p * mCp + ci : ci * window + p);
                host[to] = static_cast<float>(loadElement(w.data, w.type, ci * window + p));
            }
        }
        KILN_RETURN_IF_ERROR(mWeights.upload(host.data(), static_cast<int64_t>(host.size() * sizeof(float))));
        if (mSetup.weights.size() > 1 && mSetup.weights[1].present())
        {
            WeightsView const& b = mSetup.weights[1];
            if (b.count != c)
            {
                return invalidArgument(label() + ": the bias has " + std::to_string(b.count) + " values for "
                    + std::to_string(c) + " output maps");
            }
            std::vector<float> bias(static_cast<size_t>(mCp), 0.F);
            for (int64_t i = 0; i < c; ++i)
            {
                bias[static_cast<size_t>(i)] = static_cast<float>(loadElement(b.data, b.type, i));
            }
            KILN_RETURN_IF_ERROR(mBias.upload(bias.data(), static_cast<int64_t>(bias.size() * sizeof(float))));
            mBiasCount = b.count;
        }
        return Status::ok();
    }

    Status reshape(std::vector<TensorView> const& allInputs, std::vector<TensorView> const& outputs) override
    {
        mWork = -1;
        std::vector<TensorView> inputs;
        ConvShapes shapes;
        KILN_RETURN_IF_ERROR(checkConvReshape(mSetup, mCfg, mEpilogue.hasAdd, allInputs, outputs,
            mSetup.weights[0].count, mBiasCount, label(), inputs, shapes));
        if (shapes.c != mCfg.k || shapes.kernelTensor || shapes.biasTensor)
        {
            return invalidArgument(label() + ": the depthwise tactic needs as many input channels as output maps ("
                + std::to_string(shapes.c) + " channels, " + std::to_string(mCfg.k) + " maps) and constant weights");
        }
        TensorView const& out = outputs[0];
        WindowGeometry const wg = toWindowGeometry(mCfg.params, shapes.ext);
        int64_t const wide[] = {shapes.n, mCp, wg.in[1], wg.in[2], wg.out[1], wg.out[2], shapes.n * mCp * wg.in[1] * wg.in[2],
            out.volume() / std::max<int64_t>(1, mCfg.k) * mCp};
        for (int64_t e : wide)
        {
            if (!fitsIndex(e))
            {
                return invalidArgument(label() + ": the depthwise tactic handles tensors of up to 2^30 elements");
            }
        }
        DwArgs& a = mArgs;
        a = DwArgs{};
        DwGeometry& g = a.g;
        g.n = static_cast<int32_t>(shapes.n);
        g.c = static_cast<int32_t>(mCfg.k);
        g.cp = static_cast<int32_t>(mCp);
        g.inH = static_cast<int32_t>(wg.in[1]);
        g.inW = static_cast<int32_t>(wg.in[2]);
        g.outH = static_cast<int32_t>(wg.out[1]);
        g.outW = static_cast<int32_t>(wg.out[2]);
        g.kh = static_cast<int32_t>(wg.kernel[1]);
        g.kw = static_cast<int32_t>(wg.kernel[2]);
        g.sh = static_cast<int32_t>(wg.stride[1]);
        g.sw = static_cast<int32_t>(wg.stride[2]);
        g.dh = static_cast<int32_t>(wg.dilation[1]);
        g.dw = static_cast<int32_t>(wg.dilation[2]);
        g.ph = static_cast<int32_t>(wg.padBefore[1]);
        g.pw = static_cast<int32_t>(wg.padBefore[2]);
        a.w = static_cast<float const*>(mWeights.data());
        a.bias = static_cast<float const*>(mBias.data());
        a.hasActivation = mEpilogue.hasActivation;
        a.gated = mEpilogue.gated;
        a.activation = mEpilogue.activation;
        a.alpha = mEpilogue.alpha;
        a.beta = mEpilogue.beta;
        if (mEpilogue.hasAdd)
        {
            KILN_RETURN_IF_ERROR(addLayout(allInputs.back(), out));
        }
        if (out.volume() == 0)
        {
            mWork = 0;
            return Status::ok();
        }
        chooseLaunch();
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs,
        RunContext const& ctx) override
    {
        if (mWork <= 0)
        {
            return mWork == 0 ? Status::ok() : notReshaped(label());
        }
        DwArgs a = mArgs;
        a.x = inputs[0].data;
        a.y = outputs[0].data;
        if (mEpilogue.hasAdd)
        {
            a.add = inputs.back().data;
            if (a.add == nullptr)
            {
                return invalidArgument(label() + ": the fused addition's input is missing");
            }
        }
        if (a.x == nullptr || a.y == nullptr)
        {
            return invalidArgument(label() + ": the data input or the output has no buffer");
        }
        if (mChannelLast
            && ((reinterpret_cast<uintptr_t>(a.x) | reinterpret_cast<uintptr_t>(a.y) | reinterpret_cast<uintptr_t>(a.add)) % 16) != 0)
        {
            return invalidArgument(label() + ": kHWC8 buffers must be 16-byte aligned");
        }
        if (mTiled != nullptr)
        {
            mTiled<<<mBlocks, kDW_BLOCK, 0, ctx.stream>>>(a, mTilesW, static_cast<int32_t>(mWork));
        }
        else
        {
            mPlain<<<mBlocks, kDW_BLOCK, 0, ctx.stream>>>(a, static_cast<int32_t>(mWork));
        }
        Status const st = launchStatus("depthwiseConvolution");
        return st.isOk() ? st : st.withContext(label());
    }

private:
    std::string label() const { return nodeLabel(mSetup, "Convolution"); }

    //! The fused addition: in kHWC8 the output's shape and type (same storage); linear: strides that broadcast.
    Status addLayout(TensorView const& add, TensorView const& out)
    {
        mArgs.addType = add.type;
        if (mChannelLast)
        {
            bool same = add.type == out.type && add.dims.nbDims == out.dims.nbDims;
            for (int32_t i = 0; same && i < out.dims.nbDims; ++i)
            {
                same = add.dims.d[i] == out.dims.d[i];
            }
            if (!same)
            {
                return invalidArgument(label() + ": a kHWC8 fused addition must have the output's shape and type");
            }
            return Status::ok();
        }
        if (!isConvFloatStorage(add.type))
        {
            return invalidArgument(label() + ": the fused addition's input is not a float type");
        }
        auto strides = addStrides5(add.dims, out.dims);
        if (!strides.isOk())
        {
            return strides.status().withContext(label());
        }
        // [N, K, D = 1, H, W] of a 2-D output: keep N, K, H, W.
        std::vector<int64_t> const& s = strides.value();
        int64_t const four[] = {s[0], s[1], s[3], s[4]};
        std::copy(four, four + 4, mArgs.addStrides);
        return Status::ok();
    }

    void chooseLaunch()
    {
        DwGeometry const& g = mArgs.g;
        mTiled = nullptr;
        mPlain = nullptr;
        if (!mChannelLast)
        {
            mPlain = mType == DataType::kFLOAT ? depthwiseLinear<float>
                : mType == DataType::kHALF     ? depthwiseLinear<__half>
                                               : depthwiseLinear<__nv_bfloat16>;
            mWork = static_cast<int64_t>(g.n) * g.c * g.outH * g.outW;
            mBlocks = gridBlocks(reinterpret_cast<void const*>(mPlain), mSmCount, mWork);
            return;
        }
        int32_t tile = 1;
        if (g.dw == 1)
        {
            mTiled = mType == DataType::kHALF ? tiledKernel<__half>(g.kw, g.sw, tile)
                                              : tiledKernel<__nv_bfloat16>(g.kw, g.sw, tile);
        }
        int64_t const vectors = g.cp / kVEC;
        if (mTiled != nullptr)
        {
            mTilesW = (g.outW + tile - 1) / tile;
            mWork = static_cast<int64_t>(g.n) * g.outH * mTilesW * vectors;
            mBlocks = gridBlocks(reinterpret_cast<void const*>(mTiled), mSmCount, mWork);
            return;
        }
        mPlain = mType == DataType::kHALF ? depthwiseHwc8Generic<__half> : depthwiseHwc8Generic<__nv_bfloat16>;
        mWork = static_cast<int64_t>(g.n) * g.outH * g.outW * vectors;
        mBlocks = gridBlocks(reinterpret_cast<void const*>(mPlain), mSmCount, mWork);
    }

    KernelSetup mSetup;
    ConvConfig mCfg;
    FusedEpilogue mEpilogue;
    bool mChannelLast{false};
    DataType mType{DataType::kHALF};
    int32_t mSmCount{1};
    int64_t mCp{0};
    DeviceBuffer mWeights;
    DeviceBuffer mBias;
    int64_t mBiasCount{0};
    // Of the last reshape.
    DwArgs mArgs;
    DwKernelFn mTiled{nullptr};
    DwPlainFn mPlain{nullptr};
    int32_t mTilesW{0};
    int32_t mBlocks{1};
    int64_t mWork{-1}; //!< threads' work items; -1 until a reshape succeeded
};

//! Why the depthwise tactic cannot run `setup` (empty: it can).
std::string depthwiseProblem(KernelSetup const& setup, ConvConfig const& cfg, FusedEpilogue const& epilogue)
{
    PlanNode const& node = *setup.node;
    bool const channelLast = node.attrs.getInt(kCHANNEL_LAST_ATTRIBUTE, 0) != 0;
    int32_t const nb = cfg.params.nbSpatial;
    if (cfg.deconvolution || nb != 2)
    {
        return "the depthwise tactic runs 2-D forward convolutions";
    }
    if (convolutionOwnInputs(node) != 1 || setup.weights.empty() || !setup.weights[0].present()
        || setup.weights[0].data == nullptr)
    {
        return "the depthwise tactic needs the kernel (and bias) as constant weights";
    }
    int64_t window = 1;
    for (int64_t e : cfg.params.kernel)
    {
        window *= e;
    }
    if (cfg.groups != cfg.k || setup.weights[0].count != cfg.k * window)
    {
        return "the depthwise tactic needs groups == input channels == output maps (channel multiplier 1)";
    }
    DataType const t = setup.inputTypes[0];
    bool const addSame = !epilogue.hasAdd || setup.inputTypes.back() == t;
    if (setup.outputTypes.size() != 1 || setup.outputTypes[0] != t)
    {
        return "the depthwise tactic writes the input's type";
    }
    if (channelLast && ((t != DataType::kHALF && t != DataType::kBF16) || !addSame))
    {
        return "the depthwise tactic reads kHWC8 as FP16 or BF16 (data, fused addition and output of one type)";
    }
    if (!channelLast && t != DataType::kFLOAT && t != DataType::kHALF && t != DataType::kBF16)
    {
        return "the depthwise tactic computes FP32, FP16 and BF16";
    }
    return {};
}

} // namespace

bool depthwiseApplies(KernelSetup const& setup, ConvConfig const& cfg, FusedEpilogue const& epilogue)
{
    return setup.node != nullptr && !setup.inputTypes.empty() && depthwiseProblem(setup, cfg, epilogue).empty();
}

StatusOr<std::unique_ptr<Kernel>> createDepthwiseConvolutionKernel(
    KernelSetup const& setup, ConvConfig const& cfg, FusedEpilogue const& epilogue)
{
    std::string const label = nodeLabel(setup, "Convolution");
    if (setup.node == nullptr || setup.inputTypes.empty())
    {
        return invalidArgument(label + ": no node or no inputs");
    }
    std::string const problem = depthwiseProblem(setup, cfg, epilogue);
    if (!problem.empty())
    {
        return invalidArgument(label + ": " + problem);
    }
    auto kernel = std::make_unique<DepthwiseConvolutionKernel>(setup, cfg, epilogue);
    KILN_RETURN_IF_ERROR(kernel->init().withContext(label + ": uploading the weights"));
    return std::unique_ptr<Kernel>(std::move(kernel));
}

} // namespace kiln::cuda
