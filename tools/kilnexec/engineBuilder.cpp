// kilnexec's engine build from ONNX.
#include "engineBuilder.h"

#include "NvOnnxParser.h"
#include "ioBuffers.h"
#include "kiln/KilnBackend.h"
#include "progressBar.h"

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <unistd.h>

namespace kilnexec
{
using nvinfer1::Dims;
using nvinfer1::OptProfileSelector;

namespace
{

ShapeSpec const* findSpec(std::vector<ShapeSpec> const& specs, std::string const& name)
{
    for (ShapeSpec const& spec : specs)
    {
        if (spec.name == name)
        {
            return &spec;
        }
    }
    return nullptr;
}

//! Check that every named input exists in the network.
bool checkNames(std::vector<ShapeSpec> const& specs, char const* flag, std::map<std::string, Dims> const& inputs,
    std::string& error)
{
    for (ShapeSpec const& spec : specs)
    {
        if (inputs.count(spec.name) == 0)
        {
            std::string list;
            for (auto const& [name, dims] : inputs)
            {
                list += (list.empty() ? "" : ", ") + name;
            }
            error = std::string("kilnexec: --") + flag + " names '" + spec.name
                + "', which is not an input of the network (inputs: " + list + ")";
            return false;
        }
    }
    return true;
}

//! Fill one profile. Missing selectors follow trtexec: opt defaults to max (or min), min to opt, max to opt; an
//! input without any shape gets its dynamic dimensions set to 1, with a warning.
bool fillProfile(nvinfer1::IOptimizationProfile& profile, ProfileShapes const& shapes, int32_t index,
    std::map<std::string, Dims> const& inputs, nvinfer1::ILogger& logger, std::string& error)
{
    for (auto const& [name, declared] : inputs)
    {
        ShapeSpec const* minSpec = findSpec(shapes.min, name);
        ShapeSpec const* optSpec = findSpec(shapes.opt, name);
        ShapeSpec const* maxSpec = findSpec(shapes.max, name);
        Dims minDims{};
        Dims optDims{};
        Dims maxDims{};
        if (minSpec == nullptr && optSpec == nullptr && maxSpec == nullptr)
        {
            if (volume(declared) >= 0)
            {
                minDims = optDims = maxDims = declared;
            }
            else
            {
                minDims = declared;
                for (int32_t i = 0; i < minDims.nbDims; ++i)
                {
                    minDims.d[i] = minDims.d[i] < 0 ? 1 : minDims.d[i];
                }
                optDims = maxDims = minDims;
                logger.log(nvinfer1::ILogger::Severity::kWARNING,
                    ("dynamic input '" + name + "' has no shapes in profile " + std::to_string(index)
                        + "; using " + dimsText(minDims) + " (give --minShapes/--optShapes/--maxShapes or --shapes)")
                        .c_str());
            }
        }
        else
        {
            optDims = optSpec != nullptr ? optSpec->dims : (maxSpec != nullptr ? maxSpec->dims : minSpec->dims);
            minDims = minSpec != nullptr ? minSpec->dims : optDims;
            maxDims = maxSpec != nullptr ? maxSpec->dims : optDims;
        }
        for (Dims const* dims : {&minDims, &optDims, &maxDims})
        {
            bool ok = dims->nbDims == declared.nbDims;
            for (int32_t i = 0; ok && i < dims->nbDims; ++i)
            {
                ok = declared.d[i] < 0 || declared.d[i] == dims->d[i];
            }
            if (!ok)
            {
                error = "kilnexec: profile " + std::to_string(index) + ": the shape " + dimsText(*dims)
                    + " does not fit input '" + name + "', declared as " + dimsText(declared)
                    + " (same rank; only dynamic (-1) dimensions may differ)";
                return false;
            }
        }
        for (int32_t i = 0; i < declared.nbDims; ++i)
        {
            if (minDims.d[i] > optDims.d[i] || optDims.d[i] > maxDims.d[i])
            {
                error = "kilnexec: profile " + std::to_string(index) + ", input '" + name + "': min "
                    + dimsText(minDims) + ", opt " + dimsText(optDims) + ", max " + dimsText(maxDims)
                    + " are not ordered min <= opt <= max";
                return false;
            }
        }
        if (!profile.setDimensions(name.c_str(), OptProfileSelector::kMIN, minDims)
            || !profile.setDimensions(name.c_str(), OptProfileSelector::kOPT, optDims)
            || !profile.setDimensions(name.c_str(), OptProfileSelector::kMAX, maxDims))
        {
            error = "kilnexec: profile " + std::to_string(index) + " refused the shapes of input '" + name
                + "' (see the messages above)";
            return false;
        }
    }
    return true;
}

int addProfiles(nvinfer1::IBuilder& builder, nvinfer1::INetworkDefinition& network, nvinfer1::IBuilderConfig& config,
    Options const& options, nvinfer1::ILogger& logger, std::string& error)
{
    std::map<std::string, Dims> inputs;
    bool dynamic = false;
    for (int32_t i = 0; i < network.getNbInputs(); ++i)
    {
        nvinfer1::ITensor* input = network.getInput(i);
        inputs[input->getName()] = input->getDimensions();
        dynamic = dynamic || volume(input->getDimensions()) < 0;
        if (input->isShapeTensor())
        {
            error = std::string("kilnexec: input '") + input->getName()
                + "' is a shape tensor; kilnexec does not build profiles for shape-tensor inputs yet";
            return kEXIT_FAILED;
        }
    }
    std::vector<ProfileShapes> profiles;
    for (ProfileShapes const& p : options.profiles)
    {
        if (p.hasMin || p.hasOpt || p.hasMax)
        {
            profiles.push_back(p);
        }
    }
    if (profiles.empty() && !options.shapes.empty())
    {
        ProfileShapes p;
        p.min = p.opt = p.max = options.shapes; // --shapes alone: min = opt = max
        profiles.push_back(p);
    }
    if (!checkNames(options.shapes, "shapes", inputs, error))
    {
        return kEXIT_USAGE;
    }
    for (ProfileShapes const& p : profiles)
    {
        if (!checkNames(p.min, "minShapes", inputs, error) || !checkNames(p.opt, "optShapes", inputs, error)
            || !checkNames(p.max, "maxShapes", inputs, error))
        {
            return kEXIT_USAGE;
        }
    }
    if (!dynamic)
    {
        if (profiles.size() > 1 || (!options.profiles.empty() && profiles.size() == 1))
        {
            logger.log(nvinfer1::ILogger::Severity::kWARNING,
                "the network has only static inputs; the shape flags are ignored and the engine has one profile");
        }
        return kEXIT_PASSED;
    }
    if (profiles.empty())
    {
        profiles.emplace_back();
    }
    for (size_t i = 0; i < profiles.size(); ++i)
    {
        nvinfer1::IOptimizationProfile* profile = builder.createOptimizationProfile();
        if (profile == nullptr
            || !fillProfile(*profile, profiles[i], static_cast<int32_t>(i), inputs, logger, error))
        {
            error = error.empty() ? "kilnexec: createOptimizationProfile failed" : error;
            return kEXIT_FAILED;
        }
        if (config.addOptimizationProfile(profile) < 0)
        {
            error = "kilnexec: the builder refused optimization profile " + std::to_string(i)
                + " (see the messages above)";
            return kEXIT_FAILED;
        }
    }
    return kEXIT_PASSED;
}

//! --int8 without calibration data: trtexec gives every tensor without a range a placeholder dynamic range (it
//! measures nothing); Kiln does the same and says so, since such an engine's INT8 numbers are meaningless.
void setPlaceholderRanges(nvinfer1::INetworkDefinition& network, nvinfer1::ILogger& logger)
{
    int32_t count = 0;
    auto apply = [&](nvinfer1::ITensor* tensor, float range) {
        KILN_IGNORE_DEPRECATED_BEGIN
        if (tensor != nullptr && !tensor->dynamicRangeIsSet() && tensor->setDynamicRange(-range, range))
        {
            ++count;
        }
        KILN_IGNORE_DEPRECATED_END
    };
    for (int32_t i = 0; i < network.getNbInputs(); ++i)
    {
        apply(network.getInput(i), 2.0F);
    }
    for (int32_t l = 0; l < network.getNbLayers(); ++l)
    {
        nvinfer1::ILayer* layer = network.getLayer(l);
        for (int32_t o = 0; o < layer->getNbOutputs(); ++o)
        {
            apply(layer->getOutput(o), 4.0F);
        }
    }
    logger.log(nvinfer1::ILogger::Severity::kWARNING,
        ("--int8 without calibration: " + std::to_string(count)
            + " tensors got placeholder dynamic ranges (inputs [-2, 2], others [-4, 4]), as trtexec does; the "
              "engine's INT8 accuracy is not meaningful (the CPU backend computes INT8-flagged layers in FP32 "
              "unless a layer's precision is set)")
            .c_str());
}

bool configure(nvinfer1::IBuilderConfig& config, nvinfer1::INetworkDefinition& network, Options const& options,
    nvinfer1::ILogger& logger, std::string& error)
{
    using nvinfer1::BuilderFlag;
    // The weak-typing precision flags are deprecated in TensorRT 10 (strong typing replaces them); trtexec keeps
    // offering them, and so does kilnexec. --stronglyTyped with one of them is refused when the options are read.
    KILN_IGNORE_DEPRECATED_BEGIN
    if (!options.stronglyTyped)
    {
        if (options.fp16 || options.best)
        {
            config.setFlag(BuilderFlag::kFP16);
        }
        if (options.bf16 || options.best)
        {
            config.setFlag(BuilderFlag::kBF16);
        }
        if (options.int8 || options.best)
        {
            config.setFlag(BuilderFlag::kINT8);
            setPlaceholderRanges(network, logger);
        }
    }
    KILN_IGNORE_DEPRECATED_END
    if (options.noTF32)
    {
        config.clearFlag(BuilderFlag::kTF32);
    }
    std::map<std::string, nvinfer1::MemoryPoolType> const pools = {{"workspace", nvinfer1::MemoryPoolType::kWORKSPACE},
        {"dlaSRAM", nvinfer1::MemoryPoolType::kDLA_MANAGED_SRAM},
        {"dlaLocalDRAM", nvinfer1::MemoryPoolType::kDLA_LOCAL_DRAM},
        {"dlaGlobalDRAM", nvinfer1::MemoryPoolType::kDLA_GLOBAL_DRAM},
        {"tacticSharedMem", nvinfer1::MemoryPoolType::kTACTIC_SHARED_MEMORY}};
    for (auto const& [pool, bytes] : options.memPools)
    {
        if (pool != "workspace")
        {
            logger.log(nvinfer1::ILogger::Severity::kWARNING,
                ("--memPoolSize: pool '" + pool + "' has no meaning on the CPU backend; ignored").c_str());
            continue;
        }
        // The setter is void (TensorRT's API): a refused value is reported to the logger and the limit kept, so
        // read it back rather than build with another limit than the one asked for.
        config.setMemoryPoolLimit(pools.at(pool), static_cast<size_t>(bytes));
        if (config.getMemoryPoolLimit(pools.at(pool)) != static_cast<size_t>(bytes))
        {
            error = "kilnexec: --memPoolSize: the builder refused " + std::to_string(bytes) + " bytes for pool '" + pool
                + "' (see the messages above)";
            return false;
        }
    }
    if (!options.pluginsToSerialize.empty())
    {
        std::vector<char const*> paths;
        for (std::string const& path : options.pluginsToSerialize)
        {
            if (access(path.c_str(), R_OK) != 0)
            {
                error = "kilnexec: --setPluginsToSerialize: cannot read '" + path + "': " + std::strerror(errno);
                return false;
            }
            paths.push_back(path.c_str());
        }
        config.setPluginsToSerialize(paths.data(), static_cast<int32_t>(paths.size()));
        if (config.getNbPluginsToSerialize() != static_cast<int32_t>(paths.size()))
        {
            error = "kilnexec: --setPluginsToSerialize: the builder refused the list (see the messages above)";
            return false;
        }
    }
    std::string verbosity = options.profilingVerbosity;
    if (verbosity.empty())
    {
        // trtexec's default is layer names only; layer information needs the detail, so ask for it then.
        verbosity = options.dumpLayerInfo || !options.exportLayerInfo.empty() ? "detailed" : "layer_names_only";
    }
    config.setProfilingVerbosity(verbosity == "detailed" ? nvinfer1::ProfilingVerbosity::kDETAILED
            : verbosity == "none"                        ? nvinfer1::ProfilingVerbosity::kNONE
                                                         : nvinfer1::ProfilingVerbosity::kLAYER_NAMES_ONLY);
    return true;
}

} // namespace

int buildEngine(Options const& options, nvinfer1::ILogger& logger, std::vector<char>& plan, std::string& error)
{
    {
        std::ifstream probe(options.onnxFile, std::ios::binary);
        if (!probe)
        {
            error = "kilnexec: cannot open --onnx model '" + options.onnxFile + "': " + std::strerror(errno);
            return kEXIT_FAILED;
        }
    }
    std::unique_ptr<nvinfer1::IBuilder> builder(nvinfer1::createInferBuilder(logger));
    if (builder == nullptr)
    {
        error = "kilnexec: createInferBuilder failed";
        return kEXIT_FAILED;
    }
    nvinfer1::NetworkDefinitionCreationFlags const flags = options.stronglyTyped
        ? 1U << static_cast<uint32_t>(nvinfer1::NetworkDefinitionCreationFlag::kSTRONGLY_TYPED)
        : 0U;
    std::unique_ptr<nvinfer1::INetworkDefinition> network(builder->createNetworkV2(flags));
    std::unique_ptr<nvinfer1::IBuilderConfig> config(builder->createBuilderConfig());
    if (network == nullptr || config == nullptr)
    {
        error = "kilnexec: could not create the network definition or builder config (see the messages above)";
        return kEXIT_FAILED;
    }
    std::unique_ptr<nvonnxparser::IParser> parser(nvonnxparser::createParser(*network, logger));
    if (parser == nullptr)
    {
        error = "kilnexec: nvonnxparser::createParser failed";
        return kEXIT_FAILED;
    }
    std::printf("[I] Start parsing network model.\n");
    auto const parseStart = std::chrono::steady_clock::now();
    int const verbosity = static_cast<int>(
        options.verbose ? nvinfer1::ILogger::Severity::kVERBOSE : nvinfer1::ILogger::Severity::kWARNING);
    if (!parser->parseFromFile(options.onnxFile.c_str(), verbosity))
    {
        int const nbErrors = parser->getNbErrors();
        for (int i = 0; i < nbErrors; ++i)
        {
            nvonnxparser::IParserError const* e = parser->getError(i);
            std::fprintf(stderr, "[E] [parser] node %d (%s) op %s: %s\n", e->node(),
                e->nodeName() != nullptr && *e->nodeName() != '\0' ? e->nodeName() : "-",
                e->nodeOperator() != nullptr && *e->nodeOperator() != '\0' ? e->nodeOperator() : "-", e->desc());
        }
        error = "kilnexec: failed to parse ONNX model '" + options.onnxFile + "' (" + std::to_string(nbErrors)
            + " parser error" + (nbErrors == 1 ? "" : "s") + " above)";
        return kEXIT_FAILED;
    }
    std::printf("[I] Finished parsing network model. Parse time: %.6g s\n",
        std::chrono::duration<double>(std::chrono::steady_clock::now() - parseStart).count());
    std::printf("[I] Network: %d inputs, %d outputs, %d layers\n", network->getNbInputs(), network->getNbOutputs(),
        network->getNbLayers());

    if (!configure(*config, *network, options, logger, error))
    {
        return kEXIT_USAGE;
    }
    // Kiln extension (include/kiln/KilnBackend.h): the backend the engine is built for.
    if (!kiln::setBuilderBackend(config.get(), options.backend))
    {
        error = std::string("kilnexec: the builder refused the backend '") + backendName(options.backend)
            + "' (see the messages above)";
        return kEXIT_FAILED;
    }
    if (int const code = addProfiles(*builder, *network, *config, options, logger, error); code != kEXIT_PASSED)
    {
        return code;
    }
    if (options.noBuilderCache)
    {
        config->setFlag(nvinfer1::BuilderFlag::kDISABLE_TIMING_CACHE);
    }
    std::unique_ptr<nvinfer1::ITimingCache> timingCache;
    if (!options.timingCacheFile.empty() && !options.noBuilderCache)
    {
        std::vector<char> blob;
        if (std::ifstream file(options.timingCacheFile, std::ios::binary); file)
        {
            blob.assign(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
        }
        timingCache.reset(config->createTimingCache(blob.data(), blob.size()));
        if (timingCache == nullptr || !config->setTimingCache(*timingCache, false))
        {
            error = "kilnexec: --timingCacheFile: '" + options.timingCacheFile + "' is not a timing cache Kiln can read "
                "(see the messages above)";
            return kEXIT_FAILED;
        }
        std::printf("[I] Timing cache %s: %lld entries\n", blob.empty() ? "created" : "loaded",
            static_cast<long long>(timingCache->queryKeys(nullptr, 0)));
    }
    ProgressBar progress(stdout, isatty(STDOUT_FILENO) != 0);
    config->setProgressMonitor(&progress);
    auto const buildStart = std::chrono::steady_clock::now();
    std::unique_ptr<nvinfer1::IHostMemory> serialized(builder->buildSerializedNetwork(*network, *config));
    config->setProgressMonitor(nullptr);
    if (serialized == nullptr || serialized->size() == 0)
    {
        error = "kilnexec: the engine build failed (see the messages above)";
        return kEXIT_FAILED;
    }
    double const seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - buildStart).count();
    plan.assign(static_cast<char const*>(serialized->data()), static_cast<char const*>(serialized->data()) + serialized->size());
    std::printf("[I] Engine built in %.6g sec.\n", seconds);
    if (timingCache != nullptr)
    {
        std::unique_ptr<nvinfer1::IHostMemory> blob(timingCache->serialize());
        std::ofstream file(options.timingCacheFile, std::ios::binary | std::ios::trunc);
        if (blob != nullptr)
        {
            file.write(static_cast<char const*>(blob->data()), static_cast<std::streamsize>(blob->size()));
        }
        file.close();
        if (blob == nullptr || !file)
        {
            error = "kilnexec: --timingCacheFile: cannot write '" + options.timingCacheFile + "': " + std::strerror(errno);
            return kEXIT_FAILED;
        }
        std::printf("[I] Timing cache saved to %s (%lld entries)\n", options.timingCacheFile.c_str(),
            static_cast<long long>(timingCache->queryKeys(nullptr, 0)));
    }
    std::printf("[I] Created engine with size: %.6g MiB\n", static_cast<double>(plan.size()) / (1024.0 * 1024.0));
    if (!options.saveEngine.empty())
    {
        std::ofstream file(options.saveEngine, std::ios::binary | std::ios::trunc);
        file.write(plan.data(), static_cast<std::streamsize>(plan.size()));
        file.close();
        if (!file)
        {
            error = "kilnexec: --saveEngine: cannot write '" + options.saveEngine + "': " + std::strerror(errno);
            return kEXIT_FAILED;
        }
        std::printf("[I] Engine saved to %s\n", options.saveEngine.c_str());
    }
    std::fflush(stdout);
    return kEXIT_PASSED;
}

} // namespace kilnexec
