// CUDA kernel of IMatrixMultiplyLayer: batched matrix/vector products with transposes (kNONE / kTRANSPOSE /
// kVECTOR per operand) and batch broadcasting, with the CPU reference's shape rules and messages
// (backends/cpu/kernels/matrixMultiply.cpp). Tactics:
//   "cublaslt": cuBLASLt when A, B and the output share one of FLOAT/HALF/BF16; FP32 computes in FP32 (TF32 only
//               when the node's attribute "allow_tf32" is 1: the builder sets it from BuilderFlag::kTF32 once it
//               integrates the backend), FP16/BF16 on tensor cores accumulating in FP32. Row-major products are
//               issued as column-major ones with the operands swapped; a batch that is uniform (each operand's
//               batch equal to the output's or entirely broadcast) is one strided-batched call, anything else one
//               call per output matrix.
//   "kiln":     a plain kernel (one thread per output element, FP32 accumulation) for every type combination.
// Fused epilogues ("fuse.*" from the fusion pass: + a third input, then an activation; backends/common/fusedEpilogue.h)
// go into cuBLASLt where it computes them exactly as the separate layers: a bias vector along the last dimension
// (CUBLASLT_EPILOGUE_BIAS, with kRELU CUBLASLT_EPILOGUE_RELU_BIAS), a full-shape addition as beta = 1 with C = the
// added tensor, kRELU alone as CUBLASLT_EPILOGUE_RELU. cuBLASLt's GELU epilogues are not used (not checked against
// kGELU_ERF / kGELU_TANH on a GPU yet). Everything else (other activations, broadcast additions, the "kiln" tactic,
// K = 0) runs as one pointwise kernel over the stored result afterwards (activationMath.cuh).
#include "backends/common/fusedEpilogue.h"
#include "backends/common/matrixMultiplyParams.h"
#include "backends/cuda/cudaLibraries.h"
#include "backends/cuda/kernels/activationMath.cuh"
#include "backends/cuda/kernels/cudaKernelFactories.h"
#include "backends/cuda/kernels/kernelCommon.cuh"

#include <algorithm>

namespace kiln::cuda
{
using nvinfer1::DataType;
using nvinfer1::MatrixOperation;

namespace
{

constexpr int64_t kWORKSPACE = 32LL << 20; //!< cuBLASLt workspace asked for (heuristics use up to this much)

__device__ __forceinline__ int64_t offsetA(MatrixOperation op, int64_t m, int64_t k, int64_t rows, int64_t depth)
{
    return op == MatrixOperation::kNONE ? m * depth + k : (op == MatrixOperation::kTRANSPOSE ? k * rows + m : k);
}

__device__ __forceinline__ int64_t offsetB(MatrixOperation op, int64_t k, int64_t n, int64_t depth, int64_t cols)
{
    return op == MatrixOperation::kNONE ? k * cols + n : (op == MatrixOperation::kTRANSPOSE ? n * depth + k : k);
}

struct BatchMap
{
    int32_t nbBatch{0};
    int64_t out[kMAX_RANK]{};
    int64_t a[kMAX_RANK]{};
    int64_t b[kMAX_RANK]{};
};

__global__ void matmulKernel(BatchMap bm, MatrixOperation op0, MatrixOperation op1, int64_t m, int64_t n, int64_t k,
    int64_t total, void const* A, DataType ta, void const* B, DataType tb, void* C, DataType tc)
{
    for (int64_t i = dev::globalThread(); i < total; i += dev::gridThreads())
    {
        int64_t const col = i % n;
        int64_t const row = (i / n) % m;
        int64_t rest = i / (m * n);
        int64_t offA = 0;
        int64_t offB = 0;
        int64_t strideA = 1;
        int64_t strideB = 1;
        for (int32_t d = bm.nbBatch - 1; d >= 0; --d)
        {
            int64_t const c = rest % bm.out[d];
            rest /= bm.out[d];
            offA += (bm.a[d] == 1 ? 0 : c) * strideA;
            offB += (bm.b[d] == 1 ? 0 : c) * strideB;
            strideA *= bm.a[d];
            strideB *= bm.b[d];
        }
        offA *= m * k;
        offB *= k * n;
        float acc = 0.F;
        for (int64_t kk = 0; kk < k; ++kk)
        {
            acc = fmaf(dev::loadFloat(A, ta, offA + offsetA(op0, row, kk, m, k)),
                dev::loadFloat(B, tb, offB + offsetB(op1, kk, col, k, n)), acc);
        }
        dev::storeFloat(C, tc, i, acc);
    }
}

//! out = act(out + add) over the stored product (add broadcast through `map`; either part optional).
__global__ void epilogueKernel(IndexMap map, int64_t n, void* out, DataType to, void const* add, DataType ta,
    bool hasAdd, bool hasAct, nvinfer1::ActivationType act, float alpha, float beta)
{
    for (int64_t i = dev::globalThread(); i < n; i += dev::gridThreads())
    {
        float v = dev::loadFloat(out, to, i);
        if (hasAdd)
        {
            int64_t off[kMAX_OPERANDS];
            mapOffsets(map, i, off);
            v += dev::loadFloat(add, ta, off[0]);
        }
        if (hasAct)
        {
            v = applyActivation(act, alpha, beta, v);
        }
        dev::storeFloat(out, to, i, v);
    }
}

//! What cuBLASLt computes of the epilogue for one run; the rest goes to epilogueKernel.
enum class LtEpilogue : int32_t
{
    kNONE = 0,
    kBIAS = 1,      //!< + bias vector along the last dim
    kRELU_BIAS = 2, //!< relu(+ bias vector)
    kRELU = 3,      //!< relu (after beta * C when the addition is a full-shape C)
};

//! Largest power of two up to 256 dividing the address and every byte stride (cuBLASLt's alignment preferences).
uint32_t alignmentOf(void const* p, std::initializer_list<int64_t> strides)
{
    uint64_t bits = reinterpret_cast<uintptr_t>(p) | 256U;
    for (int64_t s : strides)
    {
        bits |= static_cast<uint64_t>(s == 0 ? 256 : s);
    }
    return static_cast<uint32_t>(bits & (~bits + 1U));
}

cudaDataType_t cudaType(DataType t)
{
    return t == DataType::kHALF ? CUDA_R_16F : (t == DataType::kBF16 ? CUDA_R_16BF : CUDA_R_32F);
}

//! Owns the cuBLASLt descriptors of one problem.
struct LtPlan
{
    cublasLtMatmulDesc_t op{nullptr};
    cublasLtMatrixLayout_t a{nullptr}; // cuBLASLt's A = Kiln's B (column-major view)
    cublasLtMatrixLayout_t b{nullptr}; // cuBLASLt's B = Kiln's A
    cublasLtMatrixLayout_t c{nullptr};
    cublasLtMatmulAlgo_t algo{};
    bool ready{false};
    ~LtPlan() { reset(); }
    void reset()
    {
        if (op != nullptr)
        {
            (void) cublasLtMatmulDescDestroy(op);
        }
        for (cublasLtMatrixLayout_t l : {a, b, c})
        {
            if (l != nullptr)
            {
                (void) cublasLtMatrixLayoutDestroy(l);
            }
        }
        op = nullptr;
        a = b = c = nullptr;
        ready = false;
    }
};

class MatrixMultiplyKernel final : public CudaKernel
{
public:
    MatrixMultiplyKernel(
        KernelSetup const& setup, MatrixOperation op0, MatrixOperation op1, bool useLt, FusedEpilogue epilogue)
        : mSetup(setup)
        , mOp0(op0)
        , mOp1(op1)
        , mUseLt(useLt)
        , mAllowTf32(setup.node->attrs.getInt("allow_tf32", 0) == 1)
        , mEpilogue(epilogue)
    {
    }

    int64_t workspaceSize(std::vector<TensorView> const&, std::vector<TensorView> const&) const override
    {
        return mUseLt ? kWORKSPACE : 0;
    }

    Status enqueue(std::vector<TensorView> const& allInputs, std::vector<TensorView> const& outputs,
        CudaRunContext const& ctx) override
    {
        size_t const nbInputs = mEpilogue.hasAdd ? 3 : 2;
        if (allInputs.size() != nbInputs)
        {
            return invalidArgument("layer '" + mSetup.node->name + "': expected " + std::to_string(nbInputs)
                + " inputs, got " + std::to_string(allInputs.size()));
        }
        std::vector<TensorView> const inputs(allInputs.begin(), allInputs.begin() + 2);
        TensorView const* add = mEpilogue.hasAdd ? &allInputs[2] : nullptr;
        KILN_ASSIGN_OR_RETURN(MatmulShape const s, makeMatmulShape(mSetup, mOp0, mOp1, inputs, outputs));
        TensorView const& out = outputs[0];
        if (add != nullptr && (!isMatmulStorage(add->type) || (add->data == nullptr && add->volume() != 0)))
        {
            return invalidArgument("layer '" + mSetup.node->name + "': the fused addition's tensor is missing or not "
                                                                  "FLOAT/HALF/BF16");
        }
        if (out.volume() == 0)
        {
            return Status::ok();
        }
        if (s.k == 0)
        {
            // Zero bits are zero in every float type.
            KILN_CUDA_CHECK(cudaMemsetAsync(out.data, 0, static_cast<size_t>(out.volume() * elementSize(out.type)),
                ctx.stream));
            return runEpilogue(out, add, mEpilogue.hasActivation, ctx);
        }
        if (mUseLt)
        {
            return runLt(inputs, out, s, ctx, add);
        }
        BatchMap bm;
        bm.nbBatch = s.nbBatch;
        for (int32_t d = 0; d < s.nbBatch; ++d)
        {
            bm.out[d] = s.batchOut[static_cast<size_t>(d)];
            bm.a[d] = s.batchA[static_cast<size_t>(d)];
            bm.b[d] = s.batchB[static_cast<size_t>(d)];
        }
        int64_t const total = out.volume();
        matmulKernel<<<gridFor(total), kBLOCK, 0, ctx.stream>>>(bm, mOp0, mOp1, s.m, s.n, s.k, total, inputs[0].data,
            inputs[0].type, inputs[1].data, inputs[1].type, out.data, out.type);
        KILN_RETURN_IF_ERROR(launchStatus("MatrixMultiply kernel"));
        return runEpilogue(out, add, mEpilogue.hasActivation, ctx);
    }

private:
    //! out = act(out + add) in place (`add` may be null, `withActivation` false: nothing to do).
    Status runEpilogue(TensorView const& out, TensorView const* add, bool withActivation, CudaRunContext const& ctx)
    {
        if (add == nullptr && !withActivation)
        {
            return Status::ok();
        }
        IndexMap map;
        if (add != nullptr)
        {
            // Left-pad the added tensor's dims with 1s to the output's rank, then broadcast.
            nvinfer1::Dims padded = out.dims;
            int32_t const lead = out.dims.nbDims - add->dims.nbDims;
            bool ok = lead >= 0;
            for (int32_t i = 0; ok && i < out.dims.nbDims; ++i)
            {
                padded.d[i] = i < lead ? 1 : add->dims.d[i - lead];
            }
            auto m = ok ? makeBroadcastMap(out.dims, {padded})
                        : StatusOr<IndexMap>(invalidArgument("the added tensor " + ew::dimsToString(add->dims)
                            + " has a higher rank than the output " + ew::dimsToString(out.dims)));
            if (!m.isOk())
            {
                return m.status().withContext("layer '" + mSetup.node->name + "': fused addition");
            }
            map = *m;
        }
        int64_t const n = out.volume();
        epilogueKernel<<<gridFor(n), kBLOCK, 0, ctx.stream>>>(map, n, out.data, out.type,
            add != nullptr ? add->data : nullptr, add != nullptr ? add->type : out.type, add != nullptr,
            withActivation, mEpilogue.activation, mEpilogue.alpha, mEpilogue.beta);
        return launchStatus("MatrixMultiply epilogue kernel");
    }

    //! (Re)creates the descriptors for this problem; batchCount / strides describe a uniform batch.
    Status prepareLt(MatmulShape const& s, DataType type, int64_t batchCount, int64_t strideA, int64_t strideB,
        cublasLtHandle_t handle, int64_t workspaceBytes, uint32_t alignA, uint32_t alignB, uint32_t alignC,
        LtEpilogue epilogue, void const* bias)
    {
        uint32_t const alignBias = bias != nullptr ? alignmentOf(bias, {}) : 0U;
        std::vector<int64_t> key{s.m, s.n, s.k, batchCount, strideA, strideB, workspaceBytes, alignA, alignB, alignC,
            static_cast<int64_t>(epilogue), alignBias};
        if (mPlan.ready && key == mKey)
        {
            if (bias != nullptr)
            {
                KILN_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(
                    mPlan.op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof(bias)));
            }
            return Status::ok();
        }
        mPlan.reset();
        bool const fp32 = type == DataType::kFLOAT;
        cublasComputeType_t const compute = fp32 && mAllowTf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
        KILN_CUBLAS_CHECK(cublasLtMatmulDescCreate(&mPlan.op, compute, CUDA_R_32F));
        if (epilogue != LtEpilogue::kNONE)
        {
            cublasLtEpilogue_t const epi = epilogue == LtEpilogue::kBIAS ? CUBLASLT_EPILOGUE_BIAS
                : (epilogue == LtEpilogue::kRELU_BIAS ? CUBLASLT_EPILOGUE_RELU_BIAS : CUBLASLT_EPILOGUE_RELU);
            KILN_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(mPlan.op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof(epi)));
            if (bias != nullptr)
            {
                // The heuristics read the pointer's alignment; the batch stride stays 0 (one bias for all batches).
                KILN_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(
                    mPlan.op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof(bias)));
            }
        }
        // Column-major D (N x M) = opA(Kiln B) x opB(Kiln A).
        cublasOperation_t const transA = mOp1 == MatrixOperation::kTRANSPOSE ? CUBLAS_OP_T : CUBLAS_OP_N;
        cublasOperation_t const transB = mOp0 == MatrixOperation::kTRANSPOSE ? CUBLAS_OP_T : CUBLAS_OP_N;
        KILN_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(mPlan.op, CUBLASLT_MATMUL_DESC_TRANSA, &transA, sizeof(transA)));
        KILN_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(mPlan.op, CUBLASLT_MATMUL_DESC_TRANSB, &transB, sizeof(transB)));
        cudaDataType_t const dt = cudaType(type);
        auto const u = [](int64_t v) { return static_cast<uint64_t>(v); };
        // Kiln B as stored: kNONE [K, N] -> col-major N x K (ld N); kTRANSPOSE [N, K] -> K x N (ld K); kVECTOR [K].
        if (mOp1 == MatrixOperation::kTRANSPOSE)
        {
            KILN_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&mPlan.a, dt, u(s.k), u(s.n), s.k));
        }
        else
        {
            KILN_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&mPlan.a, dt, u(s.n), u(s.k), s.n));
        }
        // Kiln A as stored: kNONE [M, K] -> col-major K x M (ld K); kTRANSPOSE [K, M] -> M x K (ld M); kVECTOR [K].
        if (mOp0 == MatrixOperation::kTRANSPOSE)
        {
            KILN_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&mPlan.b, dt, u(s.m), u(s.k), s.m));
        }
        else
        {
            KILN_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&mPlan.b, dt, u(s.k), u(s.m), s.k));
        }
        KILN_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&mPlan.c, dt, u(s.n), u(s.m), s.n));
        if (batchCount > 1)
        {
            int32_t const count = static_cast<int32_t>(batchCount);
            int64_t const strideC = s.m * s.n;
            KILN_CUBLAS_CHECK(cublasLtMatrixLayoutSetAttribute(mPlan.a, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof(count)));
            KILN_CUBLAS_CHECK(cublasLtMatrixLayoutSetAttribute(mPlan.a, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &strideB, sizeof(strideB)));
            KILN_CUBLAS_CHECK(cublasLtMatrixLayoutSetAttribute(mPlan.b, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof(count)));
            KILN_CUBLAS_CHECK(cublasLtMatrixLayoutSetAttribute(mPlan.b, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &strideA, sizeof(strideA)));
            KILN_CUBLAS_CHECK(cublasLtMatrixLayoutSetAttribute(mPlan.c, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof(count)));
            KILN_CUBLAS_CHECK(cublasLtMatrixLayoutSetAttribute(mPlan.c, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &strideC, sizeof(strideC)));
        }
        cublasLtMatmulPreference_t pref = nullptr;
        KILN_CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref));
        auto const maxBytes = static_cast<uint64_t>(workspaceBytes);
        cublasStatus_t st = cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
            &maxBytes, sizeof(maxBytes));
        // cuBLASLt's A is Kiln's B and vice versa.
        for (auto [attr, value] : {std::pair{CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, alignB},
                 std::pair{CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, alignA},
                 std::pair{CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, alignC},
                 std::pair{CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, alignC}})
        {
            if (st == CUBLAS_STATUS_SUCCESS)
            {
                st = cublasLtMatmulPreferenceSetAttribute(pref, attr, &value, sizeof(value));
            }
        }
        cublasLtMatmulHeuristicResult_t result{};
        int found = 0;
        if (st == CUBLAS_STATUS_SUCCESS)
        {
            st = cublasLtMatmulAlgoGetHeuristic(handle, mPlan.op, mPlan.a, mPlan.b, mPlan.c, mPlan.c, pref, 1, &result,
                &found);
        }
        (void) cublasLtMatmulPreferenceDestroy(pref);
        KILN_RETURN_IF_ERROR(cublasStatus(st, "cublasLtMatmulAlgoGetHeuristic"));
        if (found < 1)
        {
            return unsupported("layer '" + mSetup.node->name + "': cuBLASLt has no algorithm for this product");
        }
        mPlan.algo = result.algo;
        mPlan.ready = true;
        mKey = key;
        return Status::ok();
    }

    Status runLt(std::vector<TensorView> const& inputs, TensorView const& out, MatmulShape const& s,
        CudaRunContext const& ctx, TensorView const* add)
    {
        // What of the epilogue cuBLASLt computes (see the file comment); the remainder runs afterwards.
        bool const relu = mEpilogue.hasActivation && mEpilogue.activation == nvinfer1::ActivationType::kRELU;
        bool const sameType = add != nullptr && add->type == out.type;
        bool biasVector = sameType && mOp1 != MatrixOperation::kVECTOR && add->dims.nbDims == out.dims.nbDims
            && out.dims.nbDims >= 1 && add->dims.d[add->dims.nbDims - 1] == s.n && s.n > 1;
        for (int32_t i = 0; biasVector && i + 1 < add->dims.nbDims; ++i)
        {
            biasVector = add->dims.d[i] == 1;
        }
        bool fullAdd = sameType && !biasVector && add->dims.nbDims == out.dims.nbDims;
        for (int32_t i = 0; fullAdd && i < add->dims.nbDims; ++i)
        {
            fullAdd = add->dims.d[i] == out.dims.d[i];
        }
        LtEpilogue epilogue = LtEpilogue::kNONE;
        void const* bias = nullptr;
        void const* cSource = nullptr; // C of D = alpha * A B + beta * C
        if (biasVector)
        {
            epilogue = relu ? LtEpilogue::kRELU_BIAS : LtEpilogue::kBIAS;
            bias = add->data;
        }
        else if (fullAdd)
        {
            epilogue = relu ? LtEpilogue::kRELU : LtEpilogue::kNONE;
            cSource = add->data;
        }
        else if (add == nullptr && relu)
        {
            epilogue = LtEpilogue::kRELU;
        }
        bool addDone = biasVector || fullAdd;
        bool actDone = relu && (addDone || add == nullptr);
        Status st = runLtProduct(inputs, out, s, ctx, epilogue, bias, cSource);
        if (!st.isOk() && (epilogue != LtEpilogue::kNONE || cSource != nullptr))
        {
            // No cuBLASLt algorithm with this epilogue: plain product, the whole epilogue afterwards.
            addDone = false;
            actDone = false;
            st = runLtProduct(inputs, out, s, ctx, LtEpilogue::kNONE, nullptr, nullptr);
        }
        KILN_RETURN_IF_ERROR(st);
        return runEpilogue(out, addDone ? nullptr : add, mEpilogue.hasActivation && !actDone, ctx);
    }

    Status runLtProduct(std::vector<TensorView> const& inputs, TensorView const& out, MatmulShape const& s,
        CudaRunContext const& ctx, LtEpilogue epilogue, void const* bias, void const* cSource)
    {
        if (ctx.libraries == nullptr)
        {
            return internalError("layer '" + mSetup.node->name + "': no CUDA library handles in the run context");
        }
        KILN_ASSIGN_OR_RETURN(cublasLtHandle_t handle, ctx.libraries->cublasLt());
        int64_t volA = 1;
        int64_t volB = 1;
        bool uniformA = true;
        bool uniformB = true;
        for (int32_t d = 0; d < s.nbBatch; ++d)
        {
            auto const i = static_cast<size_t>(d);
            volA *= s.batchA[i];
            volB *= s.batchB[i];
            uniformA = uniformA && s.batchA[i] == s.batchOut[i];
            uniformB = uniformB && s.batchB[i] == s.batchOut[i];
        }
        uniformA = uniformA || volA == 1;
        uniformB = uniformB || volB == 1;
        int64_t const sizeA = s.m * s.k;
        int64_t const sizeB = s.k * s.n;
        int64_t const sizeC = s.m * s.n;
        int64_t const esize = elementSize(out.type);
        float const alpha = 1.F;
        float const beta = cSource != nullptr ? 1.F : 0.F;
        auto const* a = static_cast<uint8_t const*>(inputs[0].data);
        auto const* b = static_cast<uint8_t const*>(inputs[1].data);
        auto* c = static_cast<uint8_t*>(out.data);
        auto const* cIn = cSource != nullptr ? static_cast<uint8_t const*>(cSource) : c;
        auto const alignC = [&](int64_t strideBytes) {
            return std::min(alignmentOf(c, {strideBytes}), alignmentOf(cIn, {strideBytes}));
        };
        if (uniformA && uniformB)
        {
            int64_t const strideA = volA == 1 ? 0 : sizeA;
            int64_t const strideB = volB == 1 ? 0 : sizeB;
            KILN_RETURN_IF_ERROR(prepareLt(s, out.type, s.batches, strideA, strideB, handle, ctx.workspaceBytes,
                alignmentOf(a, {strideA * esize}), alignmentOf(b, {strideB * esize}), alignC(sizeC * esize), epilogue,
                bias));
            KILN_CUBLAS_CHECK(cublasLtMatmul(handle, mPlan.op, &alpha, b, mPlan.a, a, mPlan.b, &beta, cIn, mPlan.c, c,
                mPlan.c, &mPlan.algo, ctx.workspace, static_cast<size_t>(ctx.workspaceBytes), ctx.stream));
            return Status::ok();
        }
        KILN_RETURN_IF_ERROR(prepareLt(s, out.type, 1, 0, 0, handle, ctx.workspaceBytes, alignmentOf(a, {sizeA * esize}),
            alignmentOf(b, {sizeB * esize}), alignC(sizeC * esize), epilogue, bias));
        for (int64_t bi = 0; bi < s.batches; ++bi)
        {
            int64_t offA = 0;
            int64_t offB = 0;
            matmulBatchOffsets(s, bi, offA, offB);
            KILN_CUBLAS_CHECK(cublasLtMatmul(handle, mPlan.op, &alpha, b + offB * sizeB * esize, mPlan.a,
                a + offA * sizeA * esize, mPlan.b, &beta, cIn + bi * sizeC * esize, mPlan.c, c + bi * sizeC * esize,
                mPlan.c, &mPlan.algo, ctx.workspace, static_cast<size_t>(ctx.workspaceBytes), ctx.stream));
        }
        return Status::ok();
    }

    KernelSetup mSetup;
    MatrixOperation mOp0;
    MatrixOperation mOp1;
    bool mUseLt;
    bool mAllowTf32;
    FusedEpilogue mEpilogue;
    LtPlan mPlan;
    std::vector<int64_t> mKey;
};

bool ltApplies(KernelSetup const& setup)
{
    return setup.inputTypes.size() >= 2 && setup.outputTypes.size() == 1 && isMatmulStorage(setup.outputTypes[0])
        && setup.inputTypes[0] == setup.outputTypes[0] && setup.inputTypes[1] == setup.outputTypes[0];
}

} // namespace

StatusOr<std::unique_ptr<CudaKernel>> createMatrixMultiplyCudaKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("matrix multiply kernel created without a plan node");
    }
    KILN_ASSIGN_OR_RETURN(auto ops, readMatmulOps(*setup.node));
    std::string const tactic = setup.node->tactic;
    if (tactic == "cublaslt" && !ltApplies(setup))
    {
        return invalidArgument("layer '" + setup.node->name + "': tactic cublaslt needs A, B and the output of one "
                                                              "type among FLOAT/HALF/BF16");
    }
    // The builder records the tactic it chose; a plan built for the CPU ("reference"/"onednn") gets the best one.
    bool const useLt = tactic == "kiln" ? false : ltApplies(setup);
    KILN_ASSIGN_OR_RETURN(FusedEpilogue const epilogue, readFusedEpilogue(*setup.node, 2));
    if (setup.inputTypes.size() != (epilogue.hasAdd ? 3U : 2U))
    {
        return invalidArgument("layer '" + setup.node->name + "': expected " + std::string(epilogue.hasAdd ? "3" : "2")
            + " inputs, got " + std::to_string(setup.inputTypes.size()));
    }
    if (epilogue.hasAdd && !isMatmulStorage(setup.inputTypes[2]))
    {
        return invalidArgument("layer '" + setup.node->name + "': the fused addition's tensor must be FLOAT, HALF or "
                                                              "BF16, got " + dataTypeName(setup.inputTypes[2]));
    }
    return std::unique_ptr<CudaKernel>(
        std::make_unique<MatrixMultiplyKernel>(setup, ops.first, ops.second, useLt, epilogue));
}

std::vector<std::string> matrixMultiplyCudaTactics(KernelSetup const& setup)
{
    if (ltApplies(setup))
    {
        return {"cublaslt", "kiln"};
    }
    return {"kiln"};
}

} // namespace kiln::cuda
