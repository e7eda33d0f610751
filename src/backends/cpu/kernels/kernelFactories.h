// Declarations of the CPU kernel factories, one per layer kind (createConvolutionKernel, createElementWiseKernel,
// ...), generated from the list of layer kinds (core/layerKinds.h). Only the kinds the CPU backend implements define
// theirs (in kernels/<kind>.cpp); the kernel table (kernelTable.cpp) names exactly those. Also the tactic lists of
// the kinds that have more than one implementation, and the helpers every CPU kernel shares.
#pragma once

#include "backends/cpu/cpuKernel.h"
#include "core/layerKinds.h"

#include <memory>
#include <string>
#include <vector>

namespace kiln
{

#define KILN_DECLARE_CPU_KERNEL_FACTORY(kind, name, iface)                                                             \
    StatusOr<std::unique_ptr<Kernel>> create##name##Kernel(KernelSetup const& setup);
KILN_FOR_EACH_LAYER_KIND(KILN_DECLARE_CPU_KERNEL_FACTORY)
#undef KILN_DECLARE_CPU_KERNEL_FACTORY

// Kinds with several implementations list them best first; the builder records the choice in the node.
std::vector<std::string> convolutionTactics(KernelSetup const& setup);
std::vector<std::string> deconvolutionTactics(KernelSetup const& setup);
std::vector<std::string> matrixMultiplyTactics(KernelSetup const& setup);
//! How many times a matrix multiply kernel packed a constant operand into oneDNN's layout (at reshape), for tests
//! that must know the packed path ran (always 0 in a build without oneDNN).
uint64_t matrixMultiplyPackCount();
std::vector<std::string> poolingTactics(KernelSetup const& setup);
//! {"rows", "reference"} where the row kernel serves the node (float storage types, trailing normalized axes, no
//! groups), led by "onednn" (oneDNN's layer normalization) for BF16 x and y; else {"reference"} (the general walk).
//! "reference" is the oracle.
std::vector<std::string> normalizationTactics(KernelSetup const& setup);
//! {"rows", "reference"} for softmax along the innermost axis (vectorised rows, BF16/FP16 converted a row at a
//! time), led by "onednn" (oneDNN's softmax) for BF16; else {"reference"} (strided slices with std::exp).
std::vector<std::string> softMaxTactics(KernelSetup const& setup);
//! Plugin nodes run the plugin's own enqueue(); the builder records "plugin" or "plugin:<tactic>" itself.

//! "<kind> node '<name>'", how the CPU kernels name their node in messages.
std::string cpuNodeLabel(KernelSetup const& setup, char const* kind);
//! The error of a run() that no successful reshape() prepared (a caller error: the runtime always reshapes first).
Status notReshaped(KernelSetup const& setup, char const* kind);

} // namespace kiln
