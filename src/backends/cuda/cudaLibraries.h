// CudaLibraries: the library handles one backend session (one execution context, or the builder's tactic timing)
// shares among its CUDA kernels (a cuBLASLt handle and, when Kiln was built with cuDNN, a cuDNN handle). The session
// passes it to its kernels as KernelSetup::sessionState. Handles are created on first use (kernels ask for them when
// they are created or reshaped, never in a run), on the device the object was made for, and destroyed with it. One
// object per session: kernels of one session run on one stream in order, so no locking is needed.
#pragma once

#include "core/status.h"

#include <cublasLt.h>
#if KILN_HAVE_CUDNN
#include <cudnn.h>
#endif

namespace kiln::cuda
{

class CudaLibraries
{
public:
    //! `device` < 0: the device current when the first handle is created.
    explicit CudaLibraries(int device = -1);
    ~CudaLibraries();
    CudaLibraries(CudaLibraries const&) = delete;
    CudaLibraries& operator=(CudaLibraries const&) = delete;

    int device() const { return mDevice; }
    StatusOr<cublasLtHandle_t> cublasLt();
#if KILN_HAVE_CUDNN
    //! The cuDNN handle. A kernel binds it to the run's stream (cudnnSetStream) before each use.
    StatusOr<cudnnHandle_t> cudnn();
#endif

private:
    Status selectDevice();

    int mDevice{-1};
    cublasLtHandle_t mCublasLt{nullptr};
#if KILN_HAVE_CUDNN
    cudnnHandle_t mCudnn{nullptr};
#endif
};

} // namespace kiln::cuda
