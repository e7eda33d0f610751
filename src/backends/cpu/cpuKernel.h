// The CPU backend's kernel table (kernelTable.cpp): the kernel factory and the tactic list of every layer kind. CPU
// kernels implement kiln::Kernel (backends/kernel.h) directly: the factory reads and checks the node once, reshape()
// prepares the shapes, run() only computes.
#pragma once

#include "backends/kernel.h"

#include <string>
#include <vector>

namespace kiln
{

//! Candidate tactics for a node, best first (e.g. {"onednn", "reference"}); empty = unsupported.
using CpuTacticsFn = std::vector<std::string> (*)(KernelSetup const& setup);

//! The kernel factory of `kind`, or nullptr when the CPU backend does not implement it (and for the plugin kinds,
//! whose kernel is backends/common/pluginKernel.h).
KernelFactory cpuKernelFactory(nvinfer1::LayerType kind);
//! Gives the calling thread's OpenMP (oneDNN's threads) the CPU thread pool's count, within OpenMP's thread limit:
//! before kernels are created (cpuKernelFactory calls it) and before each run (CpuSession::beginRun), since oneDNN
//! splits work by that count when a primitive is created and when it runs (cpuBackend.cpp).
void applyCpuOpenMpThreads();
//! The tactic list of `kind`, or nullptr when the CPU backend does not implement it.
CpuTacticsFn cpuKernelTactics(nvinfer1::LayerType kind);

} // namespace kiln
