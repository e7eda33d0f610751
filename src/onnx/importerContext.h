// ImporterContext: what an op importer sees while the parser converts one ONNX node. It gives the network under
// construction, the node's inputs as network tensors or parse-time constants, the opset in force, and a place for
// warnings. Importers use only the public nvinfer1 network API to add layers.
#pragma once

#include "NvInfer.h"
#include "core/status.h"
#include "onnx/onnxConstant.h"

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>

namespace kiln
{

class ImporterContext
{
public:
    virtual ~ImporterContext() = default;

    //! The network being filled.
    virtual nvinfer1::INetworkDefinition& network() = 0;

    //! Opset version of the default ONNX domain ("" / "ai.onnx") in force for the current node.
    virtual int64_t opsetVersion() const = 0;
    //! Opset version imported for another domain, or 0 when the model does not import it.
    virtual int64_t opsetVersion(std::string const& domain) const = 0;

    //! Whether input `index` of `node` exists and is not the empty name (ONNX's "optional input left out").
    virtual bool hasInput(::onnx::NodeProto const& node, int32_t index) const = 0;

    //! Input `index` as a network tensor. A constant input is materialised once as an IConstantLayer (and cached),
    //! so asking twice returns the same ITensor. An error names the node and the input when it is missing.
    virtual StatusOr<nvinfer1::ITensor*> tensor(::onnx::NodeProto const& node, int32_t index) = 0;

    //! Input `index` as a parse-time constant, or nullptr when its value is only known at run time (or absent).
    //! Use this for inputs TensorRT requires to be initializers (axes, pads, scales, ...).
    virtual OnnxConstant const* constant(::onnx::NodeProto const& node, int32_t index) const = 0;

    //! Weights of `value` for a layer's weights argument: they point into the parser's store, which outlives the
    //! parse as TensorRT requires (a constant computed during the import is copied there first).
    virtual nvinfer1::Weights layerWeights(OnnxConstant const& value) = 0;

    //! Materialise a host constant as an IConstantLayer output (named after `nameHint`).
    virtual StatusOr<nvinfer1::ITensor*> constantTensor(OnnxConstant const& value, std::string const& nameHint) = 0;

    //! Name a layer added for `node`: the node's name (or output name), with `suffix` appended when the importer
    //! adds more than one layer. Importers call this on every layer they add, so engine inspection maps back to ONNX.
    virtual void nameLayer(nvinfer1::ILayer* layer, ::onnx::NodeProto const& node, std::string const& suffix = "") = 0;

    //! Log a warning about `node` through the parser's logger.
    virtual void warn(::onnx::NodeProto const& node, std::string const& message) = 0;
};

} // namespace kiln
