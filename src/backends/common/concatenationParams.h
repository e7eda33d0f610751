// Backend-neutral host-side logic of IConcatenationLayer kernels (CPU and CUDA): the axis and the byte geometry of
// one run, with the validation messages.
#pragma once

#include "backends/kernel.h"

#include <cstdint>
#include <vector>

namespace kiln
{

//! One run seen as `outer` rows: each input contributes dims[axis] * innerBytes bytes per row.
struct ConcatenationParams
{
    int32_t axis{0};
    int64_t axisTotal{0};  //!< sum of the inputs' extents along the axis (= the output's)
    int64_t outer{1};      //!< product of the dims before the axis
    int64_t innerBytes{0}; //!< bytes of one axis step (element size times the dims after the axis)
};

//! Checks the inputs against the output and the node's "axis" (default: rank - 3, or 0 below rank 3).
StatusOr<ConcatenationParams> makeConcatenationParams(
    KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs);

//! The node's "axis" for an output of `rank` (default: rank - 3, or 0 below rank 3), at kernel creation.
StatusOr<int32_t> readConcatenationAxis(KernelSetup const& setup, int32_t rank);

//! Checks the inputs' shapes and types against the output's along `axis` (data not looked at: at reshape).
StatusOr<ConcatenationParams> concatenationShapes(KernelSetup const& setup, int32_t axis,
    std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs);

} // namespace kiln
