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
//             not "keyTransposed"), "fuse.names" (the fused layers)
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
    //! Per tensor (kQUERY, kKEY, kVALUE, kOUTPUT): stored [b, s, h, d] instead of [b, h, s, d].
    bool seqMajor[4]{};
    bool anySeqMajor() const { return seqMajor[0] || seqMajor[1] || seqMajor[2] || seqMajor[3]; }
};

//! Indices into AttentionParams::seqMajor.
constexpr int32_t kATTENTION_QUERY = 0;
constexpr int32_t kATTENTION_KEY = 1;
constexpr int32_t kATTENTION_VALUE = 2;
constexpr int32_t kATTENTION_OUTPUT = 3;
//! The attribute naming each tensor's layout.
constexpr char const* kATTENTION_LAYOUT_ATTRIBUTES[4] = {"layout.q", "layout.k", "layout.v", "layout.out"};

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

//! Reads the attributes and checks the types (query, key, value and output one float type; the mask BOOL or that
//! type) at kernel creation.
StatusOr<AttentionParams> readAttentionParams(KernelSetup const& setup);

//! Checks the shapes and derives the extents (data not looked at: at reshape).
StatusOr<AttentionShape> attentionShapes(KernelSetup const& setup, AttentionParams const& p,
    std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs);

} // namespace kiln
