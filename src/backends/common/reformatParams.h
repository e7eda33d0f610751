// Backend-neutral host-side checks of reformat nodes (kIDENTITY plan nodes with attribute "reformat" = 1, inserted
// by the builder between a plugin and a neighbour that wants another data type or tensor format), shared by the
// CPU kernel (backends/cpu/kernels/identityReformat.cpp) and the CUDA kernel (backends/cuda/kernels/
// identityReformat.cu). The format layouts themselves are in core/tensorFormat.h.
#pragma once

#include "backends/kernel.h"
#include "core/tensorFormat.h"

namespace kiln
{

//! The checks of a reformat node's kernel creation (CPU and CUDA): one input and output of kernel types, and the
//! layouts of its "inFormat" / "outFormat" attributes.
Status readReformatSetup(KernelSetup const& setup, FormatLayout& in, FormatLayout& out);

} // namespace kiln
