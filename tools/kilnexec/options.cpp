// kilnexec option parsing: the implemented flags, and trtexec's other flags refused as "not implemented yet".
#include "options.h"

#include <cerrno>
#include <cstdlib>
#include <map>

namespace kilnexec
{
namespace
{

//! trtexec flags that kilnexec knows but does not implement yet, with the issue that brings them.
std::map<std::string, char const*> const& plannedFlags()
{
    static std::map<std::string, char const*> const flags = [] {
        std::map<std::string, char const*> m;
        m["onnx"] = "ONNX import issue";
        for (char const* name : {"saveEngine", "loadEngine", "minShapes", "optShapes", "maxShapes", "shapes",
                 "profile", "memPoolSize", "noTF32", "fp16", "bf16", "int8", "fp8", "int4", "best", "stronglyTyped",
                 "precisionConstraints", "layerPrecisions", "layerOutputTypes", "calib", "inputIOFormats",
                 "outputIOFormats", "timingCacheFile", "noBuilderCache", "builderOptimizationLevel", "maxTactics",
                 "tacticSources", "versionCompatible", "vc", "excludeLeanRuntime", "leanDLLPath",
                 "hardwareCompatibilityLevel", "runtimePlatform", "refit", "stripWeights", "cpuOnly",
                 "setPluginsToSerialize", "ignoreParsedPluginLibs", "skipInference", "useRuntime",
                 "asyncFileReader", "getPlanVersionOnly", "loadInputs", "iterations", "warmUp", "duration",
                 "sleepTime", "idleTime", "infStreams", "streams", "exposeDMA", "noDataTransfers", "useManagedMemory",
                 "useSpinWait", "threads", "useCudaGraph", "timeDeserialize", "timeRefit", "separateProfileRun",
                 "useProfile", "allocationStrategy", "persistentCacheRatio", "saveDebugTensors",
                 "weightStreamingBudget", "avgRuns", "percentile", "dumpOutput", "dumpProfile", "dumpLayerInfo",
                 "dumpOptimizationProfile", "dumpRefit", "exportTimes", "exportOutput", "exportProfile",
                 "exportLayerInfo", "profilingVerbosity", "pluginInstanceNorm", "enablePluginOverride", "device",
                 "useDLACore", "allowGPUFallback"})
        {
            m[name] = "the trtexec-flags issue (issue 4)";
        }
        return m;
    }();
    return flags;
}

bool parseDimsList(std::string const& flag, std::string const& value, std::vector<nvinfer1::Dims>& out,
    std::string& error)
{
    out.clear();
    for (std::string const& item : splitText(value, ','))
    {
        nvinfer1::Dims dims{};
        if (!parseDims(item, dims))
        {
            error = "kilnexec: --" + flag + "=" + value + ": '" + item
                + "' is not a shape (write extents as AxBxC, e.g. 1x3x8x8, or 'scalar'; one per input, "
                  "separated by commas)";
            return false;
        }
        out.push_back(dims);
    }
    return true;
}

bool parseType(std::string const& text, nvinfer1::DataType& type)
{
    using nvinfer1::DataType;
    static std::map<std::string, DataType> const types = {{"fp32", DataType::kFLOAT}, {"float32", DataType::kFLOAT},
        {"fp16", DataType::kHALF}, {"float16", DataType::kHALF}, {"bf16", DataType::kBF16}, {"int8", DataType::kINT8},
        {"uint8", DataType::kUINT8}, {"int32", DataType::kINT32}, {"int64", DataType::kINT64},
        {"bool", DataType::kBOOL}};
    auto it = types.find(text);
    if (it == types.end())
    {
        return false;
    }
    type = it->second;
    return true;
}

bool parseNumber(std::string const& text, double& value)
{
    char* end = nullptr;
    errno = 0;
    value = std::strtod(text.c_str(), &end);
    return !text.empty() && errno == 0 && end == text.c_str() + text.size();
}

} // namespace

bool parseOptions(int argc, char const* const* argv, Options& options, std::string& error)
{
    for (int i = 1; i < argc; ++i)
    {
        std::string const arg = argv[i];
        if (arg == "-h" || arg == "--help")
        {
            options.help = true;
            continue;
        }
        if (arg.rfind("--", 0) != 0 || arg.size() == 2)
        {
            error = "kilnexec: unexpected argument '" + arg + "' (options look like --name=value; see --help)";
            return false;
        }
        size_t const eq = arg.find('=');
        std::string const name = arg.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
        bool const hasValue = eq != std::string::npos;
        std::string const value = hasValue ? arg.substr(eq + 1) : "";
        auto needValue = [&]() {
            if (!hasValue || value.empty())
            {
                error = "kilnexec: --" + name + " needs a value (--" + name + "=...)";
                return false;
            }
            return true;
        };
        auto noValue = [&]() {
            if (hasValue)
            {
                error = "kilnexec: --" + name + " takes no value";
                return false;
            }
            return true;
        };

        if (name == "verbose")
        {
            if (!noValue())
            {
                return false;
            }
            options.verbose = true;
        }
        else if (name == "noIsolation")
        {
            if (!noValue())
            {
                return false;
            }
            options.isolate = false;
        }
        else if (name == "initPlugins")
        {
            if (!noValue())
            {
                return false;
            }
            options.initPlugins = true;
        }
        else if (name == "dynamicPlugins" || name == "staticPlugins" || name == "plugins")
        {
            if (!needValue())
            {
                return false;
            }
            auto& list = name == "dynamicPlugins" ? options.dynamicPlugins : options.staticPlugins;
            for (std::string const& path : splitText(value, ','))
            {
                list.push_back(path);
            }
        }
        else if (name == "checkPlugin")
        {
            if (!needValue())
            {
                return false;
            }
            std::vector<std::string> parts = splitText(value, ':');
            if (parts.size() > 3 || parts[0].empty())
            {
                error = "kilnexec: --checkPlugin=" + value + ": expected name[:version[:namespace]]";
                return false;
            }
            options.checkPlugin = true;
            options.pluginName = parts[0];
            options.pluginVersion = parts.size() > 1 ? parts[1] : "";
            options.pluginNamespace = parts.size() > 2 ? parts[2] : "";
        }
        else if (name == "pluginField")
        {
            std::string fieldError;
            if (!needValue())
            {
                return false;
            }
            if (!options.pluginFields->add(value, fieldError))
            {
                error = "kilnexec: " + fieldError;
                return false;
            }
        }
        else if (name == "pluginShapes" || name == "pluginAltShapes" || name == "pluginShapeValues")
        {
            if (!needValue())
            {
                return false;
            }
            auto& list = name == "pluginShapes" ? options.pluginShapes
                                                : (name == "pluginAltShapes" ? options.pluginAltShapes
                                                                             : options.pluginShapeValues);
            if (!parseDimsList(name, value, list, error))
            {
                return false;
            }
        }
        else if (name == "pluginTypes")
        {
            if (!needValue())
            {
                return false;
            }
            options.pluginTypes.clear();
            for (std::string const& item : splitText(value, ','))
            {
                nvinfer1::DataType type{};
                if (!parseType(item, type))
                {
                    error = "kilnexec: --pluginTypes=" + value + ": unknown type '" + item
                        + "' (use fp32, fp16, bf16, int8, uint8, int32, int64 or bool)";
                    return false;
                }
                options.pluginTypes.push_back(type);
            }
        }
        else if (name == "pluginRuns" || name == "pluginSeed")
        {
            double number = 0.0;
            if (!needValue() || !parseNumber(value, number) || number < 0 || number != static_cast<double>(
                    static_cast<uint64_t>(number)))
            {
                error = error.empty() ? "kilnexec: --" + name + "=" + value + ": expected a non-negative integer" : error;
                return false;
            }
            if (name == "pluginRuns")
            {
                options.pluginRuns = static_cast<int32_t>(number);
            }
            else
            {
                options.pluginSeed = static_cast<uint64_t>(number);
            }
        }
        else if (name == "pluginInputRange")
        {
            std::vector<std::string> parts = splitText(value, ',');
            if (!needValue() || parts.size() != 2 || !parseNumber(parts[0], options.inputMin)
                || !parseNumber(parts[1], options.inputMax) || !(options.inputMin < options.inputMax))
            {
                error = error.empty() ? "kilnexec: --pluginInputRange=" + value + ": expected lo,hi with lo < hi" : error;
                return false;
            }
            options.haveInputRange = true;
        }
        else if (plannedFlags().count(name) != 0)
        {
            error = "kilnexec: --" + name + " is not implemented yet (planned: " + plannedFlags().at(name) + ")";
            return false;
        }
        else
        {
            error = "kilnexec: unknown option --" + name + " (see --help)";
            return false;
        }
    }
    return true;
}

std::string usageText()
{
    return R"(kilnexec: Kiln's trtexec-style command-line tool.

Usage: kilnexec --checkPlugin=name[:version[:namespace]] [plugin options]

Plugin libraries:
  --dynamicPlugins=lib.so    Load a plugin library with IPluginRegistry::loadLibrary (repeatable, or comma list).
  --staticPlugins=lib.so     dlopen a library whose creators register themselves (REGISTER_TENSORRT_PLUGIN);
                             if it also exports getCreators/getPluginCreators it is loaded as with
                             --dynamicPlugins. --plugins is the deprecated trtexec alias.
  --initPlugins              Register Kiln's standard plugins (initLibNvInferPlugins(logger, "")).

Plugin contract check (docs/plugin-checker.md):
  --checkPlugin=name[:version[:namespace]]
                             Walk the plugin of that registered creator through its whole lifecycle and report
                             every broken rule. Without a version the only registered version is used.
  --pluginField=name:type:v1,v2,...
                             A creation field (repeatable). Types: float32, float16, bf16, float64, int8, int16,
                             int32, int64, char (string: the rest verbatim), dims (AxBxC per value).
  --pluginShapes=AxB,CxD     The shape of each (non-shape) input, in order; 'scalar' for rank 0.
  --pluginTypes=fp32,fp16    Input types (fp32, fp16, bf16, int8, uint8, int32, int64, bool); default: the
                             types supportsFormatCombination accepts first.
  --pluginAltShapes=AxB,...  Second input shapes (IPluginV2DynamicExt/IPluginV3): the profile covers both, and
                             the plugin is re-configured at these shapes and back between runs.
  --pluginShapeValues=2x3,5  IPluginV3 shape-tensor inputs: the values of each 1-D shape input, 'x'-separated.
  --pluginRuns=N             Runs compared for determinism (2..16, default 2).
  --pluginSeed=N             Seed of the random input data.
  --pluginInputRange=lo,hi   Range of the random input values (default: [-1, 1] for floats, [0, 3] for
                             integers, [-127, 127] for INT8).

Other:
  --verbose                  Print the plugin's lifecycle calls as the checker makes them.
  --noIsolation              Run the check in the kilnexec process itself (by default it runs in a child
                             process, so that a plugin that crashes is reported with the last step and call).
  --help                     This text.

Exit status: 0 when every rule passes, 1 when the check has findings (a broken rule, a failed lifecycle call,
a creator that is not registered), 2 on usage errors (bad flags, unloadable libraries, an unusable request).
trtexec's build, inference and reporting flags are not implemented yet and are refused with exit status 2.
)";
}

} // namespace kilnexec
