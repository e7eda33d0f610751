// Backend-neutral host-side logic of IShuffleLayer kernels (CPU and CUDA): the node's transposes and the geometry
// of one run (permutations, the dims before the second transpose, which transposes move data), with the
// validation messages.
#pragma once

#include "backends/kernel.h"

#include <cstdint>
#include <vector>

namespace kiln
{

//! The node's attributes: the first and second transposes as stored by the network.
struct ShuffleAttrs
{
    std::vector<int64_t> first;
    std::vector<int64_t> second;
};

//! What one run does: nothing when volume is 0 (the other fields are then empty), else the permutations.
struct ShuffleParams
{
    int64_t bytes{0};  //!< element size (1, 2, 4 or 8)
    int64_t volume{0}; //!< elements of the input (= of the output)
    std::vector<int32_t> perm1;
    std::vector<int32_t> perm2;
    std::vector<int64_t> inDims;
    std::vector<int64_t> reshaped; //!< dims before the second transpose: reshaped[perm2[i]] = out[i]
    bool firstMoves{false};        //!< the first transpose moves data (not only extent-1 dims)
    bool secondMoves{false};
};

//! Reads "first_transpose" and "second_transpose" of the node of `setup`.
StatusOr<ShuffleAttrs> readShuffleAttrs(KernelSetup const& setup);

//! Checks one run's tensors and derives its geometry; `device` ("CPU", "GPU") names the backend in the message
//! for an unsupported element size.
StatusOr<ShuffleParams> makeShuffleParams(ShuffleAttrs const& attrs, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs, char const* device);

//! makeShuffleParams without the buffer checks (data not looked at: at reshape).
StatusOr<ShuffleParams> shuffleShapes(ShuffleAttrs const& attrs, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs, char const* device);

} // namespace kiln
