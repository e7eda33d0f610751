// The "gemm" tactic of the CUDA convolution kernel: a 1x1 convolution with stride 1, no padding and groups 1 on
// FP16/BF16 data is a matrix product, run as one cuBLASLt call with FP32 accumulation:
// - channel-last nodes (kHWC8: data, fused addition and output stored [N, H, W, Cp], Cp = C rounded up to 8, 2-D):
//   Y[N*H*W, Kp] = X[N*H*W, Cp] x W[Kp, Cp]^T, the weights stored once at creation as [Kp, Cp] in the data type with
//   zero padding rows and columns, so the output's padding channels come out as zero;
// - linear nodes whose spatial extents are all 1 (squeeze-excitation convolutions on [N, C, 1, 1]): Y[N, K] =
//   X[N, C] x W[K, C]^T (the same weight storage, leading dimension Cp);
// - other linear nodes (NCHW): per image Y[K, HW] = W[K, C] x X[C, HW], one strided-batched call.
// The fused epilogue (fusedEpilogue.h: act(conv + bias + add)) goes into cuBLASLt where it can, D = act(A B + beta C +
// bias): the bias (padded to Kp with zeros) is CUBLASLT_EPILOGUE_BIAS, the fused addition (the output's shape and
// type) is C with beta = 1, kRELU is the RELU epilogue and kGELU_TANH / kGELU_ERF the GELU one (the tanh form, within
// FP16/BF16 tolerance of the erf one, as for the matrix multiply). Activations cuBLASLt has none for (sigmoid,
// hard-sigmoid, clip, ...: the squeeze-excitation convolutions of EfficientNet and MobileNetV3) run as one small
// in-place kernel after the product rather than refusing the tactic, which would leave those convolutions on cuDNN's
// or Kiln's far slower kernels; so do the fused addition of a kHWC8 node with padding channels (its padding is not
// read), the bias of the batched NCHW form (it lies along the product's columns, where cuBLASLt's bias epilogue cannot
// add it; the activation follows it there), and the whole epilogue when cuBLASLt has no algorithm with it. That
// kernel writes the padding channels as zero. The algorithm is cuBLASLt's first working heuristic answer, planned
// once per shape.
#include "backends/cuda/cudaLibraries.h"
#include "backends/cuda/kernels/activationMath.cuh"
#include "backends/cuda/kernels/ltAlgorithmChoice.h"
#include "backends/cuda/kernels/vector8.cuh"
#include "backends/cuda/kernels/convolution.h"
#include "backends/cuda/kernels/kernelCommon.cuh"
#include "core/dataType.h"
#include "core/tensorFormat.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <climits>
#include <initializer_list>
#include <iterator>
#include <memory>

namespace kiln::cuda
{
using nvinfer1::ActivationType;
using nvinfer1::DataType;

namespace
{

constexpr int64_t kGEMM_WORKSPACE = 4LL << 20; //!< cuBLASLt workspace the heuristics may use
constexpr int32_t kHEURISTIC_RESULTS = 4;      //!< algorithms asked of the heuristics (the first working one runs)
constexpr size_t kMAX_GEMM_PLANS = 8;          //!< row counts planned at once

//! The epilogue left after cuBLASLt, in place on Y: v = act(v + bias[k] + add[i]) with the channel k = (i / kStride)
//! % kCount; channels k >= real (kHWC8 padding) are written as zero.
struct GemmPostArgs
{
    void* y{nullptr};
    void const* add{nullptr}; //!< the output's layout and type, or null
    float const* bias{nullptr};
    int64_t total{0};
    int64_t kStride{1};
    int64_t kCount{1};
    int64_t real{0};
    bool hasActivation{false};
    bool gated{false}; //!< v · act(v) (SiLU, hard-swish)
    ActivationType activation{ActivationType::kRELU};
    float alpha{0.F};
    float beta{0.F};
};

template <typename T>
__global__ void gemmConvPost(GemmPostArgs a)
{
    T* y = static_cast<T*>(a.y);
    T const* add = static_cast<T const*>(a.add);
    for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < a.total;
         i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    {
        int64_t const k = (i / a.kStride) % a.kCount;
        if (k >= a.real)
        {
            y[i] = static_cast<T>(0.F);
            continue;
        }
        float v = static_cast<float>(y[i]);
        if (a.bias != nullptr)
        {
            v += a.bias[k];
        }
        if (add != nullptr)
        {
            v += static_cast<float>(add[i]);
        }
        if (a.hasActivation)
        {
            float const act = applyActivation(a.activation, a.alpha, a.beta, v);
            v = a.gated ? v * act : act;
        }
        y[i] = static_cast<T>(v);
    }
}

//! The post kernel over rows of channels (kStride == 1, kCount a multiple of 8: kHWC8 and the [N, K] rows form), eight
//! values per thread in one 16-byte load and store (and one of the added tensor).
template <typename T>
__global__ void gemmConvPostVec8(GemmPostArgs a)
{
    int64_t const vectors = a.total / kVECTOR8;
    T const* add = static_cast<T const*>(a.add);
    for (int64_t v = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; v < vectors;
         v += static_cast<int64_t>(gridDim.x) * blockDim.x)
    {
        int64_t const i = v * kVECTOR8;
        auto const k0 = static_cast<int32_t>(i % a.kCount);
        uint4* y = reinterpret_cast<uint4*>(static_cast<T*>(a.y) + i);
        float f[kVECTOR8];
        unpack8<T>(*y, f);
        float added[kVECTOR8]{};
        if (add != nullptr)
        {
            unpack8<T>(*reinterpret_cast<uint4 const*>(add + i), added);
        }
#pragma unroll
        for (int32_t j = 0; j < kVECTOR8; ++j)
        {
            int64_t const k = k0 + j;
            float v8 = f[j] + (a.bias != nullptr && k < a.real ? a.bias[k] : 0.F) + added[j];
            if (a.hasActivation)
            {
                float const act = applyActivation(a.activation, a.alpha, a.beta, v8);
                v8 = a.gated ? v8 * act : act;
            }
            f[j] = k < a.real ? v8 : 0.F;
        }
        *y = pack8<T>(f);
    }
}

//! Largest power of two up to 16 dividing every value (byte strides: the alignment cuBLASLt's fast kernels want).
uint32_t alignmentOfBytes(std::initializer_list<int64_t> bytes)
{
    uint32_t a = 16;
    for (int64_t b : bytes)
    {
        while (a > 1 && b % a != 0)
        {
            a /= 2;
        }
    }
    return a;
}

//! cuBLASLt descriptors, the chosen algorithm and the split of the epilogue of one shape: (n, hw) = (images,
//! spatial positions). Rows form (kHWC8, or linear with hw = 1): D[ld x rows] = W^T-view x X (cuBLASLt's A = the
//! weights). Batched form (linear, hw > 1): per image D[hw x K] = X[hw x C] x W-view[C x K] (cuBLASLt's A = the data),
//! whose bias lies along D's columns, so it goes to the post kernel.
struct GemmPlan
{
    int64_t n{0};
    int64_t hw{0};
    bool batched{false};
    bool biasInLt{false};
    bool actInLt{false};
    bool addAsC{false}; //!< the fused addition is cuBLASLt's C (beta = 1)
    bool plain{false};  //!< cuBLASLt had no algorithm with the epilogue: the product alone, the epilogue after
    uint32_t alignX{16};
    uint32_t alignY{16};
    cublasLtMatmulDesc_t op{nullptr};
    cublasLtMatrixLayout_t a{nullptr};
    cublasLtMatrixLayout_t b{nullptr};
    cublasLtMatrixLayout_t d{nullptr}; //!< the output (and C)
    cublasLtMatmulAlgo_t algo{};
    int64_t needBytes{0};

    GemmPlan() = default;
    GemmPlan(GemmPlan const&) = delete;
    GemmPlan& operator=(GemmPlan const&) = delete;
    ~GemmPlan() { reset(); }
    void reset()
    {
        if (op != nullptr)
        {
            (void) cublasLtMatmulDescDestroy(op);
            op = nullptr;
        }
        for (cublasLtMatrixLayout_t* l : {&a, &b, &d})
        {
            if (*l != nullptr)
            {
                (void) cublasLtMatrixLayoutDestroy(*l);
                *l = nullptr;
            }
        }
    }
};

//! Sets a strided batch of `count` matrices `stride` elements apart on layout `l`.
Status setBatch(cublasLtMatrixLayout_t l, int64_t count, int64_t stride)
{
    if (count > INT32_MAX)
    {
        return unsupported("a batch of more than 2^31 - 1 images");
    }
    auto const c = static_cast<int32_t>(count);
    KILN_CUBLAS_CHECK(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &c, sizeof(c)));
    KILN_CUBLAS_CHECK(
        cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof(stride)));
    return Status::ok();
}

//! create: the weights [Kp, Cp] and the bias (typed for cuBLASLt, float for the post kernel) on the device; reshape:
//! the shape checks and the plan of the shape; run: one cuBLASLt call, then the post kernel where part of the
//! epilogue is left.
class GemmConvolutionKernel final : public Kernel
{
public:
    GemmConvolutionKernel(KernelSetup const& setup, ConvConfig cfg, FusedEpilogue epilogue)
        : mSetup(setup)
        , mCfg(std::move(cfg))
        , mEpilogue(epilogue)
        , mChannelLast(setup.node->attrs.getInt(kCHANNEL_LAST_ATTRIBUTE, 0) != 0)
        , mType(setup.inputTypes[0])
        , mLibraries(sessionLibraries(setup))
    {
    }

    Status init()
    {
        WeightsView const& w = mSetup.weights[0];
        int64_t const k = mCfg.k;
        mC = w.count / k;
        mCp = (mC + 7) / 8 * 8;
        mKp = (k + 7) / 8 * 8;
        std::vector<uint8_t> host(static_cast<size_t>(byteSize(mType, mKp * mCp)), 0);
        for (int64_t ko = 0; ko < k; ++ko)
        {
            for (int64_t ci = 0; ci < mC; ++ci)
            {
                storeElement(host.data(), mType, ko * mCp + ci, loadElement(w.data, w.type, ko * mC + ci));
            }
        }
        KILN_RETURN_IF_ERROR(mWeights.upload(host.data(), static_cast<int64_t>(host.size())));
        if (mSetup.weights.size() > 1 && mSetup.weights[1].present())
        {
            WeightsView const& b = mSetup.weights[1];
            if (b.count != k)
            {
                return invalidArgument(label() + ": the bias has " + std::to_string(b.count) + " values for "
                    + std::to_string(k) + " output maps");
            }
            mBiasCount = b.count;
            std::vector<uint8_t> typed(static_cast<size_t>(byteSize(mType, mKp)), 0);
            std::vector<float> floats(static_cast<size_t>(mKp), 0.F);
            for (int64_t i = 0; i < k; ++i)
            {
                double const v = loadElement(b.data, b.type, i);
                storeElement(typed.data(), mType, i, v);
                floats[static_cast<size_t>(i)] = static_cast<float>(v);
            }
            KILN_RETURN_IF_ERROR(mBiasTyped.upload(typed.data(), static_cast<int64_t>(typed.size())));
            KILN_RETURN_IF_ERROR(mBiasFloat.upload(floats.data(), static_cast<int64_t>(floats.size() * sizeof(float))));
        }
        return Status::ok();
    }

    int64_t workspaceSize(
        std::vector<TensorView> const& /*inputs*/, std::vector<TensorView> const& /*outputs*/) const override
    {
        return kGEMM_WORKSPACE;
    }

    Status reshape(std::vector<TensorView> const& allInputs, std::vector<TensorView> const& outputs) override
    {
        mPlan = nullptr;
        mTotal = -1;
        std::vector<TensorView> inputs;
        ConvShapes shapes;
        KILN_RETURN_IF_ERROR(checkConvReshape(mSetup, mCfg, mEpilogue.hasAdd, allInputs, outputs,
            mSetup.weights[0].count, mBiasCount, label(), inputs, shapes));
        if (shapes.kernelTensor || shapes.biasTensor || shapes.c != mC)
        {
            return invalidArgument(label() + ": the gemm tactic needs constant weights of the input's "
                + std::to_string(shapes.c) + " channels");
        }
        TensorView const& out = outputs[0];
        int64_t hw = 1;
        for (WindowExtent const& e : shapes.ext)
        {
            if (e.out != e.in || e.padBefore != 0)
            {
                return invalidArgument(label() + ": the gemm tactic runs 1x1 convolutions without padding");
            }
            hw *= e.in;
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
                return invalidArgument(
                    label() + ": the gemm tactic adds a fused addition of the output's shape and type only");
            }
        }
        if (shapes.n * hw == 0)
        {
            mTotal = 0;
            return Status::ok();
        }
        if (mLibraries == nullptr)
        {
            return internalError(label() + ": no CUDA library handles (the kernel was created outside a session)");
        }
        KILN_ASSIGN_OR_RETURN(mHandle, mLibraries->cublasLt());
        KILN_ASSIGN_OR_RETURN(mPlan, planFor(shapes.n, hw));
        mTotal = shapes.n * hw * (mPlan->batched ? mCfg.k : ld());
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs,
        RunContext const& ctx) override
    {
        if (mTotal <= 0)
        {
            return mTotal == 0 ? Status::ok() : notReshaped(label());
        }
        GemmPlan const& plan = *mPlan;
        void const* x = inputs[0].data;
        void* y = outputs[0].data;
        void const* add = mEpilogue.hasAdd ? inputs.back().data : nullptr;
        if (x == nullptr || y == nullptr || (mEpilogue.hasAdd && add == nullptr))
        {
            return invalidArgument(label() + ": the data input, the fused addition or the output has no buffer");
        }
        auto const misaligned = [](void const* p, uint32_t a) { return reinterpret_cast<uintptr_t>(p) % a != 0; };
        if (misaligned(x, plan.alignX) || misaligned(y, plan.alignY)
            || (add != nullptr && misaligned(add, plan.alignY)))
        {
            return invalidArgument(label() + ": the gemm tactic's buffers must be "
                + std::to_string(std::max(plan.alignX, plan.alignY)) + "-byte aligned");
        }
        if (plan.needBytes > 0 && (ctx.workspace == nullptr || ctx.workspaceBytes < plan.needBytes))
        {
            return invalidArgument(label() + ": the workspace is smaller than the cuBLASLt algorithm needs");
        }
        float const alpha = 1.F;
        float const beta = plan.addAsC ? 1.F : 0.F;
        void const* w = mWeights.data();
        KILN_CUBLAS_CHECK(cublasLtMatmul(mHandle, plan.op, &alpha, plan.batched ? x : w, plan.a, plan.batched ? w : x,
            plan.b, &beta, plan.addAsC ? add : y, plan.d, y, plan.d, &plan.algo, ctx.workspace,
            static_cast<size_t>(ctx.workspaceBytes), ctx.stream));
        GemmPostArgs post;
        post.y = y;
        post.total = mTotal;
        post.kStride = plan.batched ? plan.hw : 1;
        post.kCount = plan.batched ? mCfg.k : ld();
        post.real = mCfg.k;
        post.bias = plan.biasInLt ? nullptr : static_cast<float const*>(mBiasFloat.data());
        post.add = plan.addAsC ? nullptr : add;
        post.hasActivation = mEpilogue.hasActivation && !plan.actInLt;
        post.gated = mEpilogue.gated;
        post.activation = mEpilogue.activation;
        post.alpha = mEpilogue.alpha;
        post.beta = mEpilogue.beta;
        if (post.bias == nullptr && post.add == nullptr && !post.hasActivation)
        {
            return Status::ok();
        }
        // Eight values a thread where the rows are whole vectors and the buffers 16-byte aligned.
        bool const vectors = post.kStride == 1 && post.kCount % kVECTOR8 == 0 && post.total % kVECTOR8 == 0
            && ((reinterpret_cast<uintptr_t>(post.y) | reinterpret_cast<uintptr_t>(post.add)) & 15U) == 0;
        unsigned int const blocks = gridFor(vectors ? mTotal / kVECTOR8 : mTotal);
        if (mType == DataType::kHALF)
        {
            vectors ? gemmConvPostVec8<__half><<<blocks, kBLOCK, 0, ctx.stream>>>(post)
                    : gemmConvPost<__half><<<blocks, kBLOCK, 0, ctx.stream>>>(post);
        }
        else
        {
            vectors ? gemmConvPostVec8<__nv_bfloat16><<<blocks, kBLOCK, 0, ctx.stream>>>(post)
                    : gemmConvPost<__nv_bfloat16><<<blocks, kBLOCK, 0, ctx.stream>>>(post);
        }
        Status const st = launchStatus("gemmConvPost");
        return st.isOk() ? st : st.withContext(label());
    }

private:
    std::string label() const { return nodeLabel(mSetup, "Convolution"); }

    //! The output's row length in the rows form: Kp in kHWC8, K linear.
    int64_t ld() const { return mChannelLast ? mKp : mCfg.k; }

    //! The plan of n images of hw positions (created on first use).
    StatusOr<GemmPlan*> planFor(int64_t n, int64_t hw)
    {
        for (auto const& p : mPlans)
        {
            if (p->n == n && p->hw == hw)
            {
                return p.get();
            }
        }
        auto plan = std::make_unique<GemmPlan>();
        plan->n = n;
        plan->hw = hw;
        plan->batched = !mChannelLast && hw > 1;
        // The split of the epilogue (see the file comment): the activation goes into cuBLASLt only after everything
        // added before it does.
        bool const ltAct = mEpilogue.hasActivation && !mEpilogue.gated
            && (mEpilogue.activation == ActivationType::kRELU || mEpilogue.activation == ActivationType::kGELU_TANH
                || mEpilogue.activation == ActivationType::kGELU_ERF);
        plan->biasInLt = mBiasCount > 0 && !plan->batched;
        plan->addAsC = mEpilogue.hasAdd && (!mChannelLast || mKp == mCfg.k);
        plan->actInLt = ltAct && (!mEpilogue.hasAdd || plan->addAsC) && (mBiasCount == 0 || plan->biasInLt);
        Status st = preparePlan(*plan);
        if (!st.isOk() && (plan->biasInLt || plan->actInLt))
        {
            // No cuBLASLt algorithm with the epilogue: the product alone, the whole epilogue in the post kernel.
            plan->plain = true;
            plan->biasInLt = false;
            plan->actInLt = false;
            plan->addAsC = false;
            st = preparePlan(*plan);
        }
        KILN_RETURN_IF_ERROR(st.withContext(label()));
        if (mPlans.size() >= kMAX_GEMM_PLANS)
        {
            mPlans.erase(mPlans.begin());
        }
        mPlans.push_back(std::move(plan));
        return mPlans.back().get();
    }

    Status preparePlan(GemmPlan& p)
    {
        p.reset();
        KILN_CUBLAS_CHECK(cublasLtMatmulDescCreate(&p.op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
        bool const relu = p.actInLt && mEpilogue.activation == ActivationType::kRELU;
        cublasLtEpilogue_t epi = CUBLASLT_EPILOGUE_DEFAULT;
        if (p.biasInLt)
        {
            epi = !p.actInLt ? CUBLASLT_EPILOGUE_BIAS
                             : (relu ? CUBLASLT_EPILOGUE_RELU_BIAS : CUBLASLT_EPILOGUE_GELU_BIAS);
        }
        else if (p.actInLt)
        {
            epi = relu ? CUBLASLT_EPILOGUE_RELU : CUBLASLT_EPILOGUE_GELU;
        }
        KILN_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof(epi)));
        if (p.biasInLt)
        {
            void const* b = mBiasTyped.data();
            KILN_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &b, sizeof(b)));
        }
        // The weights are stored [Kp, Cp] row-major: column-major Cp x Kp (leading dimension Cp).
        cublasOperation_t const transA = p.batched ? CUBLAS_OP_N : CUBLAS_OP_T;
        cublasOperation_t const transB = CUBLAS_OP_N;
        KILN_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_TRANSA, &transA, sizeof(transA)));
        KILN_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_TRANSB, &transB, sizeof(transB)));
        cudaDataType_t const dt = mType == DataType::kHALF ? CUDA_R_16F : CUDA_R_16BF;
        int64_t const esize = elementSize(mType);
        auto const u = [](int64_t v) { return static_cast<uint64_t>(v); };
        int64_t const k = mCfg.k;
        if (p.batched)
        {
            // Per image: X [C, hw] row-major = column-major hw x C; Y [K, hw] = column-major hw x K.
            KILN_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&p.a, dt, u(p.hw), u(mC), p.hw));
            KILN_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&p.b, dt, u(mC), u(k), mCp));
            KILN_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&p.d, dt, u(p.hw), u(k), p.hw));
            if (p.n > 1)
            {
                KILN_RETURN_IF_ERROR(setBatch(p.a, p.n, mC * p.hw));
                KILN_RETURN_IF_ERROR(setBatch(p.b, p.n, 0));
                KILN_RETURN_IF_ERROR(setBatch(p.d, p.n, k * p.hw));
            }
            p.alignX = alignmentOfBytes({p.hw * esize, mC * p.hw * esize});
            p.alignY = alignmentOfBytes({p.hw * esize, k * p.hw * esize});
        }
        else
        {
            // X [rows, inner] row-major = column-major inner x rows; Y [rows, ld] = column-major ld x rows.
            int64_t const inner = mChannelLast ? mCp : mC;
            int64_t const rows = p.n * p.hw;
            KILN_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&p.a, dt, u(inner), u(ld()), mCp));
            KILN_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&p.b, dt, u(inner), u(rows), inner));
            KILN_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&p.d, dt, u(ld()), u(rows), ld()));
            p.alignX = alignmentOfBytes({inner * esize});
            p.alignY = alignmentOfBytes({ld() * esize});
        }
        uint32_t const alignW = 16; // the weights: cudaMalloc'd, rows of Cp (a multiple of 8) values
        uint32_t const alignA = p.batched ? p.alignX : alignW;
        uint32_t const alignB = p.batched ? alignW : p.alignX;
        cublasLtMatmulPreference_t pref = nullptr;
        KILN_CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref));
        auto const maxBytes = static_cast<uint64_t>(kGEMM_WORKSPACE);
        cublasStatus_t st = cublasLtMatmulPreferenceSetAttribute(
            pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &maxBytes, sizeof(maxBytes));
        for (auto [attr, value] : {std::pair{CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, alignA},
                 std::pair{CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, alignB},
                 std::pair{CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, p.alignY},
                 std::pair{CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, p.alignY}, kFP32_SPLIT_K_ONLY})
        {
            if (st == CUBLAS_STATUS_SUCCESS)
            {
                st = cublasLtMatmulPreferenceSetAttribute(pref, attr, &value, sizeof(value));
            }
        }
        cublasLtMatmulHeuristicResult_t results[kHEURISTIC_RESULTS]{};
        int found = 0;
        if (st == CUBLAS_STATUS_SUCCESS)
        {
            st = cublasLtMatmulAlgoGetHeuristic(
                mHandle, p.op, p.a, p.b, p.d, p.d, pref, kHEURISTIC_RESULTS, results, &found);
        }
        (void) cublasLtMatmulPreferenceDestroy(pref);
        KILN_RETURN_IF_ERROR(cublasStatus(st, "cublasLtMatmulAlgoGetHeuristic"));
        auto const works = [](cublasLtMatmulHeuristicResult_t const& r) {
            return r.state == CUBLAS_STATUS_SUCCESS && r.workspaceSize <= static_cast<size_t>(kGEMM_WORKSPACE);
        };
        cublasLtMatmulHeuristicResult_t const* end = results + std::max(0, found);
        cublasLtMatmulHeuristicResult_t const* chosen = std::find_if(std::cbegin(results), end, works);
        if (chosen == end)
        {
            return unsupported("cuBLASLt has no algorithm for this 1x1 convolution's product");
        }
        p.algo = chosen->algo;
        p.needBytes = static_cast<int64_t>(chosen->workspaceSize);
        return Status::ok();
    }

    KernelSetup mSetup;
    ConvConfig mCfg;
    FusedEpilogue mEpilogue;
    bool mChannelLast{false};
    DataType mType{DataType::kHALF};
    CudaLibraries* mLibraries{nullptr};
    cublasLtHandle_t mHandle{nullptr};
    int64_t mC{0};  //!< input channels
    int64_t mCp{0}; //!< C rounded up to 8 (the weights' row length)
    int64_t mKp{0}; //!< output maps rounded up to 8 (the weights' rows)
    DeviceBuffer mWeights;
    DeviceBuffer mBiasTyped; //!< [Kp] in the data type (cuBLASLt's bias epilogue)
    DeviceBuffer mBiasFloat; //!< [Kp] float (the post kernel)
    int64_t mBiasCount{0};
    std::vector<std::unique_ptr<GemmPlan>> mPlans;
    // Of the last reshape.
    GemmPlan* mPlan{nullptr};
    int64_t mTotal{-1}; //!< output elements written (with padding channels); -1 until a reshape succeeded
};

//! Why the gemm tactic cannot run `setup` (empty: it can).
std::string gemmProblem(KernelSetup const& setup, ConvConfig const& cfg, FusedEpilogue const& epilogue)
{
    if (setup.node == nullptr || setup.inputTypes.empty())
    {
        return "no node or no inputs";
    }
    PlanNode const& node = *setup.node;
    bool const channelLast = node.attrs.getInt(kCHANNEL_LAST_ATTRIBUTE, 0) != 0;
    WindowParams const& p = cfg.params;
    if (cfg.deconvolution || cfg.groups != 1 || cfg.k <= 0)
    {
        return "the gemm tactic runs ungrouped forward convolutions";
    }
    bool ones = true;
    bool unitStride = true;
    bool unpadded = true;
    for (int32_t i = 0; i < p.nbSpatial; ++i)
    {
        auto const s = static_cast<size_t>(i);
        ones = ones && p.kernel[s] == 1;
        unitStride = unitStride && p.stride[s] == 1;
        bool const explicitPad
            = p.mode != nvinfer1::PaddingMode::kSAME_UPPER && p.mode != nvinfer1::PaddingMode::kSAME_LOWER;
        unpadded = unpadded && (!explicitPad || (p.prePadding[s] == 0 && p.postPadding[s] == 0));
    }
    if (!ones || !unpadded || !unitStride || (channelLast && p.nbSpatial != 2))
    {
        return "the gemm tactic runs 1x1 convolutions with stride 1 and no padding (kHWC8: 2-D)";
    }
    if (convolutionOwnInputs(node) != 1 || setup.weights.empty() || !setup.weights[0].present()
        || setup.weights[0].data == nullptr || setup.weights[0].count % cfg.k != 0)
    {
        return "the gemm tactic needs the kernel (and bias) as constant weights";
    }
    DataType const t = setup.inputTypes[0];
    if ((t != DataType::kHALF && t != DataType::kBF16) || setup.outputTypes.size() != 1 || setup.outputTypes[0] != t
        || (epilogue.hasAdd && setup.inputTypes.back() != t))
    {
        return "the gemm tactic computes FP16 or BF16 (data, fused addition and output of one type)";
    }
    return {};
}

} // namespace

bool gemmApplies(KernelSetup const& setup, ConvConfig const& cfg, FusedEpilogue const& epilogue)
{
    return gemmProblem(setup, cfg, epilogue).empty();
}

StatusOr<std::unique_ptr<Kernel>> createGemmConvolutionKernel(
    KernelSetup const& setup, ConvConfig const& cfg, FusedEpilogue const& epilogue)
{
    std::string const label = nodeLabel(setup, "Convolution");
    if (std::string const problem = gemmProblem(setup, cfg, epilogue); !problem.empty())
    {
        return invalidArgument(label + ": " + problem);
    }
    auto kernel = std::make_unique<GemmConvolutionKernel>(setup, cfg, epilogue);
    KILN_RETURN_IF_ERROR(kernel->init().withContext(label + ": uploading the weights"));
    return std::unique_ptr<Kernel>(std::move(kernel));
}

} // namespace kiln::cuda
