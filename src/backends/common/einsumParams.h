// Backend-neutral host-side logic of IEinsumLayer kernels (CPU and CUDA): the parsed equation checked against the
// run's shapes, and the contraction as a loop nest over "letters" (the output subscripts first, row-major, then the
// summed ones) with, per input, the storage step of every letter (summed over repeated subscripts: diagonals).
#pragma once

#include "backends/kernel.h"
#include "network/layers/einsumEquation.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln
{

struct EinsumParams
{
    size_t nbOut{0};                          //!< leading letters that index the output
    std::vector<int64_t> extents;             //!< extent of every letter (output letters first)
    std::vector<std::vector<int64_t>> steps;  //!< steps[i][l]: input i's storage step when letter l advances by one
    int64_t outCount{1};                      //!< product of the output letters' extents
    int64_t sumCount{1};                      //!< product of the summed letters' extents
};

//! A kFAILED_EXECUTION status "layer '<name>' (Einsum): <message>".
Status einsumError(KernelSetup const& setup, std::string const& message);

//! Parses the node's "equation" and checks it against the inputs' and the output's shapes.
StatusOr<EinsumParams> makeEinsumParams(
    KernelSetup const& setup, std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs);

//! Parses the node's "equation" for its inputs (at kernel creation).
StatusOr<EinsumEquation> readEinsumEquation(KernelSetup const& setup);

//! Checks `eq` against the inputs' and the output's shapes and derives the loop nest (data not looked at: at
//! reshape).
StatusOr<EinsumParams> einsumShapes(KernelSetup const& setup, EinsumEquation const& eq,
    std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs);

} // namespace kiln
