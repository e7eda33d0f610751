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

//! The largest offset, head count or head dimension a packed view may name (products stay far from overflow).
constexpr int64_t kMAX_PACKED_EXTENT = int64_t{1} << 30;

//! "packed.X" of packed tensor `which`: [offset, heads, dim], each in range.
Status readPackedView(KernelSetup const& setup, int32_t which, AttentionParams& p)
{
    std::vector<int64_t> const v = setup.node->attrs.getInts(kATTENTION_PACKED_ATTRIBUTES[which]);
    std::string const name = kATTENTION_PACKED_ATTRIBUTES[which];
    if (v.size() != 3)
    {
        return attentionError(setup, name + " must hold [offset, heads, dim] (3 integers), not "
            + std::to_string(v.size()) + " values");
    }
    if (v[0] < 0 || v[1] < 1 || v[2] < 1 || v[0] > kMAX_PACKED_EXTENT || v[1] > kMAX_PACKED_EXTENT
        || v[2] > kMAX_PACKED_EXTENT)
    {
        return attentionError(setup, name + " [" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + ", "
            + std::to_string(v[2]) + "] is out of range (offset >= 0, heads and dim >= 1, each at most 2^30)");
    }
    p.packOffset[which] = v[0];
    p.packHeads[which] = v[1];
    p.packDim[which] = v[2];
    return Status::ok();
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
        int64_t const layout = a.getInt(kATTENTION_LAYOUT_ATTRIBUTES[i], kATTENTION_LAYOUT_BHSD);
        bool const packable = i != kATTENTION_OUTPUT;
        if (layout != kATTENTION_LAYOUT_BHSD && layout != kATTENTION_LAYOUT_BSHD
            && (!packable || layout != kATTENTION_LAYOUT_PACKED))
        {
            return attentionError(setup, std::string(kATTENTION_LAYOUT_ATTRIBUTES[i]) + " " + std::to_string(layout)
                + " is not 0 ([b, h, s, d]) or 1 ([b, s, h, d])" + (packable ? " or 2 (packed)" : ""));
        }
        p.seqMajor[i] = layout != kATTENTION_LAYOUT_BHSD;
        p.packed[i] = layout == kATTENTION_LAYOUT_PACKED;
        if (p.packed[i])
        {
            KILN_RETURN_IF_ERROR(readPackedView(setup, i, p));
        }
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
        if (!setup.inputPresent[i] || setup.inputTypes[i] != t || setup.inputRanks[i] != (p.packed[i] ? 3 : 4))
        {
            return attentionError(setup, "query, key and value must be tensors of one type, 4-D (3-D where packed)");
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
    // A packed input [b, s, r] is seen through its [b, s, heads, dim] view, inside each row.
    nvinfer1::Dims views[3];
    for (int32_t i = 0; i < 3; ++i)
    {
        nvinfer1::Dims const& stored = inputs[static_cast<size_t>(i)].dims;
        views[i] = stored;
        if (!p.packed[i])
        {
            continue;
        }
        if (stored.nbDims != 3)
        {
            return attentionError(setup, std::string("packed ") + kATTENTION_LAYOUT_ATTRIBUTES[i] + " input "
                + dimsText(stored) + " is not 3-D [b, s, r]");
        }
        if (p.packOffset[i] + p.packHeads[i] * p.packDim[i] > stored.d[2])
        {
            return attentionError(setup, std::string(kATTENTION_PACKED_ATTRIBUTES[i]) + " [" + std::to_string(p.packOffset[i])
                + ", " + std::to_string(p.packHeads[i]) + ", " + std::to_string(p.packDim[i]) + "] reaches past the rows of "
                + dimsText(stored));
        }
        views[i].nbDims = 4;
        views[i].d[2] = p.packHeads[i];
        views[i].d[3] = p.packDim[i];
    }
    nvinfer1::Dims const& q = views[0];
    nvinfer1::Dims const& k = views[1];
    nvinfer1::Dims const& v = views[2];
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

AttentionTensorLayout attentionLayout(AttentionParams const& p, AttentionShape const& s, int32_t which,
    nvinfer1::Dims const& stored)
{
    bool const query = which == kATTENTION_QUERY || which == kATTENTION_OUTPUT;
    int64_t const heads = query ? s.headsQ : s.headsKV;
    int64_t const seq = query ? s.seqQ : s.seqKV;
    int64_t const dim = which == kATTENTION_QUERY || which == kATTENTION_KEY ? s.headDim : s.valueDim;
    AttentionTensorLayout l;
    int64_t* st = l.stride;
    if (p.packed[which])
    {
        int64_t const row = stored.nbDims == 3 ? stored.d[2] : heads * dim;
        l.offset = p.packOffset[which];
        st[0] = seq * row;
        st[1] = dim;
        st[2] = row;
        st[3] = 1;
    }
    else if (p.seqMajor[which])
    {
        st[0] = heads * seq * dim;
        st[1] = dim;
        st[2] = heads * dim;
        st[3] = 1;
    }
    else if (which == kATTENTION_KEY && p.keyTransposed)
    {
        st[0] = heads * dim * seq;
        st[1] = dim * seq;
        st[2] = 1;
        st[3] = seq;
    }
    else
    {
        st[0] = heads * seq * dim;
        st[1] = seq * dim;
        st[2] = dim;
        st[3] = 1;
    }
    return l;
}

} // namespace kiln
