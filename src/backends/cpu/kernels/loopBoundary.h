// CPU kernels of the loop and conditional boundary layers (see loopBoundary.cpp).
#pragma once

#include "backends/kernel.h"

namespace kiln
{

//! kRECURRENCE, kITERATOR, kTRIP_LIMIT, kLOOP_OUTPUT: the runtime's loop interpreter does their work, so the
//! kernel only validates the node and does nothing when run.
StatusOr<std::unique_ptr<Kernel>> createLoopBoundaryKernel(KernelSetup const& setup);
//! kCONDITIONAL_OUTPUT: copies input 0 (condition true) or input 1 (false); input 2 is the 0-D BOOL condition.
StatusOr<std::unique_ptr<Kernel>> createConditionalOutputKernel(KernelSetup const& setup);

} // namespace kiln
