// The CUDA backend's NodeTimer (backends/backend.h): per-layer device times for a profiler, from CUDA events recorded
// after every node while a gate kernel holds the stream until the whole run is enqueued.
#pragma once

#include "backends/backend.h"

#include <memory>

namespace kiln::cuda
{

//! A new timer for the current device, or the CUDA error that prevented it (pinned host memory, events).
StatusOr<std::unique_ptr<NodeTimer>> createCudaNodeTimer();

} // namespace kiln::cuda
