// kilnexec option parsing: the implemented flags, and trtexec's other flags refused as "not implemented yet".
#include "options.h"

#include <cerrno>
#include <cstdlib>
#include <map>

namespace kilnexec
{
namespace
{

//! trtexec flags that kilnexec recognises but does not offer, with the reason.
std::map<std::string, char const*> const& unsupportedFlags()
{
    static std::map<std::string, char const*> const flags = [] {
        std::map<std::string, char const*> m;
        for (char const* name : {"fp8", "int4", "calib", "precisionConstraints", "layerPrecisions",
                 "layerOutputTypes", "inputIOFormats", "outputIOFormats",
                 "builderOptimizationLevel", "maxTactics", "tacticSources", "versionCompatible", "vc",
                 "excludeLeanRuntime", "leanDLLPath", "hardwareCompatibilityLevel", "runtimePlatform", "refit",
                 "stripWeights", "cpuOnly", "ignoreParsedPluginLibs", "useRuntime", "asyncFileReader",
                 "getPlanVersionOnly", "sleepTime", "idleTime", "infStreams", "streams", "exposeDMA",
                 "useManagedMemory", "useSpinWait", "threads", "timeDeserialize", "timeRefit", "useProfile",
                 "allocationStrategy", "persistentCacheRatio", "saveDebugTensors", "weightStreamingBudget",
                 "dumpOptimizationProfile", "dumpRefit", "pluginInstanceNorm", "enablePluginOverride", "useDLACore",
                 "allowGPUFallback"})
        {
            m[name] = "not supported by kilnexec yet (docs/kilnexec.md lists the flags it takes)";
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
    for (int i = 0; i < argc; ++i)
    {
        options.commandLine.emplace_back(argv[i]);
    }
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
        else if (int const handled = parseRunOption(name, hasValue, value, options, error); handled != 0)
        {
            if (handled < 0)
            {
                return false;
            }
        }
        else if (unsupportedFlags().count(name) != 0)
        {
            error = "kilnexec: --" + name + " is a trtexec flag that is " + unsupportedFlags().at(name);
            return false;
        }
        else
        {
            error = "kilnexec: unknown option --" + name + " (see --help)";
            return false;
        }
    }
    return resolveBackendOptions(options, error) && validateRunOptions(options, error);
}

std::string usageText()
{
    return R"(kilnexec: Kiln's trtexec-style command-line tool (docs/kilnexec.md).

Usage: kilnexec --onnx=model.onnx [build options] [inference options] [reporting options]
       kilnexec --loadEngine=engine.plan [inference options] [reporting options]
       kilnexec --checkPlugin=name[:version[:namespace]] [plugin options]

Model and engine:
  --onnx=file                Build an engine from an ONNX model (nvonnxparser).
  --saveEngine=file          Save the built engine.
  --loadEngine=file          Load a built engine instead of building one.
  --skipInference            Build/load only; no inference.

Build options:
  --minShapes=spec, --optShapes=spec, --maxShapes=spec
                             Optimization profile shapes; spec is name:AxBxC[,name2:...] ('quoted:name':AxB
                             for names with commas). Missing opt = max (or min), missing min/max = opt.
  --profile=N                Start shape group N (repeat with its own --min/--opt/--maxShapes for several
                             profiles; repeating a shape flag also starts a new profile) and use profile N for
                             inference.
  --shapes=spec              Inference shapes; given alone (no --minShapes...) it also sets min = opt = max.
  --fp16, --bf16, --int8, --best
                             Precision flags (weak typing; --best = all three). --int8 without calibration gives
                             tensors placeholder ranges, as trtexec does.
  --stronglyTyped            Create the network with NetworkDefinitionCreationFlag::kSTRONGLY_TYPED.
  --noTF32                   Clear BuilderFlag::kTF32.
  --timingCacheFile=file     Tactic timings: read from the file before the build when it exists, written back after
                             it (a rebuild of the same layers on the same device times nothing).
  --noBuilderCache           BuilderFlag::kDISABLE_TIMING_CACHE: time every layer, even identical ones; no cache.
  --memPoolSize=pool:size    e.g. workspace:1024M (suffix B, K, M, G; MiB without one).
  --setPluginsToSerialize=lib.so
                             Embed plugin libraries into the engine (then loading needs no --dynamicPlugins).
  --profilingVerbosity=layer_names_only|detailed|none

Inference options:
  --loadInputs=name:file     Raw binary input data (as trtexec); other inputs get seeded random data.
  --iterations=N             Run at least N timed inferences (default 10).
  --warmUp=ms                Warm up for this long first (default 200; at least one run).
  --duration=s               Run timed inferences for at least this long (default 3).
  --useCudaGraph             CUDA backend: capture one enqueueV3 after the warm-up into a CUDA graph and replay it
                             (cudaGraphLaunch). Falls back to enqueueV3, with a warning, for data-dependent output
                             shapes or a failed capture; does not apply to the CPU backend.
  --noDataTransfers          CUDA backend: no input/output copies in the timed runs (inputs are uploaded once
                             before, outputs read back once after).
  --separateProfileRun       Time without the profiler; collect the per-layer profile in a separate run.

Backend and device (Kiln extension; the engine records its backend, --loadEngine runs it there):
  --backend=default|cpu|cuda Backend to build for (kiln::setBuilderBackend). default: the GPU when the CUDA
                             backend is available and can run the network, else the CPU. cuda without a usable
                             GPU gives exit code 3.
  --device=cpu|gpu|N         trtexec's CUDA device index N (implies --backend=cuda unless --backend=default|cuda
                             is given); cpu and gpu are aliases of --backend=cpu and --backend=cuda.

Reporting options:
  --avgRuns=N                Runs per "Average on N runs" trace line (default 10).
  --percentile=P1,P2,...     Percentiles of the summary (default 90,95,99).
  --dumpOutput, --exportOutput=file.json
  --dumpProfile, --exportProfile=file.json
  --exportTimes=file.json
  --dumpLayerInfo, --exportLayerInfo=file.json
  --verbose                  Verbose logging (and the plugin checker's lifecycle trace).

Plugin libraries:
  --dynamicPlugins=lib.so    Load a plugin library with IPluginRegistry::loadLibrary (repeatable, or comma list).
  --staticPlugins=lib.so     dlopen a library whose creators register themselves (REGISTER_TENSORRT_PLUGIN);
                             if it also exports getCreators/getPluginCreators it is loaded as with
                             --dynamicPlugins. --plugins is the deprecated trtexec alias.
  --initPlugins              Register Kiln's standard plugins (initLibNvInferPlugins(logger, "")) for --checkPlugin;
                             engine commands always register them, as trtexec does.

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
  --noIsolation              Run the check in the kilnexec process itself (by default it runs in a child
                             process, so that a plugin that crashes is reported with the last step and call).
  --help                     This text.

Exit status: 0 passed; 1 failed (model does not parse, build or inference fails, unreadable file, shape outside
the profile; --checkPlugin: the check has findings); 2 usage error (unknown flag, malformed value, conflicting
flags; --checkPlugin: unloadable library, unusable request); 3 not available in this build or on this machine
(--backend=cuda without a usable CUDA backend, --device=N beyond the last GPU).
)";
}

} // namespace kilnexec
