// The CUDA backend's kernel interface, the GPU counterpart of backends/cpu/cpuKernel.h. One kernel object is
// created per plan node per execution context from the same KernelSetup the CPU backend gets; enqueue() receives
// device pointers (TensorView::data) with concrete shapes and must only launch work on ctx.stream: no host
// synchronisation, no allocation (device memory it needs comes from workspaceSize()).
#pragma once

#include "backends/kernel.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace kiln::cuda
{

class CudaLibraries; //!< Per-context cuBLASLt / cuDNN handles (cudaLibraries.h).

//! What the execution context hands to every kernel for one run.
struct CudaRunContext
{
    cudaStream_t stream{nullptr};
    void* workspace{nullptr}; //!< device memory of at least the workspaceSize() the kernel asked for, 256-byte aligned
    int64_t workspaceBytes{0};
    CudaLibraries* libraries{nullptr};
};

class CudaKernel
{
public:
    virtual ~CudaKernel() = default;
    //! Device scratch memory needed for these shapes (called with the profile's largest shapes when planning).
    virtual int64_t workspaceSize(std::vector<TensorView> const& /*inputs*/, std::vector<TensorView> const& /*outputs*/) const
    {
        return 0;
    }
    //! Launch the node's work on ctx.stream. Inputs/outputs follow the node's slots; data pointers are device
    //! pointers, TensorView::values (shape-tensor values) are host pointers. Errors (bad launch, library status)
    //! are returned as Status naming the cause; the call never throws.
    virtual Status enqueue(std::vector<TensorView> const& inputs, std::vector<TensorView> const& outputs,
        CudaRunContext const& ctx) = 0;
};

using CudaKernelFactory = StatusOr<std::unique_ptr<CudaKernel>> (*)(KernelSetup const& setup);
//! Candidate tactics for a node, best first (e.g. {"cublaslt", "kiln"}); empty = unsupported with these types.
using CudaTacticsFn = std::vector<std::string> (*)(KernelSetup const& setup);

//! Kernel table (cudaKernelTable.cpp): factory and tactics per layer kind; nullptr when unsupported.
CudaKernelFactory cudaKernelFactory(nvinfer1::LayerType kind);
CudaTacticsFn cudaKernelTactics(nvinfer1::LayerType kind);

} // namespace kiln::cuda
