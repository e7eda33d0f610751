// A fused epilogue ("fuse.*", backends/common/fusedEpilogue.h) expressed as oneDNN post-ops, for the oneDNN tactics
// of the convolution, deconvolution and matrix multiply CPU kernels: the activation as an eltwise post-op (only the
// activations oneDNN computes with the same formula), the added tensor as a sum post-op (an addition of the output's
// full shape, copied into the destination before the primitive runs) or a binary add post-op (a broadcast addition,
// read in place). What oneDNN cannot express stays with runFusedEpilogueCpu (fusedEpilogueCpu.h): the kernel asks
// planOneDnnEpilogue what to fuse and applies the remainder after the primitive.
#pragma once

#include "backends/common/fusedEpilogue.h"
#include "backends/cpu/kernels/convolutionCommon.h"

namespace kiln
{

//! Count of oneDNN executions whose primitive ran (part of) a fused epilogue as post-ops, for tests that must know
//! the post-op path ran rather than the CPU epilogue (always 0 in a build without oneDNN).
uint64_t oneDnnPostOpRunCount();
void countOneDnnPostOpRun();

#if KILN_HAVE_ONEDNN
//! How the fused addition reaches the primitive.
enum class OneDnnAdd
{
    kNONE,   //!< no addition in the post-ops
    kSUM,    //!< sum post-op: the added tensor (the output's shape) is copied into the destination first
    kBINARY, //!< binary add post-op reading the added tensor (broadcast to the output) in place
};

//! The part of an epilogue a oneDNN primitive runs as post-ops, and the part left to runFusedEpilogueCpu.
struct OneDnnEpiloguePlan
{
    OneDnnAdd add{OneDnnAdd::kNONE};
    bool activation{false};         //!< the activation is an eltwise post-op
    dnnl::memory::desc addDesc;     //!< the added tensor as stored (plain, dims left-padded to the output's rank)
    bool residual{false};           //!< the residual is a binary add post-op (index 1, after the addition's)
    dnnl::memory::desc residualDesc; //!< the residual as stored (plain, the output's dims)
    dnnl::primitive_attr attr;      //!< the post-ops (empty when nothing is fused)
    FusedEpilogue remainder;        //!< what the CPU epilogue still applies after the primitive

    bool fusesAnything() const { return add != OneDnnAdd::kNONE || residual || activation; }
};

//! True when `type` is computed by a oneDNN eltwise post-op with IActivationLayer's formula (alpha/beta as given).
bool oneDnnHasActivation(nvinfer1::ActivationType type, float alpha, float beta);

//! Plans `epilogue` for a primitive whose output (type `outputType`, plain dims `outDims`) is `dt`; `add` describes
//! the added tensor (dims and type; required when epilogue.hasAdd). `allowSum`: the kernel can copy a full-shape
//! addition into its destination before running (sum post-op); otherwise such an addition is a binary post-op.
//! Nothing is fused when the addition's type has no oneDNN type; a residual (`residual`: its type, required when
//! epilogue.hasResidual) is a second binary post-op when the addition is fused as a binary one; the activation is
//! fused only when the additions are (or there are none), since act(op + add + residual) applies it last.
OneDnnEpiloguePlan planOneDnnEpilogue(FusedEpilogue const& epilogue, std::vector<int64_t> const& outDims,
    TensorView const* add, bool allowSum, TensorView const* residual = nullptr);

//! True when `fused` (a primitive with post-ops) runs in the implementation `plain` (the same primitive without them)
//! runs in, and that is not oneDNN's reference one: oneDNN may satisfy post-ops by switching to a slower
//! implementation (a convolution with a plain-layout binary operand goes from brgconv to a GEMM path 60× slower),
//! and then the CPU epilogue after the fast primitive is the better plan.
bool sameOneDnnImpl(dnnl::primitive_desc_base const& fused, dnnl::primitive_desc_base const& plain);

//! The same plan with nothing fused (the whole epilogue left to the CPU), for when the primitive rejects the post-ops.
OneDnnEpiloguePlan unfusedOneDnnEpilogue(FusedEpilogue const& epilogue);
#endif

} // namespace kiln
