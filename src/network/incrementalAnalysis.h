// IncrementalAnalysis: the lenient network analysis behind ITensor::getDimensions/getType/isShapeTensor, kept
// up to date while a network is built instead of re-run over the whole network after every change.
//
// - A new layer is inferred once, on the first query that needs it, from its inputs' cached results.
// - A change to a layer (setters, setInput, renames, setType of an output) or to a network input (dims, type,
//   dimension names) drops the results of that layer or input and of everything downstream; they are re-inferred
//   lazily on the next query. Downstream is found through consumer lists kept here, resynchronised from
//   Layer::inputs() whenever a layer reports a change.
// - Shape-tensor classification grows with each new edge (a tensor only gains the shape or execution role when
//   a consumer is added); an edit that may take a role away (an input replaced, a layer or tensor removed, an
//   output unmarked, a plugin's inputs changed) schedules one full classification pass on the next query.
// - Structural errors (dangling tensors, cycles) make every result unknown, as in the full analysis. New layers
//   and setInput are checked locally (dangling input, a path from the layer back to the new input's producer);
//   other structural edits schedule one full structural check (sortLayers) on the next query.
// - Invalidated results leave garbage in the shape graph; after more re-inferences than a few times the number
//   of layers the whole state is dropped and rebuilt lazily, so the cost stays linear overall.
// Results are those of analyzeNetwork(network, /*strict=*/false) on the same network (tests compare them).
#pragma once

#include "network/networkAnalysis.h"
#include "network/tensor.h"

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace kiln
{

class IncrementalAnalysis
{
public:
    explicit IncrementalAnalysis(NetworkDefinition const& network);

    // ---- Changes (called by NetworkDefinition, Layer and Tensor) ----
    //! A layer was adopted by the network (its inputs, attributes and outputs are set).
    void layerAdded(Layer& layer);
    //! A layer's inputs, attributes, weights, output types, name or output names changed.
    void layerChanged(Layer& layer);
    //! A layer is about to be removed from the network (and destroyed).
    void layerRemoved(Layer& layer);
    //! A network input's dims, type, dimension names or name changed. `rolesMayChange` is false for a rename.
    void inputChanged(Tensor& input, bool rolesMayChange);
    //! A tensor was marked (true) or unmarked (false) as a network output.
    void outputMarked(Tensor& tensor, bool marked);
    //! A tensor lost its network input or output role (INetworkDefinition::removeTensor).
    void tensorRemoved(Tensor& tensor, bool wasInput);

    // ---- Queries ----
    //! The tensor's inferred type, shape and values; nullptr when unknown (inference failed or the network is
    //! structurally broken).
    TensorInfo const* info(Tensor const& t);
    bool isShapeTensor(Tensor const& t);
    bool isExecutionTensor(Tensor const& t);
    //! The shape graph the infos' expressions live in.
    ShapeGraph const& graph() const { return *mA.graph; }
    //! Counters for tests and benchmarks.
    struct Stats
    {
        int64_t layerInferences{0};     // inferLayer calls
        int64_t fullClassifications{0}; // full classification passes
        int64_t structureChecks{0};     // full structural checks
        int64_t resets{0};              // state dropped to collect the shape graph's garbage
    };
    Stats const& stats() const { return mStats; }

private:
    enum class State : uint8_t
    {
        kDIRTY,    // results unknown; inferred on the next query that needs them
        kVISITING, // on the inference stack
        kDONE,     // inferred (its outputs' infos are set, or inference failed and they are absent)
    };
    enum class Structure : uint8_t
    {
        kOK,
        kBROKEN,  // sortLayers fails: every result is unknown
        kUNKNOWN, // an edit may have broken or repaired the structure: check on the next query
    };
    struct LayerNode
    {
        State state{State::kDIRTY};
        std::vector<Tensor*> linked; // the inputs as registered in the consumer lists
    };
    struct Edge
    {
        Layer* layer;
        size_t slot;
    };

    //! Structure and classification up to date; false when the network is structurally broken.
    bool prepare();
    //! Drop every result (and the shape graph with its garbage); everything is re-inferred lazily.
    void dropResults();
    void fullClassification(std::vector<Layer*> const& order);

    void link(Tensor* t, Layer* layer, size_t slot);
    void unlink(Tensor* t, Layer* layer, size_t slot);
    //! Calls f(Layer&) for the consumers of `t` whose inference reads it (not a recurrence's next value).
    template <typename F>
    void forEachReader(Tensor const* t, F&& f);
    //! Resync the layer's consumer edges; updates structure and classification for the edges that changed.
    void relink(Layer& layer, LayerNode& node, bool isNew);
    //! Is there a path from `from`'s outputs to `to` (so that feeding `to`'s output into `from` closes a cycle)?
    bool reaches(Layer const& from, Layer const& to);
    static bool dangling(Tensor const& t) { return t.producer() == nullptr && !t.isInput(); }

    //! Mark `layer` and everything downstream dirty, dropping their results.
    void invalidateLayer(Layer& layer);
    void invalidateInput(Tensor const& input);

    //! Classification of a new edge (monotone: roles are only added).
    void classifyEdge(Layer const& layer, size_t slot, Tensor& t);
    //! Add `t` to `role` (shapeTensors or sizesResize) and propagate backward through value layers.
    void markRole(std::unordered_set<Tensor const*>& role, Tensor& t);
    void refreshInputRole(Tensor const& input);

    TensorInfo const* ensure(Tensor const& t);
    void ensureInput(Tensor const& input);

    NetworkDefinition const& mNetwork;
    NetworkAnalysis mA; // infos of up-to-date tensors, classification, shape graph
    std::map<std::string, ExprId> mNamedDims;
    std::unordered_map<Layer const*, LayerNode> mLayers;
    std::unordered_map<Tensor const*, std::vector<Edge>> mConsumers;
    std::unordered_set<Tensor const*> mInputsDone; // network inputs inferred since their last change
    Structure mStructure{Structure::kOK};
    bool mClassificationStale{false};
    int64_t mInferencesSinceReset{0};
    Stats mStats;
};

} // namespace kiln
