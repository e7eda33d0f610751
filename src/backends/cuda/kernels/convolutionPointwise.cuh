// Device side of the "pointwise" convolution tactics (convolutionPointwise.cu): 1x1 convolutions with few input
// channels (Cp <= 64) on channel-last kHWC8 FP16/BF16 tensors. The operands of a launch, the fused epilogue of one
// 8-channel output vector (bias, residual, activation incl. the gated SiLU / hard-swish, padding channels zero) and
// the two kernels: "pointwise" (tensor cores: per warp, 16 pixels x 8 output channels per mma.sync m16n8k16 with FP32
// accumulation, the accumulators staged in shared memory so that the epilogue reads and writes whole 16-byte vectors
// with consecutive lanes on consecutive vectors) and "pointwise.fma" (CUDA cores: a thread = a pixel, its input
// channels in float registers, FP32 FMAs per group of 8 output channels).
#pragma once

#include "backends/cuda/kernels/activationMath.cuh"
#include "backends/cuda/kernels/vector8.cuh"

#include <cstdint>
#include <type_traits>

namespace kiln::cuda::pointwise
{

constexpr int32_t kVEC = kVECTOR8;                  //!< channels of a kHWC8 vector
constexpr int32_t kMAX_CP = 64;                     //!< input channels (padded to 8) the tactics take
constexpr int32_t kMAX_KSTEPS = kMAX_CP / 16;       //!< k16 steps of the MMA kernel
constexpr int32_t kMMA_WARPS = 4;                   //!< warps per block of the MMA kernel
constexpr int32_t kCHUNK = 8;                       //!< output n-tiles (8 channels each) per staged chunk
constexpr int32_t kSTAGE_STRIDE = kCHUNK * kVEC + 8; //!< floats per staged row (72: conflict-free float2 stores)
constexpr int32_t kFMA_BLOCK = 256;                 //!< threads per block of the FMA kernel

//! How the epilogue's activation is computed (decided on the host; the generic form covers every other case).
enum class PwAct : int32_t
{
    kNONE,
    kRELU,
    kSILU,       //!< v · sigmoid(v), the sigmoid as 0.5 + 0.5 · tanh(v / 2) with the hardware tanh.approx
    kHARD_SWISH, //!< v · clamp(alpha · v + beta, 0, 1)
    kGENERIC,    //!< applyActivation, gated or not
};

//! Operands of one launch (passed by value). Tensors are [P, Cp] (input) and [P, Kp] (output, residual) rows of
//! FP16/BF16 values, P = N·H·W pixels.
struct PwArgs
{
    void const* x{nullptr};
    void* y{nullptr};
    void const* add{nullptr};   //!< the residual: the output's layout and type, or null
    uint2 const* frag{nullptr}; //!< MMA: the weights as B fragments [Kp / 8][ksteps][32 lanes] (two b16 pairs a lane)
    float const* w{nullptr};    //!< FMA: the weights as float [Kp / 8][Cp][8]
    float const* bias{nullptr}; //!< [Kp] float (zero beyond K), or null
    int32_t pixels{0};
    int32_t c{0};      //!< real input channels
    int32_t cp{0};     //!< input row length (C rounded up to 8)
    int32_t k{0};      //!< real output channels
    int32_t kp{0};     //!< output row length (K rounded up to 8)
    int32_t ksteps{1}; //!< ceil(Cp / 16)
    PwAct act{PwAct::kNONE};
    bool gated{false}; //!< kGENERIC: v · act(v)
    nvinfer1::ActivationType activation{nvinfer1::ActivationType::kRELU};
    float alpha{0.F};
    float beta{0.F};
};

//! tanh by the special function unit (sm_75+; max relative error about 2^-11), tanhf before.
__device__ __forceinline__ float fastTanh(float v)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 750
    float r;
    asm("tanh.approx.f32 %0, %1;" : "=f"(r) : "f"(v));
    return r;
#else
    return tanhf(v);
#endif
}

__device__ __forceinline__ float activate(PwArgs const& a, float v)
{
    switch (a.act)
    {
    case PwAct::kNONE: return v;
    case PwAct::kRELU: return v > 0.F ? v : 0.F;
    case PwAct::kSILU: return v * fmaf(0.5F, fastTanh(0.5F * v), 0.5F);
    case PwAct::kHARD_SWISH: return v * fmaxf(0.F, fminf(1.F, fmaf(a.alpha, v, a.beta)));
    default:
    {
        float const act = applyActivation(a.activation, a.alpha, a.beta, v);
        return a.gated ? v * act : act;
    }
    }
}

//! Epilogue and store of the output vector of channels c0...c0 + 7 of pixel `p` from the accumulators `f`:
//! act(f + bias + residual), channels >= K written as zero.
template <typename T>
__device__ __forceinline__ void storeVector(PwArgs const& a, float (&f)[kVEC], int32_t p, int32_t c0)
{
    int64_t const at = static_cast<int64_t>(p) * a.kp + c0;
    float added[kVEC]{};
    if (a.add != nullptr)
    {
        unpack8<T>(__ldg(reinterpret_cast<uint4 const*>(static_cast<uint16_t const*>(a.add) + at)), added);
    }
    float bias[kVEC]{};
    if (a.bias != nullptr)
    {
        float4 const* b = reinterpret_cast<float4 const*>(a.bias + c0);
        float4 const lo = __ldg(b);
        float4 const hi = __ldg(b + 1);
        bias[0] = lo.x;
        bias[1] = lo.y;
        bias[2] = lo.z;
        bias[3] = lo.w;
        bias[4] = hi.x;
        bias[5] = hi.y;
        bias[6] = hi.z;
        bias[7] = hi.w;
    }
#pragma unroll
    for (int32_t i = 0; i < kVEC; ++i)
    {
        f[i] = c0 + i < a.k ? activate(a, f[i] + bias[i] + added[i]) : 0.F;
    }
    *reinterpret_cast<uint4*>(static_cast<uint16_t*>(a.y) + at) = pack8<T>(f);
}

//! D += A x B for one m16n8k16 tile (row-major A, column-major B, FP32 accumulators), FP16 or BF16 operands.
template <typename T>
__device__ __forceinline__ void mma16816(float (&d)[4], uint32_t const (&a)[4], uint2 b)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    if constexpr (std::is_same_v<T, __half>)
    {
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
                     "{%8, %9}, {%0, %1, %2, %3};"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b.x), "r"(b.y));
    }
    else
    {
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
                     "{%8, %9}, {%0, %1, %2, %3};"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b.x), "r"(b.y));
    }
#else
    (void) d;
    (void) a;
    (void) b;
    __trap(); // the host refuses the tactic where the kernel was compiled without mma.sync
#endif
}

//! The input pair (channels ch, ch + 1) of a pixel row for an A fragment: zero outside the image and beyond C (the
//! padding channels of the input are never read as values, whatever they hold).
__device__ __forceinline__ uint32_t loadPair(uint32_t const* row, bool inside, int32_t ch, int32_t c)
{
    uint32_t v = inside && ch < c ? __ldg(row + ch / 2) : 0U;
    return ch + 1 < c ? v : (v & 0xFFFFU);
}

//! Tensor-core kernel: each warp takes tiles of 16 pixels (grid-stride), loads their A fragments once (ksteps x 4
//! registers: lane (g, t) holds channels 2t, 2t + 1, 2t + 8, 2t + 9 of pixels g and g + 8 of each k16 step), then per
//! chunk of up to 8 n-tiles accumulates with one mma.sync per (n-tile, k step), stages the FP32 tile in its shared
//! rows (16 x 64 floats) and runs the epilogue over the chunk's 16-byte output vectors, lanes on consecutive vectors.
template <typename T>
__global__ void __launch_bounds__(kMMA_WARPS * 32) pointwiseMma(PwArgs a, int32_t tiles)
{
    __shared__ __align__(16) float stage[kMMA_WARPS][16][kSTAGE_STRIDE];
    int32_t const lane = static_cast<int32_t>(threadIdx.x) & 31;
    int32_t const warp = static_cast<int32_t>(threadIdx.x) >> 5;
    int32_t const g = lane >> 2;
    int32_t const t = lane & 3;
    int32_t const ntiles = a.kp / kVEC;
    float(*rows)[kSTAGE_STRIDE] = stage[warp];
    for (int32_t tile = static_cast<int32_t>(blockIdx.x) * kMMA_WARPS + warp; tile < tiles;
         tile += static_cast<int32_t>(gridDim.x) * kMMA_WARPS)
    {
        int32_t const p0 = tile * 16;
        bool const insideLo = p0 + g < a.pixels;
        bool const insideHi = p0 + g + 8 < a.pixels;
        auto const* x = static_cast<uint16_t const*>(a.x);
        int64_t const pixelLo = insideLo ? p0 + g : 0;
        int64_t const pixelHi = insideHi ? p0 + g + 8 : 0;
        auto const* rowLo = reinterpret_cast<uint32_t const*>(x + pixelLo * a.cp);
        auto const* rowHi = reinterpret_cast<uint32_t const*>(x + pixelHi * a.cp);
        uint32_t frag[kMAX_KSTEPS][4];
#pragma unroll
        for (int32_t s = 0; s < kMAX_KSTEPS; ++s)
        {
            int32_t const ch = s * 16 + 2 * t;
            frag[s][0] = s < a.ksteps ? loadPair(rowLo, insideLo, ch, a.c) : 0U;
            frag[s][1] = s < a.ksteps ? loadPair(rowHi, insideHi, ch, a.c) : 0U;
            frag[s][2] = s < a.ksteps ? loadPair(rowLo, insideLo, ch + 8, a.c) : 0U;
            frag[s][3] = s < a.ksteps ? loadPair(rowHi, insideHi, ch + 8, a.c) : 0U;
        }
        for (int32_t n0 = 0; n0 < ntiles; n0 += kCHUNK)
        {
            float acc[kCHUNK][4]{};
#pragma unroll
            for (int32_t j = 0; j < kCHUNK; ++j)
            {
                if (n0 + j < ntiles)
                {
#pragma unroll
                    for (int32_t s = 0; s < kMAX_KSTEPS; ++s)
                    {
                        if (s < a.ksteps)
                        {
                            uint2 const b = __ldg(a.frag + (static_cast<int64_t>(n0 + j) * a.ksteps + s) * 32 + lane);
                            mma16816<T>(acc[j], frag[s], b);
                        }
                    }
                    *reinterpret_cast<float2*>(&rows[g][j * kVEC + 2 * t]) = make_float2(acc[j][0], acc[j][1]);
                    *reinterpret_cast<float2*>(&rows[g + 8][j * kVEC + 2 * t]) = make_float2(acc[j][2], acc[j][3]);
                }
            }
            __syncwarp();
            int32_t const vectors = min(kCHUNK, ntiles - n0);
#pragma unroll
            for (int32_t i = 0; i < 16 * kCHUNK / 32; ++i)
            {
                int32_t const slot = i * 32 + lane;
                int32_t const row = slot / kCHUNK;
                int32_t const v = slot % kCHUNK;
                if (v < vectors && p0 + row < a.pixels)
                {
                    float4 const lo = *reinterpret_cast<float4 const*>(&rows[row][v * kVEC]);
                    float4 const hi = *reinterpret_cast<float4 const*>(&rows[row][v * kVEC + 4]);
                    float f[kVEC]{lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
                    storeVector<T>(a, f, p0 + row, (n0 + v) * kVEC);
                }
            }
            __syncwarp();
        }
    }
}

//! CUDA-core kernel: a thread = a pixel (grid-stride); its C input channels as floats in registers (padding channels
//! zero), then per group of 8 output channels 8 x C FMAs with the group's weights read as warp-uniform float4 loads.
template <typename T>
__global__ void __launch_bounds__(kFMA_BLOCK) pointwiseFma(PwArgs a)
{
    int32_t const vectors = a.cp / kVEC;
    for (int32_t p = static_cast<int32_t>(blockIdx.x * blockDim.x + threadIdx.x); p < a.pixels;
         p += static_cast<int32_t>(gridDim.x * blockDim.x))
    {
        float xf[kMAX_CP];
#pragma unroll
        for (int32_t v = 0; v < kMAX_CP / kVEC; ++v)
        {
            float f[kVEC]{};
            if (v < vectors)
            {
                unpack8<T>(__ldg(reinterpret_cast<uint4 const*>(static_cast<uint16_t const*>(a.x)
                               + static_cast<int64_t>(p) * a.cp + v * kVEC)),
                    f);
            }
#pragma unroll
            for (int32_t i = 0; i < kVEC; ++i)
            {
                xf[v * kVEC + i] = v * kVEC + i < a.c ? f[i] : 0.F;
            }
        }
        for (int32_t c0 = 0; c0 < a.kp; c0 += kVEC)
        {
            float4 const* w = reinterpret_cast<float4 const*>(a.w + static_cast<int64_t>(c0) * a.cp);
            float acc[kVEC]{};
#pragma unroll
            for (int32_t ci = 0; ci < kMAX_CP; ++ci)
            {
                if (ci < a.cp)
                {
                    float4 const lo = __ldg(w + 2 * ci);
                    float4 const hi = __ldg(w + 2 * ci + 1);
                    acc[0] = fmaf(xf[ci], lo.x, acc[0]);
                    acc[1] = fmaf(xf[ci], lo.y, acc[1]);
                    acc[2] = fmaf(xf[ci], lo.z, acc[2]);
                    acc[3] = fmaf(xf[ci], lo.w, acc[3]);
                    acc[4] = fmaf(xf[ci], hi.x, acc[4]);
                    acc[5] = fmaf(xf[ci], hi.y, acc[5]);
                    acc[6] = fmaf(xf[ci], hi.z, acc[6]);
                    acc[7] = fmaf(xf[ci], hi.w, acc[7]);
                }
            }
            storeVector<T>(a, acc, p, c0);
        }
    }
}

} // namespace kiln::cuda::pointwise
