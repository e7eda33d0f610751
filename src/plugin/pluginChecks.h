// Checks shared by the plugin adapters on what plugin code returns: output counts, data types, workspace sizes,
// return codes and strings. Each produces a Status naming the plugin (its label) and the call.
#pragma once

#include "core/dataType.h"
#include "core/status.h"
#include "plugin/pluginAdapter.h"

#include <cstdint>
#include <string>

namespace kiln
{

//! Workspace requests above this are treated as a plugin bug (1 TiB).
constexpr uint64_t kMAX_PLUGIN_WORKSPACE = uint64_t{1} << 40;
//! Serialized plugin state above this is treated as a plugin bug (2 GiB).
constexpr uint64_t kMAX_PLUGIN_SERIALIZATION = uint64_t{1} << 31;

inline Status checkReturnCode(PluginAdapter const& a, char const* call, int32_t code)
{
    if (code == 0)
    {
        return Status::ok();
    }
    return failedExecution(a.label() + ": " + call + " returned error code " + std::to_string(code));
}

inline Status checkNbOutputs(PluginAdapter const& a, int32_t n)
{
    if (n <= 0)
    {
        return invalidArgument(a.label() + ": getNbOutputs returned " + std::to_string(n)
            + " (a plugin needs at least one output)");
    }
    return Status::ok();
}

inline Status checkOutputType(PluginAdapter const& a, char const* call, int32_t output, nvinfer1::DataType type)
{
    if (!isValidDataType(static_cast<int32_t>(type)))
    {
        return invalidArgument(a.label() + ": " + call + " gave output " + std::to_string(output)
            + " the data type value " + std::to_string(static_cast<int32_t>(type))
            + ", which is not a nvinfer1::DataType");
    }
    return Status::ok();
}

inline Status checkWorkspace(PluginAdapter const& a, uint64_t bytes)
{
    if (bytes > kMAX_PLUGIN_WORKSPACE)
    {
        return invalidArgument(a.label() + ": getWorkspaceSize returned " + std::to_string(bytes)
            + " bytes, more than the 1 TiB Kiln accepts (an uninitialized or negative value?)");
    }
    return Status::ok();
}

inline std::string pluginString(char const* s)
{
    return s == nullptr ? std::string() : std::string(s);
}

//! Number of tensor formats (TensorFormat values are 0..kFORMAT_COUNT-1).
constexpr int32_t kFORMAT_COUNT = 13;

} // namespace kiln
