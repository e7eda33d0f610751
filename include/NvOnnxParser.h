// NvOnnxParser.h — Kiln's implementation of TensorRT's ONNX parser API (namespace nvonnxparser), declared with
// TensorRT 10.16's names, enum values and method order. The parser fills an INetworkDefinition from an ONNX model;
// nodes whose op has no built-in importer are served by registered plugin creators (see docs/onnx.md).
#ifndef NV_ONNX_PARSER_H
#define NV_ONNX_PARSER_H

#include "NvInfer.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#define NV_ONNX_PARSER_MAJOR 0
#define NV_ONNX_PARSER_MINOR 1
#define NV_ONNX_PARSER_PATCH 0

static constexpr int32_t NV_ONNX_PARSER_VERSION
    = ((NV_ONNX_PARSER_MAJOR * 10000) + (NV_ONNX_PARSER_MINOR * 100) + NV_ONNX_PARSER_PATCH);

//! One partition of an ONNX graph: the indices of its nodes and whether the parser supports all of them.
typedef std::pair<std::vector<size_t>, bool> SubGraph_t;

//! Every partition of an ONNX graph, in graph order.
typedef std::vector<SubGraph_t> SubGraphCollection_t;

namespace nvonnxparser
{

template <typename T>
constexpr inline int32_t EnumMax() noexcept;

//! Category of a parser error.
enum class ErrorCode : int
{
    kSUCCESS = 0,
    kINTERNAL_ERROR = 1,
    kMEM_ALLOC_FAILED = 2,
    kMODEL_DESERIALIZE_FAILED = 3,
    kINVALID_VALUE = 4,
    kINVALID_GRAPH = 5,
    kINVALID_NODE = 6,
    kUNSUPPORTED_GRAPH = 7,
    kUNSUPPORTED_NODE = 8,
    kUNSUPPORTED_NODE_ATTR = 9,
    kUNSUPPORTED_NODE_INPUT = 10,
    kUNSUPPORTED_NODE_DATATYPE = 11,
    kUNSUPPORTED_NODE_DYNAMIC = 12,
    kUNSUPPORTED_NODE_SHAPE = 13,
    kREFIT_FAILED = 14
};

template <>
constexpr inline int32_t EnumMax<ErrorCode>() noexcept
{
    return 15;
}

//! A set of OnnxParserFlag values, one bit per flag (1U << flag).
using OnnxParserFlags = uint32_t;

enum class OnnxParserFlag : int32_t
{
    //! Import InstanceNormalization as a native normalization layer (Kiln always does; the flag is accepted).
    kNATIVE_INSTANCENORM = 0,
    //! DLA only: allow UINT8 and asymmetric Q/DQ. Kiln has no DLA; the flag is accepted and has no effect.
    kENABLE_UINT8_AND_ASYMMETRIC_QUANTIZATION_DLA = 1,
    //! DLA only: report capability for DLA. Accepted, no effect in Kiln.
    kREPORT_CAPABILITY_DLA = 2,
    //! Look up a registered plugin creator for every node, even when the op has a built-in importer.
    kENABLE_PLUGIN_OVERRIDE = 3,
    //! DLA only: adjust the network for DLA. Accepted, no effect in Kiln.
    kADJUST_FOR_DLA = 4,
};

template <>
constexpr inline int32_t EnumMax<OnnxParserFlag>() noexcept
{
    return 5;
}

//! One error recorded by the parser: what went wrong and at which ONNX node.
class IParserError
{
public:
    //! The error category.
    virtual ErrorCode code() const = 0;
    //! A description naming the node, operator, tensor or attribute at fault.
    virtual char const* desc() const = 0;
    //! The Kiln source file that detected the error.
    virtual char const* file() const = 0;
    //! The line in file().
    virtual int line() const = 0;
    //! The Kiln function that detected the error.
    virtual char const* func() const = 0;
    //! Index of the ONNX node in the main graph, or -1 for model-level errors.
    virtual int node() const = 0;
    //! Name of that node ("" when it has none).
    virtual char const* nodeName() const = 0;
    //! Its op_type.
    virtual char const* nodeOperator() const = 0;
    //! Names of the local functions enclosing the node, outermost first; nullptr at top level.
    virtual char const* const* localFunctionStack() const = 0;
    //! Number of entries in localFunctionStack().
    virtual int32_t localFunctionStackSize() const = 0;

protected:
    virtual ~IParserError() {}
};

//! Converts one ONNX model into the INetworkDefinition given to createParser(). Not meant to be subclassed.
class IParser
{
public:
    //! Parse a serialized model. model_path, when given, is the model file's path and locates external data.
    virtual bool parse(
        void const* serialized_onnx_model, size_t serialized_onnx_model_size, const char* model_path = nullptr) noexcept
        = 0;

    //! Read and parse a model file; verbosity is an ILogger::Severity level for the parser's own messages.
    virtual bool parseFromFile(const char* onnxModelFile, int verbosity) noexcept = 0;

    //! Deprecated (TensorRT 10.1): partition the model into supported and unsupported node sets.
    TRT_DEPRECATED virtual bool supportsModel(void const* serialized_onnx_model, size_t serialized_onnx_model_size,
        SubGraphCollection_t& sub_graph_collection, const char* model_path = nullptr) noexcept = 0;

    //! Deprecated (TensorRT 10.13): parse, keeping initializers' weights owned by the parser.
    TRT_DEPRECATED virtual bool parseWithWeightDescriptors(
        void const* serialized_onnx_model, size_t serialized_onnx_model_size) noexcept = 0;

    //! Whether an op_type has a built-in importer or a registered plugin creator (may give false positives).
    virtual bool supportsOperator(const char* op_name) const noexcept = 0;

    //! Number of errors recorded since the last clearErrors().
    virtual int getNbErrors() const noexcept = 0;

    //! Error `index`, or nullptr when out of range.
    virtual IParserError const* getError(int index) const noexcept = 0;

    //! Forget the recorded errors.
    virtual void clearErrors() noexcept = 0;

    virtual ~IParser() noexcept = default;

    //! Plugin libraries whose creators served nodes of the parsed model (to pass to setPluginsToSerialize).
    virtual char const* const* getUsedVCPluginLibraries(int64_t& nbPluginLibs) const noexcept = 0;

    //! Replace all parser flags.
    virtual void setFlags(OnnxParserFlags onnxParserFlags) noexcept = 0;

    //! The parser flags (default: 1U << kNATIVE_INSTANCENORM).
    virtual OnnxParserFlags getFlags() const noexcept = 0;

    //! Clear one flag.
    virtual void clearFlag(OnnxParserFlag onnxParserFlag) noexcept = 0;

    //! Set one flag.
    virtual void setFlag(OnnxParserFlag onnxParserFlag) noexcept = 0;

    //! Whether a flag is set.
    virtual bool getFlag(OnnxParserFlag onnxParserFlag) const noexcept = 0;

    //! Output i of the first node named `name`, or nullptr.
    virtual nvinfer1::ITensor const* getLayerOutputTensor(char const* name, int64_t i) noexcept = 0;

    //! Partition the model into supported and unsupported node sets; see getNbSubgraphs() and friends.
    virtual bool supportsModelV2(
        void const* serializedOnnxModel, size_t serializedOnnxModelSize, char const* modelPath = nullptr) noexcept = 0;

    //! Number of partitions found by supportsModelV2().
    virtual int64_t getNbSubgraphs() noexcept = 0;

    //! Whether partition `index` is supported.
    virtual bool isSubgraphSupported(int64_t const index) noexcept = 0;

    //! Node indices of partition `index` (owned by the parser); subgraphLength receives their count.
    virtual int64_t* getSubgraphNodes(int64_t const index, int64_t& subgraphLength) noexcept = 0;

    //! Load a model without converting it, so that loadInitializer() can supply weights first.
    virtual bool loadModelProto(
        void const* serializedOnnxModel, size_t serializedOnnxModelSize, char const* modelPath = nullptr) noexcept = 0;

    //! Supply the bytes of initializer `name` of the loaded model (the memory must outlive the parse).
    virtual bool loadInitializer(char const* name, void const* data, size_t size) noexcept = 0;

    //! Convert the model loaded by loadModelProto().
    virtual bool parseModelProto() noexcept = 0;

    //! Give the parser the builder configuration the network will be built with (may be nullptr).
    virtual bool setBuilderConfig(nvinfer1::IBuilderConfig const* const builderConfig) noexcept = 0;
};

//! Refits engine weights from an ONNX model. Kiln does not support refit yet: every call fails with an error.
class IParserRefitter
{
public:
    virtual bool refitFromBytes(
        void const* serializedOnnxModel, size_t serializedOnnxModelSize, char const* modelPath = nullptr) noexcept
        = 0;
    virtual bool refitFromFile(char const* onnxModelFile) noexcept = 0;
    virtual int32_t getNbErrors() const noexcept = 0;
    virtual IParserError const* getError(int32_t index) const noexcept = 0;
    virtual void clearErrors() = 0;
    virtual ~IParserRefitter() noexcept = default;
    virtual bool loadModelProto(
        void const* serializedOnnxModel, size_t serializedOnnxModelSize, char const* modelPath = nullptr) noexcept = 0;
    virtual bool loadInitializer(char const* name, void const* data, size_t size) noexcept = 0;
    virtual bool refitModelProto() noexcept = 0;
};

} // namespace nvonnxparser

extern "C" TENSORRTAPI void* createNvOnnxParser_INTERNAL(void* network, void* logger, int version) noexcept;
extern "C" TENSORRTAPI void* createNvOnnxParserRefitter_INTERNAL(
    void* refitter, void* logger, int32_t version) noexcept;
extern "C" TENSORRTAPI int getNvOnnxParserVersion() noexcept;

namespace nvonnxparser
{
namespace
{

//! Create a parser that writes into `network` and reports through `logger`. One parser parses one model.
inline IParser* createParser(nvinfer1::INetworkDefinition& network, nvinfer1::ILogger& logger) noexcept
{
    return static_cast<IParser*>(createNvOnnxParser_INTERNAL(&network, &logger, NV_ONNX_PARSER_VERSION));
}

//! Create a refitter (refit is not supported by Kiln yet; its methods fail with an error).
inline IParserRefitter* createParserRefitter(nvinfer1::IRefitter& refitter, nvinfer1::ILogger& logger) noexcept
{
    return static_cast<IParserRefitter*>(
        createNvOnnxParserRefitter_INTERNAL(&refitter, &logger, NV_ONNX_PARSER_VERSION));
}

} // namespace
} // namespace nvonnxparser

#endif // NV_ONNX_PARSER_H
