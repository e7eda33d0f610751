// Backend-neutral host-side logic of ILRNLayer kernels (CPU and CUDA): the checks of a run and its geometry
// (outer x channels x inner around axis rank - 3) and coefficients.
#pragma once

#include "backends/kernel.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln
{

struct LRNParams
{
    int64_t outer{1};
    int64_t channels{0};
    int64_t inner{1};
    int64_t half{0};         //!< (window - 1) / 2
    double alphaOverN{0.0};  //!< alpha / window
    double beta{0.0};
    double k{0.0};
    bool empty{false};       //!< nothing to compute (the type is then not checked, as on the CPU)
};

//! A kFAILED_EXECUTION status "layer '<name>' (LRN): <message>".
Status lrnError(KernelSetup const& setup, std::string const& message);

//! Checks the views and the attributes; FLOAT, HALF and BF16 only.
StatusOr<LRNParams> makeLRNParams(
    KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs);

//! The attributes ("window", "alpha", "beta", "k"), at kernel creation: fills half, alphaOverN, beta and k.
StatusOr<LRNParams> readLRNParams(KernelSetup const& setup);

//! The shape checks of makeLRNParams (data not looked at: at reshape): fills outer, channels, inner and empty.
Status lrnShapes(KernelSetup const& setup, LRNParams& p, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs);

} // namespace kiln
