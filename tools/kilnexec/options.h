// kilnexec's command-line options. Flags follow trtexec's spelling (--name=value, repeatable where trtexec allows
// it). Only the plugin flags and --checkPlugin are implemented so far; trtexec's build/inference/reporting flags are
// recognised and refused with a clear "not implemented yet" (they arrive with the trtexec-flags issue).
#pragma once

#include "NvInferRuntime.h"
#include "pluginFields.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace kilnexec
{

struct Options
{
    bool help{false};
    bool verbose{false};
    bool isolate{true}; //!< run the check in a child process (--noIsolation turns it off)

    // Plugin libraries.
    std::vector<std::string> dynamicPlugins; //!< --dynamicPlugins=lib.so (IPluginRegistry::loadLibrary)
    std::vector<std::string> staticPlugins;  //!< --staticPlugins=lib.so / --plugins=lib.so (dlopen, then as dynamic)
    bool initPlugins{false};                 //!< --initPlugins (initLibNvInferPlugins)

    // --checkPlugin=name[:version[:namespace]] and its inputs.
    bool checkPlugin{false};
    std::string pluginName;
    std::string pluginVersion;
    std::string pluginNamespace;
    std::shared_ptr<PluginFieldSet> pluginFields = std::make_shared<PluginFieldSet>();
    std::vector<nvinfer1::Dims> pluginShapes;
    std::vector<nvinfer1::Dims> pluginAltShapes;
    std::vector<nvinfer1::DataType> pluginTypes;
    std::vector<nvinfer1::Dims> pluginShapeValues;
    int32_t pluginRuns{2};
    uint64_t pluginSeed{0x4B494C4EULL};
    bool haveInputRange{false};
    double inputMin{0.0};
    double inputMax{0.0};
};

//! Parse the arguments. On a usage error returns false and sets `error` to a one-line message that starts with
//! "kilnexec: ".
bool parseOptions(int argc, char const* const* argv, Options& options, std::string& error);

//! The --help text.
std::string usageText();

} // namespace kilnexec
