// The kernel of plugin nodes, shared by every backend (see pluginKernel.cpp).
#pragma once

#include "backends/kernel.h"

namespace kiln
{

//! The kernel of a kPLUGIN_V2 / kPLUGIN_V3 node: setup.plugin must hold the execution context's plugin binding.
StatusOr<std::unique_ptr<Kernel>> createPluginKernel(KernelSetup const& setup);

} // namespace kiln
