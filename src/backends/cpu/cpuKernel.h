// The CPU backend's kernel interface. One kernel object is created per plan node per execution context
// (so kernels may keep caches without locks); execute() gets concrete shapes and host pointers each run.
#pragma once

#include "backends/kernel.h"

#include <memory>
#include <string>
#include <vector>

namespace kiln
{

class CpuKernel
{
public:
    virtual ~CpuKernel() = default;
    //! Run once. Inputs/outputs follow the node's slots; outputs are preallocated with their final shapes.
    virtual Status execute(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs) = 0;
};

using CpuKernelFactory = StatusOr<std::unique_ptr<CpuKernel>> (*)(KernelSetup const& setup);
//! Candidate tactics for a node, best first (e.g. {"onednn", "reference"}); empty = unsupported.
using CpuTacticsFn = std::vector<std::string> (*)(KernelSetup const& setup);

//! Wraps a plain function as a kernel, for kernels without state.
using CpuKernelFunction = Status (*)(KernelSetup const& setup, std::vector<TensorView> const& inputs,
    std::vector<TensorView> const& outputs);
std::unique_ptr<CpuKernel> makeFunctionKernel(KernelSetup const& setup, CpuKernelFunction fn);

//! Kernel table (kernelTable.cpp): factory and tactics per layer kind; nullptr when unsupported.
CpuKernelFactory cpuKernelFactory(nvinfer1::LayerType kind);
CpuTacticsFn cpuKernelTactics(nvinfer1::LayerType kind);

} // namespace kiln
