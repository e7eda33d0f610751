// The CPU backend's Backend object (backends/backend.h), and the adapter that lets a CpuKernel (such as the plugin
// kernel, which every backend uses for plugin nodes) run as a backend Kernel.
#pragma once

#include "backends/backend.h"

namespace kiln
{

std::unique_ptr<Kernel> wrapCpuKernel(std::unique_ptr<CpuKernel> kernel);

} // namespace kiln
