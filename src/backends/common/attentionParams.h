// Backend-neutral host-side logic of attention nodes (kind kATTENTION_OUTPUT: the whole attention, made by the
// builder's attention fusion): out = norm(scale * Q·Kᵀ + mask) · V per batch and head, with the attributes, the
// shape checks and the broadcast strides of the mask.
//   inputs  : query [b, hq, sq, d], key [b, hkv, skv, d] (or [b, hkv, d, skv] with "keyTransposed" = 1),
//             value [b, hkv, skv, dv], optional mask (-1 when absent) broadcasting to [b, hq, sq, skv]: BOOL (true =
//             attend) or the query's type (added to the scores)
//   output  : [b, hq, sq, dv]; hq is a multiple of hkv (grouped-query attention)
//   attrs   : "normOp" (AttentionNormalizationOp: 0 none, 1 softmax over skv), "causal" (0/1: key j > query i is
//             masked, the diagonal anchored top-left), "scale" (float, default 1), "keyTransposed" (0/1),
//             "layout.q", "layout.k", "layout.v", "layout.out" (0: [b, h, s, d] as above; 1: the tensor is stored
//             [b, s, h, d], the head transposes of an exported model absorbed by the fusion; a key in that layout is
//             not "keyTransposed"; 2, query, key and value only: packed, see below), "fuse.names" (the fused layers)
//   packed  : with "layout.X" = 2 the input is a 3-D tensor [b, s, r] holding several projections side by side (the
//             output of one QKV GEMM, before the Split the fusion absorbed) and "packed.X" = [offset, heads, dim] views
//             it as [b, s, heads, dim]: element (b, s, h, e) at (b·s_total + s)·r + offset + h·dim + e, so that
//             offset + heads·dim <= r (checked at reshape)
#pragma once

#include "backends/kernel.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln
{

struct AttentionParams
{
    bool softmax{true};
    bool causal{false};
    float scale{1.F};
    bool keyTransposed{false};
    bool hasMask{false};
    bool boolMask{false};
    //! Per tensor (kQUERY, kKEY, kVALUE, kOUTPUT): stored [b, s, h, d] instead of [b, h, s, d] (packed ones too).
    bool seqMajor[4]{};
    //! Per tensor: a view of a packed [b, s, r] tensor (layout 2; never the output).
    bool packed[4]{};
    //! Per packed tensor: the element offset in a row, the heads and the head dimension of the view.
    int64_t packOffset[4]{};
    int64_t packHeads[4]{};
    int64_t packDim[4]{};
    bool anySeqMajor() const { return seqMajor[0] || seqMajor[1] || seqMajor[2] || seqMajor[3]; }
    bool anyPacked() const { return packed[0] || packed[1] || packed[2]; }
};

//! Indices into AttentionParams::seqMajor.
constexpr int32_t kATTENTION_QUERY = 0;
constexpr int32_t kATTENTION_KEY = 1;
constexpr int32_t kATTENTION_VALUE = 2;
constexpr int32_t kATTENTION_OUTPUT = 3;
//! The attribute naming each tensor's layout.
constexpr char const* kATTENTION_LAYOUT_ATTRIBUTES[4] = {"layout.q", "layout.k", "layout.v", "layout.out"};
//! The attribute of a packed tensor's view: [offset, heads, dim].
constexpr char const* kATTENTION_PACKED_ATTRIBUTES[4] = {"packed.q", "packed.k", "packed.v", "packed.out"};
//! The "layout.*" values.
constexpr int64_t kATTENTION_LAYOUT_BHSD = 0;
constexpr int64_t kATTENTION_LAYOUT_BSHD = 1;
constexpr int64_t kATTENTION_LAYOUT_PACKED = 2;

//! The run's extents and the mask's element strides over [b, hq, sq, skv] (0 where it broadcasts).
struct AttentionShape
{
    int64_t batch{0};
    int64_t headsQ{0};
    int64_t headsKV{0};
    int64_t seqQ{0};
    int64_t seqKV{0};
    int64_t headDim{0};
    int64_t valueDim{0};
    int64_t maskStride[4]{};
};

//! A kFAILED_EXECUTION status "layer '<name>' (Attention): <message>".
Status attentionError(KernelSetup const& setup, std::string const& message);

//! Where one tensor's elements are: element (b, h, s, e) of its [b, h, s, d] view at offset + Σ index·stride.
struct AttentionTensorLayout
{
    int64_t offset{0};
    int64_t stride[4]{};
};

//! Reads the attributes and checks the types (query, key, value and output one float type; the mask BOOL or that
//! type) at kernel creation.
StatusOr<AttentionParams> readAttentionParams(KernelSetup const& setup);

//! Checks the shapes and derives the extents (data not looked at: at reshape).
StatusOr<AttentionShape> attentionShapes(KernelSetup const& setup, AttentionParams const& p,
    std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs);

//! The layout of tensor `which` (kATTENTION_QUERY ... kATTENTION_OUTPUT) for extents `s` and the tensor's stored
//! dims `stored` (the packed row length is its last extent). A transposed key ([b, h, d, s]) is described with the
//! strides of that storage over [b, h, s, d].
AttentionTensorLayout attentionLayout(AttentionParams const& p, AttentionShape const& s, int32_t which,
    nvinfer1::Dims const& stored);

} // namespace kiln
