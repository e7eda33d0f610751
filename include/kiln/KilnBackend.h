//! \file KilnBackend.h
//! \brief Kiln extension: choose the backend (CPU or CUDA) an engine is built for, and ask which backends exist.
//!
//! TensorRT always builds for the GPU. Kiln has two backends: the CPU backend runs anywhere, the CUDA backend runs
//! on an NVIDIA GPU. The builder picks one per IBuilderConfig:
//!
//! \code
//!     nvinfer1::IBuilderConfig* config = builder->createBuilderConfig();
//!     kiln::setBuilderBackend(config, kiln::BackendKind::kCPU);   // or kCUDA, or kDEFAULT
//! \endcode
//!
//! kDEFAULT (the default) builds for the GPU when the CUDA backend is available (Kiln was built with CUDA, the
//! module libkiln_cuda.so loads, and a CUDA device is present) and the network can run there; otherwise it builds
//! for the CPU, logging why at kINFO. kCUDA and kCPU are strict: a network the chosen backend cannot run fails to
//! build, with an error naming the layer. The environment variable KILN_BACKEND (cpu, cuda) overrides kDEFAULT.
//! The engine records its backend; a runtime runs it only where that backend is available.
#ifndef KILN_BACKEND_H
#define KILN_BACKEND_H

#include "NvInfer.h"

#include <cstdint>

namespace kiln
{

//! The backend an engine is built for.
enum class BackendKind : int32_t
{
    kDEFAULT = 0, //!< the GPU when available and able to run the network, else the CPU
    kCPU = 1,     //!< host memory, kernels run synchronously on the calling thread
    kCUDA = 2,    //!< device memory, kernels run asynchronously on the enqueueV3 stream
};

//! Choose the backend `config` builds for. False (and an error logged) for a null config or an unknown value.
TENSORRTAPI bool setBuilderBackend(nvinfer1::IBuilderConfig* config, BackendKind kind) noexcept;

//! The backend `config` builds for (kDEFAULT unless set).
TENSORRTAPI BackendKind getBuilderBackend(nvinfer1::IBuilderConfig const* config) noexcept;

//! The backend `engine` was built for (kCPU or kCUDA); kDEFAULT for a null engine.
TENSORRTAPI BackendKind getEngineBackend(nvinfer1::ICudaEngine const* engine) noexcept;

//! True when engines for `kind` can be built and run in this process (kCPU and kDEFAULT: always).
TENSORRTAPI bool isBackendAvailable(BackendKind kind) noexcept;

} // namespace kiln

#endif // KILN_BACKEND_H
