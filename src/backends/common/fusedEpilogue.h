// The epilogue a fusion pass (builder/passes/fusionPass.cpp) folds into a convolution, deconvolution or matrix
// multiply node, described by node attributes so that the engine file stays a plain plan:
//   "fuse.add"      = 1     the node has one extra input after its own ones: a tensor of the output's shape (or one
//                           broadcastable to it along leading/unit dims) added to the result (bias vectors, residuals);
//   "fuse.residual" = 1     (matrix multiply only, with "fuse.add") a second extra input after the added tensor, of
//                           the output's shape, added too: a bias and a residual in one epilogue;
//   "fuse.act"      = k+1   then ActivationType k is applied (absent or 0: none), with "fuse.alpha" / "fuse.beta";
//   "fuse.gate"     = 1     (with "fuse.act") the activation's result multiplies the value it was computed from:
//                           v · sigmoid(v) is SiLU (EfficientNet), v · hard_sigmoid(v) hard-swish (MobileNetV3);
//   "fuse.names"    = text  the fused layers' names joined with " + " (shown by the engine inspector).
// Order: v = op(inputs) + add + residual, result = act(v) (gated: v · act(v)), computed in float and stored once.
// Kernels that do not support an epilogue refuse the node at creation; a gate is refused unless the caller of
// readFusedEpilogue says that its kernel applies it.
#pragma once

#include "backends/kernel.h"

namespace kiln
{

struct FusedEpilogue
{
    bool hasAdd{false};
    int32_t addInput{-1}; //!< node input slot of the added tensor
    bool hasResidual{false};
    int32_t residualInput{-1}; //!< node input slot of the residual (after the added tensor)
    bool hasActivation{false};
    nvinfer1::ActivationType activation{nvinfer1::ActivationType::kRELU};
    float alpha{0.F};
    float beta{0.F};
    bool gated{false}; //!< result = v · act(v)

    bool empty() const { return !hasAdd && !hasResidual && !hasActivation; }
    //! Number of extra inputs the epilogue adds to the node's own ones.
    size_t extraInputs() const { return (hasAdd ? 1U : 0U) + (hasResidual ? 1U : 0U); }
};

//! The epilogue of `node`; `nbOwnInputs` is the number of inputs the node has without fusion (the added tensor and
//! the residual follow them). `residualAllowed`: the node's kind takes "fuse.residual" (matrix multiply); elsewhere it
//! is refused; `gateAllowed`: the kernel applies "fuse.gate", elsewhere it is refused. Fails for malformed attributes
//! (unknown activation, missing input, a residual without an addition, a gate without an activation).
StatusOr<FusedEpilogue> readFusedEpilogue(
    PlanNode const& node, size_t nbOwnInputs, bool residualAllowed = false, bool gateAllowed = false);

} // namespace kiln
