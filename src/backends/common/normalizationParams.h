// Backend-neutral host-side logic of INormalizationLayer kernels (CPU and CUDA): the node's attributes and the
// checks of one run's input, scale, bias and output, with the validation messages.
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

} // namespace kiln
