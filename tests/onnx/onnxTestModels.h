// Shared helpers for the ONNX parser tests: build small ModelProtos in C++ (inputs with dynamic dims, initializers,
// nodes with attributes, outputs), serialize them, parse them with nvonnxparser::createParser into a NetworkRunner's
// network, build (with optional optimization profiles) and run on the CPU; or just parse and collect the errors.
#pragma once

#include "NvOnnxParser.h"
#include "common/networkRunner.h"
#include "onnx/onnxConstant.h"

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace kiln::test
{

//! ONNX element type (onnx::TensorProto::DataType value) that stores a Kiln type.
int32_t onnxElemType(nvinfer1::DataType type);

//! Attribute makers for OnnxModelBuilder::addNode.
::onnx::AttributeProto intAttr(std::string const& name, int64_t value);
::onnx::AttributeProto floatAttr(std::string const& name, float value);
::onnx::AttributeProto stringAttr(std::string const& name, std::string const& value);
::onnx::AttributeProto intsAttr(std::string const& name, std::vector<int64_t> const& values);
::onnx::AttributeProto floatsAttr(std::string const& name, std::vector<float> const& values);
::onnx::AttributeProto stringsAttr(std::string const& name, std::vector<std::string> const& values);
::onnx::AttributeProto tensorAttr(std::string const& name, kiln::OnnxConstant const& value);

//! A TensorProto (raw_data, little-endian) holding `value`; kFLOAT stays FLOAT, kHALF FLOAT16, ...
::onnx::TensorProto makeTensorProto(std::string const& name, kiln::OnnxConstant const& value);
//! A host tensor's contents as an OnnxConstant (for initializers made from random data).
kiln::OnnxConstant toConstant(HostTensor const& tensor);

//! Builds a single-graph ModelProto step by step.
class OnnxModelBuilder
{
public:
    //! A model importing ai.onnx `opset` (ir_version 8).
    explicit OnnxModelBuilder(int64_t opset = 17, std::string const& graphName = "test");

    //! Import another domain (e.g. a plugin namespace).
    OnnxModelBuilder& addOpset(std::string const& domain, int64_t version);
    //! A graph input; -1 dims become dim_params ("<name>_d<i>").
    OnnxModelBuilder& addInput(std::string const& name, int32_t elemType, std::vector<int64_t> const& dims);
    OnnxModelBuilder& addInput(std::string const& name, nvinfer1::DataType type, std::vector<int64_t> const& dims)
    {
        return addInput(name, onnxElemType(type), dims);
    }
    OnnxModelBuilder& addInitializer(std::string const& name, kiln::OnnxConstant const& value);
    OnnxModelBuilder& addInitializer(std::string const& name, ::onnx::TensorProto tensor);
    //! A node; returns it so tests can tweak it (name, domain, extra attributes).
    ::onnx::NodeProto& addNode(std::string const& op, std::vector<std::string> const& inputs,
        std::vector<std::string> const& outputs, std::vector<::onnx::AttributeProto> const& attributes = {},
        std::string const& domain = "");
    //! A graph output. `withShape` false leaves the shape out (as many exporters do for dynamic outputs).
    OnnxModelBuilder& addOutput(std::string const& name, int32_t elemType, std::vector<int64_t> const& dims = {},
        bool withShape = false);
    OnnxModelBuilder& addOutput(std::string const& name, nvinfer1::DataType type)
    {
        return addOutput(name, onnxElemType(type));
    }

    ::onnx::ModelProto& model() { return mModel; }
    ::onnx::ModelProto const& model() const { return mModel; }
    std::string serialize() const;

private:
    ::onnx::ModelProto mModel;
    int mNodeCount{0};
};

//! One recorded parser error.
struct ParserErrorInfo
{
    nvonnxparser::ErrorCode code;
    std::string desc;
    int node;
    std::string nodeName;
    std::string nodeOperator;
};

//! Number of layers of `type` in `network`.
int32_t countLayers(nvinfer1::INetworkDefinition& network, nvinfer1::LayerType type);

//! Parse `bytes` into a fresh network and return the parser's errors (empty when parsing succeeded).
struct ParseOutcome
{
    bool ok{false};
    std::vector<ParserErrorInfo> errors;
    std::vector<std::string> loggedErrors;
    std::vector<std::string> loggedWarnings;
    int32_t nbLayers{0};
    //! Every error description, one per line.
    std::string allErrors() const;
    //! True when some error's description contains `text`.
    bool hasError(std::string const& text) const;
};
ParseOutcome parseOnly(std::string const& bytes, uint32_t parserFlags = 1U);
inline ParseOutcome parseOnly(OnnxModelBuilder const& model, uint32_t parserFlags = 1U)
{
    return parseOnly(model.serialize(), parserFlags);
}
//! Parses `model` and adds a test failure unless parsing fails with an error whose description contains `text`.
void expectParseError(OnnxModelBuilder const& model, std::string const& text);
//! Adds a test failure unless `outcome` failed with exactly one parser error, of code `code`, whose description
//! contains `text`.
void expectSingleParserError(ParseOutcome const& outcome, nvonnxparser::ErrorCode code, std::string const& text);

//! Parses a model into a NetworkRunner, then builds and runs it.
class OnnxRunner
{
public:
    explicit OnnxRunner(uint32_t networkFlags = 0);
    ~OnnxRunner();

    //! Parse; on failure adds a test failure with the parser errors unless `expectFailure`.
    bool parse(std::string const& bytes, bool expectFailure = false);
    bool parse(OnnxModelBuilder const& model, bool expectFailure = false)
    {
        return parse(model.serialize(), expectFailure);
    }

    NetworkRunner& runner() { return *mRunner; }
    nvinfer1::INetworkDefinition& network() { return mRunner->network(); }
    nvonnxparser::IParser& parser() { return *mParser; }
    //! Every parser error description, one per line.
    std::string parserErrors() const;

    //! Build (after setting profiles through runner().setProfileDims); adds a test failure with the logged errors.
    bool build();
    //! Run on `profile` (poisoned outputs, second-engine bit check, as NetworkRunner::run).
    std::map<std::string, HostTensor> run(std::map<std::string, HostTensor> const& inputs, int32_t profile = 0);

private:
    std::unique_ptr<NetworkRunner> mRunner;
    std::unique_ptr<nvonnxparser::IParser> mParser;
};

//! parse + build + run in one call; adds test failures (and returns an empty map) on any error.
std::map<std::string, HostTensor> runOnnxModel(
    OnnxModelBuilder const& model, std::map<std::string, HostTensor> const& inputs);

//! x [64] -> y = Where(mask, x, -x) with mask = (a == b) AND NOT (a > c) over int64 initializers in [0, 3] (GPT-2's
//! causal-mask pattern, folded at parse time); mask(i) is the selection the model must make.
struct FoldedMaskModel
{
    std::vector<int64_t> a, b, c;
    std::string bytes;
    bool mask(size_t i) const { return a[i] == b[i] && !(a[i] > c[i]); }
};
FoldedMaskModel foldedMaskModel(std::mt19937& rng);

} // namespace kiln::test
