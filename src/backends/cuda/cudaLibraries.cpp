// CudaLibraries: lazily created cuBLASLt / cuDNN handles of one execution context (see cudaLibraries.h).
#include "backends/cuda/cudaLibraries.h"

#include "backends/cuda/cudaCheck.h"

namespace kiln::cuda
{

CudaLibraries::CudaLibraries(int device)
    : mDevice(device)
{
}

CudaLibraries::~CudaLibraries()
{
    if (mCublasLt != nullptr)
    {
        (void) cublasLtDestroy(mCublasLt);
    }
#if KILN_HAVE_CUDNN
    if (mCudnn != nullptr)
    {
        (void) cudnnDestroy(mCudnn);
    }
#endif
}

Status CudaLibraries::selectDevice()
{
    int current = -1;
    KILN_CUDA_CHECK(cudaGetDevice(&current));
    if (mDevice < 0)
    {
        mDevice = current;
    }
    else if (current != mDevice)
    {
        KILN_CUDA_CHECK(cudaSetDevice(mDevice));
    }
    return Status::ok();
}

StatusOr<cublasLtHandle_t> CudaLibraries::cublasLt()
{
    if (mCublasLt == nullptr)
    {
        KILN_RETURN_IF_ERROR(selectDevice());
        KILN_CUBLAS_CHECK(cublasLtCreate(&mCublasLt));
    }
    return mCublasLt;
}

#if KILN_HAVE_CUDNN
StatusOr<cudnnHandle_t> CudaLibraries::cudnn()
{
    if (mCudnn == nullptr)
    {
        KILN_RETURN_IF_ERROR(selectDevice());
        KILN_CUDNN_CHECK(cudnnCreate(&mCudnn));
    }
    return mCudnn;
}
#endif

} // namespace kiln::cuda
