// IncrementalAnalysis: see incrementalAnalysis.h.
#include "network/incrementalAnalysis.h"

#include "network/layer.h"
#include "network/layers/pluginLayer.h"
#include "network/networkDefinition.h"
#include "network/tensor.h"

#include <algorithm>
#include <utility>

namespace kiln
{
using nvinfer1::LayerType;

namespace
{
//! Re-inferences allowed beyond kRESET_FACTOR x the number of layers before the whole state is rebuilt (which
//! drops the garbage that invalidated results left in the shape graph).
constexpr int64_t kRESET_SLACK = 4096;
constexpr int64_t kRESET_FACTOR = 4;

//! A recurrence does not read its next value (input 1) during inference: that edge is the loop's back edge.
bool readsSlot(Layer const& layer, size_t slot)
{
    return !(layer.kind() == LayerType::kRECURRENCE && slot == 1);
}
} // namespace

IncrementalAnalysis::IncrementalAnalysis(NetworkDefinition const& network)
    : mNetwork(network)
{
}

// ---- Consumer lists ----

void IncrementalAnalysis::link(Tensor* t, Layer* layer, size_t slot)
{
    mConsumers[t].push_back(Edge{layer, slot});
}

void IncrementalAnalysis::unlink(Tensor* t, Layer* layer, size_t slot)
{
    auto it = mConsumers.find(t);
    if (it == mConsumers.end())
    {
        return;
    }
    auto& edges = it->second;
    for (size_t i = 0; i < edges.size(); ++i)
    {
        if (edges[i].layer == layer && edges[i].slot == slot)
        {
            edges[i] = edges.back();
            edges.pop_back();
            return;
        }
    }
}

template <typename F>
void IncrementalAnalysis::forEachReader(Tensor const* t, F&& f)
{
    auto it = mConsumers.find(t);
    if (it == mConsumers.end())
    {
        return;
    }
    for (Edge const& e : it->second)
    {
        if (readsSlot(*e.layer, e.slot))
        {
            f(*e.layer);
        }
    }
}

bool IncrementalAnalysis::reaches(Layer const& from, Layer const& to)
{
    std::unordered_set<Layer const*> seen;
    std::vector<Layer const*> work{&from};
    bool found = false;
    while (!work.empty() && !found)
    {
        Layer const* l = work.back();
        work.pop_back();
        for (Tensor const* o : l->outputs())
        {
            forEachReader(o, [&](Layer& c) {
                found = found || &c == &to;
                if (seen.insert(&c).second)
                {
                    work.push_back(&c);
                }
            });
        }
    }
    return found;
}

void IncrementalAnalysis::relink(Layer& layer, LayerNode& node, bool isNew)
{
    auto const& inputs = layer.inputs();
    size_t const n = std::max(inputs.size(), node.linked.size());
    bool removed = false;
    std::vector<size_t> added;
    for (size_t s = 0; s < n; ++s)
    {
        Tensor* const old = s < node.linked.size() ? node.linked[s] : nullptr;
        Tensor* const now = s < inputs.size() ? inputs[s] : nullptr;
        if (old == now)
        {
            continue;
        }
        if (old != nullptr)
        {
            unlink(old, &layer, s);
            removed = true;
        }
        if (now != nullptr)
        {
            link(now, &layer, s);
            added.push_back(s);
        }
    }
    if (added.empty() && !removed)
    {
        return;
    }
    node.linked = inputs;

    // Structure. A new layer cannot close a cycle (its outputs are new) nor repair a broken network.
    if (mStructure == Structure::kOK)
    {
        for (size_t s : added)
        {
            Tensor const& t = *inputs[s];
            bool const cycle = !isNew && readsSlot(layer, s) && t.producer() != nullptr && reaches(layer, *t.producer());
            if (dangling(t) || cycle)
            {
                mStructure = Structure::kUNKNOWN;
                break;
            }
        }
    }
    else if (!isNew)
    {
        mStructure = Structure::kUNKNOWN;
    }

    // Classification: new edges only add roles; a removed edge (or a plugin's shifted shape slots) may take one away.
    if (mClassificationStale)
    {
        return;
    }
    if (removed || (!isNew && pluginLayerState(layer) != nullptr))
    {
        mClassificationStale = true;
        return;
    }
    for (size_t s : added)
    {
        classifyEdge(layer, s, *inputs[s]);
    }
}

// ---- Changes ----

void IncrementalAnalysis::layerAdded(Layer& layer)
{
    LayerNode& node = mLayers[&layer];
    node = LayerNode{};
    relink(layer, node, /*isNew=*/true);
}

void IncrementalAnalysis::layerChanged(Layer& layer)
{
    auto it = mLayers.find(&layer);
    if (it == mLayers.end())
    {
        return; // not adopted yet: layerAdded reads its final state
    }
    relink(layer, it->second, /*isNew=*/false);
    invalidateLayer(layer);
}

void IncrementalAnalysis::layerRemoved(Layer& layer)
{
    auto it = mLayers.find(&layer);
    if (it == mLayers.end())
    {
        return;
    }
    invalidateLayer(layer);
    bool outputsUsed = false;
    for (Tensor const* o : layer.outputs())
    {
        auto c = mConsumers.find(o);
        outputsUsed = outputsUsed || o->isOutput() || (c != mConsumers.end() && !c->second.empty());
    }
    bool hadInputs = false;
    for (size_t s = 0; s < it->second.linked.size(); ++s)
    {
        if (Tensor* t = it->second.linked[s])
        {
            unlink(t, &layer, s);
            hadInputs = true;
        }
    }
    mLayers.erase(it);
    mClassificationStale = mClassificationStale || hadInputs;
    if (mStructure != Structure::kOK || outputsUsed)
    {
        mStructure = Structure::kUNKNOWN;
    }
}

void IncrementalAnalysis::inputChanged(Tensor& input, bool rolesMayChange)
{
    invalidateInput(input);
    if (!rolesMayChange)
    {
        return;
    }
    auto c = mConsumers.find(&input);
    if (c != mConsumers.end() && !c->second.empty())
    {
        mClassificationStale = true; // its consumers' shape slots depend on its type
    }
    else if (!mClassificationStale)
    {
        refreshInputRole(input);
    }
}

void IncrementalAnalysis::outputMarked(Tensor& tensor, bool marked)
{
    if (marked)
    {
        if (mStructure == Structure::kOK && dangling(tensor))
        {
            mStructure = Structure::kUNKNOWN;
        }
        if (!mClassificationStale)
        {
            mA.executionTensors.insert(&tensor);
        }
        return;
    }
    if (mStructure == Structure::kBROKEN)
    {
        mStructure = Structure::kUNKNOWN;
    }
    mClassificationStale = true;
}

void IncrementalAnalysis::tensorRemoved(Tensor& tensor, bool wasInput)
{
    mStructure = Structure::kUNKNOWN;
    mClassificationStale = true;
    if (wasInput)
    {
        invalidateInput(tensor);
    }
}

// ---- Invalidation ----

void IncrementalAnalysis::invalidateLayer(Layer& layer)
{
    std::vector<Layer*> work{&layer};
    while (!work.empty())
    {
        Layer* l = work.back();
        work.pop_back();
        auto it = mLayers.find(l);
        if (it == mLayers.end() || it->second.state == State::kDIRTY)
        {
            continue; // a dirty layer's consumers are dirty already
        }
        it->second.state = State::kDIRTY;
        for (Tensor const* o : l->outputs())
        {
            mA.infos.erase(o);
            mA.naturalTypes.erase(o);
            mA.sizeTensorSymbols.erase(o);
            forEachReader(o, [&](Layer& c) { work.push_back(&c); });
        }
    }
}

void IncrementalAnalysis::invalidateInput(Tensor const& input)
{
    mInputsDone.erase(&input);
    mA.infos.erase(&input);
    forEachReader(&input, [&](Layer& c) { invalidateLayer(c); });
}

// ---- Classification ----

void IncrementalAnalysis::classifyEdge(Layer const& layer, size_t slot, Tensor& t)
{
    bool const shapeSlot = isShapeSlot(layer, slot, t);
    bool outputIsShape = false;
    bool outputSizesResize = false;
    if (propagatesValues(layer.kind()))
    {
        for (Tensor const* o : layer.outputs())
        {
            outputIsShape = outputIsShape || mA.shapeTensors.count(o) != 0;
            outputSizesResize = outputSizesResize || mA.sizesResize.count(o) != 0;
        }
    }
    if (shapeSlot || outputIsShape)
    {
        markRole(mA.shapeTensors, t);
    }
    if ((layer.kind() == LayerType::kRESIZE && slot == 1) || outputSizesResize)
    {
        markRole(mA.sizesResize, t);
    }
    if (!shapeSlot)
    {
        mA.executionTensors.insert(&t);
    }
}

void IncrementalAnalysis::markRole(std::unordered_set<Tensor const*>& role, Tensor& t)
{
    // The role flows backward through value layers, as in classifyTensors.
    std::vector<Tensor*> work{&t};
    while (!work.empty())
    {
        Tensor* x = work.back();
        work.pop_back();
        if (!role.insert(x).second)
        {
            continue;
        }
        if (x->isInput())
        {
            refreshInputRole(*x);
        }
        Layer const* p = x->producer();
        if (p != nullptr && propagatesValues(p->kind()))
        {
            for (Tensor* u : p->inputs())
            {
                if (u != nullptr)
                {
                    work.push_back(u);
                }
            }
        }
    }
}

void IncrementalAnalysis::refreshInputRole(Tensor const& input)
{
    bool const role = isShapeTensorInput(input, mA);
    bool const had = mA.shapeTensorInputs.count(&input) != 0;
    if (role == had)
    {
        return;
    }
    if (role)
    {
        mA.shapeTensorInputs.insert(&input);
    }
    else
    {
        mA.shapeTensorInputs.erase(&input);
    }
    invalidateInput(input); // a shape-tensor input carries symbolic values
}

void IncrementalAnalysis::fullClassification(std::vector<Layer*> const& order)
{
    ++mStats.fullClassifications;
    NetworkAnalysis fresh;
    fresh.order = order;
    classifyTensors(mNetwork, fresh);
    std::vector<Tensor const*> changed;
    for (Tensor const* in : mA.shapeTensorInputs)
    {
        if (fresh.shapeTensorInputs.count(in) == 0)
        {
            changed.push_back(in);
        }
    }
    for (Tensor const* in : fresh.shapeTensorInputs)
    {
        if (mA.shapeTensorInputs.count(in) == 0)
        {
            changed.push_back(in);
        }
    }
    mA.shapeTensors = std::move(fresh.shapeTensors);
    mA.executionTensors = std::move(fresh.executionTensors);
    mA.sizesResize = std::move(fresh.sizesResize);
    mA.shapeTensorInputs = std::move(fresh.shapeTensorInputs);
    mClassificationStale = false;
    for (Tensor const* in : changed)
    {
        invalidateInput(*in);
    }
}

// ---- Queries ----

bool IncrementalAnalysis::prepare()
{
    if (mStructure == Structure::kUNKNOWN || (mStructure == Structure::kOK && mClassificationStale))
    {
        ++mStats.structureChecks;
        std::vector<Layer*> order;
        mStructure = sortLayers(mNetwork, order).isOk() ? Structure::kOK : Structure::kBROKEN;
        if (mStructure == Structure::kOK && mClassificationStale)
        {
            fullClassification(order);
        }
    }
    if (mStructure != Structure::kOK)
    {
        return false;
    }
    if (mInferencesSinceReset > kRESET_FACTOR * static_cast<int64_t>(mLayers.size()) + kRESET_SLACK)
    {
        dropResults();
    }
    return true;
}

void IncrementalAnalysis::dropResults()
{
    ++mStats.resets;
    mInferencesSinceReset = 0;
    mA.graph = std::make_unique<ShapeGraph>();
    mA.infos.clear();
    mA.naturalTypes.clear();
    mA.sizeTensorSymbols.clear();
    mNamedDims.clear();
    mInputsDone.clear();
    for (auto& entry : mLayers)
    {
        entry.second.state = State::kDIRTY;
    }
}

TensorInfo const* IncrementalAnalysis::info(Tensor const& t)
{
    if (!prepare())
    {
        return nullptr;
    }
    return ensure(t);
}

bool IncrementalAnalysis::isShapeTensor(Tensor const& t)
{
    return prepare() && mA.shapeTensors.count(&t) != 0;
}

bool IncrementalAnalysis::isExecutionTensor(Tensor const& t)
{
    return !prepare() || mA.executionTensors.count(&t) != 0 || mA.shapeTensors.count(&t) == 0;
}

void IncrementalAnalysis::ensureInput(Tensor const& input)
{
    if (mInputsDone.insert(&input).second)
    {
        (void) inferInput(input, mA, mNamedDims); // a failure leaves the input unknown, as in the full analysis
    }
}

TensorInfo const* IncrementalAnalysis::ensure(Tensor const& t)
{
    auto found = mA.infos.find(&t);
    if (found != mA.infos.end())
    {
        return &found->second;
    }
    if (t.isInput())
    {
        ensureInput(t);
    }
    else if (Layer* p = t.producer())
    {
        auto it = mLayers.find(p);
        if (it == mLayers.end() || it->second.state != State::kDIRTY)
        {
            return nullptr; // inferred already: its inference failed
        }
        // Depth first over the dirty ancestors; each layer is inferred after its inputs.
        struct Frame
        {
            Layer* layer;
            LayerNode* node;
            size_t next;
        };
        std::vector<Frame> stack{Frame{p, &it->second, 0}};
        it->second.state = State::kVISITING;
        while (!stack.empty())
        {
            Frame& f = stack.back();
            if (f.next < f.layer->inputs().size())
            {
                size_t const s = f.next++;
                Tensor const* in = f.layer->inputs()[s];
                if (in == nullptr || !readsSlot(*f.layer, s))
                {
                    continue;
                }
                if (in->isInput())
                {
                    ensureInput(*in);
                    continue;
                }
                auto q = in->producer() != nullptr ? mLayers.find(in->producer()) : mLayers.end();
                if (q != mLayers.end() && q->second.state == State::kDIRTY)
                {
                    q->second.state = State::kVISITING;
                    stack.push_back(Frame{in->producer(), &q->second, 0});
                }
                continue;
            }
            Frame const done = f;
            stack.pop_back();
            ++mInferencesSinceReset;
            ++mStats.layerInferences;
            (void) inferLayer(mNetwork, *done.layer, mA); // a failure leaves its outputs unknown (lenient)
            done.node->state = State::kDONE;
        }
    }
    found = mA.infos.find(&t);
    return found != mA.infos.end() ? &found->second : nullptr;
}

} // namespace kiln
