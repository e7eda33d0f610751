// CPU matrix-multiply kernel: batched matrix/vector products with transposes and batch broadcasting. A plain
// reference implementation in double precision, and a oneDNN matmul created at reshape per input shapes and cached
// in the kernel object (transposes and vectors are expressed through strides, broadcasting through extent-1 dims).
// A fused epilogue ("fuse.*", made by the fusion pass: + a third input, + a full-shape fourth one (a residual), then
// an activation) runs as the oneDNN matmul's post-ops (binary adds reading the third and fourth inputs in place, an
// eltwise activation; oneDnnEpilogue.h) where oneDNN expresses it; the rest, and the whole epilogue on the reference
// path, is applied to the stored result by runFusedEpilogueCpu.
// A constant B (a Linear layer's weights, KernelSetup::constantInputs) with A of plain layout is multiplied as one 2-D
// product (A's batch dims folded into its rows) against a copy of the weights in the layout oneDNN picks for it
// (format_tag::any), reordered once at reshape into memory the kernel owns; runs then read only that copy.
#include "backends/common/matrixMultiplyParams.h"
#include "backends/cpu/kernels/convolutionCommon.h"
#include "backends/cpu/kernels/fusedEpilogueCpu.h"
#include "backends/cpu/kernels/kernelFactories.h"
#include "backends/cpu/kernels/oneDnnEpilogue.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <numeric>
#include <optional>
#include <stdexcept>

namespace kiln
{
using nvinfer1::DataType;
using nvinfer1::MatrixOperation;

namespace
{

std::atomic<uint64_t> gPackCount{0};

//! Offsets of element (row, col) of the operand matrices, given the operation (A: M x K, B: K x N).
int64_t offsetA(MatrixOperation op, int64_t m, int64_t k, int64_t rows, int64_t depth)
{
    switch (op)
    {
    case MatrixOperation::kNONE: return m * depth + k;   // stored [M, K]
    case MatrixOperation::kTRANSPOSE: return k * rows + m; // stored [K, M]
    case MatrixOperation::kVECTOR: return k;             // stored [K]
    }
    return 0;
}

int64_t offsetB(MatrixOperation op, int64_t k, int64_t n, int64_t depth, int64_t cols)
{
    switch (op)
    {
    case MatrixOperation::kNONE: return k * cols + n;    // stored [K, N]
    case MatrixOperation::kTRANSPOSE: return n * depth + k; // stored [N, K]
    case MatrixOperation::kVECTOR: return k;             // stored [K]
    }
    return 0;
}

//! create: operations, tactic and epilogue; reshape: the problem, the epilogue's plan and either the oneDNN primitive
//! with its memory objects and arguments (looked up in or added to a per-shape cache) or the reference kernel's
//! scratch; run: the product, then the epilogue.
class MatrixMultiplyKernel final : public Kernel
{
public:
    MatrixMultiplyKernel(KernelSetup const& setup, MatrixOperation op0, MatrixOperation op1, CpuTactic tactic,
        FusedEpilogue epilogue)
        : mSetup(setup)
        , mOp0(op0)
        , mOp1(op1)
        , mTactic(tactic)
        , mEpilogue(epilogue)
    {
        if (setup.constantInputs.size() > 1 && setup.inputTypes.size() > 1
            && setup.constantInputs[1].type == setup.inputTypes[1])
        {
            mConstantB = setup.constantInputs[1];
        }
    }

    Status reshape(std::vector<TensorView> const& allInputs, std::vector<TensorView> const& outputs) override
    {
        mReady = false;
        size_t const nbInputs = 2 + mEpilogue.extraInputs();
        if (allInputs.size() != nbInputs)
        {
            return invalidArgument("layer '" + mSetup.node->name + "': expected " + std::to_string(nbInputs)
                + " inputs, got " + std::to_string(allInputs.size()));
        }
        std::vector<TensorView> const inputs(allInputs.begin(), allInputs.begin() + 2);
        KILN_ASSIGN_OR_RETURN(mShape, matmulShapes(mSetup, mOp0, mOp1, inputs, outputs));
        TensorView const& out = outputs[0];
        mOutVolume = out.volume();
        TensorView const* add = mEpilogue.hasAdd ? &allInputs[2] : nullptr;
        TensorView const* residual = mEpilogue.hasResidual ? &allInputs[3] : nullptr;
        // The whole epilogue is checked against the shapes first, whichever part of it oneDNN runs.
        StatusOr<FusedEpiloguePlan> plan = prepareFusedEpilogueCpu(mEpilogue, out.type, out.dims, add, residual);
        if (!plan.isOk())
        {
            return plan.status().withContext("layer '" + mSetup.node->name + "'");
        }
        mEpiloguePlan = std::move(*plan);
#if KILN_HAVE_ONEDNN
        mEntry = nullptr;
        if (mTactic == CpuTactic::kONEDNN && mShape.k > 0 && mOutVolume > 0 && inputs[0].type == out.type
            && inputs[1].type == out.type)
        {
            Entry* entry = findOrCreateEntry(inputs, mShape, add, residual, out.dims);
            mEntry = entry != nullptr && entry->usable ? entry : nullptr;
        }
        if (mEntry != nullptr)
        {
            KILN_ASSIGN_OR_RETURN(
                mEpiloguePlan, prepareFusedEpilogueCpu(mEntry->remainder, out.type, out.dims, add, residual));
        }
        else
#endif
        {
            mA.resize(static_cast<size_t>(inputs[0].volume()));
            mB.resize(static_cast<size_t>(inputs[1].volume()));
            mC.resize(static_cast<size_t>(mOutVolume));
            mRowsA.resize(static_cast<size_t>(mShape.m * mShape.k));
            mColsB.resize(static_cast<size_t>(mShape.k * mShape.n));
        }
        mReady = true;
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs, RunContext const&) override
    {
        if (!mReady)
        {
            return notReshaped(mSetup, "MatrixMultiply");
        }
        TensorView const& out = outputs[0];
        if (mOutVolume == 0)
        {
            return Status::ok();
        }
        KILN_RETURN_IF_ERROR(multiply(inputs, out));
        runFusedEpilogueCpu(mEpiloguePlan, out, mEpilogue.hasAdd ? &inputs[2] : nullptr,
            mEpilogue.hasResidual ? &inputs[3] : nullptr);
        return Status::ok();
    }

private:
    Status multiply(std::vector<TensorView> const& inputs, TensorView const& out)
    {
        TensorView const& a = inputs[0];
        TensorView const& b = inputs[1];
        if (mShape.k == 0)
        {
            std::fill(mC.begin(), mC.end(), 0.0);
            convertFromDouble(mC.data(), out.type, mOutVolume, out.data);
            return Status::ok();
        }
#if KILN_HAVE_ONEDNN
        if (mEntry != nullptr)
        {
            return runOneDnn(*mEntry, a, b, mEpilogue.hasAdd ? &inputs[2] : nullptr,
                mEpilogue.hasResidual ? &inputs[3] : nullptr, out);
        }
#endif
        runReference(a, b, out);
        return Status::ok();
    }

    void runReference(TensorView const& a, TensorView const& b, TensorView const& out)
    {
        MatmulShape const& s = mShape;
        convertToDouble(a.data, a.type, a.volume(), mA.data());
        convertToDouble(b.data, b.type, b.volume(), mB.data());
        int64_t const sizeA = s.m * s.k;
        int64_t const sizeB = s.k * s.n;
        int64_t const sizeC = s.m * s.n;
        for (int64_t bi = 0; bi < s.batches; ++bi)
        {
            int64_t offA = 0;
            int64_t offB = 0;
            matmulBatchOffsets(s, bi, offA, offB);
            double const* pa = mA.data() + offA * sizeA;
            double const* pb = mB.data() + offB * sizeB;
            double* pc = mC.data() + bi * sizeC;
            // Gather op(A) as rows [M][K] and op(B) as columns [N][K], then take plain dot products.
            for (int64_t i = 0; i < s.m; ++i)
            {
                for (int64_t kk = 0; kk < s.k; ++kk)
                {
                    mRowsA[static_cast<size_t>(i * s.k + kk)] = pa[offsetA(mOp0, i, kk, s.m, s.k)];
                }
            }
            for (int64_t j = 0; j < s.n; ++j)
            {
                for (int64_t kk = 0; kk < s.k; ++kk)
                {
                    mColsB[static_cast<size_t>(j * s.k + kk)] = pb[offsetB(mOp1, kk, j, s.k, s.n)];
                }
            }
            for (int64_t i = 0; i < s.m; ++i)
            {
                double const* row = mRowsA.data() + i * s.k;
                for (int64_t j = 0; j < s.n; ++j)
                {
                    double const* col = mColsB.data() + j * s.k;
                    double acc = 0.0;
                    for (int64_t kk = 0; kk < s.k; ++kk)
                    {
                        acc += row[kk] * col[kk];
                    }
                    pc[i * s.n + j] = acc;
                }
            }
        }
        convertFromDouble(mC.data(), out.type, mOutVolume, out.data);
    }

#if KILN_HAVE_ONEDNN
    struct Entry
    {
        std::vector<int64_t> key;
        bool usable{false};
        dnnl::memory a;
        dnnl::memory b;
        dnnl::memory c;
        dnnl::memory add;        //!< the fused addition's tensor (binary post-op), handle set per run
        dnnl::memory residual;   //!< the fused residual (second binary post-op), handle set per run
        FusedEpilogue remainder; //!< the part of the epilogue the post-ops do not run
        bool postOps{false};     //!< the primitive runs (part of) the epilogue
        bool packed{false};      //!< `b` is the kernel's packed copy of the constant B (its handle stays)
        OneDnnStep matmul;
    };

    //! The constant B reordered into one layout oneDNN chose (kept for every shape whose primitive wants it).
    struct PackedB
    {
        dnnl::memory::desc desc;
        dnnl::memory memory;
    };

    //! oneDNN descriptor of an operand: batch dims (row-major over the stored tensor) then the two matrix dims.
    static dnnl::memory::desc operandDesc(dnnl::memory::data_type dt, std::vector<int64_t> const& batch, int64_t rows,
        int64_t cols, int64_t rowStride, int64_t colStride, int64_t matrixSize)
    {
        std::vector<int64_t> dims = batch;
        dims.push_back(rows);
        dims.push_back(cols);
        std::vector<int64_t> strides(dims.size(), 0);
        int64_t s = matrixSize;
        for (int32_t d = static_cast<int32_t>(batch.size()) - 1; d >= 0; --d)
        {
            strides[static_cast<size_t>(d)] = s;
            s *= batch[static_cast<size_t>(d)];
        }
        strides[dims.size() - 2] = rowStride;
        strides[dims.size() - 1] = colStride;
        return dnnl::memory::desc(toDnnlDims(dims), dt, toDnnlDims(strides));
    }

    static dnnl::primitive_desc makePd(MatrixOperation op0, MatrixOperation op1, dnnl::memory::data_type dt,
        MatmulShape const& s, dnnl::memory::desc& ad, dnnl::memory::desc& bd, dnnl::memory::desc& cd,
        dnnl::primitive_attr const& attr = dnnl::primitive_attr())
    {
        int64_t const m = s.m;
        int64_t const n = s.n;
        int64_t const k = s.k;
        ad = op0 == MatrixOperation::kTRANSPOSE ? operandDesc(dt, s.batchA, m, k, 1, m, m * k)
                                                : operandDesc(dt, s.batchA, m, k, k, 1, m * k);
        switch (op1)
        {
        case MatrixOperation::kNONE: bd = operandDesc(dt, s.batchB, k, n, n, 1, k * n); break;
        case MatrixOperation::kTRANSPOSE: bd = operandDesc(dt, s.batchB, k, n, 1, k, k * n); break;
        case MatrixOperation::kVECTOR: bd = operandDesc(dt, s.batchB, k, 1, 1, 1, k); break;
        }
        cd = operandDesc(dt, s.batchOut, m, n, n, 1, m * n);
        dnnl::matmul::desc desc(ad, bd, cd);
        return dnnl::matmul::primitive_desc(desc, attr, oneDnnEngine());
    }

    //! The primitive with the epilogue's post-ops where oneDNN runs them in the implementation it picks without
    //! them, else without; `plan` is left saying what the post-ops run.
    dnnl::primitive_desc makeFusedPd(dnnl::memory::data_type dt, MatmulShape const& s, TensorView const* add,
        TensorView const* residual, nvinfer1::Dims const& out, dnnl::memory::desc& ad, dnnl::memory::desc& bd, dnnl::memory::desc& cd,
        OneDnnEpiloguePlan& plan) const
    {
        std::vector<int64_t> outDims = s.batchOut;
        outDims.push_back(s.m);
        outDims.push_back(s.n);
        // The product's destination is the output itself, so an addition is a binary post-op read in place. With a
        // vector operand the output lacks one of the product's dims: the CPU epilogue handles those.
        plan = outDims == dimsVector(out) ? planOneDnnEpilogue(mEpilogue, outDims, add, false, residual)
                                          : unfusedOneDnnEpilogue(mEpilogue);
        dnnl::primitive_desc plain = makePd(mOp0, mOp1, dt, s, ad, bd, cd);
        if (plan.fusesAnything())
        {
            try
            {
                dnnl::primitive_desc pd = makePd(mOp0, mOp1, dt, s, ad, bd, cd, plan.attr);
                if (sameOneDnnImpl(pd, plain))
                {
                    return pd;
                }
            }
            catch (dnnl::error const&)
            {
                // oneDNN rejects these post-ops for this product: the CPU epilogue applies them.
            }
            plan = unfusedOneDnnEpilogue(mEpilogue);
        }
        return plain;
    }

    //! The descriptor of a plain (row-major) added tensor of dims `dims` for the folded 2-D product [rows, n], or an
    //! empty vector when its broadcast does not fold: a full-shape tensor is [rows, n], one constant over every row
    //! [1, n] or [1, 1].
    static std::vector<int64_t> foldedAddDims(TensorView const& add, std::vector<int64_t> const& outDims, int64_t rows)
    {
        int32_t const rank = static_cast<int32_t>(outDims.size());
        if (add.dims.nbDims > rank)
        {
            return {};
        }
        std::vector<int64_t> dims(static_cast<size_t>(rank - add.dims.nbDims), 1);
        for (int32_t i = 0; i < add.dims.nbDims; ++i)
        {
            dims.push_back(add.dims.d[i]);
        }
        if (dims == outDims)
        {
            return {rows, outDims.back()};
        }
        bool const rowInvariant = std::all_of(dims.begin(), dims.end() - 1, [](int64_t d) { return d == 1; });
        return rowInvariant ? std::vector<int64_t>{1, dims.back()} : std::vector<int64_t>{};
    }

    //! For a constant B: the 2-D primitive [batches * M, K] x [K, N] whose weights layout oneDNN chooses, with the
    //! epilogue's post-ops where oneDNN keeps the implementation it picks without them; nullopt when the problem does
    //! not fold to 2-D (B batched, A transposed or broadcast over batches, a vector operand, an addition whose
    //! broadcast does not fold) or oneDNN has only its reference implementation for it.
    std::optional<dnnl::primitive_desc> makePackedPd(dnnl::memory::data_type dt, TensorView const& b,
        MatmulShape const& s, TensorView const* add, TensorView const* residual, nvinfer1::Dims const& out,
        dnnl::memory::desc& ad, dnnl::memory::desc& cd, OneDnnEpiloguePlan& plan) const
    {
        int64_t const batchB = std::accumulate(s.batchB.begin(), s.batchB.end(), int64_t{1}, std::multiplies<>());
        if (!mConstantB.present() || mConstantB.count != b.volume() || mOp0 != MatrixOperation::kNONE
            || mOp1 == MatrixOperation::kVECTOR || batchB != 1 || s.batchA != s.batchOut)
        {
            return std::nullopt;
        }
        std::vector<int64_t> outDims = s.batchOut;
        outDims.push_back(s.m);
        outDims.push_back(s.n);
        if (outDims != dimsVector(out))
        {
            return std::nullopt;
        }
        int64_t const rows = s.batches * s.m;
        TensorView foldedAdd;
        if (add != nullptr)
        {
            std::vector<int64_t> const dims = foldedAddDims(*add, outDims, rows);
            if (dims.empty())
            {
                return std::nullopt;
            }
            foldedAdd = *add;
            foldedAdd.dims.nbDims = 2;
            foldedAdd.dims.d[0] = dims[0];
            foldedAdd.dims.d[1] = dims[1];
        }
        std::vector<int64_t> const folded{rows, s.n};
        ad = dnnl::memory::desc({rows, s.k}, dt, dnnl::memory::format_tag::ab);
        cd = dnnl::memory::desc({rows, s.n}, dt, dnnl::memory::format_tag::ab);
        dnnl::memory::desc const bd({s.k, s.n}, dt, dnnl::memory::format_tag::any);
        auto const make = [&](dnnl::primitive_attr const& attr) {
            return dnnl::matmul::primitive_desc(dnnl::matmul::desc(ad, bd, cd), attr, oneDnnEngine());
        };
        try
        {
            dnnl::matmul::primitive_desc plain = make(dnnl::primitive_attr());
            if (isOneDnnReferenceImpl(plain))
            {
                return std::nullopt;
            }
            plan = planOneDnnEpilogue(mEpilogue, folded, add != nullptr ? &foldedAdd : nullptr, false, residual);
            if (plan.fusesAnything())
            {
                try
                {
                    dnnl::matmul::primitive_desc fused = make(plan.attr);
                    if (sameOneDnnImpl(fused, plain) && fused.weights_desc() == plain.weights_desc())
                    {
                        return fused;
                    }
                }
                catch (dnnl::error const&)
                {
                    // oneDNN rejects these post-ops for this product: the CPU epilogue applies them.
                }
                plan = unfusedOneDnnEpilogue(mEpilogue);
            }
            return plain;
        }
        catch (dnnl::error const&)
        {
            return std::nullopt;
        }
    }

    //! The constant B in layout `desc`: reordered from the plan's weights once and kept for later shapes wanting the
    //! same layout.
    dnnl::memory packedB(dnnl::memory::desc const& desc, dnnl::memory::data_type dt, MatmulShape const& s)
    {
        for (PackedB const& p : mPacked)
        {
            if (p.desc == desc)
            {
                return p.memory;
            }
        }
        dnnl::engine& eng = oneDnnEngine();
        // The weights as stored: [K, N] row-major, or [N, K] for a transposed B.
        dnnl::memory::desc const stored = mOp1 == MatrixOperation::kTRANSPOSE
            ? dnnl::memory::desc({s.k, s.n}, dt, dnnl::memory::dims{1, s.k})
            : dnnl::memory::desc({s.k, s.n}, dt, dnnl::memory::dims{s.n, 1});
        dnnl::memory source(stored, eng, const_cast<void*>(mConstantB.data));
        dnnl::memory packed(desc, eng);
        dnnl::reorder(source, packed).execute(*mStream, source, packed);
        mStream->wait();
        if (mPacked.size() >= kMAX_PACKED_LAYOUTS)
        {
            mPacked.erase(mPacked.begin());
        }
        mPacked.push_back(PackedB{desc, packed});
        gPackCount.fetch_add(1, std::memory_order_relaxed);
        return packed;
    }

    Entry* findOrCreateEntry(std::vector<TensorView> const& inputs, MatmulShape const& s, TensorView const* add,
        TensorView const* residual, nvinfer1::Dims const& out)
    {
        std::vector<int64_t> key = dimsVector(inputs[0].dims);
        key.push_back(-1);
        std::vector<int64_t> const kb = dimsVector(inputs[1].dims);
        key.insert(key.end(), kb.begin(), kb.end());
        if (add != nullptr)
        {
            std::vector<int64_t> const addDims = dimsVector(add->dims);
            key.push_back(-1);
            key.insert(key.end(), addDims.begin(), addDims.end());
        }
        for (auto& e : mCache)
        {
            if (e->key == key)
            {
                return e.get();
            }
        }
        if (mCache.size() >= kMAX_CACHED_SHAPES)
        {
            mCache.erase(mCache.begin());
        }
        auto entry = std::make_unique<Entry>();
        entry->key = std::move(key);
        try
        {
            dnnl::memory::data_type const dt = oneDnnType(inputs[0].type);
            if (dt == dnnl::memory::data_type::undef)
            {
                throw std::runtime_error("type");
            }
            dnnl::memory::desc ad;
            dnnl::memory::desc bd;
            dnnl::memory::desc cd;
            OneDnnEpiloguePlan plan;
            dnnl::engine& eng = oneDnnEngine();
            if (!mStream)
            {
                mStream.emplace(eng);
            }
            std::optional<dnnl::primitive_desc> packedPd =
                makePackedPd(dt, inputs[1], s, add, residual, out, ad, cd, plan);
            dnnl::primitive_desc pd = packedPd ? *packedPd : makeFusedPd(dt, s, add, residual, out, ad, bd, cd, plan);
            entry->a = dnnl::memory(ad, eng, nullptr);
            if (packedPd)
            {
                entry->b = packedB(packedPd->weights_desc(), dt, s);
                entry->packed = true;
            }
            else
            {
                entry->b = dnnl::memory(bd, eng, nullptr);
            }
            entry->c = dnnl::memory(cd, eng, nullptr);
            entry->remainder = plan.remainder;
            entry->postOps = plan.fusesAnything();
            std::vector<std::pair<int, dnnl::memory>> args{
                {DNNL_ARG_SRC, entry->a}, {DNNL_ARG_WEIGHTS, entry->b}, {DNNL_ARG_DST, entry->c}};
            if (plan.add != OneDnnAdd::kNONE)
            {
                entry->add = dnnl::memory(plan.addDesc, eng, nullptr);
                args.emplace_back(DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, entry->add);
            }
            if (plan.residual)
            {
                entry->residual = dnnl::memory(plan.residualDesc, eng, nullptr);
                args.emplace_back(DNNL_ARG_ATTR_MULTIPLE_POST_OP(1) | DNNL_ARG_SRC_1, entry->residual);
            }
            entry->matmul = OneDnnStep(dnnl::primitive(pd), args);
            entry->usable = true;
        }
        catch (...)
        {
            entry->usable = false;
        }
        mCache.push_back(std::move(entry));
        return mCache.back().get();
    }

    Status runOneDnn(Entry& e, TensorView const& a, TensorView const& b, TensorView const* add,
        TensorView const* residual, TensorView const& out)
    {
        try
        {
            e.a.set_data_handle(a.data);
            if (!e.packed)
            {
                e.b.set_data_handle(b.data);
            }
            e.c.set_data_handle(out.data);
            if (e.add)
            {
                e.add.set_data_handle(add->data);
            }
            if (e.residual)
            {
                e.residual.set_data_handle(residual->data);
            }
            e.matmul.execute(*mStream);
            mStream->wait();
            countOneDnnRun(nvinfer1::LayerType::kMATRIX_MULTIPLY);
            if (e.postOps)
            {
                countOneDnnPostOpRun();
            }
            return Status::ok();
        }
        catch (dnnl::error const& err)
        {
            return failedExecution("layer '" + mSetup.node->name + "': oneDNN failed: " + err.what());
        }
        catch (std::exception const& err)
        {
            return failedExecution("layer '" + mSetup.node->name + "': " + err.what());
        }
    }

    static constexpr size_t kMAX_CACHED_SHAPES = 16;
    static constexpr size_t kMAX_PACKED_LAYOUTS = 2;
    std::vector<std::unique_ptr<Entry>> mCache;
    std::vector<PackedB> mPacked;
    Entry* mEntry{nullptr}; //!< the current shapes' primitive, or nullptr for the reference kernel
    std::optional<dnnl::stream> mStream;

public:
    //! Used by the tactic probe.
    static bool probe(MatrixOperation op0, MatrixOperation op1, DataType type)
    {
        dnnl::memory::data_type const dt = oneDnnType(type);
        if (dt == dnnl::memory::data_type::undef)
        {
            return false;
        }
        MatmulShape s;
        s.nbBatch = 1;
        s.batchA = s.batchB = s.batchOut = {2};
        s.batches = 2;
        s.m = op0 == MatrixOperation::kVECTOR ? 1 : 16;
        s.n = op1 == MatrixOperation::kVECTOR ? 1 : 16;
        s.k = 16;
        try
        {
            dnnl::memory::desc ad;
            dnnl::memory::desc bd;
            dnnl::memory::desc cd;
            return !isOneDnnReferenceImpl(makePd(op0, op1, dt, s, ad, bd, cd));
        }
        catch (...)
        {
            return false;
        }
    }

private:
#endif

    KernelSetup mSetup;
    MatrixOperation mOp0;
    MatrixOperation mOp1;
    CpuTactic mTactic;
    FusedEpilogue mEpilogue;
    WeightsView mConstantB; //!< the plan's constant B, when input 1 is one (count 0 otherwise)
    MatmulShape mShape;
    int64_t mOutVolume{0};
    FusedEpiloguePlan mEpiloguePlan;
    std::vector<double> mA;
    std::vector<double> mB;
    std::vector<double> mC;
    std::vector<double> mRowsA;
    std::vector<double> mColsB;
    bool mReady{false};
};

} // namespace

uint64_t matrixMultiplyPackCount()
{
    return gPackCount.load(std::memory_order_relaxed);
}

StatusOr<std::unique_ptr<Kernel>> createMatrixMultiplyKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("matrix multiply kernel created without a plan node");
    }
    KILN_ASSIGN_OR_RETURN(auto ops, readMatmulOps(*setup.node));
    KILN_ASSIGN_OR_RETURN(CpuTactic tactic, selectCpuTactic(*setup.node));
    KILN_ASSIGN_OR_RETURN(FusedEpilogue const epilogue, readFusedEpilogue(*setup.node, 2, true));
    if (!epilogue.empty() && setup.outputTypes.size() == 1)
    {
        bool supported = fusedEpilogueCpuSupports(setup.outputTypes[0], setup.outputTypes[0]);
        for (size_t i = 2; i < setup.inputTypes.size() && i < 2 + epilogue.extraInputs(); ++i)
        {
            supported = supported && fusedEpilogueCpuSupports(setup.outputTypes[0], setup.inputTypes[i]);
        }
        if (!supported)
        {
            return invalidArgument("layer '" + setup.node->name + "': a fused epilogue needs FLOAT, HALF or BF16 "
                                                                  "outputs and added tensors");
        }
    }
    return std::unique_ptr<Kernel>(
        std::make_unique<MatrixMultiplyKernel>(setup, ops.first, ops.second, tactic, epilogue));
}

std::vector<std::string> matrixMultiplyTactics(KernelSetup const& setup)
{
    std::vector<std::string> const referenceOnly{kTACTIC_REFERENCE};
#if KILN_HAVE_ONEDNN
    if (setup.node == nullptr || setup.inputTypes.size() < 2 || setup.outputTypes.size() != 1)
    {
        return referenceOnly;
    }
    auto ops = readMatmulOps(*setup.node);
    DataType const type = setup.inputTypes[0];
    if (!ops.isOk() || setup.inputTypes[1] != type || setup.outputTypes[0] != type
        || !MatrixMultiplyKernel::probe(ops.value().first, ops.value().second, type))
    {
        return referenceOnly;
    }
    return {kTACTIC_ONEDNN, kTACTIC_REFERENCE};
#else
    (void) setup;
    return referenceOnly;
#endif
}

} // namespace kiln
