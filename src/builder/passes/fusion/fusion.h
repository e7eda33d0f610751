// Shared by the rewrites of the fusion pass (builder/passes/fusionPass.cpp): which plan tensors may disappear into a
// fused node (one consumer, not network I/O, not a debug tensor, not a shape tensor), which nodes may take part
// (no loop/conditional membership, not plugins), shape comparisons on the plan's symbolic dims, and the node
// splicing that replaces several nodes by one while keeping the plan's topological order.
#pragma once

#include "builder/buildContext.h"
#include "builder/kernelProbe.h"

#include <optional>
#include <string>
#include <vector>

namespace kiln::fusion
{

//! Per-plan facts the rewrites consult; recomputed after every rewrite (refresh()).
class FusionGraph
{
public:
    explicit FusionGraph(BuildContext& ctx);
    void refresh();

    //! Number of node input slots reading tensor `t` (a node reading it twice counts twice).
    int32_t uses(int32_t t) const { return mUses[static_cast<size_t>(t)]; }
    //! Index of the node writing `t`, or -1.
    int32_t producer(int32_t t) const { return mProducer[static_cast<size_t>(t)]; }
    //! Nodes reading `t` (each once).
    std::vector<int32_t> const& consumers(int32_t t) const { return mConsumers[static_cast<size_t>(t)]; }
    //! True when `t` may be folded away: exactly `readers` consumer nodes (default one), produced by a node, not
    //! network I/O, not a debug tensor, no known values, not a constant.
    bool isInternal(int32_t t, size_t readers = 1) const;
    //! True when the node may be fused: not a plugin, not inside a loop or conditional, one output.
    bool isFusibleNode(PlanNode const& node) const;
    //! The only node reading internal tensor `t` when it is a fusible node of `kind` with `head`'s precision, else -1.
    int32_t soleReader(int32_t t, nvinfer1::LayerType kind, PlanNode const& head) const;

    //! Dims of tensor `t` equal those of `u` (same rank, the same expressions).
    bool sameDims(int32_t t, int32_t u) const;
    //! sameDims, or, where the expressions differ but depend on the same symbols, the same extents at every profile's
    //! kMIN, kOPT and kMAX (a reshape to a shape computed from Shape(x) keeps the placeholder rules in its extents, so
    //! equal extents need not be the same expression). Only for fused nodes whose kernels check the extents again at
    //! every reshape.
    bool sameDimsAtProfiles(int32_t t, int32_t u);
    //! `t` broadcasts to `out` without growing it: same rank, each extent the same expression or the constant 1.
    bool broadcastsTo(int32_t t, int32_t out) const;
    //! Two extents are the same expression or equal constants.
    bool sameExtent(ExprId a, ExprId b) const;
    //! True when every extent of `t` is the constant 1.
    bool isUnitVolume(int32_t t) const;

    BuildContext& ctx() { return mCtx; }
    //! The backend's kernels, asked about candidate fused nodes (one session for the whole pass).
    KernelProbe& probe() { return mProbe; }
    Plan& plan() { return mCtx.plan; }

private:
    BuildContext& mCtx;
    KernelProbe mProbe{mCtx};
    std::vector<int32_t> mUses;
    std::vector<int32_t> mProducer;
    std::vector<std::vector<int32_t>> mConsumers;
    std::vector<bool> mDebug;
};

//! True when `t` is FLOAT, HALF or BF16.
bool isFloatTensor(Plan const& plan, int32_t t);

//! The value of a single-element FLOAT/HALF/BF16 constant tensor, if `t` is one.
std::optional<float> constantScalar(FusionGraph const& g, Plan const& plan, int32_t t);

//! Replaces the nodes `fused` (indices, ascending) by `replacement`, placed where the last of them was; the others
//! are erased. Tensors that only they referenced stay in the plan, unreferenced (indices remain stable).
void spliceNodes(Plan& plan, std::vector<int32_t> const& fused, PlanNode replacement);

//! Calls fuseAt(g, n) for every node position n in order (again at n after a fusion, which removes the head from
//! there); returns the number of fusions.
int32_t fuseAtEveryNode(FusionGraph& g, bool (*fuseAt)(FusionGraph&, int32_t));

//! "a + b + c" of the nodes' names (TensorRT's naming of fused layers).
std::string joinedNames(Plan const& plan, std::vector<int32_t> const& nodes);

//! Scaled dot-product attention (matmul, scale, mask add, softmax, matmul) into attention nodes
//! (fusion/attention.cpp). Returns the number of fusions made.
int32_t fuseAttention(FusionGraph& g);
//! The erf GELU written as pointwise layers into one kGELU_ERF activation (fusion/gelu.cpp). Returns the number of
//! rewrites made.
int32_t fuseGelu(FusionGraph& g);
//! Conv/deconv/matmul + elementwise kSUM + activation epilogues (fusion/convEpilogue.cpp). Returns the number of
//! fusions made.
int32_t fuseEpilogues(FusionGraph& g);
//! An elementwise kSUM feeding a layer norm into one normalization node that also writes the sum where it has other
//! readers (fusion/residualNorm.cpp). Returns the number of fusions made.
int32_t fuseResidualNorms(FusionGraph& g);
//! DQ(INT8 activation) and DQ(constant INT8 weights) into a convolution, with its activation and Q, as one INT8
//! convolution node (fusion/int8Convolution.cpp). Returns the number of fusions made.
int32_t fuseInt8Convolutions(FusionGraph& g);
//! The weight dequantizations left (constant INT8 weights read only as convolution kernels) folded into FP32 kernel
//! weights (fusion/int8Convolution.cpp). Returns the number of folds made.
int32_t foldWeightDequantizations(FusionGraph& g);
//! Chains of pointwise layers into programs (fusion/pointwiseChains.cpp). Returns the number of fused nodes made.
int32_t fusePointwiseChains(FusionGraph& g);

} // namespace kiln::fusion
