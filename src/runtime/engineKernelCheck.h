// Engine-load check of the nodes against the kernels of the engine's backend: every non-plugin node's kernel is
// created once through the backend's own kernel-create path (BackendSession::createKernel), so that an engine whose
// recorded types, formats, ranks or attributes are not what the kernel accepts is refused by
// deserializeCudaEngine, naming the node, instead of when an execution context is created.
#pragma once

#include "core/status.h"
#include "runtime/deviceWeights.h"
#include "runtime/engineData.h"

namespace kiln
{

//! Create (and drop) the kernel of every non-plugin node of `data` on its backend. `deviceWeights` (CUDA engines) is
//! given to the kernels as the execution contexts give it, so that no kernel uploads weights of its own.
Status checkEngineKernels(EngineData const& data, DeviceWeights const* deviceWeights);

} // namespace kiln
