// Device side of the "depthwise" convolution tactic (convolutionDepthwise.cu) on channel-last kHWC8 tensors: the
// launch geometry and operands, the fused epilogue and store of one 8-channel vector, and the kernels that the
// depthwise tactics ("depthwise", "depthwise.pixel", "depthwise.strip") and, for experiments, the variants of
// KILN_DEPTHWISE_VARIANT select (docs/gpu.md, "Depthwise convolutions"): the register-tiled kernel
// (a thread = 8 channels x TILE output pixels of a row), the generic per-vector loop, the shared-memory kernel
// (a block = a 2-D output tile x a group of channel vectors, its input tile and weights staged in shared memory) and
// the strip kernel (a thread = a channel pair of one output column down a strip of rows, weights and a sliding input
// window in registers).
#pragma once

#include "backends/cuda/kernels/activationMath.cuh"
#include "backends/cuda/kernels/vector8.cuh"
#include "core/dataType.h"

#include <cstdint>
#include <type_traits>

namespace kiln::cuda::depthwise
{
using nvinfer1::DataType;

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
    bool fastSigmoid{false}; //!< kSIGMOID as 1 / (1 + e^-v) with the approximate __expf and __fdividef (SiLU, 5-9)
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
    float const act = a.fastSigmoid && a.activation == nvinfer1::ActivationType::kSIGMOID
        ? __fdividef(1.F, 1.F + __expf(-v))
        : applyActivation(a.activation, a.alpha, a.beta, v);
    return a.gated ? v * act : act;
}

__device__ __forceinline__ uint4 loadVec(void const* base, int64_t element)
{
    return __ldg(reinterpret_cast<uint4 const*>(static_cast<uint16_t const*>(base) + element));
}

//! The 8 floats of two float4 (weights of 8 channels).
__device__ __forceinline__ void toFloat8(float4 const& lo, float4 const& hi, float (&f)[kVEC])
{
    f[0] = lo.x;
    f[1] = lo.y;
    f[2] = lo.z;
    f[3] = lo.w;
    f[4] = hi.x;
    f[5] = hi.y;
    f[6] = hi.z;
    f[7] = hi.w;
}

//! The 8 float weights of tap `tap` ([R, S, Cp] flattened to tap * Cp) for channels c0...c0 + 7.
__device__ __forceinline__ void loadWeights(float const* w, int32_t tap, int32_t cp, int32_t c0, float (&f)[kVEC])
{
    float4 const* p = reinterpret_cast<float4 const*>(w + static_cast<int64_t>(tap) * cp + c0);
    toFloat8(__ldg(p), __ldg(p + 1), f);
}

//! Input column j of a row's span (8 channels in `xv`) into every (pixel, tap) pair that reads it: pixel t of the
//! thread's TILE uses tap j - t * SW when it lies in [0, KW).
template <int32_t KW, int32_t SW, int32_t TILE>
__device__ __forceinline__ void accumulateColumn(
    int32_t j, float const (&xv)[kVEC], float const (&wr)[KW][kVEC], float (&acc)[TILE][kVEC])
{
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
        float acc[TILE][kVEC]{};
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
                accumulateColumn<KW, SW, TILE>(j, xv, wr, acc);
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

//! Block tile of the shared-memory kernel: `cv` channel vectors x `th` output rows x `groupsW` thread groups of PW
//! output pixels along W; the input tile is `inRows` x `inCols` pixels of the `cv` vectors.
struct DwTile
{
    int32_t cv{1};
    int32_t th{1};
    int32_t groupsW{1};
    int32_t tw{1}; //!< output columns of a tile: groupsW * PW
    int32_t tilesH{1};
    int32_t tilesW{1};
    int32_t chanGroups{1};
    int32_t inRows{1};
    int32_t inCols{1};
};

//! kHWC8, kernel width KW, stride SW along W, horizontal dilation 1, PW output pixels per thread: one block = one
//! tile of th x tw output pixels of `cv` channel vectors. The block first copies the tile's input window (zero
//! outside the image) and the tile's weights into shared memory with consecutive threads on consecutive 16-byte
//! vectors (a warp reads contiguous runs of cv x 16 bytes, whole pixel rows when cv covers all channels), so each
//! input byte is read from L2 once per tile (plus the halo); then each thread accumulates its PW pixels of one
//! channel vector from shared memory, keeping each kernel row's span of input columns and weights in registers.
template <typename T, int32_t KW, int32_t SW, int32_t PW>
__global__ void __launch_bounds__(kDW_BLOCK) depthwiseHwc8Shared(DwArgs a, DwTile tl)
{
    extern __shared__ uint4 dwShared[]; // input [inRows][inCols][cv] vectors, then weights [kh][KW][cv] float x 8
    DwGeometry const& g = a.g;
    int32_t b = static_cast<int32_t>(blockIdx.x);
    int32_t const group = b % tl.chanGroups;
    b /= tl.chanGroups;
    int32_t const tileW = b % tl.tilesW;
    b /= tl.tilesW;
    int32_t const tileH = b % tl.tilesH;
    int32_t const n = b / tl.tilesH;
    int32_t const oh0 = tileH * tl.th;
    int32_t const ow0 = tileW * tl.tw;
    int32_t const ih0 = oh0 * g.sh - g.ph;
    int32_t const iw0 = ow0 * SW - g.pw;
    int32_t const c00 = group * tl.cv * kVEC;
    int32_t const inCount = tl.inRows * tl.inCols * tl.cv;
    for (int32_t i = static_cast<int32_t>(threadIdx.x); i < inCount; i += static_cast<int32_t>(blockDim.x))
    {
        int32_t const v = i % tl.cv;
        int32_t const pixel = i / tl.cv;
        int32_t const ih = ih0 + pixel / tl.inCols;
        int32_t const iw = iw0 + pixel % tl.inCols;
        uint4 val = make_uint4(0U, 0U, 0U, 0U);
        if (ih >= 0 && ih < g.inH && iw >= 0 && iw < g.inW)
        {
            val = loadVec(a.x, ((static_cast<int64_t>(n) * g.inH + ih) * g.inW + iw) * g.cp + c00 + v * kVEC);
        }
        dwShared[i] = val;
    }
    float4* const ws = reinterpret_cast<float4*>(dwShared + inCount);
    int32_t const wCount = g.kh * KW * tl.cv * 2;
    for (int32_t i = static_cast<int32_t>(threadIdx.x); i < wCount; i += static_cast<int32_t>(blockDim.x))
    {
        int32_t const part = i % 2;
        int32_t const v = (i / 2) % tl.cv;
        int32_t const tap = i / 2 / tl.cv;
        ws[i] = __ldg(reinterpret_cast<float4 const*>(a.w + static_cast<int64_t>(tap) * g.cp + c00 + v * kVEC) + part);
    }
    __syncthreads();
    int32_t const v = static_cast<int32_t>(threadIdx.x) % tl.cv;
    int32_t const slot = static_cast<int32_t>(threadIdx.x) / tl.cv;
    int32_t const row = slot / tl.groupsW;
    int32_t const col = slot % tl.groupsW * PW; // first output column of the thread, in the tile
    int32_t const oh = oh0 + row;
    if (row >= tl.th || oh >= g.outH || ow0 + col >= g.outW)
    {
        return;
    }
    constexpr int32_t kSPAN = (PW - 1) * SW + KW;
    float acc[PW][kVEC]{};
    for (int32_t kr = 0; kr < g.kh; ++kr)
    {
        uint4 const* in = dwShared + ((row * g.sh + kr * g.dh) * tl.inCols + col * SW) * tl.cv + v;
        float wr[KW][kVEC];
#pragma unroll
        for (int32_t s = 0; s < KW; ++s)
        {
            float4 const* w = ws + ((kr * KW + s) * tl.cv + v) * 2;
            toFloat8(w[0], w[1], wr[s]);
        }
#pragma unroll
        for (int32_t j = 0; j < kSPAN; ++j)
        {
            float xv[kVEC];
            unpack8<T>(in[j * tl.cv], xv);
            accumulateColumn<KW, SW, PW>(j, xv, wr, acc);
        }
    }
#pragma unroll
    for (int32_t t = 0; t < PW; ++t)
    {
        if (ow0 + col + t < g.outW)
        {
            storeVec<T>(a, acc[t], n, oh, ow0 + col + t, c00 + v * kVEC);
        }
    }
}

//! A strip kernel's window value (channels c, c + 1): floats for 3x3 kernels, the stored pair for wider ones (5x5:
//! 25 fewer registers, one conversion per use).
template <typename T, int32_t K>
using WindowCell = std::conditional_t<(K > 3), typename Storage<T>::Pair, float2>;

template <typename T>
__device__ __forceinline__ float2 cellFloats(float2 v)
{
    return v;
}
template <typename T, typename P, typename = std::enable_if_t<std::is_same_v<P, typename Storage<T>::Pair>>>
__device__ __forceinline__ float2 cellFloats(P v)
{
    return Storage<T>::toFloat2(v);
}

//! One row of a strip kernel's window: the K input columns ow * S - pw + s (s < K) of input row `ih`, channels c and
//! c + 1 (zero outside the image).
template <typename T, int32_t K, int32_t S>
__device__ __forceinline__ void loadWindowRow(
    DwArgs const& a, int32_t n, int32_t ih, int32_t ow, int32_t c, WindowCell<T, K> (&row)[K])
{
    using P = typename Storage<T>::Pair;
    DwGeometry const& g = a.g;
    bool const inside = ih >= 0 && ih < g.inH;
    int64_t const rowAt = (static_cast<int64_t>(n) * g.inH + ih) * g.inW;
#pragma unroll
    for (int32_t s = 0; s < K; ++s)
    {
        int32_t const iw = ow * S - g.pw + s;
        uint32_t raw = 0U; // +0.0 in FP16 and BF16
        if (inside && iw >= 0 && iw < g.inW)
        {
            raw = __ldg(reinterpret_cast<uint32_t const*>(static_cast<uint16_t const*>(a.x) + (rowAt + iw) * g.cp + c));
        }
        P const pair = *reinterpret_cast<P const*>(&raw);
        if constexpr (K > 3)
        {
            row[s] = pair;
        }
        else
        {
            row[s] = Storage<T>::toFloat2(pair);
        }
    }
}

//! kHWC8, K x K kernel, stride S in both directions, no dilation: one thread = channels c, c + 1 of one output
//! column for a strip of `rows` output rows. Consecutive threads take consecutive channel pairs, then consecutive
//! columns, so a warp's 4-byte loads and stores are one contiguous 128-byte run (at stride 1). The thread keeps its
//! K x K float weights and a K x K window of inputs in registers; each further output row shifts the window by S
//! rows and loads only S new ones (K x S values), so each input value is read about once per column it feeds.
template <typename T, int32_t K, int32_t S>
__global__ void __launch_bounds__(kDW_BLOCK) depthwiseHwc8Strip(DwArgs a, int32_t rows, int32_t strips, int32_t total)
{
    DwGeometry const& g = a.g;
    int32_t const pairs = g.cp / 2;
    for (int32_t idx = static_cast<int32_t>(blockIdx.x * blockDim.x + threadIdx.x); idx < total;
         idx += static_cast<int32_t>(gridDim.x * blockDim.x))
    {
        int32_t r = idx;
        int32_t const c = r % pairs * 2;
        r /= pairs;
        int32_t const ow = r % g.outW;
        r /= g.outW;
        int32_t const strip = r % strips;
        int32_t const n = r / strips;
        int32_t const oh0 = strip * rows;
        int32_t const ohEnd = min(oh0 + rows, g.outH);
        float2 w[K][K];
#pragma unroll
        for (int32_t kr = 0; kr < K; ++kr)
        {
#pragma unroll
            for (int32_t s = 0; s < K; ++s)
            {
                w[kr][s] = __ldg(reinterpret_cast<float2 const*>(a.w + static_cast<int64_t>(kr * K + s) * g.cp + c));
            }
        }
        WindowCell<T, K> win[K][K];
#pragma unroll
        for (int32_t kr = 0; kr < K; ++kr)
        {
            loadWindowRow<T, K, S>(a, n, oh0 * S - g.ph + kr, ow, c, win[kr]);
        }
        for (int32_t oh = oh0; oh < ohEnd; ++oh)
        {
            if (oh > oh0)
            {
#pragma unroll
                for (int32_t kr = 0; kr < K; ++kr)
                {
                    if (kr + S < K)
                    {
#pragma unroll
                        for (int32_t s = 0; s < K; ++s)
                        {
                            win[kr][s] = win[kr + S][s];
                        }
                    }
                    else
                    {
                        loadWindowRow<T, K, S>(a, n, oh * S - g.ph + kr, ow, c, win[kr]);
                    }
                }
            }
            float v[2]{};
#pragma unroll
            for (int32_t kr = 0; kr < K; ++kr)
            {
#pragma unroll
                for (int32_t s = 0; s < K; ++s)
                {
                    float2 const x = cellFloats<T>(win[kr][s]);
                    v[0] = fmaf(x.x, w[kr][s].x, v[0]);
                    v[1] = fmaf(x.y, w[kr][s].y, v[1]);
                }
            }
            int64_t const at = ((static_cast<int64_t>(n) * g.outH + oh) * g.outW + ow) * g.cp + c;
            float2 added = make_float2(0.F, 0.F);
            if (a.add != nullptr)
            {
                uint32_t const raw = __ldg(reinterpret_cast<uint32_t const*>(static_cast<uint16_t const*>(a.add) + at));
                added = Storage<T>::toFloat2(*reinterpret_cast<typename Storage<T>::Pair const*>(&raw));
            }
            v[0] = c < g.c ? finishValue(a, v[0], c, added.x) : 0.F;
            v[1] = c + 1 < g.c ? finishValue(a, v[1], c + 1, added.y) : 0.F;
            *reinterpret_cast<typename Storage<T>::Pair*>(static_cast<uint16_t*>(a.y) + at) = Storage<T>::fromFloats(v[0], v[1]);
        }
    }
}

} // namespace kiln::cuda::depthwise
