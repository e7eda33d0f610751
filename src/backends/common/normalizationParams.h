// Backend-neutral host-side logic of INormalizationLayer kernels (CPU and CUDA): the node's attributes and the
// checks of one run's input, scale, bias and output, with the validation messages, and the fused residual form (a
// layer norm with the preceding residual addition folded in, made by builder/passes/fusion/residualNorm.cpp).
#pragma once

#include "backends/kernel.h"

#include <cstdint>
#include <vector>

namespace kiln
{

//! What one run normalizes: statistics over the axes of `mask` and, with groups > 1, over each group's channels.
struct NormalizationParams
{
    double eps{0.0};
    int64_t mask{0};   //!< bit d set: axis d is reduced
    int64_t groups{1};
    int32_t rank{0};
    int64_t perGroup{1};        //!< channels per group (1 when groups == 1)
    bool perGroupScale{false};  //!< scale/bias have one value per group on axis 1 (groups > 1, not v2)
    bool v2{false};             //!< attribute "v2": scale/bias per channel even with groups
};

//! Reads "epsilon", "axes", "nbGroups" and "v2" and checks inputs (x, scale, bias) and the output against them.
StatusOr<NormalizationParams> makeNormalizationParams(
    KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs);

//! "epsilon", "axes", "nbGroups" and "v2" (at kernel creation).
StatusOr<NormalizationParams> readNormalizationParams(KernelSetup const& setup);

//! The checks of input, scale, bias and output against the attributes of `p`, filling the rest of it (data not
//! looked at: at reshape).
Status normalizationShapes(KernelSetup const& setup, NormalizationParams& p, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs);

//! Attribute of a normalization node with the residual addition fused in: inputs (x, scale, bias, r), outputs (y) or
//! (y, s); s = x + r rounded to x's type (r of x's shape, or a row broadcast over x's leading axes), y normalises s.
constexpr char const* kRESIDUAL_NORM_ATTR = "fuse.residualNorm";

//! True for a node carrying kRESIDUAL_NORM_ATTR.
bool isResidualNormalization(KernelSetup const& setup);

//! The fused residual form at one run's shapes.
struct ResidualNormShapes
{
    int64_t period{0};   //!< r's volume: element i of x adds r[i % period]
    bool sumOutput{false}; //!< the node writes s (output 1)
};

//! Checks r (input 3) and the optional sum output against x: r has x's type and x's trailing extents after leading
//! 1s, s has x's type and shape.
StatusOr<ResidualNormShapes> residualNormShapes(
    KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs);

//! The layer's own slots of a (possibly fused) normalization node: inputs (x, scale, bias), output y.
std::vector<TensorView> normalizationInputs(std::vector<TensorView> const& inputs);
std::vector<TensorView> normalizationOutputs(std::vector<TensorView> const& outputs);

} // namespace kiln
