// Turning CUDA runtime, cuBLASLt and cuDNN status codes into Status values that name the failing call and the
// library's error string. Used by every CUDA kernel and by cudaLibraries.cpp; nothing here throws or aborts.
#pragma once

#include "core/status.h"

#include <cublasLt.h>
#include <cuda_runtime_api.h>
#if KILN_HAVE_CUDNN
#include <cudnn.h>
#endif

#include <string>

namespace kiln::cuda
{

inline Status cudaStatus(cudaError_t err, char const* call)
{
    if (err == cudaSuccess)
    {
        return Status::ok();
    }
    return failedExecution(std::string(call) + " failed: " + cudaGetErrorName(err) + " (" + cudaGetErrorString(err)
        + ")");
}

inline Status cublasStatus(cublasStatus_t st, char const* call)
{
    if (st == CUBLAS_STATUS_SUCCESS)
    {
        return Status::ok();
    }
    return failedExecution(std::string(call) + " failed: " + cublasLtGetStatusName(st) + " ("
        + cublasLtGetStatusString(st) + ")");
}

#if KILN_HAVE_CUDNN
inline Status cudnnStatus(cudnnStatus_t st, char const* call)
{
    if (st == CUDNN_STATUS_SUCCESS)
    {
        return Status::ok();
    }
    return failedExecution(std::string(call) + " failed: " + cudnnGetErrorString(st));
}
#endif

//! The status of the last kernel launch (launch-configuration errors; asynchronous faults show up later).
inline Status launchStatus(char const* kernel)
{
    return cudaStatus(cudaGetLastError(), kernel);
}

} // namespace kiln::cuda

//! Return from the enclosing function with a Status naming `call` when the CUDA runtime call fails.
#define KILN_CUDA_CHECK(call) KILN_RETURN_IF_ERROR(::kiln::cuda::cudaStatus((call), #call))
//! The same for cuBLAS / cuBLASLt calls.
#define KILN_CUBLAS_CHECK(call) KILN_RETURN_IF_ERROR(::kiln::cuda::cublasStatus((call), #call))
//! The same for cuDNN calls.
#define KILN_CUDNN_CHECK(call) KILN_RETURN_IF_ERROR(::kiln::cuda::cudnnStatus((call), #call))
