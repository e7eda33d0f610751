// cuDNN scaled dot-product attention (flash attention through the cuDNN frontend's graph.sdpa): one operation graph
// per attention shape and layout, out = softmax(scale · Q·Kᵀ + bias [+ causal band]) · V with FP32 accumulation,
// the plan chosen by cuDNN's heuristics and built once, and kept process-wide by its full description (extents and
// every stride, so that a packed QKV view gets its own plan) so that identical layers and contexts share it. Q, K, V and O are described by extents [b, h, s, d] and element strides
// (any layout whose head dimension is innermost: BHSD, BSHD, or the transposed key cuDNN may refuse); the bias is
// [b or 1, h or 1, sq or 1, skv] with the strides given. The scores are never stored. Compiled to a stub that always
// refuses without cuDNN or its frontend headers (KILN_HAVE_CUDNN_FRONTEND=0).
#pragma once

#include "core/status.h"

#include "NvInfer.h"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>

namespace kiln::cuda
{

struct AttentionGraphSpec
{
    nvinfer1::DataType type{nvinfer1::DataType::kHALF}; //!< Q, K, V, O and the bias: kHALF or kBF16
    int64_t batch{0};
    int64_t headsQ{0};
    int64_t headsKV{0}; //!< divides headsQ (grouped-query attention)
    int64_t seqQ{0};
    int64_t seqKV{0};
    int64_t headDim{0};
    int64_t valueDim{0};
    //! Element strides over [b, h, s, d] of each tensor.
    int64_t qStride[4]{};
    int64_t kStride[4]{};
    int64_t vStride[4]{};
    int64_t oStride[4]{};
    bool bias{false};
    int64_t biasDims[4]{}; //!< each the full extent or 1
    int64_t biasStride[4]{};
    bool causal{false}; //!< key j > query i masked (top-left diagonal)
    float scale{1.F};
    int32_t device{0};
};

class AttentionGraphPlan
{
public:
    //! A built plan for `spec`, or the reason cuDNN has none.
    static StatusOr<std::shared_ptr<AttentionGraphPlan const>> get(AttentionGraphSpec const& spec);

    virtual ~AttentionGraphPlan() = default;
    virtual int64_t workspaceBytes() const = 0;
    //! Runs on `stream` (bound to `handle` by the call); `bias` is ignored by a plan without one.
    virtual Status run(void* handle, cudaStream_t stream, void const* q, void const* k, void const* v,
        void const* bias, void* o, void* workspace) const = 0;
};

} // namespace kiln::cuda
