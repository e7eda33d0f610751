// Network analysis: structural checks (dangling tensors, cycles), topological order, shape-tensor
// classification and symbolic shape/type inference of every tensor. The builder runs it strictly, as one linear
// pass (first error fails the build). ITensor getters use the same steps leniently (broken layers leave their
// outputs unknown) through IncrementalAnalysis (incrementalAnalysis.h), which infers each layer once and
// re-infers only what a change invalidates; analyzeNetwork(network, false) is the whole-network form of that.
#pragma once

#include "network/inferContext.h"

#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace kiln
{
class NetworkDefinition;
class Layer;
class Tensor;
struct ControlFlowInfo;

struct NetworkAnalysis
{
    std::unique_ptr<ShapeGraph> graph{std::make_unique<ShapeGraph>()};
    std::unordered_map<Tensor const*, TensorInfo> infos;
    std::vector<Layer*> order;                            // every layer, topologically sorted
    std::unordered_set<Tensor const*> shapeTensors;       // feed shape inputs (directly or via value layers)
    std::unordered_set<Tensor const*> executionTensors;   // feed non-shape inputs or are network outputs
    std::unordered_set<Tensor const*> shapeTensorInputs;  // network inputs whose values shape the network
    std::unordered_set<Tensor const*> sizesResize;        // feed a resize's size input (directly or via value layers)
    std::vector<Status> errors;                           // lenient mode: every failure; strict: the first
    //! Outputs whose type the user overrode (setOutputType / ITensor::setType): the type the layer computes.
    std::unordered_map<Tensor const*, nvinfer1::DataType> naturalTypes;
    //! Plugin size-tensor outputs (IExprBuilder::declareSizeTensor): tensor -> index of its kDATA_DEPENDENT symbol.
    std::unordered_map<Tensor const*, int32_t> sizeTensorSymbols;
    //! Loops and conditionals: bodies, branches (layers/loopAnalysis.h); set once inference succeeded.
    std::shared_ptr<ControlFlowInfo const> controlFlow;
};

//! Analyse `network`. In strict mode the first error stops the analysis and is returned.
StatusOr<std::unique_ptr<NetworkAnalysis>> analyzeNetwork(NetworkDefinition const& network, bool strict);

//! True when layers of `kind` compute their outputs' values from their inputs' values (value layers).
bool propagatesValues(nvinfer1::LayerType kind);

// ---- The steps of the analysis, shared by analyzeNetwork and IncrementalAnalysis ----

//! Structural checks (dangling inputs and outputs, cycles) and the topological order of every layer (ties broken
//! by creation order). Linear in the network's size.
Status sortLayers(NetworkDefinition const& network, std::vector<Layer*>& order);

//! Is input `slot` of `layer` (holding tensor `t`) a shape input, whose values the layer reads at build time?
bool isShapeSlot(Layer const& layer, size_t slot, Tensor const& t);

//! Is network input `in` a shape-tensor input, given the classification in `a` (shapeTensors, sizesResize)?
bool isShapeTensorInput(Tensor const& in, NetworkAnalysis const& a);

//! Backward pass over a.order: fills shapeTensors, executionTensors, sizesResize and shapeTensorInputs.
void classifyTensors(NetworkDefinition const& network, NetworkAnalysis& a);

//! Infer a network input into a.infos. Dimension names map to one symbol each through `namedDims`.
Status inferInput(Tensor const& in, NetworkAnalysis& a, std::map<std::string, ExprId>& namedDims);

//! Infer one layer from its inputs' entries in a.infos; writes its outputs' infos (and naturalTypes,
//! sizeTensorSymbols). Absent input infos fail with "has no known shape".
Status inferLayer(NetworkDefinition const& network, Layer const& layer, NetworkAnalysis& a);

} // namespace kiln
