// Network analysis: structural checks (dangling tensors, cycles), topological order, shape-tensor
// classification and symbolic shape/type inference of every tensor. The builder runs it strictly (first
// error fails the build); ITensor::getDimensions runs it leniently (broken layers leave their outputs
// unknown) and caches the result until the network changes.
#pragma once

#include "network/inferContext.h"

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

} // namespace kiln
