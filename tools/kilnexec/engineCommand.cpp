// kilnexec's engine command.
#include "engineCommand.h"

#include "NvInferPlugin.h"
#include "engineBuilder.h"
#include "inferenceRunner.h"
#include "ioBuffers.h"
#include "layerInfo.h"
#include "pluginLibraries.h"
#include "report.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>

namespace kilnexec
{
namespace
{

//! Print the one-line reason and the FAILED line; returns `code`.
int fail(Options const& options, int code, std::string const& error)
{
    std::fflush(stdout);
    if (!error.empty())
    {
        std::fprintf(stderr, "%s\n", error.c_str());
    }
    std::fflush(stderr);
    printStatusLine(stdout, "FAILED", options);
    return code;
}

bool readEngine(std::string const& path, std::vector<char>& plan, std::string& error)
{
    std::ifstream file(path, std::ios::binary);
    if (!file)
    {
        error = "kilnexec: cannot open --loadEngine file '" + path + "': " + std::strerror(errno);
        return false;
    }
    plan.assign(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
    if (plan.empty())
    {
        error = "kilnexec: --loadEngine file '" + path + "' is empty";
        return false;
    }
    return true;
}

void printBindings(nvinfer1::ICudaEngine const& engine, IoBuffers const* buffers)
{
    std::printf("[I] Engine: %d I/O tensors, %d layers, %d optimization profile(s)\n", engine.getNbIOTensors(),
        engine.getNbLayers(), engine.getNbOptimizationProfiles());
    for (int32_t i = 0; i < engine.getNbIOTensors(); ++i)
    {
        char const* name = engine.getIOTensorName(i);
        std::string shape = dimsText(engine.getTensorShape(name));
        if (buffers != nullptr)
        {
            for (IoBuffers::Tensor const& tensor : buffers->tensors())
            {
                shape += tensor.name == name ? " -> " + dimsText(tensor.dims) : "";
            }
        }
        std::printf("[I] %s '%s': %s %s\n",
            engine.getTensorIOMode(name) == nvinfer1::TensorIOMode::kINPUT ? "Input " : "Output", name,
            typeName(engine.getTensorDataType(name)), shape.c_str());
    }
}

} // namespace

int runEngineCommand(Options const& options, nvinfer1::ILogger& logger)
{
    printStatusLine(stdout, "RUNNING", options);
    std::string error;
    if (options.device != "cpu")
    {
        return fail(options, kEXIT_UNAVAILABLE,
            "kilnexec: --device=" + options.device + ": this Kiln build has no GPU backend (the CUDA backend is "
            "planned); run with --device=cpu");
    }
    printOptionSections(stdout, options);
    if (!initLibNvInferPlugins(&logger, ""))
    {
        return fail(options, kEXIT_FAILED, "kilnexec: initLibNvInferPlugins failed (see the messages above)");
    }
    if (!loadPlugins(options, logger, error))
    {
        return fail(options, kEXIT_FAILED, error);
    }

    std::vector<char> plan;
    if (!options.onnxFile.empty())
    {
        if (int const code = buildEngine(options, logger, plan, error); code != kEXIT_PASSED)
        {
            return fail(options, code, error);
        }
    }
    else if (!readEngine(options.loadEngine, plan, error))
    {
        return fail(options, kEXIT_FAILED, error);
    }

    std::unique_ptr<nvinfer1::IRuntime> runtime(nvinfer1::createInferRuntime(logger));
    if (runtime != nullptr)
    {
        // An engine given on kilnexec's command line is trusted, as trtexec trusts version-compatible engines:
        // plugin libraries embedded with --setPluginsToSerialize may run their code in this process.
        runtime->setEngineHostCodeAllowed(true);
    }
    std::unique_ptr<nvinfer1::ICudaEngine> engine(
        runtime != nullptr ? runtime->deserializeCudaEngine(plan.data(), plan.size()) : nullptr);
    if (engine == nullptr)
    {
        return fail(options, kEXIT_FAILED,
            "kilnexec: could not load the engine" + (options.loadEngine.empty() ? std::string() : " '" + options.loadEngine + "'")
                + " (see the messages above)");
    }
    std::printf("[I] Engine loaded: %.6g MiB\n", static_cast<double>(plan.size()) / (1024.0 * 1024.0));
    if (options.skipInference)
    {
        printBindings(*engine, nullptr);
        if (!reportLayerInfo(*engine, nullptr, options, stdout, error))
        {
            return fail(options, kEXIT_FAILED, error);
        }
        std::printf("[I] Skipped inference (--skipInference).\n");
        printStatusLine(stdout, "PASSED", options);
        return kEXIT_PASSED;
    }

    std::unique_ptr<nvinfer1::IExecutionContext> context(engine->createExecutionContext());
    if (context == nullptr)
    {
        return fail(options, kEXIT_FAILED, "kilnexec: createExecutionContext failed (see the messages above)");
    }
    IoBuffers buffers;
    if (!buffers.setup(*engine, *context, options, logger, error))
    {
        return fail(options, kEXIT_FAILED, error);
    }
    printBindings(*engine, &buffers);
    if (!reportLayerInfo(*engine, context.get(), options, stdout, error))
    {
        return fail(options, kEXIT_FAILED, error);
    }
    if (options.useCudaGraph)
    {
        std::printf("[I] --useCudaGraph: CUDA graphs do not apply to the CPU backend; running without one.\n");
    }
    if (options.noDataTransfers)
    {
        std::printf("[I] --noDataTransfers: the CPU backend makes no host/device transfers; nothing to disable.\n");
    }
    std::printf("[I] Starting inference\n");
    std::fflush(stdout);
    InferenceResult result;
    if (!runInference(*context, options, result, error))
    {
        return fail(options, kEXIT_FAILED, error);
    }
    printPerformance(stdout, result, options);
    if (options.dumpProfile)
    {
        printProfile(stdout, result.layers);
    }
    if (!options.exportProfile.empty() && !exportProfile(options.exportProfile, result.layers, error))
    {
        return fail(options, kEXIT_FAILED, error);
    }
    if (!options.exportTimes.empty() && !exportTimes(options.exportTimes, result, error))
    {
        return fail(options, kEXIT_FAILED, error);
    }
    if (options.dumpOutput)
    {
        buffers.dumpOutputs(stdout);
    }
    if (!options.exportOutput.empty() && !buffers.exportOutputs(options.exportOutput, error))
    {
        return fail(options, kEXIT_FAILED, error);
    }
    printStatusLine(stdout, "PASSED", options);
    return kEXIT_PASSED;
}

} // namespace kilnexec
