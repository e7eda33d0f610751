// KILN_HOST_DEVICE: marks inline helpers of src/backends/common that CPU (host) and CUDA (device) kernels share;
// empty outside nvcc.
#pragma once

#if defined(__CUDACC__)
#define KILN_HOST_DEVICE __host__ __device__
#else
#define KILN_HOST_DEVICE
#endif
