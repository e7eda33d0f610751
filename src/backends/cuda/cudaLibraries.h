// CudaLibraries: the library handles one execution context shares among its CUDA kernels (a cuBLASLt handle and,
// when Kiln was built with cuDNN, a cuDNN handle). Handles are created lazily, on first use, on the device the
// object was made for, and destroyed with it. One object per context: kernels of one context run on one stream
// in order, so no locking is needed.
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
    //! The cuDNN handle, bound to `stream` (cudnnSetStream) before it is returned.
    StatusOr<cudnnHandle_t> cudnn(cudaStream_t stream);
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
