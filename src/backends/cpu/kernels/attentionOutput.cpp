// CPU kernel of attention nodes (kind kATTENTION_OUTPUT, made by the builder's attention fusion; see
// backends/common/attentionParams.h): per batch, query head and query row, the scores scale·q·kⱼ (+ mask), the
// softmax over the keys, and Σⱼ pⱼ·vⱼ; the scores matrix is never stored. FP16/BF16 storage is converted to float
// once per run into scratch (the key also to [b, hkv, skv, d] rows when it arrives transposed), so the inner loops
// are contiguous dot products and axpys that the compiler vectorises.
#include "backends/common/attentionParams.h"
#include "backends/cpu/kernels/kernelFactories.h"
#include "core/dataType.h"

#include <cmath>
#include <limits>
#include <vector>

namespace kiln
{
using nvinfer1::DataType;

namespace
{

//! `count` elements of `src` (storage `type`) as floats in `dst`.
void toFloat(void const* src, DataType type, int64_t count, float* dst)
{
    for (int64_t i = 0; i < count; ++i)
    {
        dst[i] = static_cast<float>(loadElement(src, type, i));
    }
}

//! create: the attributes and types; reshape: the extents, mask strides and float scratch; run: the attention.
class AttentionCpuKernel final : public Kernel
{
public:
    AttentionCpuKernel(KernelSetup const& setup, AttentionParams params)
        : mSetup(setup)
        , mParams(params)
    {
    }

    Status reshape(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) override
    {
        mReady = false;
        KILN_ASSIGN_OR_RETURN(mShape, attentionShapes(mSetup, mParams, inputs, outputs));
        AttentionShape const& s = mShape;
        bool const narrow = inputs[0].type != DataType::kFLOAT;
        mQuery.resize(narrow ? static_cast<size_t>(inputs[0].volume()) : 0);
        mKey.resize(narrow || mParams.keyTransposed ? static_cast<size_t>(inputs[1].volume()) : 0);
        mValue.resize(narrow ? static_cast<size_t>(inputs[2].volume()) : 0);
        mScores.resize(static_cast<size_t>(s.seqKV));
        mRow.resize(static_cast<size_t>(s.valueDim));
        mReady = true;
        return Status::ok();
    }

    Status run(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs, RunContext const&) override
    {
        if (!mReady)
        {
            return notReshaped(mSetup, "Attention");
        }
        AttentionShape const& s = mShape;
        TensorView const& out = outputs[0];
        if (out.volume() == 0)
        {
            return Status::ok();
        }
        DataType const type = inputs[0].type;
        float const* q = static_cast<float const*>(inputs[0].data);
        float const* k = static_cast<float const*>(inputs[1].data);
        float const* v = static_cast<float const*>(inputs[2].data);
        if (type != DataType::kFLOAT)
        {
            toFloat(inputs[0].data, type, inputs[0].volume(), mQuery.data());
            toFloat(inputs[2].data, type, inputs[2].volume(), mValue.data());
            q = mQuery.data();
            v = mValue.data();
        }
        if (mParams.keyTransposed)
        {
            // [b, hkv, d, skv] -> [b, hkv, skv, d].
            int64_t const planes = s.batch * s.headsKV;
            for (int64_t p = 0; p < planes; ++p)
            {
                for (int64_t c = 0; c < s.headDim; ++c)
                {
                    for (int64_t j = 0; j < s.seqKV; ++j)
                    {
                        int64_t const from = (p * s.headDim + c) * s.seqKV + j;
                        mKey[static_cast<size_t>((p * s.seqKV + j) * s.headDim + c)]
                            = static_cast<float>(loadElement(inputs[1].data, type, from));
                    }
                }
            }
            k = mKey.data();
        }
        else if (type != DataType::kFLOAT)
        {
            toFloat(inputs[1].data, type, inputs[1].volume(), mKey.data());
            k = mKey.data();
        }
        TensorView const& mask = inputs[3];
        int64_t const group = s.headsQ / s.headsKV;
        float* scores = mScores.data();
        float* row = mRow.data();
        for (int64_t b = 0; b < s.batch; ++b)
        {
            for (int64_t h = 0; h < s.headsQ; ++h)
            {
                int64_t const kvPlane = b * s.headsKV + h / group;
                float const* keys = k + kvPlane * s.seqKV * s.headDim;
                float const* values = v + kvPlane * s.seqKV * s.valueDim;
                for (int64_t i = 0; i < s.seqQ; ++i)
                {
                    float const* query = q + ((b * s.headsQ + h) * s.seqQ + i) * s.headDim;
                    int64_t const maskRow = b * s.maskStride[0] + h * s.maskStride[1] + i * s.maskStride[2];
                    scoreRow(query, keys, mask, maskRow, i, scores);
                    weightedValues(scores, values, row);
                    int64_t const at = ((b * s.headsQ + h) * s.seqQ + i) * s.valueDim;
                    for (int64_t c = 0; c < s.valueDim; ++c)
                    {
                        storeElement(out.data, type, at + c, row[c]);
                    }
                }
            }
        }
        return Status::ok();
    }

private:
    //! scores[j] = scale * q·kⱼ with the mask and the causal limit applied, then normalised.
    void scoreRow(float const* query, float const* keys, TensorView const& mask, int64_t maskRow, int64_t i,
        float* scores) const
    {
        AttentionShape const& s = mShape;
        float const negInf = -std::numeric_limits<float>::infinity();
        float maxScore = negInf;
        for (int64_t j = 0; j < s.seqKV; ++j)
        {
            float const* key = keys + j * s.headDim;
            float dot = 0.F;
            for (int64_t c = 0; c < s.headDim; ++c)
            {
                dot += query[c] * key[c];
            }
            float score = dot * mParams.scale;
            if (mParams.hasMask)
            {
                double const m = loadElement(mask.data, mask.type, maskRow + j * s.maskStride[3]);
                score = mParams.boolMask ? (m != 0.0 ? score : negInf) : score + static_cast<float>(m);
            }
            if (mParams.causal && j > i)
            {
                score = negInf;
            }
            scores[j] = score;
            maxScore = score > maxScore ? score : maxScore;
        }
        if (!mParams.softmax)
        {
            return;
        }
        double sum = 0.0;
        for (int64_t j = 0; j < s.seqKV; ++j)
        {
            scores[j] = std::exp(scores[j] - maxScore);
            sum += static_cast<double>(scores[j]);
        }
        float const inv = static_cast<float>(1.0 / sum);
        for (int64_t j = 0; j < s.seqKV; ++j)
        {
            scores[j] *= inv;
        }
    }

    //! row = Σⱼ scores[j] · vⱼ.
    void weightedValues(float const* scores, float const* values, float* row) const
    {
        AttentionShape const& s = mShape;
        for (int64_t c = 0; c < s.valueDim; ++c)
        {
            row[c] = 0.F;
        }
        for (int64_t j = 0; j < s.seqKV; ++j)
        {
            float const p = scores[j];
            float const* value = values + j * s.valueDim;
            for (int64_t c = 0; c < s.valueDim; ++c)
            {
                row[c] += p * value[c];
            }
        }
    }

    KernelSetup mSetup;
    AttentionParams mParams;
    AttentionShape mShape;
    std::vector<float> mQuery; //!< float copies of narrow (or transposed) inputs
    std::vector<float> mKey;
    std::vector<float> mValue;
    std::vector<float> mScores; //!< one query row's scores
    std::vector<float> mRow;    //!< one output row
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
