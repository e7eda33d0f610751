// Attention nodes' attributes and shapes (see attentionParams.h).
#include "backends/common/attentionParams.h"

#include "core/dataType.h"

namespace kiln
{
using nvinfer1::DataType;

namespace
{
bool isAttentionStorage(DataType t)
{
    return t == DataType::kFLOAT || t == DataType::kHALF || t == DataType::kBF16;
}

std::string dimsText(nvinfer1::Dims const& d)
{
    std::string s = "[";
    for (int32_t i = 0; i < d.nbDims; ++i)
    {
        s += (i ? "," : "") + std::to_string(d.d[i]);
    }
    return s + "]";
}
} // namespace

Status attentionError(KernelSetup const& setup, std::string const& message)
{
    return failedExecution("layer '" + setup.node->name + "' (Attention): " + message);
}

StatusOr<AttentionParams> readAttentionParams(KernelSetup const& setup)
{
    Attributes const& a = setup.node->attrs;
    AttentionParams p;
    int64_t const norm = a.getInt("normOp", 1);
    if (norm != 0 && norm != 1)
    {
        return attentionError(setup, "normOp " + std::to_string(norm) + " is not kNONE (0) or kSOFTMAX (1)");
    }
    p.softmax = norm == 1;
    p.causal = a.getInt("causal", 0) != 0;
    p.scale = static_cast<float>(a.getFloat("scale", 1.0));
    p.keyTransposed = a.getInt("keyTransposed", 0) != 0;
    for (int32_t i = 0; i < 4; ++i)
    {
        int64_t const layout = a.getInt(kATTENTION_LAYOUT_ATTRIBUTES[i], 0);
        if (layout != 0 && layout != 1)
        {
            return attentionError(setup, std::string(kATTENTION_LAYOUT_ATTRIBUTES[i]) + " " + std::to_string(layout)
                + " is not 0 ([b, h, s, d]) or 1 ([b, s, h, d])");
        }
        p.seqMajor[i] = layout == 1;
    }
    if (p.keyTransposed && p.seqMajor[kATTENTION_KEY])
    {
        return attentionError(setup, "a key stored [b, s, h, d] cannot also be transposed");
    }
    if (setup.inputTypes.size() != 4 || setup.outputTypes.size() != 1 || setup.inputPresent.size() != 4)
    {
        return attentionError(setup, "expects query, key, value and an optional mask, and one output");
    }
    DataType const t = setup.inputTypes[0];
    if (!isAttentionStorage(t))
    {
        return attentionError(setup, std::string("type ") + dataTypeName(t) + " is not FLOAT, HALF or BF16");
    }
    for (size_t i = 0; i < 3; ++i)
    {
        if (!setup.inputPresent[i] || setup.inputTypes[i] != t || setup.inputRanks[i] != 4)
        {
            return attentionError(setup, "query, key and value must be 4-D tensors of one type");
        }
    }
    if (setup.outputTypes[0] != t || setup.outputRanks[0] != 4)
    {
        return attentionError(setup, "the output must be 4-D of the query's type");
    }
    p.hasMask = setup.inputPresent[3];
    if (p.hasMask)
    {
        p.boolMask = setup.inputTypes[3] == DataType::kBOOL;
        if ((!p.boolMask && setup.inputTypes[3] != t) || setup.inputRanks[3] != 4)
        {
            return attentionError(setup, "the mask must be 4-D, BOOL or of the query's type");
        }
    }
    if (p.causal && p.hasMask)
    {
        return attentionError(setup, "causal attention takes no mask");
    }
    return p;
}

StatusOr<AttentionShape> attentionShapes(KernelSetup const& setup, AttentionParams const& p,
    std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs)
{
    if (inputs.size() != 4 || outputs.size() != 1)
    {
        return attentionError(setup, "expects 4 input slots and one output");
    }
    nvinfer1::Dims const& q = inputs[0].dims;
    nvinfer1::Dims const& k = inputs[1].dims;
    nvinfer1::Dims const& v = inputs[2].dims;
    nvinfer1::Dims const& o = outputs[0].dims;
    if (q.nbDims != 4 || k.nbDims != 4 || v.nbDims != 4 || o.nbDims != 4)
    {
        return attentionError(setup, "query, key, value and output must be 4-D");
    }
    // (heads, sequence) of each tensor by its layout.
    auto heads = [&](nvinfer1::Dims const& d, int32_t which) { return p.seqMajor[which] ? d.d[2] : d.d[1]; };
    auto seq = [&](nvinfer1::Dims const& d, int32_t which) { return p.seqMajor[which] ? d.d[1] : d.d[2]; };
    AttentionShape s;
    s.batch = q.d[0];
    s.headsQ = heads(q, kATTENTION_QUERY);
    s.seqQ = seq(q, kATTENTION_QUERY);
    s.headDim = q.d[3];
    s.headsKV = heads(k, kATTENTION_KEY);
    s.seqKV = p.keyTransposed ? k.d[3] : seq(k, kATTENTION_KEY);
    int64_t const keyDim = p.keyTransposed ? k.d[2] : k.d[3];
    s.valueDim = v.d[3];
    bool const ok = k.d[0] == s.batch && v.d[0] == s.batch && keyDim == s.headDim
        && heads(v, kATTENTION_VALUE) == s.headsKV && seq(v, kATTENTION_VALUE) == s.seqKV && s.headsKV > 0
        && s.headsQ % s.headsKV == 0;
    if (!ok)
    {
        return attentionError(setup, "query " + dimsText(q) + ", key " + dimsText(k) + (p.keyTransposed ? " (transposed)" : "")
            + " and value " + dimsText(v) + " do not fit one attention");
    }
    if (o.d[0] != s.batch || heads(o, kATTENTION_OUTPUT) != s.headsQ || seq(o, kATTENTION_OUTPUT) != s.seqQ
        || o.d[3] != s.valueDim)
    {
        return attentionError(setup, "output " + dimsText(o)
            + (p.seqMajor[kATTENTION_OUTPUT] ? " is not [b, sq, hq, dv]" : " is not [b, hq, sq, dv]"));
    }
    if (p.hasMask)
    {
        nvinfer1::Dims const& m = inputs[3].dims;
        int64_t const full[4]{s.batch, s.headsQ, s.seqQ, s.seqKV};
        int64_t stride = 1;
        for (int32_t i = 3; i >= 0; --i)
        {
            if (m.nbDims != 4 || (m.d[i] != full[i] && m.d[i] != 1))
            {
                return attentionError(setup, "mask " + dimsText(m) + " does not broadcast to the scores");
            }
            s.maskStride[i] = m.d[i] == 1 ? 0 : stride;
            stride *= m.d[i];
        }
    }
    return s;
}

} // namespace kiln
