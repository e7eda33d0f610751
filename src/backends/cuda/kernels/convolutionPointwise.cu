// The "pointwise" tactics of the CUDA convolution kernel: 1x1 convolutions with stride 1, no padding and groups 1 on
// channel-last kHWC8 FP16/BF16 tensors (2-D; data, residual and output of one type) whose input has few channels
// (C rounded up to 8 at most 64: the expansion convolutions of EfficientNet and MobileNetV3, 16 -> 96, 24 -> 144,
// 40 -> 240, ...), any output channel count, constant kernel and bias, and the whole fused epilogue (fusedEpilogue.h:
// bias, residual of the output's shape, any activation, gated or not) in registers, FP32 accumulation, one launch.
// cuBLASLt's tiles (the "gemm" tactic) waste most of their K extent at K = 16-24 and the gated activation costs a
// second pass there; these kernels read the input once and write the output once (convolutionPointwise.cuh):
// - "pointwise": tensor cores, mma.sync m16n8k16 (sm_80+), the weights stored at creation as the MMA's B fragments;
// - "pointwise.fma": CUDA cores, a thread per pixel, the weights as float [Kp / 8][Cp][8].
// The output's padding channels are written as zero; the input's padding channels are never read as values.
#include "backends/cuda/kernels/convolution.h"
#include "backends/cuda/kernels/convolutionPointwise.cuh"
#include "backends/cuda/kernels/kernelCommon.cuh"
#include "core/dataType.h"
#include "core/tensorFormat.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>

namespace kiln::cuda
{
using nvinfer1::ActivationType;
using nvinfer1::DataType;

namespace
{
using namespace pointwise;

//! Blocks of `block` threads for `work` threads' items: every SM filled to the kernel's occupancy, no more than
//! needed.
int32_t blocksFor(void const* fn, int32_t smCount, int64_t work, int32_t block)
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

//! The activation form of the epilogue (PwAct) for `e`.
PwAct actOf(FusedEpilogue const& e)
{
    if (!e.hasActivation)
    {
        return PwAct::kNONE;
    }
    if (e.gated)
    {
        return e.activation == ActivationType::kSIGMOID ? PwAct::kSILU
            : e.activation == ActivationType::kHARD_SIGMOID ? PwAct::kHARD_SWISH
                                                             : PwAct::kGENERIC;
    }
    return e.activation == ActivationType::kRELU ? PwAct::kRELU : PwAct::kGENERIC;
}

//! create: the weights in the kernel's layout and the bias as float [Kp] on the device; reshape: the shape checks and
//! the grid; run: the addresses, then one launch.
class PointwiseConvolutionKernel final : public Kernel
{
public:
    PointwiseConvolutionKernel(KernelSetup const& setup, ConvConfig cfg, FusedEpilogue epilogue, bool mma)
        : mSetup(setup)
        , mCfg(std::move(cfg))
        , mEpilogue(epilogue)
        , mType(setup.inputTypes[0])
        , mMma(mma)
    {
    }

    Status init()
    {
        int device = 0;
        KILN_CUDA_CHECK(cudaGetDevice(&device));
        KILN_CUDA_CHECK(cudaDeviceGetAttribute(&mSmCount, cudaDevAttrMultiProcessorCount, device));
        int major = 0;
        KILN_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
        if (mMma)
        {
            // mma.sync needs the device and the kernel's compiled architecture (its PTX) to be sm_80 or later.
            cudaFuncAttributes attr{};
            KILN_CUDA_CHECK(cudaFuncGetAttributes(&attr, reinterpret_cast<void const*>(pointwiseMma<__half>)));
            if (major < 8 || attr.ptxVersion < 80)
            {
                return unsupported(label() + ": the pointwise tactic's mma.sync needs compute capability 8.0+");
            }
        }
        WeightsView const& w = mSetup.weights[0];
        int64_t const k = mCfg.k;
        mC = w.count / k;
        mCp = (mC + kVEC - 1) / kVEC * kVEC;
        mKp = (k + kVEC - 1) / kVEC * kVEC;
        auto const weight = [&](int64_t ko, int64_t ci) {
            return ko < k && ci < mC ? loadElement(w.data, w.type, ko * mC + ci) : 0.0;
        };
        if (mMma)
        {
            // B fragments of m16n8k16 (B[k][n] = W[n][k]): lane (g, t) of n-tile j, k step s holds W[8j + g][16s + 2t
            // + {0, 1}] and W[8j + g][16s + 2t + 8 + {0, 1}], four b16 values in that order.
            int64_t const ksteps = (mCp + 15) / 16;
            std::vector<uint8_t> host(static_cast<size_t>(byteSize(mType, mKp / kVEC * ksteps * 32 * 4)), 0);
            int64_t at = 0;
            for (int64_t j = 0; j < mKp / kVEC; ++j)
            {
                for (int64_t s = 0; s < ksteps; ++s)
                {
                    for (int64_t lane = 0; lane < 32; ++lane)
                    {
                        int64_t const n = j * kVEC + lane / 4;
                        int64_t const c0 = s * 16 + lane % 4 * 2;
                        for (int64_t ci : {c0, c0 + 1, c0 + 8, c0 + 9})
                        {
                            storeElement(host.data(), mType, at++, weight(n, ci));
                        }
                    }
                }
            }
            KILN_RETURN_IF_ERROR(mWeights.upload(host.data(), static_cast<int64_t>(host.size())));
        }
        else
        {
            std::vector<float> host(static_cast<size_t>(mKp * mCp), 0.F);
            for (int64_t ko = 0; ko < mKp; ++ko)
            {
                for (int64_t ci = 0; ci < mCp; ++ci)
                {
                    auto const at = static_cast<size_t>((ko / kVEC * mCp + ci) * kVEC + ko % kVEC);
                    host[at] = static_cast<float>(weight(ko, ci));
                }
            }
            KILN_RETURN_IF_ERROR(mWeights.upload(host.data(), static_cast<int64_t>(host.size() * sizeof(float))));
        }
        if (mSetup.weights.size() > 1 && mSetup.weights[1].present())
        {
            WeightsView const& b = mSetup.weights[1];
            if (b.count != k)
            {
                return invalidArgument(label() + ": the bias has " + std::to_string(b.count) + " values for "
                    + std::to_string(k) + " output maps");
            }
            std::vector<float> bias(static_cast<size_t>(mKp), 0.F);
            for (int64_t i = 0; i < k; ++i)
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
        mPixels = -1;
        std::vector<TensorView> inputs;
        ConvShapes shapes;
        KILN_RETURN_IF_ERROR(checkConvReshape(mSetup, mCfg, mEpilogue.hasAdd, allInputs, outputs,
            mSetup.weights[0].count, mBiasCount, label(), inputs, shapes));
        if (shapes.kernelTensor || shapes.biasTensor || shapes.c != mC)
        {
            return invalidArgument(label() + ": the pointwise tactic needs constant weights of the input's "
                + std::to_string(shapes.c) + " channels");
        }
        TensorView const& out = outputs[0];
        int64_t pixels = shapes.n;
        for (WindowExtent const& e : shapes.ext)
        {
            if (e.out != e.in || e.padBefore != 0)
            {
                return invalidArgument(label() + ": the pointwise tactic runs 1x1 convolutions without padding");
            }
            pixels *= e.in;
        }
        if (mEpilogue.hasAdd)
        {
            TensorView const& add = allInputs.back();
            bool same = add.type == out.type && add.dims.nbDims == out.dims.nbDims;
            for (int32_t i = 0; same && i < out.dims.nbDims; ++i)
            {
                same = add.dims.d[i] == out.dims.d[i];
            }
            if (!same)
            {
                return invalidArgument(label() + ": a kHWC8 fused addition must have the output's shape and type");
            }
        }
        if (pixels * std::max(mCp, mKp) >= (int64_t{1} << 31))
        {
            return invalidArgument(label() + ": the pointwise tactic handles tensors of less than 2^31 elements");
        }
        PwArgs& a = mArgs;
        a = PwArgs{};
        a.frag = mMma ? static_cast<uint2 const*>(mWeights.data()) : nullptr;
        a.w = mMma ? nullptr : static_cast<float const*>(mWeights.data());
        a.bias = static_cast<float const*>(mBias.data());
        a.pixels = static_cast<int32_t>(pixels);
        a.c = static_cast<int32_t>(mC);
        a.cp = static_cast<int32_t>(mCp);
        a.k = static_cast<int32_t>(mCfg.k);
        a.kp = static_cast<int32_t>(mKp);
        a.ksteps = static_cast<int32_t>((mCp + 15) / 16);
        a.act = actOf(mEpilogue);
        a.gated = mEpilogue.gated;
        a.activation = mEpilogue.activation;
        a.alpha = mEpilogue.alpha;
        a.beta = mEpilogue.beta;
        mPixels = pixels;
        if (pixels == 0)
        {
            return Status::ok();
        }
        bool const half = mType == DataType::kHALF;
        if (mMma)
        {
            mTiles = static_cast<int32_t>((pixels + 15) / 16);
            mFn = half ? reinterpret_cast<void const*>(pointwiseMma<__half>)
                       : reinterpret_cast<void const*>(pointwiseMma<__nv_bfloat16>);
            mThreads = kMMA_WARPS * 32;
            mBlocks = blocksFor(mFn, mSmCount, int64_t{mTiles} * 32, mThreads);
        }
        else
        {
            mFn = half ? reinterpret_cast<void const*>(pointwiseFma<__half>)
                       : reinterpret_cast<void const*>(pointwiseFma<__nv_bfloat16>);
            mThreads = kFMA_BLOCK;
            mBlocks = blocksFor(mFn, mSmCount, pixels, mThreads);
        }
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs,
        RunContext const& ctx) override
    {
        if (mPixels <= 0)
        {
            return mPixels == 0 ? Status::ok() : notReshaped(label());
        }
        PwArgs a = mArgs;
        a.x = inputs[0].data;
        a.y = outputs[0].data;
        a.add = mEpilogue.hasAdd ? inputs.back().data : nullptr;
        if (a.x == nullptr || a.y == nullptr || (mEpilogue.hasAdd && a.add == nullptr))
        {
            return invalidArgument(label() + ": the data input, the fused addition or the output has no buffer");
        }
        auto const bits = [](void const* q) { return reinterpret_cast<uintptr_t>(q); };
        if (((bits(a.x) | bits(a.y) | bits(a.add)) % 16) != 0)
        {
            return invalidArgument(label() + ": kHWC8 buffers must be 16-byte aligned");
        }
        bool const half = mType == DataType::kHALF;
        if (mMma)
        {
            half ? pointwiseMma<__half><<<mBlocks, mThreads, 0, ctx.stream>>>(a, mTiles)
                 : pointwiseMma<__nv_bfloat16><<<mBlocks, mThreads, 0, ctx.stream>>>(a, mTiles);
        }
        else
        {
            half ? pointwiseFma<__half><<<mBlocks, mThreads, 0, ctx.stream>>>(a)
                 : pointwiseFma<__nv_bfloat16><<<mBlocks, mThreads, 0, ctx.stream>>>(a);
        }
        Status const st = launchStatus(mMma ? "pointwiseMma" : "pointwiseFma");
        return st.isOk() ? st : st.withContext(label());
    }

private:
    std::string label() const { return nodeLabel(mSetup, "Convolution"); }

    KernelSetup mSetup;
    ConvConfig mCfg;
    FusedEpilogue mEpilogue;
    DataType mType{DataType::kHALF};
    bool mMma{true};
    int32_t mSmCount{1};
    int64_t mC{0};  //!< input channels
    int64_t mCp{0}; //!< C rounded up to 8 (the input's row length)
    int64_t mKp{0}; //!< output maps rounded up to 8 (the output's row length)
    DeviceBuffer mWeights;
    DeviceBuffer mBias;
    int64_t mBiasCount{0};
    // Of the last reshape.
    PwArgs mArgs;
    void const* mFn{nullptr};
    int32_t mTiles{0};
    int32_t mThreads{kMMA_WARPS * 32};
    int32_t mBlocks{1};
    int64_t mPixels{-1}; //!< N·H·W; -1 until a reshape succeeded
};

//! Why the pointwise tactics cannot run `setup` (empty: they can).
std::string pointwiseProblem(KernelSetup const& setup, ConvConfig const& cfg, FusedEpilogue const& epilogue)
{
    if (setup.node == nullptr || setup.inputTypes.empty())
    {
        return "no node or no inputs";
    }
    PlanNode const& node = *setup.node;
    bool const channelLast = node.attrs.getInt(kCHANNEL_LAST_ATTRIBUTE, 0) != 0
        && node.attrs.getInt(kREGION_FORMAT_ATTRIBUTE, static_cast<int64_t>(nvinfer1::TensorFormat::kHWC8))
            == static_cast<int64_t>(nvinfer1::TensorFormat::kHWC8);
    if (!channelLast)
    {
        return "the pointwise tactic runs channel-last (kHWC8) convolutions";
    }
    WindowParams const& p = cfg.params;
    if (cfg.deconvolution || cfg.groups != 1 || cfg.k <= 0 || p.nbSpatial != 2)
    {
        return "the pointwise tactic runs ungrouped 2-D forward convolutions";
    }
    bool const explicitPad
        = p.mode != nvinfer1::PaddingMode::kSAME_UPPER && p.mode != nvinfer1::PaddingMode::kSAME_LOWER;
    for (int32_t i = 0; i < p.nbSpatial; ++i)
    {
        auto const s = static_cast<size_t>(i);
        if (p.kernel[s] != 1 || p.stride[s] != 1 || (explicitPad && (p.prePadding[s] != 0 || p.postPadding[s] != 0)))
        {
            return "the pointwise tactic runs 1x1 convolutions with stride 1 and no padding";
        }
    }
    if (convolutionOwnInputs(node) != 1 || setup.weights.empty() || !setup.weights[0].present()
        || setup.weights[0].data == nullptr || setup.weights[0].count % cfg.k != 0)
    {
        return "the pointwise tactic needs the kernel (and bias) as constant weights";
    }
    int64_t const c = setup.weights[0].count / cfg.k;
    if ((c + kVEC - 1) / kVEC * kVEC > kMAX_CP)
    {
        return "the pointwise tactic takes at most " + std::to_string(kMAX_CP) + " input channels (" + std::to_string(c)
            + " here)";
    }
    DataType const t = setup.inputTypes[0];
    bool const addSame = !epilogue.hasAdd || setup.inputTypes.back() == t;
    if ((t != DataType::kHALF && t != DataType::kBF16) || setup.outputTypes.size() != 1 || setup.outputTypes[0] != t
        || !addSame)
    {
        return "the pointwise tactic computes FP16 or BF16 (data, fused addition and output of one type)";
    }
    return {};
}

} // namespace

std::vector<std::string> pointwiseTactics(
    KernelSetup const& setup, ConvConfig const& cfg, FusedEpilogue const& epilogue)
{
    if (!pointwiseProblem(setup, cfg, epilogue).empty())
    {
        return {};
    }
    return {kTACTIC_POINTWISE, kTACTIC_POINTWISE_FMA};
}

bool isPointwiseTactic(std::string const& tactic)
{
    return tactic == kTACTIC_POINTWISE || tactic == kTACTIC_POINTWISE_FMA;
}

StatusOr<std::unique_ptr<Kernel>> createPointwiseConvolutionKernel(
    KernelSetup const& setup, ConvConfig const& cfg, FusedEpilogue const& epilogue)
{
    std::string const label = nodeLabel(setup, "Convolution");
    if (std::string const problem = pointwiseProblem(setup, cfg, epilogue); !problem.empty())
    {
        return invalidArgument(label + ": " + problem);
    }
    bool const mma = setup.node->tactic != kTACTIC_POINTWISE_FMA;
    auto kernel = std::make_unique<PointwiseConvolutionKernel>(setup, cfg, epilogue, mma);
    KILN_RETURN_IF_ERROR(kernel->init().withContext(label + ": uploading the weights"));
    return std::unique_ptr<Kernel>(std::move(kernel));
}

} // namespace kiln::cuda
