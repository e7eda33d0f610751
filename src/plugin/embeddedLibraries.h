// Plugin libraries embedded in engines (IBuilderConfig::setPluginsToSerialize). The builder reads each library
// file into the plan; a runtime that allows engine host code (IRuntime::setEngineHostCodeAllowed(true)) loads
// them from memory into its own registry when the engine is deserialized. By default an engine that carries
// code is refused, because loading it runs foreign code.
#pragma once

#include "core/status.h"
#include "engine/plan.h"

#include <string>
#include <vector>

namespace kiln
{

class PluginRegistry;

//! Read every path into a PlanPluginLibrary (fails naming a path that cannot be read or is not a shared library).
StatusOr<std::vector<PlanPluginLibrary>> readPluginLibraries(std::vector<std::string> const& paths);

//! Load `libraries` into `registry` (loadLibrary from an in-memory file). Libraries already loaded by the same file
//! name into the registry, or into a registry it searches (parent search), are not loaded twice. When
//! `hostCodeAllowed` is false and at least one library would be loaded, fails with a message naming those
//! libraries and IRuntime::setEngineHostCodeAllowed.
Status loadEmbeddedPluginLibraries(
    PluginRegistry& registry, std::vector<PlanPluginLibrary> const& libraries, bool hostCodeAllowed);

} // namespace kiln
