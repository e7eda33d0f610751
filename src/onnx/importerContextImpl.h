// ImporterContextImpl: the parser's concrete ImporterContext. It owns the table of ONNX value names -> OnnxValue
// for one graph import, converts initializers lazily, materialises constants as IConstantLayers (keeping their
// bytes alive in the parser's weight store), names layers uniquely and logs warnings.
#pragma once

#include "onnx/importerContext.h"
#include "onnx/modelLoader.h"

#include <deque>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace kiln
{

//! Bytes that IConstantLayers point to; owned by the parser so they outlive the network build.
using WeightStore = std::deque<std::shared_ptr<OnnxConstant const>>;

class ImporterContextImpl : public ImporterContext
{
public:
    ImporterContextImpl(nvinfer1::INetworkDefinition& network, nvinfer1::ILogger* logger, WeightStore& weights);

    // ImporterContext
    nvinfer1::INetworkDefinition& network() override { return mNetwork; }
    int64_t opsetVersion() const override { return mDefaultOpset; }
    int64_t opsetVersion(std::string const& domain) const override;
    bool hasInput(::onnx::NodeProto const& node, int32_t index) const override;
    StatusOr<nvinfer1::ITensor*> tensor(::onnx::NodeProto const& node, int32_t index) override;
    OnnxConstant const* constant(::onnx::NodeProto const& node, int32_t index) const override;
    nvinfer1::Weights layerWeights(OnnxConstant const& value) override;
    StatusOr<nvinfer1::ITensor*> constantTensor(OnnxConstant const& value, std::string const& nameHint) override;
    void nameLayer(nvinfer1::ILayer* layer, ::onnx::NodeProto const& node, std::string const& suffix = "") override;
    void warn(::onnx::NodeProto const& node, std::string const& message) override;

    // Parser side
    void setOpsets(std::map<std::string, int64_t> opsets);
    //! Register an initializer, converted on first use. `external` holds its bytes when stored externally.
    void addInitializer(::onnx::TensorProto const* tensor, std::vector<uint8_t> const* external);
    //! Replace the bytes of a registered initializer (IParser::loadInitializer); converted on first use.
    void overrideInitializer(std::string const& name, void const* data, size_t size);
    //! Bind a value name (graph input, node output, folded constant).
    void bind(std::string const& name, OnnxValue value);
    //! Forget the binding of `name` (subgraph imports restore the enclosing scope with it).
    void unbind(std::string const& name) { mValues.erase(name); }
    //! The main graph being imported (control-flow importers read declared output shapes from it), or nullptr.
    void setGraph(::onnx::GraphProto const* graph) { mGraph = graph; }
    ::onnx::GraphProto const* graph() const { return mGraph; }
    //! Whether `name` is bound or is an initializer.
    bool isDefined(std::string const& name) const;
    //! The value bound to `name` (converting an initializer if needed); an error if it is not defined.
    StatusOr<OnnxValue> lookup(std::string const& name);
    //! Materialise `value` as a network tensor (constants become an IConstantLayer named `name`).
    StatusOr<nvinfer1::ITensor*> materialise(std::string const& name);
    //! Keep `constant` alive for as long as the parser lives.
    std::shared_ptr<OnnxConstant const> keep(OnnxConstant const& constant);
    std::shared_ptr<OnnxConstant const> keep(OnnxConstant&& constant);
    //! The value name a tensor is bound to first, or nullptr.
    std::string const* nameOf(nvinfer1::ITensor const* t) const;
    void log(nvinfer1::ILogger::Severity severity, std::string const& message) const;

private:
    //! A layer name not used yet: `base`, or `base` with the smallest free suffix "_<i>".
    std::string uniqueLayerName(std::string const& base);

    struct PendingInitializer
    {
        ::onnx::TensorProto const* proto{nullptr};
        std::vector<uint8_t> const* external{nullptr};
        void const* overrideData{nullptr};
        size_t overrideSize{0};
    };

    nvinfer1::INetworkDefinition& mNetwork;
    nvinfer1::ILogger* mLogger;
    WeightStore& mWeights;
    int64_t mDefaultOpset{0};
    std::map<std::string, int64_t> mOpsets;
    mutable std::unordered_map<std::string, OnnxValue> mValues;
    mutable std::unordered_map<std::string, PendingInitializer> mInitializers;
    std::unordered_map<nvinfer1::ITensor const*, std::string> mTensorNames;
    std::unordered_set<std::string> mLayerNames;
    //! Per name base, the first suffix not yet tried: every "<base>_<i>" below it is taken (names stay taken).
    std::unordered_map<std::string, int> mNextSuffix;
    //! Constants already in mWeights (by address), so constantTensor() uses them in place.
    std::unordered_map<OnnxConstant const*, std::shared_ptr<OnnxConstant const>> mKept;
    ::onnx::GraphProto const* mGraph{nullptr};
};

} // namespace kiln
