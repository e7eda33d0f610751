// The null backend: a backend with no device and no kernels, whose capabilities a test chooses. The builder asks
// it the same questions as any backend, so builder tests can check which fusions, precisions and tactics a build
// picks for a given set of capabilities without a GPU. Kernels it creates refuse to run.
#pragma once

#include "backends/backend.h"

#include <cstdint>
#include <memory>
#include <string>

namespace kiln
{

//! A null backend named `name` (recorded in engines built for it) with `capabilities`. It implements every layer
//! kind the CPU backend implements, with the single tactic "null"; when the capabilities claim tactic timing
//! (timesTactics), with two, "null" and "null-b", whose kernels run as no-ops so that the builder can time them.
std::unique_ptr<Backend> createNullBackend(BackendCapabilities const& capabilities, std::string name = "null");

//! How many times kernels of timing null backends have run in this process (builder tests count timing runs).
int64_t nullKernelRuns();

} // namespace kiln
