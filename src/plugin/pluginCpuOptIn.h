// pluginCpuOptIn: the creator-declared CPU opt-in of the IPluginV2 family (kiln/KilnPluginCpu.h). A V2 plugin
// compiled without RTTI cannot show its kiln::IPluginCpuSupport mix-in (Kiln never applies dynamic_cast to an
// object without type information), so its creator declares the opt-in by listing kPLUGIN_CPU_SUPPORT_FIELD.
#pragma once

#include "NvInferRuntime.h"

#include <string>

namespace kiln
{

KILN_IGNORE_DEPRECATED_BEGIN

//! True when `creator` lists kiln::kPLUGIN_CPU_SUPPORT_FIELD in getFieldNames(). Every call into the creator is
//! guarded; a creator that fails or throws counts as not declaring. `who` names the creator in log messages.
bool creatorDeclaresCpuSupport(nvinfer1::IPluginCreator& creator, std::string const& who);

//! The same question asked of the creator registered in the global plugin registry under the plugin's name,
//! version and namespace (false when there is none or it is not an IPluginCreator).
bool registeredCreatorDeclaresCpuSupport(
    std::string const& name, std::string const& version, std::string const& pluginNamespace);

KILN_IGNORE_DEPRECATED_END

} // namespace kiln
