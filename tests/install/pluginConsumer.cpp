// pluginConsumer.cpp — the path real users take with a plugin library, against an installed Kiln:
//   kilnPluginConsumer build <libkilnInterleavePlugin.so> <engine file>
//       loadLibrary()s the separately built plugin library into the builder's registry, builds a network with its
//       "KilnInterleave" plugin (dynamic batch), runs it on the CPU backend and checks every output against a plain
//       reference, then embeds the library in the engine (IBuilderConfig::setPluginsToSerialize), checks that a
//       runtime refuses the engine unless setEngineHostCodeAllowed(true), and writes the engine file.
//   kilnPluginConsumer load <engine file>
//       in a fresh process, where the library file may be gone: the default runtime must refuse the engine with a
//       message naming the library and setEngineHostCodeAllowed; a runtime that allows host code loads it from the
//       engine alone and runs it (checked against the reference again).
// Exit status 0 on success; every failure prints what failed.
#include <NvInfer.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace
{

// Must match what the build step gives the plugin (the load step checks against the same reference).
float const kSCALE = 1.75F;
float const kSHIFT = -0.625F;
int32_t const kWIDTH = 7;
char const* const kLIBRARY = "libkilnInterleavePlugin.so";

class RecordingLogger : public nvinfer1::ILogger
{
public:
    void log(Severity severity, char const* msg) noexcept override
    {
        if (severity <= Severity::kERROR)
        {
            mErrors += msg;
            mErrors += "\n";
        }
        if (severity <= Severity::kWARNING && mEcho)
        {
            std::fprintf(stderr, "[kiln] %s\n", msg);
        }
    }
    std::string const& errors() const
    {
        return mErrors;
    }
    void clear()
    {
        mErrors.clear();
    }
    void echo(bool on)
    {
        mEcho = on;
    }

private:
    std::string mErrors;
    bool mEcho{true};
};

template <typename T>
using Owned = std::unique_ptr<T>;

int fail(std::string const& what)
{
    std::fprintf(stderr, "kilnPluginConsumer: FAILED: %s\n", what.c_str());
    return 1;
}

nvinfer1::Dims dims2(int64_t a, int64_t b)
{
    nvinfer1::Dims d{};
    d.nbDims = 2;
    d.d[0] = a;
    d.d[1] = b;
    return d;
}

//! Runs `engine` for `rows` rows of random input and compares with the reference; "" on success.
std::string runAndCheck(nvinfer1::ICudaEngine& engine, int64_t rows, uint32_t seed)
{
    Owned<nvinfer1::IExecutionContext> context{engine.createExecutionContext()};
    if (!context)
    {
        return "createExecutionContext";
    }
    if (!context->setInputShape("x", dims2(rows, kWIDTH)))
    {
        return "setInputShape";
    }
    nvinfer1::Dims const outDims = context->getTensorShape("y");
    if (outDims.nbDims != 2 || outDims.d[0] != rows || outDims.d[1] != 2 * kWIDTH)
    {
        return "output shape is not [" + std::to_string(rows) + ", " + std::to_string(2 * kWIDTH) + "]";
    }
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-3.0F, 3.0F);
    std::vector<float> x(static_cast<size_t>(rows * kWIDTH));
    for (float& v : x)
    {
        v = dist(rng);
    }
    std::vector<float> y(static_cast<size_t>(rows * 2 * kWIDTH), std::nanf(""));
    if (!context->setTensorAddress("x", x.data()) || !context->setTensorAddress("y", y.data()))
    {
        return "setTensorAddress";
    }
    if (!context->enqueueV3(nullptr))
    {
        return "enqueueV3";
    }
    for (int64_t r = 0; r < rows; ++r)
    {
        for (int64_t j = 0; j < kWIDTH; ++j)
        {
            float const v = x[static_cast<size_t>(r * kWIDTH + j)];
            float const expect[2] = {kSCALE * v, v + kSHIFT};
            for (int32_t k = 0; k < 2; ++k)
            {
                float const got = y[static_cast<size_t>(r * 2 * kWIDTH + 2 * j + k)];
                if (!(std::fabs(got - expect[k]) <= 1e-6F * (1.0F + std::fabs(expect[k]))))
                {
                    return "y[" + std::to_string(r) + "][" + std::to_string(2 * j + k) + "] = " + std::to_string(got)
                        + ", expected " + std::to_string(expect[k]);
                }
            }
        }
    }
    return "";
}

//! Deserialization must fail without host code and name the library and the switch; "" when it does.
std::string expectRefusal(std::vector<char> const& plan)
{
    RecordingLogger logger;
    logger.echo(false);
    Owned<nvinfer1::IRuntime> runtime{nvinfer1::createInferRuntime(logger)};
    if (!runtime)
    {
        return "createInferRuntime";
    }
    if (runtime->getEngineHostCodeAllowed())
    {
        return "a new runtime allows engine host code by default";
    }
    Owned<nvinfer1::ICudaEngine> engine{runtime->deserializeCudaEngine(plan.data(), plan.size())};
    if (engine)
    {
        return "an engine that carries a plugin library was loaded without setEngineHostCodeAllowed(true)";
    }
    std::string const& errors = logger.errors();
    if (errors.find(kLIBRARY) == std::string::npos
        || errors.find("IRuntime::setEngineHostCodeAllowed(true)") == std::string::npos)
    {
        return "the refusal does not name the library and setEngineHostCodeAllowed(true): " + errors;
    }
    std::printf("kilnPluginConsumer: refused without host code, as expected: %s", errors.c_str());
    return "";
}

//! Loads the engine with host code allowed and runs it; "" on success.
std::string loadAllowedAndRun(std::vector<char> const& plan, int64_t rows, uint32_t seed)
{
    RecordingLogger logger;
    Owned<nvinfer1::IRuntime> runtime{nvinfer1::createInferRuntime(logger)};
    if (!runtime)
    {
        return "createInferRuntime";
    }
    runtime->setEngineHostCodeAllowed(true);
    Owned<nvinfer1::ICudaEngine> engine{runtime->deserializeCudaEngine(plan.data(), plan.size())};
    if (!engine)
    {
        return "deserializeCudaEngine with host code allowed: " + logger.errors();
    }
    if (runtime->getPluginRegistry().getCreator("KilnInterleave", "1", "kiln_install") == nullptr)
    {
        return "the embedded library's creator is not in the runtime's registry";
    }
    return runAndCheck(*engine, rows, seed);
}

int build(char const* libraryPath, char const* enginePath)
{
    RecordingLogger logger;
    Owned<nvinfer1::IBuilder> builder{nvinfer1::createInferBuilder(logger)};
    if (!builder)
    {
        return fail("createInferBuilder");
    }
    // Into the builder's own registry: runtimes created later do not see it, so they must use the embedded copy.
    nvinfer1::IPluginRegistry& registry = builder->getPluginRegistry();
    if (registry.loadLibrary(libraryPath) == nullptr)
    {
        return fail(std::string("loadLibrary(") + libraryPath + "): " + logger.errors());
    }
    auto* creator = static_cast<nvinfer1::IPluginCreatorV3One*>(
        registry.getCreator("KilnInterleave", "1", "kiln_install"));
    if (creator == nullptr || std::strcmp(creator->getInterfaceInfo().kind, "PLUGIN CREATOR_V3ONE") != 0)
    {
        return fail("the library's IPluginCreatorV3One is not registered");
    }
    nvinfer1::PluginField fields[2] = {
        nvinfer1::PluginField("scale", &kSCALE, nvinfer1::PluginFieldType::kFLOAT32, 1),
        nvinfer1::PluginField("shift", &kSHIFT, nvinfer1::PluginFieldType::kFLOAT32, 1)};
    nvinfer1::PluginFieldCollection collection{};
    collection.nbFields = 2;
    collection.fields = fields;
    Owned<nvinfer1::IPluginV3> plugin{creator->createPlugin("interleave", &collection, nvinfer1::TensorRTPhase::kBUILD)};
    if (!plugin)
    {
        return fail("createPlugin");
    }

    Owned<nvinfer1::INetworkDefinition> network{builder->createNetworkV2(0)};
    nvinfer1::ITensor* x = network->addInput("x", nvinfer1::DataType::kFLOAT, dims2(-1, kWIDTH));
    nvinfer1::ITensor* inputs[] = {x};
    nvinfer1::IPluginV3Layer* layer = network->addPluginV3(inputs, 1, nullptr, 0, *plugin);
    if (layer == nullptr)
    {
        return fail("addPluginV3: " + logger.errors());
    }
    plugin.reset(); // the network keeps its own clone
    layer->setName("interleave");
    nvinfer1::ITensor* y = layer->getOutput(0);
    y->setName("y");
    network->markOutput(*y);

    Owned<nvinfer1::IBuilderConfig> config{builder->createBuilderConfig()};
    nvinfer1::IOptimizationProfile* profile = builder->createOptimizationProfile();
    profile->setDimensions("x", nvinfer1::OptProfileSelector::kMIN, dims2(1, kWIDTH));
    profile->setDimensions("x", nvinfer1::OptProfileSelector::kOPT, dims2(3, kWIDTH));
    profile->setDimensions("x", nvinfer1::OptProfileSelector::kMAX, dims2(8, kWIDTH));
    config->addOptimizationProfile(profile);

    // 1. Built and run in this process (engine from the builder's registry).
    Owned<nvinfer1::ICudaEngine> built{builder->buildEngineWithConfig(*network, *config)};
    if (!built)
    {
        return fail("buildEngineWithConfig: " + logger.errors());
    }
    std::string problem = runAndCheck(*built, 4, 11U);
    if (!problem.empty())
    {
        return fail("run of the built engine: " + problem);
    }
    std::printf("kilnPluginConsumer: plugin from the loaded library ran on the CPU and matched the reference\n");

    // 2. Serialized with the library embedded.
    char const* libraries[] = {libraryPath};
    config->setPluginsToSerialize(libraries, 1);
    Owned<nvinfer1::IHostMemory> serialized{builder->buildSerializedNetwork(*network, *config)};
    if (!serialized || serialized->size() == 0)
    {
        return fail("buildSerializedNetwork with setPluginsToSerialize: " + logger.errors());
    }
    auto const* bytes = static_cast<char const*>(serialized->data());
    std::vector<char> plan(bytes, bytes + serialized->size());

    // 3. Fresh runtimes in this process: refused by default, loaded and run when host code is allowed.
    problem = expectRefusal(plan);
    if (!problem.empty())
    {
        return fail(problem);
    }
    problem = loadAllowedAndRun(plan, 5, 12U);
    if (!problem.empty())
    {
        return fail("engine with the embedded library, host code allowed: " + problem);
    }

    std::ofstream out(enginePath, std::ios::binary | std::ios::trunc);
    out.write(plan.data(), static_cast<std::streamsize>(plan.size()));
    if (!out.good())
    {
        return fail(std::string("writing ") + enginePath);
    }
    std::printf("kilnPluginConsumer: build PASSED (%zu-byte engine written to %s)\n", plan.size(), enginePath);
    return 0;
}

int load(char const* enginePath)
{
    std::ifstream in(enginePath, std::ios::binary);
    std::vector<char> plan((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (plan.empty())
    {
        return fail(std::string("reading ") + enginePath);
    }
    std::string problem = expectRefusal(plan);
    if (!problem.empty())
    {
        return fail(problem);
    }
    problem = loadAllowedAndRun(plan, 6, 13U);
    if (!problem.empty())
    {
        return fail("engine with the embedded library in a fresh process, host code allowed: " + problem);
    }
    std::printf("kilnPluginConsumer: load PASSED (the plugin ran from the library embedded in the engine)\n");
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc == 4 && std::strcmp(argv[1], "build") == 0)
    {
        return build(argv[2], argv[3]);
    }
    if (argc == 3 && std::strcmp(argv[1], "load") == 0)
    {
        return load(argv[2]);
    }
    std::fprintf(stderr, "usage: kilnPluginConsumer build <plugin library> <engine file> | load <engine file>\n");
    return 2;
}
