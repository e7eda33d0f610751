// Which backend a build targets: the config's choice (kiln::setBuilderBackend), the KILN_BACKEND environment
// variable for the default, and whether the CUDA backend is available here.
#pragma once

#include "backends/backend.h"
#include "builder/builderConfig.h"
#include "core/logging.h"

namespace kiln
{

struct BackendChoice
{
    Backend const* backend{nullptr};
    //! The default choice picked the GPU: if it cannot run the network (kUNSUPPORTED_STATE), build for the CPU.
    bool fallBackToCpu{false};
};

//! Fails when the CUDA backend was asked for explicitly and is unavailable, or KILN_BACKEND names no backend.
StatusOr<BackendChoice> chooseBackend(BuilderConfig const& config, Logger const& logger);

} // namespace kiln
