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
// Fused epilogues ("fuse.*" from the fusion pass: + a third input, + a full-shape fourth one (a residual), then an
// activation; backends/common/fusedEpilogue.h) go into cuBLASLt, D = act(A B + beta C + bias): a bias vector along the
// last dimension is CUBLASLT_EPILOGUE_BIAS; a full-shape addend (the residual, else a full-shape addition) is C with
// beta = 1 (C and D share one layout and batch stride); kRELU is CUBLASLT_EPILOGUE_RELU(_BIAS); cuBLASLt's
// GELU(_BIAS), the tanh approximation, computes kGELU_TANH, and kGELU_ERF for HALF/BF16 outputs only (it differs from
// the erf form by at most 4.7e-4 absolute, inside those types' tolerance; docs/gpu.md; FP32 keeps the exact erf). The
// activation goes into cuBLASLt only when every addition does. Everything else (other
// activations, other broadcast additions, the "kiln" tactic, K = 0, no cuBLASLt algorithm for the epilogue) runs as
// one pointwise kernel over the stored result afterwards (activationMath.cuh).
#include "backends/common/fusedEpilogue.h"
#include "backends/common/matrixMultiplyParams.h"
#include "backends/cuda/cudaLibraries.h"
#include "backends/cuda/kernels/activationMath.cuh"
#include "backends/cuda/kernels/cudaKernelFactories.h"
#include "backends/cuda/kernels/kernelCommon.cuh"
#include "backends/cuda/kernels/ltAlgorithmChoice.h"

#include <algorithm>
#include <array>

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

//! out = act(out + add + residual) over the stored product (add broadcast through `map`, the residual of the output's
//! shape; each part optional: a null pointer, `hasAct` false).
__global__ void epilogueKernel(IndexMap map, int64_t n, void* out, DataType to, void const* add, DataType ta,
    void const* residual, DataType tr, bool hasAct, nvinfer1::ActivationType act, float alpha, float beta)
{
    for (int64_t i = dev::globalThread(); i < n; i += dev::gridThreads())
    {
        float v = dev::loadFloat(out, to, i);
        if (add != nullptr)
        {
            int64_t off[kMAX_OPERANDS];
            mapOffsets(map, i, off);
            v += dev::loadFloat(add, ta, off[0]);
        }
        if (residual != nullptr)
        {
            v += dev::loadFloat(residual, tr, i);
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
    kGELU_BIAS = 4, //!< gelu (tanh approximation) of (+ bias vector)
    kGELU = 5,      //!< gelu (tanh approximation), after beta * C
};

//! Where C of D = A B + beta C comes from.
enum class LtC : int32_t
{
    kNONE = 0,     //!< beta = 0
    kADD = 1,      //!< the fused addition (full shape)
    kRESIDUAL = 2, //!< the fused residual
};

//! Whether cuBLASLt's GELU epilogue (the tanh approximation) computes `act` for outputs of type `type`: kGELU_TANH
//! always, kGELU_ERF for HALF/BF16 only (at most 4.7e-4 apart; docs/gpu.md), never for FP32 erf.
bool ltGelu(nvinfer1::ActivationType act, DataType type)
{
    return act == nvinfer1::ActivationType::kGELU_TANH
        || (act == nvinfer1::ActivationType::kGELU_ERF && type != DataType::kFLOAT);
}

//! Same rank and extents.
bool sameDimsAs(nvinfer1::Dims const& a, nvinfer1::Dims const& b)
{
    return a.nbDims == b.nbDims && std::equal(a.d, a.d + a.nbDims, b.d);
}

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

//! What a cuBLASLt plan was made for: the batch, the epilogue, the largest workspace it may use, and the alignments
//! (bytes) it may rely on.
struct LtProblem
{
    int64_t batchCount{1};
    int64_t strideA{0}; //!< elements between Kiln A's matrices of a strided batch (0: broadcast)
    int64_t strideB{0};
    int64_t maxWorkspace{0};
    uint32_t alignA{0};
    uint32_t alignB{0};
    uint32_t alignC{0};
    uint32_t alignBias{0};
    LtEpilogue epilogue{LtEpilogue::kNONE};

    bool operator==(LtProblem const& o) const
    {
        return batchCount == o.batchCount && strideA == o.strideA && strideB == o.strideB
            && maxWorkspace == o.maxWorkspace && alignA == o.alignA && alignB == o.alignB && alignC == o.alignC
            && alignBias == o.alignBias && epilogue == o.epilogue;
    }
};

//! Owns the cuBLASLt descriptors of one problem and the algorithm the heuristics chose for it.
struct LtPlan
{
    cublasLtMatmulDesc_t op{nullptr};
    cublasLtMatrixLayout_t a{nullptr}; // cuBLASLt's A = Kiln's B (column-major view)
    cublasLtMatrixLayout_t b{nullptr}; // cuBLASLt's B = Kiln's A
    cublasLtMatrixLayout_t c{nullptr};
    cublasLtMatmulAlgo_t algo{};
    LtProblem problem;
    int64_t needBytes{0}; //!< workspace the chosen algorithm needs
    bool ready{false};

    LtPlan() = default;
    LtPlan(LtPlan const&) = delete;
    LtPlan& operator=(LtPlan const&) = delete;
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
    //! Whether the plan serves a run with these alignments and this much workspace.
    bool serves(uint32_t alignA, uint32_t alignB, uint32_t alignC, uint32_t alignBias, int64_t workspaceBytes) const
    {
        return ready && alignA >= problem.alignA && alignB >= problem.alignB && alignC >= problem.alignC
            && alignBias >= problem.alignBias && workspaceBytes >= needBytes;
    }
};

//! How a run computes the product.
enum class MatmulPath : int32_t
{
    kZERO_K, //!< K = 0: the output is zero (then the epilogue)
    kKILN,   //!< Kiln's kernel (then the epilogue)
    kLT,     //!< cuBLASLt (with what it computes of the epilogue, the rest after)
};

//! create: the operations, the tactic, the epilogue, "allow_tf32" and the session's library handles; reshape: the
//! shape checks (makeMatmulShape), the epilogue's broadcast map and either the plain kernel's batch map or the
//! cuBLASLt plan (descriptors, layouts, preference and heuristic algorithm, the split of the epilogue between
//! cuBLASLt and the pointwise kernel, per-matrix offsets of a non-uniform batch); run: the launches. A run whose
//! buffers are less aligned than the plan assumed (the plan takes the reshape's addresses, or 256 bytes when it has
//! none) or whose workspace is smaller than the algorithm needs gets a second plan made for it, kept for the runs
//! after it: the only descriptor work a run can do.
class MatrixMultiplyKernel final : public Kernel
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
        , mLibraries(sessionLibraries(setup))
    {
    }

    int64_t workspaceSize(std::vector<TensorView> const&, std::vector<TensorView> const&) const override
    {
        return mUseLt ? kWORKSPACE : 0;
    }

    Status reshape(std::vector<TensorView> const& allInputs, std::vector<TensorView> const& outputs) override
    {
        mVolume = -1;
        size_t const nbInputs = 2 + mEpilogue.extraInputs();
        if (allInputs.size() != nbInputs)
        {
            return invalidArgument("layer '" + mSetup.node->name + "': expected " + std::to_string(nbInputs)
                + " inputs, got " + std::to_string(allInputs.size()));
        }
        ReshapeViews const v = reshapeViews(mSetup, allInputs, outputs);
        std::vector<TensorView> const inputs(v.inputs.begin(), v.inputs.begin() + 2);
        KILN_ASSIGN_OR_RETURN(mShape, makeMatmulShape(mSetup, mOp0, mOp1, inputs, v.outputs));
        TensorView const& out = outputs[0];
        TensorView const* add = mEpilogue.hasAdd ? &allInputs[2] : nullptr;
        TensorView const* residual = mEpilogue.hasResidual ? &allInputs[3] : nullptr;
        for (TensorView const* t : {add, residual})
        {
            if (t != nullptr && !isMatmulStorage(t->type))
            {
                return invalidArgument("layer '" + mSetup.node->name + "': the fused addition's tensor is missing or "
                                                                       "not FLOAT/HALF/BF16");
            }
        }
        if (residual != nullptr && !sameDimsAs(residual->dims, out.dims))
        {
            return invalidArgument("layer '" + mSetup.node->name + "': the fused residual "
                + ew::dimsToString(residual->dims) + " does not have the output's dims " + ew::dimsToString(out.dims));
        }
        if (out.volume() == 0)
        {
            mVolume = 0;
            return Status::ok();
        }
        if (add != nullptr)
        {
            KILN_ASSIGN_OR_RETURN(mAddMap, addMap(*add, out));
        }
        mAddDone = false;
        mResidualDone = false;
        mActDone = false;
        if (mShape.k == 0)
        {
            mPath = MatmulPath::kZERO_K;
        }
        else if (!mUseLt)
        {
            mPath = MatmulPath::kKILN;
            mBatchMap = BatchMap{};
            mBatchMap.nbBatch = mShape.nbBatch;
            for (int32_t d = 0; d < mShape.nbBatch; ++d)
            {
                mBatchMap.out[d] = mShape.batchOut[static_cast<size_t>(d)];
                mBatchMap.a[d] = mShape.batchA[static_cast<size_t>(d)];
                mBatchMap.b[d] = mShape.batchB[static_cast<size_t>(d)];
            }
        }
        else
        {
            mPath = MatmulPath::kLT;
            KILN_RETURN_IF_ERROR(reshapeLt(v, out, add, residual));
        }
        mVolume = out.volume();
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs,
        RunContext const& ctx) override
    {
        if (mVolume <= 0)
        {
            return mVolume == 0 ? Status::ok() : notReshaped("layer '" + mSetup.node->name + "'");
        }
        TensorView const& out = outputs[0];
        TensorView const* add = mEpilogue.hasAdd ? &inputs[2] : nullptr;
        TensorView const* residual = mEpilogue.hasResidual ? &inputs[3] : nullptr;
        for (TensorView const* t : {add, residual})
        {
            if (t != nullptr && t->data == nullptr && t->volume() != 0)
            {
                return invalidArgument("layer '" + mSetup.node->name + "': the fused addition's tensor is missing");
            }
        }
        switch (mPath)
        {
        case MatmulPath::kZERO_K:
            // Zero bits are zero in every float type.
            KILN_CUDA_CHECK(cudaMemsetAsync(out.data, 0, static_cast<size_t>(mVolume * elementSize(out.type)),
                ctx.stream));
            return runEpilogue(out, add, residual, mEpilogue.hasActivation, ctx);
        case MatmulPath::kKILN:
            matmulKernel<<<gridFor(mVolume), kBLOCK, 0, ctx.stream>>>(mBatchMap, mOp0, mOp1, mShape.m, mShape.n,
                mShape.k, mVolume, inputs[0].data, inputs[0].type, inputs[1].data, inputs[1].type, out.data, out.type);
            KILN_RETURN_IF_ERROR(launchStatus("MatrixMultiply kernel"));
            return runEpilogue(out, add, residual, mEpilogue.hasActivation, ctx);
        case MatmulPath::kLT: return runLt(inputs, out, add, residual, ctx);
        }
        return internalError("layer '" + mSetup.node->name + "': unknown matrix multiply path");
    }

private:
    //! The broadcast map of the added tensor onto the output (its dims left-padded with 1s to the output's rank).
    StatusOr<IndexMap> addMap(TensorView const& add, TensorView const& out) const
    {
        nvinfer1::Dims padded = out.dims;
        int32_t const lead = out.dims.nbDims - add.dims.nbDims;
        if (lead < 0)
        {
            return invalidArgument("layer '" + mSetup.node->name + "': fused addition: the added tensor "
                + ew::dimsToString(add.dims) + " has a higher rank than the output " + ew::dimsToString(out.dims));
        }
        for (int32_t i = 0; i < out.dims.nbDims; ++i)
        {
            padded.d[i] = i < lead ? 1 : add.dims.d[i - lead];
        }
        auto m = makeBroadcastMap(out.dims, {padded});
        if (!m.isOk())
        {
            return m.status().withContext("layer '" + mSetup.node->name + "': fused addition");
        }
        return *m;
    }

    //! out = act(out + add + residual) in place (`add` / `residual` may be null; all absent: nothing to do).
    Status runEpilogue(TensorView const& out, TensorView const* add, TensorView const* residual, bool withActivation,
        RunContext const& ctx)
    {
        if (add == nullptr && residual == nullptr && !withActivation)
        {
            return Status::ok();
        }
        epilogueKernel<<<gridFor(mVolume), kBLOCK, 0, ctx.stream>>>(mAddMap, mVolume, out.data, out.type,
            add != nullptr ? add->data : nullptr, add != nullptr ? add->type : out.type,
            residual != nullptr ? residual->data : nullptr, residual != nullptr ? residual->type : out.type,
            withActivation, mEpilogue.activation, mEpilogue.alpha, mEpilogue.beta);
        return launchStatus("MatrixMultiply epilogue kernel");
    }

    //! The cuBLASLt part of reshape: what of the epilogue cuBLASLt computes (see the file comment), the batch layout
    //! and the plan, with the alignments of the reshape's addresses (placeholders are 256-byte aligned).
    Status reshapeLt(ReshapeViews const& v, TensorView const& out, TensorView const* add, TensorView const* residual)
    {
        if (mLibraries == nullptr)
        {
            return internalError("layer '" + mSetup.node->name + "': no CUDA library handles (the kernel was created "
                                                                  "outside a session)");
        }
        KILN_ASSIGN_OR_RETURN(mHandle, mLibraries->cublasLt());
        MatmulShape const& s = mShape;
        using nvinfer1::ActivationType;
        bool const relu = mEpilogue.hasActivation && mEpilogue.activation == ActivationType::kRELU;
        bool const gelu = mEpilogue.hasActivation && ltGelu(mEpilogue.activation, out.type);
        bool const sameType = add != nullptr && add->type == out.type;
        bool const residualAsC = residual != nullptr && residual->type == out.type;
        bool biasVector = sameType && mOp1 != MatrixOperation::kVECTOR && add->dims.nbDims == out.dims.nbDims
            && out.dims.nbDims >= 1 && add->dims.d[add->dims.nbDims - 1] == s.n && s.n > 1;
        for (int32_t i = 0; biasVector && i + 1 < add->dims.nbDims; ++i)
        {
            biasVector = add->dims.d[i] == 1;
        }
        // One full-shape addend is C: the residual, else a full-shape addition.
        bool const fullAdd = sameType && !biasVector && !residualAsC && sameDimsAs(add->dims, out.dims);
        LtC const cSource = residualAsC ? LtC::kRESIDUAL : (fullAdd ? LtC::kADD : LtC::kNONE);
        // The activation applies last: in cuBLASLt only when every addition is there too.
        bool const actInLt = (relu || gelu) && (add == nullptr || biasVector || fullAdd)
            && (residual == nullptr || residualAsC);
        LtEpilogue epilogue = LtEpilogue::kNONE;
        if (biasVector)
        {
            epilogue = !actInLt ? LtEpilogue::kBIAS : (relu ? LtEpilogue::kRELU_BIAS : LtEpilogue::kGELU_BIAS);
        }
        else if (actInLt)
        {
            epilogue = relu ? LtEpilogue::kRELU : LtEpilogue::kGELU;
        }
        // A batch is uniform when each operand's batch equals the output's or is entirely broadcast.
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
        mUniform = (uniformA || volA == 1) && (uniformB || volB == 1);
        int64_t const esize = elementSize(out.type);
        mElementSize = esize;
        LtProblem request;
        mBatchOffsets.clear();
        if (mUniform)
        {
            request.batchCount = s.batches;
            request.strideA = volA == 1 ? 0 : s.m * s.k;
            request.strideB = volB == 1 ? 0 : s.k * s.n;
        }
        else
        {
            mBatchOffsets.resize(static_cast<size_t>(s.batches));
            for (int64_t bi = 0; bi < s.batches; ++bi)
            {
                int64_t offA = 0;
                int64_t offB = 0;
                matmulBatchOffsets(s, bi, offA, offB);
                mBatchOffsets[static_cast<size_t>(bi)] = {offA * s.m * s.k * esize, offB * s.k * s.n * esize};
            }
        }
        request.maxWorkspace = kWORKSPACE;
        void const* bias = biasVector ? v.inputs[2].data : nullptr;
        // C of D = alpha * A B + beta * C (the output itself when beta = 0).
        void const* cIn = cSource == LtC::kRESIDUAL ? v.inputs[3].data
                                                    : (cSource == LtC::kADD ? v.inputs[2].data : v.outputs[0].data);
        alignments(v.inputs[0].data, v.inputs[1].data, v.outputs[0].data, cIn, bias, request);
        request.epilogue = epilogue;
        std::array<int64_t, 4> const product{s.m, s.n, s.k, static_cast<int64_t>(out.type)};
        // The same request as the last reshape's (a shape seen again) keeps its plan.
        if (!mPlan.ready || !(request == mRequest) || product != mRequestProduct)
        {
            mFallback.reset();
            mRequest = request;
            mRequestProduct = product;
            mBatch = request;
            mPlainProduct = false;
            mC = cSource;
            Status st = prepareLt(mPlan, mBatch, out.type, bias, true);
            if (!st.isOk() && epilogue != LtEpilogue::kNONE)
            {
                // No cuBLASLt algorithm with this epilogue: plain product, the whole epilogue afterwards.
                mPlainProduct = true;
                mBatch.epilogue = LtEpilogue::kNONE;
                mBatch.alignBias = 256;
                mC = LtC::kNONE;
                st = prepareLt(mPlan, mBatch, out.type, nullptr, true);
            }
            KILN_RETURN_IF_ERROR(st);
        }
        mBiasFromAdd = biasVector && !mPlainProduct;
        mC = mPlainProduct ? LtC::kNONE : cSource;
        mAddDone = mBiasFromAdd || mC == LtC::kADD;
        mResidualDone = mC == LtC::kRESIDUAL;
        mActDone = !mPlainProduct && actInLt;
        return Status::ok();
    }

    //! The alignments (bytes) of a run's addresses with the batch strides of `p` (set into p).
    void alignments(void const* a, void const* b, void const* c, void const* cIn, void const* bias, LtProblem& p) const
    {
        MatmulShape const& s = mShape;
        int64_t const esize = mElementSize;
        int64_t const strideA = (mUniform ? p.strideA : s.m * s.k) * esize;
        int64_t const strideB = (mUniform ? p.strideB : s.k * s.n) * esize;
        int64_t const strideC = s.m * s.n * esize;
        p.alignA = alignmentOf(a, {strideA});
        p.alignB = alignmentOf(b, {strideB});
        p.alignC = std::min(alignmentOf(c, {strideC}), alignmentOf(cIn, {strideC}));
        p.alignBias = bias != nullptr ? alignmentOf(bias, {}) : 256U;
    }

    //! (Re)creates `plan`'s descriptors for problem `p`; `bias` (an address of the bias vector's alignment) is shown
    //! to the heuristics, which read its alignment. With `tune` (reshape) the algorithm is chosen by timing.
    Status prepareLt(LtPlan& plan, LtProblem const& p, DataType type, void const* bias, bool tune = false) const
    {
        MatmulShape const& s = mShape;
        plan.reset();
        bool const fp32 = type == DataType::kFLOAT;
        cublasComputeType_t const compute = fp32 && mAllowTf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
        KILN_CUBLAS_CHECK(cublasLtMatmulDescCreate(&plan.op, compute, CUDA_R_32F));
        if (p.epilogue != LtEpilogue::kNONE)
        {
            cublasLtEpilogue_t epi = CUBLASLT_EPILOGUE_RELU;
            switch (p.epilogue)
            {
            case LtEpilogue::kBIAS: epi = CUBLASLT_EPILOGUE_BIAS; break;
            case LtEpilogue::kRELU_BIAS: epi = CUBLASLT_EPILOGUE_RELU_BIAS; break;
            case LtEpilogue::kGELU_BIAS: epi = CUBLASLT_EPILOGUE_GELU_BIAS; break;
            case LtEpilogue::kGELU: epi = CUBLASLT_EPILOGUE_GELU; break;
            case LtEpilogue::kRELU:
            case LtEpilogue::kNONE: break;
            }
            KILN_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(plan.op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof(epi)));
            if (bias != nullptr)
            {
                // The batch stride stays 0 (one bias for all batches); each run sets its own address.
                KILN_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(
                    plan.op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof(bias)));
            }
        }
        // Column-major D (N x M) = opA(Kiln B) x opB(Kiln A).
        cublasOperation_t const transA = mOp1 == MatrixOperation::kTRANSPOSE ? CUBLAS_OP_T : CUBLAS_OP_N;
        cublasOperation_t const transB = mOp0 == MatrixOperation::kTRANSPOSE ? CUBLAS_OP_T : CUBLAS_OP_N;
        KILN_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(plan.op, CUBLASLT_MATMUL_DESC_TRANSA, &transA, sizeof(transA)));
        KILN_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(plan.op, CUBLASLT_MATMUL_DESC_TRANSB, &transB, sizeof(transB)));
        cudaDataType_t const dt = cudaType(type);
        auto const u = [](int64_t v) { return static_cast<uint64_t>(v); };
        // Kiln B as stored: kNONE [K, N] -> col-major N x K (ld N); kTRANSPOSE [N, K] -> K x N (ld K); kVECTOR [K].
        if (mOp1 == MatrixOperation::kTRANSPOSE)
        {
            KILN_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&plan.a, dt, u(s.k), u(s.n), s.k));
        }
        else
        {
            KILN_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&plan.a, dt, u(s.n), u(s.k), s.n));
        }
        // Kiln A as stored: kNONE [M, K] -> col-major K x M (ld K); kTRANSPOSE [K, M] -> M x K (ld M); kVECTOR [K].
        if (mOp0 == MatrixOperation::kTRANSPOSE)
        {
            KILN_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&plan.b, dt, u(s.m), u(s.k), s.m));
        }
        else
        {
            KILN_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&plan.b, dt, u(s.k), u(s.m), s.k));
        }
        KILN_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&plan.c, dt, u(s.n), u(s.m), s.n));
        if (p.batchCount > 1)
        {
            int32_t const count = static_cast<int32_t>(p.batchCount);
            int64_t const strideC = s.m * s.n;
            KILN_CUBLAS_CHECK(cublasLtMatrixLayoutSetAttribute(plan.a, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof(count)));
            KILN_CUBLAS_CHECK(cublasLtMatrixLayoutSetAttribute(plan.a, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &p.strideB, sizeof(p.strideB)));
            KILN_CUBLAS_CHECK(cublasLtMatrixLayoutSetAttribute(plan.b, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof(count)));
            KILN_CUBLAS_CHECK(cublasLtMatrixLayoutSetAttribute(plan.b, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &p.strideA, sizeof(p.strideA)));
            KILN_CUBLAS_CHECK(cublasLtMatrixLayoutSetAttribute(plan.c, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof(count)));
            KILN_CUBLAS_CHECK(cublasLtMatrixLayoutSetAttribute(plan.c, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &strideC, sizeof(strideC)));
        }
        cublasLtMatmulPreference_t pref = nullptr;
        KILN_CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref));
        auto const maxBytes = static_cast<uint64_t>(p.maxWorkspace);
        cublasStatus_t st = cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
            &maxBytes, sizeof(maxBytes));
        // cuBLASLt's A is Kiln's B and vice versa.
        for (auto [attr, value] : {std::pair{CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, p.alignB},
                 std::pair{CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, p.alignA},
                 std::pair{CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, p.alignC},
                 std::pair{CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, p.alignC}, kFP32_SPLIT_K_ONLY})
        {
            if (st == CUBLAS_STATUS_SUCCESS)
            {
                st = cublasLtMatmulPreferenceSetAttribute(pref, attr, &value, sizeof(value));
            }
        }
        LtTimingProblem t(mHandle, plan.op, plan.a, plan.b, plan.c, pref);
        if (tune)
        {
            // cuBLASLt's A is Kiln's B: scratch sizes for timing, and the description the choice is remembered by.
            int64_t const es = elementSize(type);
            t.bytesA = (p.strideB == 0 ? 1 : p.batchCount) * s.k * s.n * es;
            t.bytesB = (p.strideA == 0 ? 1 : p.batchCount) * s.m * s.k * es;
            t.bytesC = p.batchCount * s.m * s.n * es;
            bool const hasBias = p.epilogue == LtEpilogue::kBIAS || p.epilogue == LtEpilogue::kRELU_BIAS
                || p.epilogue == LtEpilogue::kGELU_BIAS;
            t.bytesBias = hasBias ? s.n * 4 : 0; // a scratch bias for the timing runs (FP32 at most)
            t.withC = mC != LtC::kNONE; // reshapeLt sets mC before asking
            t.key = ltProblemKey({s.m, s.n, s.k, p.batchCount, p.strideA, p.strideB, static_cast<int64_t>(type),
                static_cast<int64_t>(mOp0), static_cast<int64_t>(mOp1), static_cast<int64_t>(p.epilogue), t.withC,
                compute, p.maxWorkspace, p.alignA, p.alignB, p.alignC, p.alignBias});
        }
        StatusOr<LtChoice> choice = st == CUBLAS_STATUS_SUCCESS
            ? chooseLtAlgorithm(t, tune, "layer '" + mSetup.node->name + "'")
            : StatusOr<LtChoice>(cublasStatus(st, "cublasLtMatmulPreferenceSetAttribute"));
        (void) cublasLtMatmulPreferenceDestroy(pref);
        KILN_RETURN_IF_ERROR(choice.status());
        plan.algo = choice.value().algo;
        plan.needBytes = choice.value().workspaceBytes;
        plan.problem = p;
        plan.ready = true;
        return Status::ok();
    }

    Status runLt(std::vector<TensorView> const& inputs, TensorView const& out, TensorView const* add,
        TensorView const* residual, RunContext const& ctx)
    {
        auto const* a = static_cast<uint8_t const*>(inputs[0].data);
        auto const* b = static_cast<uint8_t const*>(inputs[1].data);
        auto* c = static_cast<uint8_t*>(out.data);
        void const* bias = mBiasFromAdd ? add->data : nullptr;
        auto const* cIn = mC == LtC::kRESIDUAL
            ? static_cast<uint8_t const*>(residual->data)
            : (mC == LtC::kADD ? static_cast<uint8_t const*>(add->data) : c);
        LtProblem actual = mBatch;
        alignments(a, b, c, cIn, bias, actual);
        LtPlan* plan = &mPlan;
        bool addDone = mAddDone;
        bool residualDone = mResidualDone;
        bool actDone = mActDone;
        bool withC = mC != LtC::kNONE;
        if (!mPlan.serves(actual.alignA, actual.alignB, actual.alignC, actual.alignBias, ctx.workspaceBytes))
        {
            KILN_RETURN_IF_ERROR(fallbackPlan(actual, out.type, bias, ctx.workspaceBytes));
            plan = &mFallback;
            if (mFallbackPlain)
            {
                // The fallback computes the plain product: the whole epilogue runs afterwards.
                bias = nullptr;
                cIn = c;
                withC = false;
                addDone = false;
                residualDone = false;
                actDone = false;
            }
        }
        if (bias != nullptr)
        {
            KILN_CUBLAS_CHECK(
                cublasLtMatmulDescSetAttribute(plan->op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof(bias)));
        }
        float const alpha = 1.F;
        float const beta = withC ? 1.F : 0.F;
        auto const workspaceBytes = static_cast<size_t>(ctx.workspaceBytes);
        if (mUniform)
        {
            KILN_CUBLAS_CHECK(cublasLtMatmul(mHandle, plan->op, &alpha, b, plan->a, a, plan->b, &beta, cIn, plan->c, c,
                plan->c, &plan->algo, ctx.workspace, workspaceBytes, ctx.stream));
        }
        else
        {
            int64_t const sizeC = mShape.m * mShape.n * elementSize(out.type);
            for (size_t bi = 0; bi < mBatchOffsets.size(); ++bi)
            {
                auto const [offA, offB] = mBatchOffsets[bi];
                auto const offC = static_cast<int64_t>(bi) * sizeC;
                KILN_CUBLAS_CHECK(cublasLtMatmul(mHandle, plan->op, &alpha, b + offB, plan->a, a + offA, plan->b, &beta,
                    cIn + offC, plan->c, c + offC, plan->c, &plan->algo, ctx.workspace, workspaceBytes, ctx.stream));
            }
        }
        return runEpilogue(
            out, addDone ? nullptr : add, residualDone ? nullptr : residual, mEpilogue.hasActivation && !actDone, ctx);
    }

    //! The plan of a run that the reshape's plan does not serve (see the class comment), made once per alignment and
    //! workspace: with the reshape's epilogue when the heuristics find an algorithm for it, else the plain product
    //! (mFallbackPlain).
    Status fallbackPlan(LtProblem const& actual, DataType type, void const* bias, int64_t workspaceBytes)
    {
        if (mFallback.serves(actual.alignA, actual.alignB, actual.alignC, actual.alignBias, workspaceBytes))
        {
            return Status::ok();
        }
        LtProblem p = actual;
        p.maxWorkspace = workspaceBytes;
        mFallbackPlain = false;
        Status st = prepareLt(mFallback, p, type, bias);
        if (!st.isOk() && (p.epilogue != LtEpilogue::kNONE || mC != LtC::kNONE))
        {
            p.epilogue = LtEpilogue::kNONE;
            mFallbackPlain = true;
            st = prepareLt(mFallback, p, type, nullptr);
        }
        return st;
    }

    KernelSetup mSetup;
    MatrixOperation mOp0;
    MatrixOperation mOp1;
    bool mUseLt;
    bool mAllowTf32;
    FusedEpilogue mEpilogue;
    CudaLibraries* mLibraries{nullptr};
    cublasLtHandle_t mHandle{nullptr};
    // Of the last reshape.
    MatmulShape mShape;
    MatmulPath mPath{MatmulPath::kKILN};
    BatchMap mBatchMap;
    IndexMap mAddMap;
    bool mUniform{true};
    bool mBiasFromAdd{false}; //!< cuBLASLt adds the fused addition as its bias vector
    LtC mC{LtC::kNONE};       //!< what cuBLASLt adds as C (beta = 1)
    bool mAddDone{false};     //!< cuBLASLt computes the fused addition
    bool mResidualDone{false}; //!< cuBLASLt computes the fused residual
    bool mActDone{false};     //!< cuBLASLt computes the activation
    LtProblem mBatch;         //!< the problem of mPlan
    LtProblem mRequest;       //!< what the reshape that made mPlan asked for (mBatch less a refused epilogue)
    std::array<int64_t, 4> mRequestProduct{}; //!< M, N, K and the type of that reshape
    bool mPlainProduct{false}; //!< the heuristics refused the requested epilogue: mPlan is the plain product
    std::vector<std::pair<int64_t, int64_t>> mBatchOffsets; //!< non-uniform batch: byte offsets of A and B per matrix
    int64_t mElementSize{0};
    LtPlan mPlan;
    LtPlan mFallback;
    bool mFallbackPlain{false}; //!< mFallback computes the plain product (no epilogue)
    int64_t mVolume{-1};
};

bool ltApplies(KernelSetup const& setup)
{
    return setup.inputTypes.size() >= 2 && setup.outputTypes.size() == 1 && isMatmulStorage(setup.outputTypes[0])
        && setup.inputTypes[0] == setup.outputTypes[0] && setup.inputTypes[1] == setup.outputTypes[0];
}

} // namespace

StatusOr<std::unique_ptr<Kernel>> createMatrixMultiplyCudaKernel(KernelSetup const& setup)
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
    KILN_ASSIGN_OR_RETURN(FusedEpilogue const epilogue, readFusedEpilogue(*setup.node, 2, true));
    size_t const nbInputs = 2 + epilogue.extraInputs();
    if (setup.inputTypes.size() != nbInputs)
    {
        return invalidArgument("layer '" + setup.node->name + "': expected " + std::to_string(nbInputs)
            + " inputs, got " + std::to_string(setup.inputTypes.size()));
    }
    for (size_t i = 2; i < nbInputs; ++i)
    {
        if (!isMatmulStorage(setup.inputTypes[i]))
        {
            return invalidArgument("layer '" + setup.node->name + "': the fused addition's tensors must be FLOAT, "
                                                                  "HALF or BF16, got " + dataTypeName(setup.inputTypes[i]));
        }
    }
    return std::unique_ptr<Kernel>(
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
