// Parser: Kiln's nvonnxparser::IParser (see parser.h).
#include "onnx/parser.h"

#include "onnx/constantFolding.h"
#include "onnx/opImporters.h"
#include "onnx/pluginFallback.h"

#include <algorithm>
#include <exception>
#include <filesystem>
#include <new>

namespace kiln
{

using nvonnxparser::ErrorCode;

namespace
{

std::string directoryOf(char const* path)
{
    if (path == nullptr || *path == '\0')
    {
        return "";
    }
    std::filesystem::path p(path);
    std::string dir = p.parent_path().string();
    return dir.empty() ? std::string(".") : dir;
}

//! "node 'name' (Op)" / "node #i (Op)", the prefix importers put on their messages.
std::string nodePrefix(ImportFailure const& f)
{
    return f.nodeName.empty() ? "node #" + std::to_string(f.node) + " (" + f.nodeOperator + ")"
                              : "node '" + f.nodeName + "' (" + f.nodeOperator + ")";
}

//! Forwards the parser's own messages up to a verbosity level (errors always pass).
class VerbosityFilter : public nvinfer1::ILogger
{
public:
    VerbosityFilter(nvinfer1::ILogger* target, int verbosity)
        : mTarget(target)
        , mVerbosity(verbosity)
    {
    }
    void log(Severity severity, char const* msg) noexcept override
    {
        if (mTarget != nullptr && (static_cast<int>(severity) <= mVerbosity || severity <= Severity::kERROR))
        {
            mTarget->log(severity, msg);
        }
    }

private:
    nvinfer1::ILogger* mTarget;
    int mVerbosity;
};

//! Loader failures: unreadable bytes/files are kMODEL_DESERIALIZE_FAILED; a model that parses but lacks what every
//! model needs (ir_version, opset_import, graph, resolvable external data) is kINVALID_GRAPH.
ErrorCode loadErrorCode(std::string const& message)
{
    for (char const* structural : {"has no ir_version", "has no opset_import", "has no graph", "opset_import of domain",
             "external data", "external initializers"})
    {
        if (message.find(structural) != std::string::npos)
        {
            return ErrorCode::kINVALID_GRAPH;
        }
    }
    return ErrorCode::kMODEL_DESERIALIZE_FAILED;
}

} // namespace

Parser::Parser(nvinfer1::INetworkDefinition& network, nvinfer1::ILogger* logger)
    : mNetwork(network)
    , mLogger(logger)
{
}

template <typename F>
bool Parser::guarded(char const* func, F&& body) noexcept
{
    try
    {
        return body();
    }
    catch (std::bad_alloc const&)
    {
        addModelError(ErrorCode::kMEM_ALLOC_FAILED, std::string(func) + ": out of memory", func, __LINE__);
    }
    catch (std::exception const& e)
    {
        addModelError(ErrorCode::kINTERNAL_ERROR, std::string(func) + ": unexpected exception: " + e.what(), func,
            __LINE__);
    }
    catch (...)
    {
        addModelError(ErrorCode::kINTERNAL_ERROR, std::string(func) + ": unknown exception", func, __LINE__);
    }
    return false;
}

void Parser::log(nvinfer1::ILogger::Severity severity, std::string const& message) const
{
    if (mLogger == nullptr || static_cast<int>(severity) > mVerbosity)
    {
        return;
    }
    try
    {
        mLogger->log(severity, message.c_str());
    }
    catch (...)
    {
    }
}

void Parser::addError(ImportFailure const& failure)
{
    try
    {
        std::string line;
        if (failure.node >= 0)
        {
            std::string const prefix = nodePrefix(failure);
            std::string reason = failure.desc;
            if (reason.rfind(prefix + ": ", 0) == 0)
            {
                reason = reason.substr(prefix.size() + 2);
            }
            line = "ONNX " + prefix + ": " + reason;
        }
        else
        {
            line = "ONNX parser: " + failure.desc;
        }
        // Errors are always logged, whatever the verbosity.
        if (mLogger != nullptr)
        {
            mLogger->log(nvinfer1::ILogger::Severity::kERROR, line.c_str());
        }
        mErrors.push_back(std::make_unique<ParserError>(failure.code, failure.desc, __FILE__, failure.line,
            failure.func, failure.node, failure.nodeName, failure.nodeOperator));
    }
    catch (...)
    {
    }
}

void Parser::addModelError(ErrorCode code, std::string const& desc, char const* func, int line)
{
    ImportFailure f;
    f.code = code;
    f.desc = desc;
    f.func = func;
    f.line = line;
    addError(f);
}

bool Parser::load(void const* data, size_t size, char const* modelPath, char const* func)
{
    mModel.reset();
    mInitializerOverrides.clear();
    if (data == nullptr || size == 0)
    {
        addModelError(ErrorCode::kMODEL_DESERIALIZE_FAILED, "the serialized model is empty", func, __LINE__);
        return false;
    }
    auto loaded = loadOnnxModelFromMemory(data, size, directoryOf(modelPath));
    if (!loaded.isOk())
    {
        addModelError(loadErrorCode(loaded.status().message()), loaded.status().message(), func, __LINE__);
        return false;
    }
    mModel = std::move(loaded).value();
    return true;
}

GraphImportOptions Parser::makeOptions(bool recordLibraries)
{
    GraphImportOptions options;
    options.initializerOverrides = mInitializerOverrides;
    options.fallback = [this, recordLibraries](ImporterContextImpl& ctx, ::onnx::NodeProto const& node,
                           std::vector<OnnxValue>& outputs, bool& handled) {
        PluginFallbackResult result;
        Status st = importWithPlugin(ctx, node, outputs, result);
        handled = result.handled;
        for (auto const& library : recordLibraries ? result.libraries : std::vector<std::string>{})
        {
            if (std::find(mPluginLibraries.begin(), mPluginLibraries.end(), library) == mPluginLibraries.end())
            {
                mPluginLibraries.push_back(library);
            }
        }
        return st;
    };
    options.fallbackFirst = getFlag(nvonnxparser::OnnxParserFlag::kENABLE_PLUGIN_OVERRIDE);
    return options;
}

bool Parser::importLoaded(char const* func)
{
    if (!mModel)
    {
        addModelError(ErrorCode::kINVALID_GRAPH, "no model is loaded (call loadModelProto first)", func, __LINE__);
        return false;
    }
    ErrorCode code = ErrorCode::kSUCCESS;
    VerbosityFilter filtered(mLogger, mVerbosity);
    auto opsets = checkOpsets(mModel->model(), &filtered, code);
    if (!opsets.isOk())
    {
        addModelError(code, opsets.status().message(), func, __LINE__);
        return false;
    }
    GraphImportOptions options = makeOptions(true);
    FoldedConstants const folded = foldConstants(*mModel, options, &filtered);
    if (folded.nbFolded > 0)
    {
        options.foldedValues = &folded.values;
        options.skipNodes = &folded.folded;
    }
    GraphImportResult result;
    ImportFailure failure;
    bool const ok = importGraph(*mModel, mNetwork, &filtered, mWeights, options, result, failure);
    for (auto& [name, tensors] : result.nodeOutputs)
    {
        mNodeOutputs.emplace(name, tensors);
    }
    if (!ok)
    {
        addError(failure);
        return false;
    }
    log(nvinfer1::ILogger::Severity::kINFO,
        "ONNX parser: imported " + std::to_string(mModel->model().graph().node_size()) + " nodes of graph '"
            + mModel->model().graph().name() + "' (ai.onnx opset "
            + (opsets->count("") != 0U ? std::to_string(opsets->at("")) : std::string("none")) + ")");
    mPluginLibraryPtrs.clear();
    for (auto const& library : mPluginLibraries)
    {
        mPluginLibraryPtrs.push_back(library.c_str());
    }
    return true;
}

bool Parser::parse(void const* serializedOnnxModel, size_t serializedOnnxModelSize, char const* modelPath) noexcept
{
    return guarded("parse", [&] {
        return load(serializedOnnxModel, serializedOnnxModelSize, modelPath, "parse") && importLoaded("parse");
    });
}

bool Parser::parseFromFile(char const* onnxModelFile, int verbosity) noexcept
{
    return guarded("parseFromFile", [&] {
        mVerbosity = verbosity;
        mModel.reset();
        mInitializerOverrides.clear();
        if (onnxModelFile == nullptr)
        {
            addModelError(ErrorCode::kMODEL_DESERIALIZE_FAILED, "parseFromFile: the file name is null",
                "parseFromFile", __LINE__);
            return false;
        }
        auto loaded = loadOnnxModelFromFile(onnxModelFile);
        if (!loaded.isOk())
        {
            addModelError(loadErrorCode(loaded.status().message()), loaded.status().message(), "parseFromFile", __LINE__);
            return false;
        }
        mModel = std::move(loaded).value();
        log(nvinfer1::ILogger::Severity::kINFO, std::string("ONNX parser: loaded '") + onnxModelFile + "' (IR version "
                + std::to_string(mModel->model().ir_version()) + ", producer '" + mModel->model().producer_name()
                + "')");
        return importLoaded("parseFromFile");
    });
}

bool Parser::parseWithWeightDescriptors(void const* serializedOnnxModel, size_t serializedOnnxModelSize) noexcept
{
    // The parser always owns the weights it imports, so this is parse() without a model path.
    return parse(serializedOnnxModel, serializedOnnxModelSize, nullptr);
}

bool Parser::supportsOperator(char const* opName) const noexcept
{
    try
    {
        if (opName == nullptr)
        {
            return false;
        }
        return findOpImporter(opName, "") != nullptr || pluginCreatorExists(mNetwork, opName);
    }
    catch (...)
    {
        return false;
    }
}

int Parser::getNbErrors() const noexcept
{
    return static_cast<int>(mErrors.size());
}

nvonnxparser::IParserError const* Parser::getError(int index) const noexcept
{
    if (index < 0 || index >= static_cast<int>(mErrors.size()))
    {
        return nullptr;
    }
    return mErrors[static_cast<size_t>(index)].get();
}

void Parser::clearErrors() noexcept
{
    mErrors.clear();
}

char const* const* Parser::getUsedVCPluginLibraries(int64_t& nbPluginLibs) const noexcept
{
    nbPluginLibs = static_cast<int64_t>(mPluginLibraryPtrs.size());
    return mPluginLibraryPtrs.empty() ? nullptr : mPluginLibraryPtrs.data();
}

void Parser::setFlags(nvonnxparser::OnnxParserFlags onnxParserFlags) noexcept
{
    mFlags = onnxParserFlags;
}

nvonnxparser::OnnxParserFlags Parser::getFlags() const noexcept
{
    return mFlags;
}

void Parser::clearFlag(nvonnxparser::OnnxParserFlag onnxParserFlag) noexcept
{
    mFlags &= ~(1U << static_cast<uint32_t>(onnxParserFlag));
}

void Parser::setFlag(nvonnxparser::OnnxParserFlag onnxParserFlag) noexcept
{
    mFlags |= 1U << static_cast<uint32_t>(onnxParserFlag);
}

bool Parser::getFlag(nvonnxparser::OnnxParserFlag onnxParserFlag) const noexcept
{
    return (mFlags & (1U << static_cast<uint32_t>(onnxParserFlag))) != 0;
}

nvinfer1::ITensor const* Parser::getLayerOutputTensor(char const* name, int64_t i) noexcept
{
    try
    {
        if (name == nullptr)
        {
            return nullptr;
        }
        auto const it = mNodeOutputs.find(name);
        if (it == mNodeOutputs.end() || i < 0 || i >= static_cast<int64_t>(it->second.size()))
        {
            return nullptr;
        }
        return it->second[static_cast<size_t>(i)];
    }
    catch (...)
    {
        return nullptr;
    }
}

bool Parser::supportsModel(void const* serializedOnnxModel, size_t serializedOnnxModelSize,
    SubGraphCollection_t& subGraphCollection, char const* modelPath) noexcept
{
    return guarded("supportsModel", [&] {
        subGraphCollection.clear();
        if (!load(serializedOnnxModel, serializedOnnxModelSize, modelPath, "supportsModel"))
        {
            return false;
        }
        return partition(subGraphCollection);
    });
}

bool Parser::supportsModelV2(void const* serializedOnnxModel, size_t serializedOnnxModelSize,
    char const* modelPath) noexcept
{
    return guarded("supportsModelV2", [&] {
        mSubGraphs.clear();
        if (!load(serializedOnnxModel, serializedOnnxModelSize, modelPath, "supportsModelV2"))
        {
            return false;
        }
        return partition(mSubGraphs);
    });
}

int64_t Parser::getNbSubgraphs() noexcept
{
    return static_cast<int64_t>(mSubGraphs.size());
}

bool Parser::isSubgraphSupported(int64_t const index) noexcept
{
    if (index < 0 || index >= static_cast<int64_t>(mSubGraphs.size()))
    {
        return false;
    }
    return mSubGraphs[static_cast<size_t>(index)].second;
}

int64_t* Parser::getSubgraphNodes(int64_t const index, int64_t& subgraphLength) noexcept
{
    subgraphLength = 0;
    try
    {
        if (index < 0 || index >= static_cast<int64_t>(mSubGraphs.size()))
        {
            return nullptr;
        }
        auto const& nodes = mSubGraphs[static_cast<size_t>(index)].first;
        mSubGraphNodes.assign(nodes.begin(), nodes.end());
        subgraphLength = static_cast<int64_t>(mSubGraphNodes.size());
        return mSubGraphNodes.data();
    }
    catch (...)
    {
        return nullptr;
    }
}

bool Parser::loadModelProto(void const* serializedOnnxModel, size_t serializedOnnxModelSize,
    char const* modelPath) noexcept
{
    return guarded("loadModelProto",
        [&] { return load(serializedOnnxModel, serializedOnnxModelSize, modelPath, "loadModelProto"); });
}

bool Parser::loadInitializer(char const* name, void const* data, size_t size) noexcept
{
    return guarded("loadInitializer", [&] {
        if (!mModel)
        {
            addModelError(ErrorCode::kINVALID_GRAPH, "loadInitializer: no model is loaded (call loadModelProto first)",
                "loadInitializer", __LINE__);
            return false;
        }
        if (name == nullptr || (data == nullptr && size != 0))
        {
            addModelError(ErrorCode::kINVALID_VALUE, "loadInitializer: null name or data", "loadInitializer", __LINE__);
            return false;
        }
        for (auto const& init : mModel->model().graph().initializer())
        {
            if (init.name() == name)
            {
                mInitializerOverrides[name] = {data, size};
                return true;
            }
        }
        addModelError(ErrorCode::kINVALID_VALUE,
            std::string("loadInitializer: the model has no initializer named '") + name + "'", "loadInitializer",
            __LINE__);
        return false;
    });
}

bool Parser::parseModelProto() noexcept
{
    return guarded("parseModelProto", [&] { return importLoaded("parseModelProto"); });
}

bool Parser::partition(SubGraphCollection_t& collection)
{
    collection.clear();
    ErrorCode code = ErrorCode::kSUCCESS;
    auto opsets = checkOpsets(mModel->model(), nullptr, code);
    if (!opsets.isOk())
    {
        addModelError(code, opsets.status().message(), "supportsModel", __LINE__);
        return false;
    }
    // Import every node into a scratch network of the same builder, continuing past failures.
    std::unique_ptr<nvinfer1::INetworkDefinition> scratch(mNetwork.getBuilder().createNetworkV2(0));
    if (scratch == nullptr)
    {
        addModelError(ErrorCode::kINTERNAL_ERROR, "supportsModel: cannot create a scratch network", "supportsModel",
            __LINE__);
        return false;
    }
    WeightStore weights;
    GraphImportOptions options = makeOptions(false);
    options.tolerant = true;
    options.markOutputs = false;
    GraphImportResult result;
    ImportFailure failure;
    bool const ok = importGraph(*mModel, *scratch, nullptr, weights, options, result, failure);
    if (!ok && result.failures.empty())
    {
        addError(failure); // a graph-level problem (not a node): nothing is supported
        return false;
    }
    for (auto const& f : result.failures)
    {
        addError(f);
    }
    for (size_t i = 0; i < result.nodeSupported.size(); ++i)
    {
        bool const supported = result.nodeSupported[i];
        if (collection.empty() || collection.back().second != supported)
        {
            collection.emplace_back(std::vector<size_t>{}, supported);
        }
        collection.back().first.push_back(i);
    }
    return ok;
}

bool Parser::setBuilderConfig(nvinfer1::IBuilderConfig const* const builderConfig) noexcept
{
    mBuilderConfig = builderConfig;
    return true;
}

} // namespace kiln
