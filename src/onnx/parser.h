// Parser: Kiln's nvonnxparser::IParser. It loads a model (file, memory, or loadModelProto + loadInitializer),
// imports its main graph into the user's network (graphImporter), records errors as IParserError objects and logs
// them, partitions models for supportsModelV2, and keeps the weights constants point to alive.
#pragma once

#include "NvOnnxParser.h"
#include "onnx/graphImporter.h"
#include "onnx/importerContextImpl.h"
#include "onnx/modelLoader.h"
#include "onnx/parserError.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kiln
{

class Parser : public nvonnxparser::IParser
{
public:
    Parser(nvinfer1::INetworkDefinition& network, nvinfer1::ILogger* logger);
    ~Parser() noexcept override = default;

    bool parse(void const* serializedOnnxModel, size_t serializedOnnxModelSize,
        char const* modelPath = nullptr) noexcept override;
    bool parseFromFile(char const* onnxModelFile, int verbosity) noexcept override;
    bool supportsModel(void const* serializedOnnxModel, size_t serializedOnnxModelSize,
        SubGraphCollection_t& subGraphCollection, char const* modelPath = nullptr) noexcept override;
    bool parseWithWeightDescriptors(void const* serializedOnnxModel, size_t serializedOnnxModelSize) noexcept override;
    bool supportsOperator(char const* opName) const noexcept override;
    int getNbErrors() const noexcept override;
    nvonnxparser::IParserError const* getError(int index) const noexcept override;
    void clearErrors() noexcept override;
    char const* const* getUsedVCPluginLibraries(int64_t& nbPluginLibs) const noexcept override;
    void setFlags(nvonnxparser::OnnxParserFlags onnxParserFlags) noexcept override;
    nvonnxparser::OnnxParserFlags getFlags() const noexcept override;
    void clearFlag(nvonnxparser::OnnxParserFlag onnxParserFlag) noexcept override;
    void setFlag(nvonnxparser::OnnxParserFlag onnxParserFlag) noexcept override;
    bool getFlag(nvonnxparser::OnnxParserFlag onnxParserFlag) const noexcept override;
    nvinfer1::ITensor const* getLayerOutputTensor(char const* name, int64_t i) noexcept override;
    bool supportsModelV2(void const* serializedOnnxModel, size_t serializedOnnxModelSize,
        char const* modelPath = nullptr) noexcept override;
    int64_t getNbSubgraphs() noexcept override;
    bool isSubgraphSupported(int64_t const index) noexcept override;
    int64_t* getSubgraphNodes(int64_t const index, int64_t& subgraphLength) noexcept override;
    bool loadModelProto(void const* serializedOnnxModel, size_t serializedOnnxModelSize,
        char const* modelPath = nullptr) noexcept override;
    bool loadInitializer(char const* name, void const* data, size_t size) noexcept override;
    bool parseModelProto() noexcept override;
    bool setBuilderConfig(nvinfer1::IBuilderConfig const* const builderConfig) noexcept override;

    nvinfer1::IBuilderConfig const* builderConfig() const { return mBuilderConfig; }

private:
    //! Run `body` (returning bool), turning exceptions into recorded errors.
    template <typename F>
    bool guarded(char const* func, F&& body) noexcept;

    void addError(ImportFailure const& failure);
    void addModelError(nvonnxparser::ErrorCode code, std::string const& desc, char const* func, int line);
    //! Load `data` into mModel; records an error and returns false on failure.
    bool load(void const* data, size_t size, char const* modelPath, char const* func);
    //! Import mModel into the user's network.
    bool importLoaded(char const* func);
    //! Partition mModel's nodes into supported / unsupported runs (supportsModel*).
    bool partition(SubGraphCollection_t& collection);
    void log(nvinfer1::ILogger::Severity severity, std::string const& message) const;
    //! Import options for this parser (initializer overrides, plugin fallback). `recordLibraries`: remember the
    //! plugin libraries that serve nodes (not for scratch imports).
    GraphImportOptions makeOptions(bool recordLibraries);

    nvinfer1::INetworkDefinition& mNetwork;
    nvinfer1::ILogger* mLogger;
    int mVerbosity{static_cast<int>(nvinfer1::ILogger::Severity::kVERBOSE)};
    nvonnxparser::OnnxParserFlags mFlags{1U << static_cast<uint32_t>(nvonnxparser::OnnxParserFlag::kNATIVE_INSTANCENORM)};
    nvinfer1::IBuilderConfig const* mBuilderConfig{nullptr};
    std::vector<std::unique_ptr<ParserError>> mErrors;
    std::optional<OnnxModel> mModel;
    std::map<std::string, std::pair<void const*, size_t>> mInitializerOverrides;
    WeightStore mWeights;
    std::map<std::string, std::vector<nvinfer1::ITensor*>> mNodeOutputs;
    SubGraphCollection_t mSubGraphs;
    std::vector<int64_t> mSubGraphNodes;
    std::vector<std::string> mPluginLibraries;
    std::vector<char const*> mPluginLibraryPtrs;
};

} // namespace kiln
