// Backend-neutral host-side logic of the IQuantizeLayer / IDequantizeLayer kernels (CPU and CUDA): which forms the
// kernels run (INT8 with a per-tensor or per-axis FP32/FP16/BF16 scale and a zero or absent zero point), the checks
// at creation with messages naming what is not supported, and the geometry of one run.
#pragma once

#include "backends/kernel.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln
{

//! What one Q or DQ node does: quantize (float -> INT8) or dequantize (INT8 -> float), and its scale's axis.
struct QuantizeParams
{
    bool quantize{true};
    int32_t axis{-1}; //!< -1: per-tensor (one scale)
    char const* kind{"Quantize"};
};

//! The tensor split around the scale axis: element i uses scale (i / inner) % n (n = 1, inner = volume: per-tensor).
struct QuantizeGeometry
{
    int64_t volume{0};
    int64_t n{1};
    int64_t inner{1};
};

//! A kFAILED_EXECUTION status "layer '<name>' (Quantize|Dequantize): <message>".
Status quantizeError(KernelSetup const& setup, QuantizeParams const& p, std::string const& message);

//! Reads and checks the node at kernel creation: types (INT8 only), axis, no block shape, and a zero point that is
//! absent, or a constant of the engine (KernelSetup::constantInputs) whose values are all zero. `runtimeZeroPoint`
//! says whether the backend can check a zero point given as a run-time tensor at each run (CPU) or refuses it (CUDA).
StatusOr<QuantizeParams> readQuantizeParams(KernelSetup const& setup, bool quantize, bool runtimeZeroPoint);

//! Whether input 2 (the zero point) is present and not already checked as a constant of the engine.
bool zeroPointNeedsRunCheck(KernelSetup const& setup);

//! The shape checks of one reshape (data, scale, zero point against the output) and the run's geometry.
StatusOr<QuantizeGeometry> quantizeGeometry(KernelSetup const& setup, QuantizeParams const& p,
    std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs);

} // namespace kiln
