// kilnexec's engine command: backend choice (--backend, --device) and CUDA readiness, build or load, the I/O
// buffers on the engine's backend, the CUDA graph decision, inference and the report.
#include "engineCommand.h"

#include "NvInferPlugin.h"
#include "cudaGraphPolicy.h"
#include "deviceRuntime.h"
#include "engineBuilder.h"
#include "inferenceRunner.h"
#include "ioBuffers.h"
#include "kiln/KilnBackend.h"
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

//! Whether engines can run on the CUDA backend here: kilnexec built with CUDA, a CUDA device (made current when
//! --device=N names one), and libkiln's CUDA backend available. Fills `system` with the device or the reason.
bool prepareCuda(Options const& options, SystemInfo& system)
{
    std::string problem;
    int32_t count = 0;
    if (!cuda::built())
    {
        problem = "this kilnexec was built without CUDA (KILN_HAVE_CUDA = 0)";
    }
    else if (!cuda::deviceCount(count, problem) || count == 0)
    {
        problem = problem.empty() ? "no CUDA device" : problem;
    }
    else if (options.cudaDevice >= count)
    {
        problem = "--device=" + std::to_string(options.cudaDevice) + ": there " + (count == 1 ? "is" : "are") + " only "
            + std::to_string(count) + " CUDA device" + (count == 1 ? "" : "s");
    }
    else if (options.cudaDevice >= 0 && !cuda::setDevice(options.cudaDevice, problem))
    {
        problem = "--device=" + std::to_string(options.cudaDevice) + ": " + problem;
    }
    else if (!kiln::isBackendAvailable(kiln::BackendKind::kCUDA))
    {
        problem = "libkiln's CUDA backend is not available (libkiln_cuda.so did not load; run with --verbose for the "
                  "reason)";
    }
    system.gpuProblem = problem;
    system.gpu = problem.empty() ? cuda::deviceDescription(cuda::currentDevice()) : std::string();
    return problem.empty();
}

} // namespace

int runEngineCommand(Options const& options, nvinfer1::ILogger& logger)
{
    printStatusLine(stdout, "RUNNING", options);
    std::string error;
    SystemInfo system;
    system.backend = backendName(options.backend);
    bool const cudaReady = options.backend != kiln::BackendKind::kCPU && prepareCuda(options, system);
    if (options.backend == kiln::BackendKind::kCUDA && !cudaReady)
    {
        return fail(options, kEXIT_UNAVAILABLE,
            "kilnexec: " + options.backendFlag + ": the CUDA backend is not available: " + system.gpuProblem
                + "; run with --backend=cpu or --backend=default");
    }
    if (options.cudaDevice >= 0 && !cudaReady)
    {
        // --backend=default --device=N on a machine without a usable GPU: the default runs on the CPU.
        std::printf("[W] --device=%d: no usable CUDA device (%s); the default backend runs on the CPU.\n",
            options.cudaDevice, system.gpuProblem.c_str());
    }
    printOptionSections(stdout, options, system);
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
    kiln::BackendKind const engineKind = kiln::getEngineBackend(engine.get());
    bool const onDevice = engineKind == kiln::BackendKind::kCUDA;
    std::printf("[I] Engine backend: %s%s\n", onDevice ? "CUDA" : "CPU",
        onDevice ? (" (" + (system.gpu.empty() ? std::string("GPU") : system.gpu) + ")").c_str() : "");
    if (!options.loadEngine.empty() && options.backend != kiln::BackendKind::kDEFAULT && options.backend != engineKind)
    {
        std::printf("[W] %s: the loaded engine was built for the %s backend and runs there (the backend is chosen "
                    "when the engine is built).\n",
            options.backendFlag.c_str(), onDevice ? "CUDA" : "CPU");
    }
    if (onDevice && !cuda::built() && !options.skipInference)
    {
        return fail(options, kEXIT_UNAVAILABLE,
            "kilnexec: the engine is built for the CUDA backend, but this kilnexec was built without CUDA");
    }
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

    // The stream outlives the context and the buffers (declared first, destroyed last).
    cuda::Stream stream;
    std::string cudaError;
    if (onDevice && !stream.create(cudaError))
    {
        return fail(options, kEXIT_FAILED, "kilnexec: cannot create a CUDA stream: " + cudaError);
    }
    std::unique_ptr<nvinfer1::IExecutionContext> context(engine->createExecutionContext());
    if (context == nullptr)
    {
        return fail(options, kEXIT_FAILED, "kilnexec: createExecutionContext failed (see the messages above)");
    }
    IoBuffers buffers;
    if (!buffers.setup(*engine, *context, options, logger, onDevice, stream.get(), error))
    {
        return fail(options, kEXIT_FAILED, error);
    }
    printBindings(*engine, &buffers);
    if (!reportLayerInfo(*engine, context.get(), options, stdout, error))
    {
        return fail(options, kEXIT_FAILED, error);
    }
    if (options.noDataTransfers && !onDevice)
    {
        std::printf("[I] --noDataTransfers: the CPU backend makes no host/device transfers; nothing to disable.\n");
    }
    RunSetup setup;
    setup.onDevice = onDevice;
    setup.stream = stream.get();
    setup.buffers = &buffers;
    GraphQuery query;
    query.requested = options.useCudaGraph;
    query.engineBackend = engineKind;
    query.cudaBuilt = cuda::built();
    for (IoBuffers::Tensor const& tensor : buffers.tensors())
    {
        if (!tensor.isInput)
        {
            query.outputShapes.emplace_back(tensor.name, context->getTensorShape(tensor.name.c_str()));
        }
    }
    setup.graph = planCudaGraph(query);
    std::printf("[I] Starting inference\n");
    std::fflush(stdout);
    InferenceResult result;
    if (!runInference(*context, options, setup, result, stdout, error))
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
