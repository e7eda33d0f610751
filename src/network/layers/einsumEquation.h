// Parsing of IEinsumLayer equations, shared by the layer's shape inference and the CPU kernel. TensorRT's rules:
// one term of lower-case letters per input, separated by ',', an optional "->" followed by the output term; spaces
// are ignored; no ellipsis. Without "->" the output holds the letters that occur exactly once, in alphabetical order.
#pragma once

#include "core/status.h"

#include <string>
#include <vector>

namespace kiln
{

struct EinsumEquation
{
    std::vector<std::string> inputs; //!< subscripts of each input, spaces removed
    std::string output;              //!< subscripts of the output (explicit or implicit)
};

//! Parse `equation` for `nbInputs` inputs; errors say what is wrong with the equation.
StatusOr<EinsumEquation> parseEinsumEquation(std::string const& equation, int32_t nbInputs);

} // namespace kiln
