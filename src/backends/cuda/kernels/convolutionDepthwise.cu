// The "depthwise" tactic of the CUDA convolution kernel: 2-D forward convolutions (1-D ones are [N, C, 1, W]) with
// groups == input channels == output maps (channel multiplier 1: MobileNet / EfficientNet / ConvNeXt blocks), any
// kernel size, stride, dilation and (asymmetric) padding, constant weights, and the fused epilogue of
// fusedEpilogue.h (bias, added tensor, any activation of activationMath.cuh, gated or not: SiLU and hard-swish are
// v · sigmoid(v) and v · hard_sigmoid(v)), accumulated in float.
// - Channel-last nodes (kHWC8: FP16/BF16 data, fused addition and output stored [N, H, W, Cp], Cp = C rounded up
//   to 8): the kernels of convolutionDepthwise.cuh in one of three layouts, each a tactic that the builder times per
//   layer: "depthwise" register tiles of 2 or 4 output pixels per thread (variant 0), "depthwise.pixel" one pixel per
//   thread (1), "depthwise.strip" channel pairs down strips of rows with the window in registers (4). A SiLU epilogue
//   (gated sigmoid) always takes the approximate sigmoid (__expf, __fdividef; docs/gpu.md states its error). The
//   environment variable KILN_DEPTHWISE_VARIANT (0-9, read at creation) overrides the layout and the sigmoid for
//   experiments (bench/gpu/depthwise_sweep.py): 0-4 as above plus the blocks-filling tiles (2) and the shared-memory
//   block tile (3), 5-9 the same with the approximate sigmoid. Weights are stored once at creation as float
//   [R, S, Cp]. Kernel widths 3, 5 and 7 with strides 1 and 2 and horizontal dilation 1 are compiled for; other
//   geometries run a generic per-vector loop. Padding channels of the output are written as zero.
// - Linear NCHW nodes (FP32/FP16/BF16): one thread per output value, weights as float [C, R, S]; coalesced along W.
// Grids are sized from the device's SM count and the kernel's occupancy (grid-stride loops), or one block per tile.
#include "backends/cuda/kernels/activationMath.cuh"
#include "backends/cuda/kernels/convolution.h"
#include "backends/cuda/kernels/convolutionDepthwise.cuh"
#include "backends/cuda/kernels/deviceTypes.cuh"
#include "backends/cuda/kernels/kernelCommon.cuh"
#include "backends/cuda/kernels/vector8.cuh"
#include "core/dataType.h"
#include "core/tensorFormat.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <memory>
#include <string>

namespace kiln::cuda
{
using nvinfer1::DataType;

namespace
{
using namespace depthwise;

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
using DwSharedFn = void (*)(DwArgs, DwTile);
using DwStripFn = void (*)(DwArgs, int32_t, int32_t, int32_t);

//! kHWC8 launch variants (KILN_DEPTHWISE_VARIANT, read at kernel creation; docs/gpu.md): 0 register tiles of 4
//! (3x3) or 2 pixels per thread in blocks of 256 threads; 1 one pixel per thread (a warp's loads are contiguous runs of
//! whole pixels); 2 the tiles of 0 with blocks shrunk to fill every SM; 3 the shared-memory block tile; 4 channel
//! pairs down strips of rows (square 3x3 / 5x5 kernels, equal strides); 5-9 the layouts of 0-4 with the sigmoid
//! (SiLU's gate) computed by the approximate __expf and __fdividef. Where a layout does not apply, 2 runs.
constexpr int32_t kVARIANTS = 10;
constexpr int32_t kLAYOUTS = 5;
constexpr char const* kVARIANT_ENV = "KILN_DEPTHWISE_VARIANT";

//! The variant the environment asks for, `fallback` when it is unset, or -1 with `error` set when the value is not one.
int32_t variantFromEnvironment(int32_t fallback, std::string& error)
{
    char const* env = std::getenv(kVARIANT_ENV);
    if (env == nullptr || *env == '\0')
    {
        return fallback;
    }
    std::string const text(env);
    if (text.size() == 1 && text[0] >= '0' && text[0] < static_cast<char>('0' + kVARIANTS))
    {
        return text[0] - '0';
    }
    error = std::string(kVARIANT_ENV) + "='" + text + "' is not a depthwise variant (0 to "
        + std::to_string(kVARIANTS - 1) + ")";
    return -1;
}

//! The register-tiled kHWC8 instantiation for (type, kernel width, stride), or nullptr; TILE3 pixels per thread for
//! 3x3 kernels, TILE57 for 5x5 and 7x7.
template <typename T, int32_t TILE3, int32_t TILE57>
DwKernelFn tiledFor(int32_t kw, int32_t sw)
{
    switch (kw * 10 + sw)
    {
    case 31: return depthwiseHwc8Tiled<T, 3, 1, TILE3>;
    case 32: return depthwiseHwc8Tiled<T, 3, 2, TILE3>;
    case 51: return depthwiseHwc8Tiled<T, 5, 1, TILE57>;
    case 52: return depthwiseHwc8Tiled<T, 5, 2, TILE57>;
    case 71: return depthwiseHwc8Tiled<T, 7, 1, TILE57>;
    case 72: return depthwiseHwc8Tiled<T, 7, 2, TILE57>;
    default: return nullptr;
    }
}

//! The tiled instantiation of `variant` (1: one pixel per thread; else 4 for 3x3, 2 for wider) and its tile.
template <typename T>
DwKernelFn tiledKernel(int32_t variant, int32_t kw, int32_t sw, int32_t& tile)
{
    // Wider kernels keep fewer pixels per thread (registers: TILE x 8 accumulators, KW x 8 weights).
    tile = variant == 1 ? 1 : kw == 3 ? 4 : 2;
    return variant == 1 ? tiledFor<T, 1, 1>(kw, sw) : tiledFor<T, 4, 2>(kw, sw);
}

//! The shared-memory instantiation for (type, kernel width, stride) and its pixels per thread, or nullptr.
template <typename T>
DwSharedFn sharedKernel(int32_t kw, int32_t sw, int32_t& pw)
{
    pw = kw == 7 ? 2 : 4;
    switch (kw * 10 + sw)
    {
    case 31: return depthwiseHwc8Shared<T, 3, 1, 4>;
    case 32: return depthwiseHwc8Shared<T, 3, 2, 4>;
    case 51: return depthwiseHwc8Shared<T, 5, 1, 4>;
    case 52: return depthwiseHwc8Shared<T, 5, 2, 4>;
    case 71: return depthwiseHwc8Shared<T, 7, 1, 2>;
    case 72: return depthwiseHwc8Shared<T, 7, 2, 2>;
    default: return nullptr;
    }
}

//! The strip instantiation for a K x K kernel of stride S in both directions, or nullptr.
template <typename T>
DwStripFn stripKernel(int32_t kh, int32_t kw, int32_t sh, int32_t sw)
{
    if (kh != kw || sh != sw)
    {
        return nullptr;
    }
    switch (kw * 10 + sw)
    {
    case 31: return depthwiseHwc8Strip<T, 3, 1>;
    case 32: return depthwiseHwc8Strip<T, 3, 2>;
    case 51: return depthwiseHwc8Strip<T, 5, 1>;
    case 52: return depthwiseHwc8Strip<T, 5, 2>;
    default: return nullptr;
    }
}

//! Blocks of `block` threads for `work` items: every SM filled to the kernel's occupancy, no more than needed.
int32_t gridBlocks(void const* fn, int32_t smCount, int64_t work, int32_t block = kDW_BLOCK)
{
    int perSm = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, fn, block, 0) != cudaSuccess || perSm < 1)
    {
        (void) cudaGetLastError();
        perSm = 1;
    }
    int64_t const needed = (work + block - 1) / block;
    return static_cast<int32_t>(std::max<int64_t>(1, std::min<int64_t>(needed, int64_t{perSm} * smCount)));
}

//! Threads per block for `work` items: 256, halved (down to 64) while the blocks would not cover every SM twice.
int32_t fillingBlock(int32_t smCount, int64_t work)
{
    int32_t block = kDW_BLOCK;
    while (block > 64 && (work + block - 1) / block < 2 * int64_t{smCount})
    {
        block /= 2;
    }
    return block;
}

//! Largest divisor of `vectors` up to 8: the channel vectors of a shared-memory tile.
int32_t tileVectors(int32_t vectors)
{
    for (int32_t cv = 8; cv > 1; --cv)
    {
        if (vectors % cv == 0)
        {
            return cv;
        }
    }
    return 1;
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
    DepthwiseConvolutionKernel(KernelSetup const& setup, ConvConfig cfg, FusedEpilogue epilogue, int32_t variant)
        : mSetup(setup)
        , mCfg(std::move(cfg))
        , mEpilogue(epilogue)
        , mChannelLast(setup.node->attrs.getInt(kCHANNEL_LAST_ATTRIBUTE, 0) != 0)
        , mType(setup.inputTypes[0])
        , mVariant(variant % kLAYOUTS)
        , mFastSigmoid(variant >= kLAYOUTS)
    {
    }

    Status init()
    {
        int device = 0;
        KILN_CUDA_CHECK(cudaGetDevice(&device));
        KILN_CUDA_CHECK(cudaDeviceGetAttribute(&mSmCount, cudaDevAttrMultiProcessorCount, device));
        KILN_CUDA_CHECK(cudaDeviceGetAttribute(&mSharedOptin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
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
        a.fastSigmoid = mFastSigmoid;
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
        if (mShared != nullptr)
        {
            mShared<<<mBlocks, mThreads, mSharedBytes, ctx.stream>>>(a, mTile);
        }
        else if (mStrip != nullptr)
        {
            mStrip<<<mBlocks, mThreads, 0, ctx.stream>>>(a, mStripRows, mStrips, static_cast<int32_t>(mWork));
        }
        else if (mTiled != nullptr)
        {
            mTiled<<<mBlocks, mThreads, 0, ctx.stream>>>(a, mTilesW, static_cast<int32_t>(mWork));
        }
        else
        {
            mPlain<<<mBlocks, mThreads, 0, ctx.stream>>>(a, static_cast<int32_t>(mWork));
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
        mShared = nullptr;
        mStrip = nullptr;
        mThreads = kDW_BLOCK;
        if (!mChannelLast)
        {
            mPlain = mType == DataType::kFLOAT ? depthwiseLinear<float>
                : mType == DataType::kHALF     ? depthwiseLinear<__half>
                                               : depthwiseLinear<__nv_bfloat16>;
            mWork = static_cast<int64_t>(g.n) * g.c * g.outH * g.outW;
            mBlocks = gridBlocks(reinterpret_cast<void const*>(mPlain), mSmCount, mWork);
            return;
        }
        if ((mVariant == 3 && g.dw == 1 && chooseShared()) || (mVariant == 4 && chooseStrip()))
        {
            return;
        }
        int32_t tile = 1;
        if (g.dw == 1)
        {
            int32_t const variant = mVariant >= 3 ? 2 : mVariant;
            mTiled = mType == DataType::kHALF ? tiledKernel<__half>(variant, g.kw, g.sw, tile)
                                              : tiledKernel<__nv_bfloat16>(variant, g.kw, g.sw, tile);
        }
        int64_t const vectors = g.cp / kVEC;
        if (mTiled != nullptr)
        {
            mTilesW = (g.outW + tile - 1) / tile;
            mWork = static_cast<int64_t>(g.n) * g.outH * mTilesW * vectors;
            mThreads = mVariant == 0 ? kDW_BLOCK : fillingBlock(mSmCount, mWork);
            mBlocks = gridBlocks(reinterpret_cast<void const*>(mTiled), mSmCount, mWork, mThreads);
            return;
        }
        mPlain = mType == DataType::kHALF ? depthwiseHwc8Generic<__half> : depthwiseHwc8Generic<__nv_bfloat16>;
        mWork = static_cast<int64_t>(g.n) * g.outH * g.outW * vectors;
        mThreads = mVariant == 0 ? kDW_BLOCK : fillingBlock(mSmCount, mWork);
        mBlocks = gridBlocks(reinterpret_cast<void const*>(mPlain), mSmCount, mWork, mThreads);
    }

    //! Variant 4: strips of output rows sized so that the threads (channel pairs x columns x strips) fill every SM
    //! twice over; false when the geometry has no instantiation.
    bool chooseStrip()
    {
        DwGeometry const& g = mArgs.g;
        if (g.dh != 1 || g.dw != 1)
        {
            return false;
        }
        mStrip = mType == DataType::kHALF ? stripKernel<__half>(g.kh, g.kw, g.sh, g.sw)
                                          : stripKernel<__nv_bfloat16>(g.kh, g.kw, g.sh, g.sw);
        if (mStrip == nullptr)
        {
            return false;
        }
        int64_t const columns = int64_t{g.n} * g.outW * (g.cp / 2);
        int64_t const target = 2 * int64_t{mSmCount} * 2048;
        mStripRows = static_cast<int32_t>(std::clamp<int64_t>(columns * g.outH / target, 1, 16));
        mStrips = (g.outH + mStripRows - 1) / mStripRows;
        mWork = columns * mStrips;
        mThreads = fillingBlock(mSmCount, mWork);
        mBlocks = gridBlocks(reinterpret_cast<void const*>(mStrip), mSmCount, mWork, mThreads);
        return true;
    }

    //! Variant 3: the block tile (channel vectors, rows, column groups) and its shared memory; false when the
    //! geometry has no instantiation or its smallest tile does not fit the device's shared memory.
    bool chooseShared()
    {
        DwGeometry const& g = mArgs.g;
        int32_t pw = 1;
        DwSharedFn const fn = mType == DataType::kHALF ? sharedKernel<__half>(g.kw, g.sw, pw)
                                                       : sharedKernel<__nv_bfloat16>(g.kw, g.sw, pw);
        if (fn == nullptr)
        {
            return false;
        }
        DwTile t;
        t.cv = tileVectors(g.cp / kVEC);
        t.chanGroups = g.cp / kVEC / t.cv;
        // Stride-1 tiles are 4 thread groups wide, stride-2 tiles 2 (a smaller input window per output pixel row).
        t.groupsW = std::max(1, std::min((g.sw == 1 ? 4 : 2), (g.outW + pw - 1) / pw));
        t.tw = t.groupsW * pw;
        t.th = std::max(1, std::min(g.outH, kDW_BLOCK / (t.cv * t.groupsW)));
        int64_t bytes = 0;
        auto layout = [&] {
            t.tilesH = (g.outH + t.th - 1) / t.th;
            t.tilesW = (g.outW + t.tw - 1) / t.tw;
            t.inRows = (t.th - 1) * g.sh + (g.kh - 1) * g.dh + 1;
            t.inCols = (t.tw - 1) * g.sw + g.kw;
            bytes = (int64_t{t.inRows} * t.inCols * t.cv + int64_t{g.kh} * g.kw * t.cv * 2) * 16;
            return int64_t{g.n} * t.tilesH * t.tilesW * t.chanGroups;
        };
        // Fewer rows per tile while the tiles would not cover every SM twice (batch 1) or the window is too large.
        int64_t blocks = layout();
        while (t.th > 1 && (blocks < 2 * int64_t{mSmCount} || bytes > mSharedOptin))
        {
            t.th = (t.th + 1) / 2;
            blocks = layout();
        }
        if (bytes > mSharedOptin || blocks >= (int64_t{1} << 31))
        {
            return false;
        }
        if (bytes > 48 * 1024
            && cudaFuncSetAttribute(reinterpret_cast<void const*>(fn), cudaFuncAttributeMaxDynamicSharedMemorySize,
                   static_cast<int>(bytes))
                != cudaSuccess)
        {
            (void) cudaGetLastError();
            return false;
        }
        mShared = fn;
        mTile = t;
        mThreads = t.cv * t.groupsW * t.th;
        mSharedBytes = static_cast<int32_t>(bytes);
        mBlocks = static_cast<int32_t>(blocks);
        mWork = blocks * mThreads;
        return true;
    }

    KernelSetup mSetup;
    ConvConfig mCfg;
    FusedEpilogue mEpilogue;
    bool mChannelLast{false};
    DataType mType{DataType::kHALF};
    int32_t mVariant{0};       //!< the layout (0-4: the tactic's, or KILN_DEPTHWISE_VARIANT's)
    bool mFastSigmoid{false}; //!< variants 5-9 (SiLU epilogues by default)
    int32_t mSmCount{1};
    int32_t mSharedOptin{48 * 1024};
    int64_t mCp{0};
    DeviceBuffer mWeights;
    DeviceBuffer mBias;
    int64_t mBiasCount{0};
    // Of the last reshape.
    DwArgs mArgs;
    DwKernelFn mTiled{nullptr};
    DwPlainFn mPlain{nullptr};
    DwSharedFn mShared{nullptr};
    DwStripFn mStrip{nullptr};
    int32_t mStripRows{1};
    int32_t mStrips{1};
    DwTile mTile;
    int32_t mThreads{kDW_BLOCK};
    int32_t mSharedBytes{0};
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

std::vector<std::string> depthwiseTactics(KernelSetup const& setup, ConvConfig const& cfg, FusedEpilogue const& epilogue)
{
    if (!depthwiseApplies(setup, cfg, epilogue))
    {
        return {};
    }
    std::vector<std::string> tactics{kTACTIC_DEPTHWISE};
    if (setup.node->attrs.getInt(kCHANNEL_LAST_ATTRIBUTE, 0) == 0)
    {
        return tactics; // one linear kernel
    }
    WindowParams const& p = cfg.params;
    bool const undilated = p.dilation.size() == 2 && p.dilation[0] == 1 && p.dilation[1] == 1;
    int64_t const kw = p.kernel[1];
    int64_t const sw = p.stride[1];
    // The instantiated widths and strides; elsewhere the layouts share the generic kernel (nothing to time).
    if (undilated && (kw == 3 || kw == 5 || kw == 7) && (sw == 1 || sw == 2))
    {
        tactics.push_back(kTACTIC_DEPTHWISE_PIXEL);
    }
    if (undilated && kw == p.kernel[0] && sw == p.stride[0] && (kw == 3 || kw == 5) && (sw == 1 || sw == 2))
    {
        tactics.push_back(kTACTIC_DEPTHWISE_STRIP);
    }
    return tactics;
}

bool isDepthwiseTactic(std::string const& tactic)
{
    return tactic == kTACTIC_DEPTHWISE || tactic == kTACTIC_DEPTHWISE_PIXEL || tactic == kTACTIC_DEPTHWISE_STRIP;
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
    // The tactic's layout, with the approximate sigmoid for SiLU; KILN_DEPTHWISE_VARIANT overrides both.
    std::string const& tactic = setup.node->tactic;
    int32_t const layout = tactic == kTACTIC_DEPTHWISE_PIXEL ? 1 : tactic == kTACTIC_DEPTHWISE_STRIP ? 4 : 0;
    bool const silu = epilogue.hasActivation && epilogue.gated
        && epilogue.activation == nvinfer1::ActivationType::kSIGMOID;
    std::string variantError;
    int32_t const variant = variantFromEnvironment(layout + (silu ? kLAYOUTS : 0), variantError);
    if (variant < 0)
    {
        return invalidArgument(label + ": " + variantError);
    }
    auto kernel = std::make_unique<DepthwiseConvolutionKernel>(setup, cfg, epilogue, variant);
    KILN_RETURN_IF_ERROR(kernel->init().withContext(label + ": uploading the weights"));
    return std::unique_ptr<Kernel>(std::move(kernel));
}

} // namespace kiln::cuda
