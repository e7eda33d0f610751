// CPU kernel of attention nodes (kind kATTENTION_OUTPUT, made by the builder's attention fusion; see
// backends/common/attentionParams.h): per batch, query head and query row, the scores scale·q·kⱼ (+ mask), the
// softmax over the keys, and Σⱼ pⱼ·vⱼ; the scores matrix is never stored. The inputs are converted to float once per
// run into scratch where needed (FP16/BF16 storage; the key to [b, hkv, d, skv], so that a row's scores are axpys over
// contiguous keys), and every inner loop is an axpy that the compiler vectorises. Planes (batch, head) are split over
// the CPU thread pool. Tensors stored [b, s, h, d] (layout 1) or viewed inside a packed QKV tensor (layout 2) are
// first copied row by row to [b, h, s, d] scratch, and an output stored [b, s, h, d] is computed in scratch and copied
// out: this kernel is the parity reference of the GPU's strided reads, not their fast path.
#include "backends/common/attentionParams.h"
#include "backends/cpu/kernels/elementWiseCommon.h"
#include "backends/cpu/kernels/fastMath.h"
#include "backends/cpu/kernels/kernelFactories.h"
#include "backends/cpu/kernels/simd.h"
#include "core/dataType.h"
#include "core/threadPool.h"

#if KILN_HAVE_ONEDNN
#include <oneapi/dnnl/dnnl.h>
#endif

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

namespace kiln
{
using nvinfer1::DataType;

namespace
{

//! `count` elements of `src` (storage `type`) as floats in `dst`.
void toFloat(void const* src, DataType type, int64_t count, float* dst)
{
    ew::loadChunk(src, type, 0, 1, count, dst);
}

//! Copies the [b, h, s, d] view `dims` from `from` (laid out as `fl`) to `to` (laid out as `tl`), one row of d
//! elements of `bytes` each at a time (both layouts have unit element stride).
void restride(void const* from, AttentionTensorLayout const& fl, void* to, AttentionTensorLayout const& tl,
    int64_t const (&dims)[4], int64_t bytes)
{
    auto const* src = static_cast<uint8_t const*>(from);
    auto* dst = static_cast<uint8_t*>(to);
    size_t const rowBytes = static_cast<size_t>(dims[3] * bytes);
    for (int64_t b = 0; b < dims[0]; ++b)
    {
        for (int64_t h = 0; h < dims[1]; ++h)
        {
            for (int64_t x = 0; x < dims[2]; ++x)
            {
                int64_t const f = fl.offset + b * fl.stride[0] + h * fl.stride[1] + x * fl.stride[2];
                int64_t const t = tl.offset + b * tl.stride[0] + h * tl.stride[1] + x * tl.stride[2];
                std::memcpy(dst + t * bytes, src + f * bytes, rowBytes);
            }
        }
    }
}

//! Planes of at least this head dimension and key count go through oneDNN's sgemm (when Kiln has oneDNN); smaller
//! ones through the loops of attendRows, where sgemm's call overhead would dominate.
constexpr int64_t kGEMM_MIN_EXTENT = 16;

//! Scores (or output channels) kept in registers at a time: two AVX-512 or four AVX2 registers.
constexpr int32_t kCHUNK = 32;

//! What one plane's rows need besides their data.
struct RowContext
{
    AttentionParams const* params;
    AttentionShape const* shape;
    float const* mask; //!< the mask as floats, or nullptr
};

//! Masks, causal limit and softmax of row i's scores in place (compiled per instruction set, simd.h).
KILN_CPU_CLONES void normaliseRow(RowContext const& rc, int64_t b, int64_t h, int64_t i, float* scores)
{
    AttentionParams const& p = *rc.params;
    AttentionShape const& s = *rc.shape;
    int64_t const n = s.seqKV;
    float const negInf = -std::numeric_limits<float>::infinity();
    if (rc.mask != nullptr)
    {
        float const* mask = rc.mask + b * s.maskStride[0] + h * s.maskStride[1] + i * s.maskStride[2];
        int64_t const step = s.maskStride[3];
        if (p.boolMask)
        {
            for (int64_t j = 0; j < n; ++j)
            {
                float const kept = scores[j];
                scores[j] = mask[j * step] != 0.F ? kept : negInf;
            }
        }
        else
        {
            for (int64_t j = 0; j < n; ++j)
            {
                scores[j] += mask[j * step];
            }
        }
    }
    if (p.causal)
    {
        for (int64_t j = i + 1; j < n; ++j)
        {
            scores[j] = negInf;
        }
    }
    if (!p.softmax)
    {
        return;
    }
    float maxScore = negInf;
    for (int64_t j = 0; j < n; ++j)
    {
        maxScore = scores[j] > maxScore ? scores[j] : maxScore;
    }
    if (!(maxScore > negInf))
    {
        // Every key masked (or a NaN score): the softmax is undefined, as the unfused layers compute it.
        for (int64_t j = 0; j < n; ++j)
        {
            scores[j] = std::numeric_limits<float>::quiet_NaN();
        }
        return;
    }
    for (int64_t j = 0; j < n; ++j)
    {
        scores[j] -= maxScore;
    }
    expNonPositiveInPlace(scores, n);
    double sum = 0.0;
    for (int64_t j = 0; j < n; ++j)
    {
        sum += static_cast<double>(scores[j]);
    }
    float const inv = static_cast<float>(1.0 / sum);
    for (int64_t j = 0; j < n; ++j)
    {
        scores[j] *= inv;
    }
}

#if KILN_HAVE_ONEDNN
//! One plane through oneDNN's sgemm: S = scale·Q·Kᵀ ([sq, skv] in `scores`), rows normalised, O = S·V. The key is
//! [skv, d] (or [d, skv] when `keyTransposed`).
Status attendPlaneGemm(RowContext const& rc, int64_t b, int64_t h, float const* queries, float const* keys,
    bool keyTransposed, float const* values, float* out, float* scores)
{
    AttentionShape const& s = *rc.shape;
    dnnl_status_t st = dnnl_sgemm('N', keyTransposed ? 'N' : 'T', s.seqQ, s.seqKV, s.headDim, rc.params->scale,
        queries, s.headDim, keys, keyTransposed ? s.seqKV : s.headDim, 0.F, scores, s.seqKV);
    if (st != dnnl_success)
    {
        return internalError("Attention: oneDNN sgemm of the scores failed (" + std::to_string(st) + ")");
    }
    for (int64_t i = 0; i < s.seqQ; ++i)
    {
        normaliseRow(rc, b, h, i, scores + i * s.seqKV);
    }
    st = dnnl_sgemm('N', 'N', s.seqQ, s.valueDim, s.seqKV, 1.F, scores, s.seqKV, values, s.valueDim, 0.F, out,
        s.valueDim);
    return st == dnnl_success ? Status::ok()
                              : internalError("Attention: oneDNN sgemm of the values failed (" + std::to_string(st) + ")");
}
#endif

//! Every query row of one (batch, head) plane: scores = scale * q·kⱼ (keys given as [d, skv]) with the mask and the
//! causal limit, the softmax, then row = Σⱼ pⱼ·vⱼ into `out` (floats). Compiled per instruction set (simd.h).
KILN_CPU_CLONES void attendRows(RowContext const& rc, int64_t b, int64_t h, float const* queries, float const* keys,
    float const* values, float* out, float* scores)
{
    AttentionParams const& p = *rc.params;
    AttentionShape const& s = *rc.shape;
    int64_t const n = s.seqKV;
    for (int64_t i = 0; i < s.seqQ; ++i)
    {
        float const* query = queries + i * s.headDim;
        // kCHUNK scores at a time stay in registers over the whole head dimension.
        int64_t j0 = 0;
        for (; j0 + kCHUNK <= n; j0 += kCHUNK)
        {
            float acc[kCHUNK]{};
            for (int64_t c = 0; c < s.headDim; ++c)
            {
                float const qc = query[c];
                float const* key = keys + c * n + j0;
                for (int32_t j = 0; j < kCHUNK; ++j)
                {
                    acc[j] += qc * key[j];
                }
            }
            for (int32_t j = 0; j < kCHUNK; ++j)
            {
                scores[j0 + j] = acc[j] * p.scale;
            }
        }
        for (int64_t j = j0; j < n; ++j)
        {
            float acc = 0.F;
            for (int64_t c = 0; c < s.headDim; ++c)
            {
                acc += query[c] * keys[c * n + j];
            }
            scores[j] = acc * p.scale;
        }
        normaliseRow(rc, b, h, i, scores);
        float* row = out + i * s.valueDim;
        int64_t c0 = 0;
        for (; c0 + kCHUNK <= s.valueDim; c0 += kCHUNK)
        {
            float acc[kCHUNK]{};
            for (int64_t j = 0; j < n; ++j)
            {
                float const pj = scores[j];
                float const* value = values + j * s.valueDim + c0;
                for (int32_t c = 0; c < kCHUNK; ++c)
                {
                    acc[c] += pj * value[c];
                }
            }
            for (int32_t c = 0; c < kCHUNK; ++c)
            {
                row[c0 + c] = acc[c];
            }
        }
        for (int64_t c = c0; c < s.valueDim; ++c)
        {
            float acc = 0.F;
            for (int64_t j = 0; j < n; ++j)
            {
                acc += scores[j] * values[j * s.valueDim + c];
            }
            row[c] = acc;
        }
    }
}

//! create: the attributes and types; reshape: the extents, mask strides and float scratch; run: the attention, one
//! (batch, head) plane per thread-pool piece.
class AttentionCpuKernel final : public Kernel
{
public:
    AttentionCpuKernel(KernelSetup const& setup, AttentionParams params)
        : mSetup(setup)
        , mParams(params)
    {
    }

    Status reshape(std::vector<TensorView> const& stored, std::vector<TensorView> const& storedOutputs) override
    {
        mReady = false;
        KILN_ASSIGN_OR_RETURN(mShape, attentionShapes(mSetup, mParams, stored, storedOutputs));
        AttentionShape const& s = mShape;
        mInputs = stored;
        mOutputs = storedOutputs;
        std::vector<TensorView>& inputs = mInputs;
        std::vector<TensorView>& outputs = mOutputs;
        for (int32_t i = 0; i < 4; ++i)
        {
            TensorView& t = i < 3 ? inputs[static_cast<size_t>(i)] : outputs[0];
            int64_t dims[4];
            headsFirstDims(i, dims);
            t.dims = makeDims4(dims);
            mStaged[i].resize(mParams.seqMajor[i] ? static_cast<size_t>(t.volume() * elementSize(t.type)) : 0);
        }
        bool const narrow = inputs[0].type != DataType::kFLOAT;
        mQuery.resize(narrow ? static_cast<size_t>(inputs[0].volume()) : 0);
        mGemm = KILN_HAVE_ONEDNN != 0 && s.headDim >= kGEMM_MIN_EXTENT && s.seqKV >= kGEMM_MIN_EXTENT;
        mKeyT.resize(narrow || !keyAsGiven() ? static_cast<size_t>(inputs[1].volume()) : 0);
        mValue.resize(narrow ? static_cast<size_t>(inputs[2].volume()) : 0);
        mMask.resize(mParams.hasMask ? static_cast<size_t>(inputs[3].volume()) : 0);
        mTasks = cpuThreadPool().threads();
        mScores.resize(static_cast<size_t>(mTasks * s.seqKV * (mGemm ? s.seqQ : 1)));
        mRows.resize(inputs[0].type == DataType::kFLOAT ? 0 : static_cast<size_t>(mTasks * s.seqQ * s.valueDim));
        mReady = true;
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& stored, std::vector<TensorView> const& storedOutputs, RunContext const&) override
    {
        if (!mReady)
        {
            return notReshaped(mSetup, "Attention");
        }
        // Tensors not stored [b, h, s, d] go through scratch (the views' vectors kept from reshape: no allocation).
        if (stored.size() != mInputs.size() || storedOutputs.size() != mOutputs.size())
        {
            return attentionError(mSetup, "expects 4 input slots and one output");
        }
        std::vector<TensorView>& inputs = mInputs;
        std::vector<TensorView>& outputs = mOutputs;
        std::copy(stored.begin(), stored.end(), inputs.begin());
        std::copy(storedOutputs.begin(), storedOutputs.end(), outputs.begin());
        for (int32_t i = 0; i < 4; ++i)
        {
            if (!mParams.seqMajor[i])
            {
                continue;
            }
            TensorView& t = i < 3 ? inputs[static_cast<size_t>(i)] : outputs[0];
            int64_t dims[4];
            headsFirstDims(i, dims);
            t.dims = makeDims4(dims);
            t.data = mStaged[i].data();
            if (i < 3)
            {
                TensorView const& from = stored[static_cast<size_t>(i)];
                restride(from.data, attentionLayout(mParams, mShape, i, from.dims), t.data, headsFirstLayout(dims), dims,
                    elementSize(t.type));
            }
        }
        KILN_RETURN_IF_ERROR(runHeadsFirst(inputs, outputs));
        if (mParams.seqMajor[kATTENTION_OUTPUT])
        {
            int64_t dims[4];
            headsFirstDims(kATTENTION_OUTPUT, dims);
            restride(outputs[0].data, headsFirstLayout(dims), storedOutputs[0].data,
                attentionLayout(mParams, mShape, kATTENTION_OUTPUT, storedOutputs[0].dims), dims,
                elementSize(outputs[0].type));
        }
        return Status::ok();
    }

private:
    //! The extents [b, h, s, d] of tensor `which`.
    void headsFirstDims(int32_t which, int64_t (&dims)[4]) const
    {
        AttentionShape const& s = mShape;
        bool const query = which == kATTENTION_QUERY || which == kATTENTION_OUTPUT;
        bool const headDim = which == kATTENTION_QUERY || which == kATTENTION_KEY;
        dims[0] = s.batch;
        dims[1] = query ? s.headsQ : s.headsKV;
        dims[2] = query ? s.seqQ : s.seqKV;
        dims[3] = headDim ? s.headDim : s.valueDim;
        if (which == kATTENTION_KEY && mParams.keyTransposed)
        {
            std::swap(dims[2], dims[3]);
        }
    }

    static nvinfer1::Dims makeDims4(int64_t const (&dims)[4])
    {
        nvinfer1::Dims d{};
        d.nbDims = 4;
        std::copy(dims, dims + 4, d.d);
        return d;
    }

    //! Packed row-major strides of [b, h, s, d] `dims`.
    static AttentionTensorLayout headsFirstLayout(int64_t const (&dims)[4])
    {
        AttentionTensorLayout l;
        l.stride[3] = 1;
        l.stride[2] = dims[3];
        l.stride[1] = dims[2] * dims[3];
        l.stride[0] = dims[1] * dims[2] * dims[3];
        return l;
    }

    //! The attention over tensors stored [b, h, s, d] (the key possibly [b, h, d, s]).
    Status runHeadsFirst(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
    {
        AttentionShape const& s = mShape;
        TensorView const& out = outputs[0];
        if (out.volume() == 0)
        {
            return Status::ok();
        }
        DataType const type = inputs[0].type;
        float const* q = static_cast<float const*>(inputs[0].data);
        float const* kt = static_cast<float const*>(inputs[1].data);
        float const* v = static_cast<float const*>(inputs[2].data);
        if (type != DataType::kFLOAT)
        {
            toFloat(inputs[0].data, type, inputs[0].volume(), mQuery.data());
            toFloat(inputs[2].data, type, inputs[2].volume(), mValue.data());
            q = mQuery.data();
            v = mValue.data();
        }
        if (!keyAsGiven())
        {
            // [b, hkv, skv, d] -> [b, hkv, d, skv]: the scores of a query row are then axpys over contiguous keys.
            int64_t const planes = s.batch * s.headsKV;
            for (int64_t p = 0; p < planes; ++p)
            {
                for (int64_t c = 0; c < s.headDim; ++c)
                {
                    ew::loadChunk(inputs[1].data, type, p * s.seqKV * s.headDim + c, s.headDim, s.seqKV,
                        mKeyT.data() + (p * s.headDim + c) * s.seqKV);
                }
            }
            kt = mKeyT.data();
        }
        else if (type != DataType::kFLOAT)
        {
            toFloat(inputs[1].data, type, inputs[1].volume(), mKeyT.data());
            kt = mKeyT.data();
        }
        if (mParams.hasMask)
        {
            toFloat(inputs[3].data, inputs[3].type, inputs[3].volume(), mMask.data());
        }
        int64_t const planes = s.batch * s.headsQ;
        return parallelForTasks(planes, 1, mTasks, [&](int32_t task, int64_t begin, int64_t end) -> Status {
            float* scores = mScores.data() + task * s.seqKV * (mGemm ? s.seqQ : 1);
            float* rows = mRows.empty() ? nullptr : mRows.data() + task * s.seqQ * s.valueDim;
            for (int64_t plane = begin; plane < end; ++plane)
            {
                KILN_RETURN_IF_ERROR(attendPlane(plane, q, kt, v, out, scores, rows));
            }
            return Status::ok();
        });
    }

    //! Every query row of plane (b, h), written in the output's type (FP32 straight, else through `row`).
    Status attendPlane(int64_t plane, float const* q, float const* kt, float const* v, TensorView const& out,
        float* scores, float* rows) const
    {
        AttentionShape const& s = mShape;
        int64_t const b = plane / s.headsQ;
        int64_t const h = plane % s.headsQ;
        int64_t const kvPlane = b * s.headsKV + h / (s.headsQ / s.headsKV);
        RowContext const rc{&mParams, &mShape, mParams.hasMask ? mMask.data() : nullptr};
        int64_t const at = plane * s.seqQ * s.valueDim;
        bool const direct = out.type == DataType::kFLOAT;
        float* dst = direct ? static_cast<float*>(out.data) + at : rows;
#if KILN_HAVE_ONEDNN
        if (mGemm)
        {
            KILN_RETURN_IF_ERROR(attendPlaneGemm(rc, b, h, q + plane * s.seqQ * s.headDim,
                kt + kvPlane * s.headDim * s.seqKV, mParams.keyTransposed, v + kvPlane * s.seqKV * s.valueDim, dst, scores));
        }
        else
#endif
        {
            attendRows(rc, b, h, q + plane * s.seqQ * s.headDim, kt + kvPlane * s.headDim * s.seqKV,
                v + kvPlane * s.seqKV * s.valueDim, dst, scores);
        }
        if (!direct)
        {
            ew::storeChunk(out.data, out.type, at, s.seqQ * s.valueDim, rows);
        }
        return Status::ok();
    }

    //! True when the kernel reads the key in the layout it arrives in: sgemm takes either, the loops want [d, skv].
    bool keyAsGiven() const
    {
        return mGemm || mParams.keyTransposed;
    }

    KernelSetup mSetup;
    AttentionParams mParams;
    AttentionShape mShape;
    std::vector<float> mQuery; //!< float copies of narrow inputs
    std::vector<float> mKeyT;  //!< the key as floats: as given (sgemm), else as [b, hkv, d, skv] for the loops
    std::vector<float> mValue;
    std::vector<float> mMask;   //!< the mask as floats (BOOL: 0 or 1)
    int32_t mTasks{1};          //!< thread-pool tasks the scratch has room for
    std::vector<float> mScores; //!< one plane's scores (sgemm) or one row's (loops) per task
    bool mGemm{false};          //!< this shape's planes go through oneDNN's sgemm
    std::vector<float> mRows;   //!< one plane's output rows per task (narrow outputs)
    std::vector<uint8_t> mStaged[4]; //!< tensors not stored [b, h, s, d], copied to that layout (stored type)
    std::vector<TensorView> mInputs;  //!< the run's views, [b, h, s, d] (scratch where staged)
    std::vector<TensorView> mOutputs;
    bool mReady{false};
};

} // namespace

StatusOr<std::unique_ptr<Kernel>> createAttentionOutputKernel(KernelSetup const& setup)
{
    if (setup.node == nullptr)
    {
        return internalError("Attention kernel: no plan node");
    }
    KILN_ASSIGN_OR_RETURN(AttentionParams params, readAttentionParams(setup));
    return std::unique_ptr<Kernel>(std::make_unique<AttentionCpuKernel>(setup, params));
}

} // namespace kiln
