// kilnexec's command-line options. Flags follow trtexec's spelling (--name=value, repeatable where trtexec allows
// it): the model/build flags, the inference and reporting flags, the plugin flags and Kiln's --checkPlugin. trtexec
// flags that Kiln does not offer are recognised and refused with a clear "not supported" line (exit code 2).
#pragma once

#include "NvInferRuntime.h"
#include "kiln/KilnBackend.h"
#include "pluginFields.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace kilnexec
{

//! One "name:AxBxC" item of a shape spec (--shapes, --minShapes, ...).
struct ShapeSpec
{
    std::string name;
    nvinfer1::Dims dims{};
};

//! The shapes of one optimization profile (a --profile group of --minShapes/--optShapes/--maxShapes).
struct ProfileShapes
{
    std::vector<ShapeSpec> min;
    std::vector<ShapeSpec> opt;
    std::vector<ShapeSpec> max;
    bool hasMin{false};
    bool hasOpt{false};
    bool hasMax{false};
};

//! Exit codes of kilnexec (docs/kilnexec.md).
enum ExitCode : int
{
    kEXIT_PASSED = 0,      //!< the requested work was done
    kEXIT_FAILED = 1,      //!< the model, engine, inputs or run failed (parser/builder/runtime errors, bad files)
    kEXIT_USAGE = 2,       //!< bad command line: unknown flag, malformed value, conflicting flags
    kEXIT_UNAVAILABLE = 3, //!< the request needs something this build or machine lacks (--backend=cuda without a
                           //!< usable CUDA backend)
};

struct Options
{
    bool help{false};
    std::vector<std::string> commandLine; //!< argv as given, for the "&&&&" lines

    // Model and engine.
    std::string onnxFile;   //!< --onnx
    std::string saveEngine; //!< --saveEngine
    std::string loadEngine; //!< --loadEngine

    // Build.
    std::vector<ProfileShapes> profiles; //!< --minShapes/--optShapes/--maxShapes, grouped by --profile
    int32_t currentProfile{0};           //!< the group that the next shape flags fill
    int32_t inferenceProfile{0};         //!< --profile=N: the profile used for inference
    std::vector<ShapeSpec> shapes;       //!< --shapes (inference; alone also min=opt=max)
    bool fp16{false};
    bool bf16{false};
    bool int8{false};
    bool best{false};
    bool stronglyTyped{false};
    bool noTF32{false};
    std::string timingCacheFile; //!< --timingCacheFile: loaded before the build (if it exists), saved after it
    bool noBuilderCache{false};  //!< --noBuilderCache: BuilderFlag::kDISABLE_TIMING_CACHE
    std::vector<std::pair<std::string, double>> memPools; //!< --memPoolSize: pool name, bytes
    std::vector<std::string> pluginsToSerialize;           //!< --setPluginsToSerialize
    std::string profilingVerbosity;                        //!< --profilingVerbosity ("" = default)
    bool skipInference{false};

    // Backend and device (resolved by resolveBackendOptions after parsing).
    std::string backendValue; //!< --backend=default|cpu|cuda as given ("" = not given)
    std::string device;       //!< --device=cpu|gpu|N as given ("" = not given)
    kiln::BackendKind backend{kiln::BackendKind::kDEFAULT}; //!< the backend asked for by --backend / --device
    std::string backendFlag;  //!< the flag that chose `backend`, for messages ("" = neither flag)
    int32_t cudaDevice{-1};   //!< --device=N: the CUDA device to run on (-1 = the current device)

    // Inference.
    std::vector<std::pair<std::string, std::string>> loadInputs; //!< --loadInputs=name:file
    int32_t iterations{10};
    double warmUpMs{200.0};
    double durationS{3.0};
    bool useCudaGraph{false};
    bool noDataTransfers{false};
    bool separateProfileRun{false};

    // Reporting.
    int32_t avgRuns{10};
    std::vector<double> percentiles{90.0, 95.0, 99.0};
    bool dumpOutput{false};
    std::string exportOutput;
    bool dumpProfile{false};
    std::string exportProfile;
    std::string exportTimes;
    bool dumpLayerInfo{false};
    std::string exportLayerInfo;

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

//! Whether the options ask for an engine (build from --onnx or --loadEngine), as opposed to --checkPlugin alone.
inline bool wantsEngine(Options const& options)
{
    return !options.onnxFile.empty() || !options.loadEngine.empty();
}

//! The build/inference/reporting flags (runOptions.cpp). Returns 1 when `name` was one of them and is valid,
//! 0 when it is not one of them, -1 on a usage error (`error` set).
int parseRunOption(std::string const& name, bool hasValue, std::string const& value, Options& options,
    std::string& error);

//! Resolve --backend and --device into options.backend, backendFlag and cudaDevice: --device=cpu is --backend=cpu,
//! --device=gpu is --backend=cuda, --device=N is --backend=cuda on CUDA device N (with --backend=default|cuda it
//! only picks the device). A pair that contradicts itself (--backend=cpu --device=gpu) is a usage error.
bool resolveBackendOptions(Options& options, std::string& error);

//! "default", "cpu" or "cuda" as --backend spells it; false for anything else.
bool parseBackendName(std::string const& text, kiln::BackendKind& kind);

//! The --backend spelling of a backend ("default", "cpu", "cuda").
char const* backendName(kiln::BackendKind kind);

//! Check the flags together (conflicts, missing model) after parsing; false with `error` on a usage error.
bool validateRunOptions(Options const& options, std::string& error);

//! Parse a trtexec shape spec "name:AxBxC,'quoted:name':D" into `out`; false with `error` when malformed.
bool parseShapeSpec(std::string const& flag, std::string const& value, std::vector<ShapeSpec>& out, std::string& error);

//! The text of a Dims as trtexec prints it ("1x3x8x8"; "scalar" for rank 0).
std::string dimsText(nvinfer1::Dims const& dims);

//! The --help text.
std::string usageText();

} // namespace kilnexec
