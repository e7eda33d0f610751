// Network analysis: see networkAnalysis.h.
#include "network/networkAnalysis.h"

#include "core/dataType.h"
#include "network/layerTable.h"
#include "network/layers/castLayer.h"
#include "network/layers/loopAnalysis.h"
#include "network/layers/pluginLayer.h"
#include "network/networkDefinition.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <queue>

namespace kiln
{
using nvinfer1::DataType;
using nvinfer1::LayerType;

bool propagatesValues(LayerType kind)
{
    switch (kind)
    {
    case LayerType::kIDENTITY:
    case LayerType::kACTIVATION:
    case LayerType::kCAST:
    case LayerType::kELEMENTWISE:
    case LayerType::kUNARY:
    case LayerType::kCONCATENATION:
    case LayerType::kGATHER:
    case LayerType::kSLICE:
    case LayerType::kSHUFFLE:
    case LayerType::kREDUCE:
    case LayerType::kSELECT:
    case LayerType::kSQUEEZE:
    case LayerType::kUNSQUEEZE: return true;
    default: return false;
    }
}

namespace
{

std::string layerLabel(Layer const& layer)
{
    return "layer '" + layer.name() + "' (" + layerKindName(layer.kind()) + ")";
}

} // namespace

Status sortLayers(NetworkDefinition const& network, std::vector<Layer*>& order)
{
    auto const& layers = network.layers();
    std::unordered_map<Layer const*, size_t> index;
    index.reserve(layers.size());
    for (size_t i = 0; i < layers.size(); ++i)
    {
        index[layers[i].get()] = i;
    }
    std::vector<int32_t> pending(layers.size(), 0);
    std::vector<std::pair<size_t, size_t>> edges; // (producer, consumer)
    for (size_t i = 0; i < layers.size(); ++i)
    {
        Layer const& layer = *layers[i];
        for (size_t s = 0; s < layer.inputs().size(); ++s)
        {
            Tensor const* t = layer.inputs()[s];
            if (t == nullptr)
            {
                continue;
            }
            if (t->producer() == nullptr)
            {
                if (!t->isInput())
                {
                    return invalidArgument(layerLabel(layer) + ": input " + std::to_string(s) + " '" + t->name()
                        + "' is dangling: it is neither a network input nor the output of a layer");
                }
                continue;
            }
            auto it = index.find(t->producer());
            if (it == index.end())
            {
                return invalidArgument(layerLabel(layer) + ": input '" + t->name() + "' comes from a removed layer");
            }
            if (layer.kind() == LayerType::kRECURRENCE && s == 1)
            {
                continue; // a loop's next value: the back edge of the loop
            }
            ++pending[i];
            edges.emplace_back(it->second, i);
        }
    }
    // Consumers of each layer as compressed rows: consumers[start[p] .. start[p + 1]).
    std::vector<size_t> start(layers.size() + 1, 0);
    for (auto const& e : edges)
    {
        ++start[e.first + 1];
    }
    for (size_t i = 0; i < layers.size(); ++i)
    {
        start[i + 1] += start[i];
    }
    std::vector<size_t> consumers(edges.size());
    {
        std::vector<size_t> fill(start.begin(), start.end() - 1);
        for (auto const& e : edges)
        {
            consumers[fill[e.first]++] = e.second;
        }
    }
    // Kahn's algorithm; among the ready layers the earliest created goes first, so the order is deterministic.
    std::priority_queue<size_t, std::vector<size_t>, std::greater<>> ready;
    for (size_t i = 0; i < layers.size(); ++i)
    {
        if (pending[i] == 0)
        {
            ready.push(i);
        }
    }
    order.clear();
    order.reserve(layers.size());
    while (!ready.empty())
    {
        size_t const i = ready.top();
        ready.pop();
        order.push_back(layers[i].get());
        for (size_t k = start[i]; k < start[i + 1]; ++k)
        {
            size_t const c = consumers[k];
            if (--pending[c] == 0)
            {
                ready.push(c);
            }
        }
    }
    if (order.size() != layers.size())
    {
        std::string names;
        for (size_t i = 0; i < layers.size(); ++i)
        {
            if (pending[i] > 0)
            {
                names += (names.empty() ? "'" : ", '") + layers[i]->name() + "'";
            }
        }
        return invalidArgument("the network has a cycle through layers " + names);
    }
    for (Tensor const* out : network.outputs())
    {
        if (out->producer() == nullptr && !out->isInput())
        {
            return invalidArgument("network output '" + out->name() + "' is dangling (no layer produces it)");
        }
    }
    return Status::ok();
}

bool isShapeSlot(Layer const& layer, size_t slot, Tensor const& t)
{
    // V3 plugin shape inputs (the last inputs of the layer) are shape-input slots: their values are inferred.
    if (PluginLayerState const* plugin = pluginLayerState(layer))
    {
        return static_cast<int32_t>(slot) >= pluginRegularInputs(layer, *plugin);
    }
    DataType const slotType = t.isInput() ? t.declaredType() : DataType::kINT32;
    return isShapeInputSlot(layer.kind(), static_cast<int32_t>(slot), slotType)
        && !(layer.kind() == LayerType::kTRIP_LIMIT && layer.attrs().getInt("kind") != 0); // kWHILE: data
}

bool isShapeTensorInput(Tensor const& in, NetworkAnalysis const& a)
{
    DataType const t = in.declaredType();
    bool const valueType
        = t == DataType::kINT32 || t == DataType::kINT64 || (t == DataType::kFLOAT && a.sizesResize.count(&in) != 0);
    return in.isInput() && a.shapeTensors.count(&in) != 0 && valueType && in.declaredDims().nbDims <= 1;
}

void classifyTensors(NetworkDefinition const& network, NetworkAnalysis& a)
{
    // Tensors whose values size a resize (IResizeLayer input 1, directly or through value layers such as the
    // Cast/ElementWise/Unary chain onnx-tensorrt builds): only there may a FLOAT network input be a shape tensor.
    for (auto it = a.order.rbegin(); it != a.order.rend(); ++it)
    {
        Layer const& layer = **it;
        bool outputIsShape = false;
        bool outputSizesResize = false;
        for (Tensor const* o : layer.outputs())
        {
            outputIsShape = outputIsShape || a.shapeTensors.count(o) != 0;
            outputSizesResize = outputSizesResize || a.sizesResize.count(o) != 0;
        }
        bool const values = propagatesValues(layer.kind());
        for (size_t s = 0; s < layer.inputs().size(); ++s)
        {
            Tensor const* t = layer.inputs()[s];
            if (t == nullptr)
            {
                continue;
            }
            bool const shapeSlot = isShapeSlot(layer, s, *t);
            if (shapeSlot || (outputIsShape && values))
            {
                a.shapeTensors.insert(t);
            }
            if ((layer.kind() == LayerType::kRESIZE && s == 1) || (outputSizesResize && values))
            {
                a.sizesResize.insert(t);
            }
            if (!shapeSlot)
            {
                a.executionTensors.insert(t);
            }
        }
    }
    for (Tensor const* out : network.outputs())
    {
        a.executionTensors.insert(out);
    }
    for (Tensor const* in : network.inputs())
    {
        if (isShapeTensorInput(*in, a))
        {
            a.shapeTensorInputs.insert(in);
        }
    }
}

Status inferInput(Tensor const& in, NetworkAnalysis& a, std::map<std::string, ExprId>& namedDims)
{
    ShapeGraph& g = *a.graph;
    TensorInfo info;
    info.present = true;
    info.name = in.name();
    info.type = in.declaredType();
    nvinfer1::Dims const& d = in.declaredDims();
    for (int32_t i = 0; i < d.nbDims; ++i)
    {
        char const* dimName = in.getDimensionName(i);
        ExprId id;
        if (d.d[i] >= 0)
        {
            id = g.constant(d.d[i]);
        }
        else if (dimName != nullptr)
        {
            auto it = namedDims.find(dimName);
            id = it != namedDims.end() ? it->second : (namedDims[dimName] = g.symbol(SymbolKind::kINPUT_DIM, dimName));
        }
        else
        {
            id = g.symbol(SymbolKind::kINPUT_DIM, in.name() + "[" + std::to_string(i) + "]");
        }
        info.dims.emplace_back(&g, id);
    }
    if (a.shapeTensorInputs.count(&in) != 0)
    {
        int64_t count = 1;
        for (int32_t i = 0; i < d.nbDims; ++i)
        {
            if (d.d[i] < 0)
            {
                return invalidArgument("shape tensor input '" + in.name()
                    + "' must have build-time constant dimensions (it has a -1 dimension)");
            }
            if (__builtin_mul_overflow(count, d.d[i], &count))
            {
                count = std::numeric_limits<int64_t>::max();
            }
        }
        if (count > 64)
        {
            return invalidArgument("shape tensor input '" + in.name() + "' has " + std::to_string(count)
                + " elements; shape tensors may hold at most 64");
        }
        std::vector<DimExpr> values;
        for (int64_t i = 0; i < count; ++i)
        {
            SymbolKind const kind
                = info.type == DataType::kFLOAT ? SymbolKind::kINPUT_FLOAT_VALUE : SymbolKind::kINPUT_VALUE;
            values.emplace_back(&g, g.symbol(kind, in.name() + ".value[" + std::to_string(i) + "]"));
        }
        info.values = std::move(values);
    }
    a.infos[&in] = std::move(info);
    return Status::ok();
}

Status inferLayer(NetworkDefinition const& network, Layer const& layer, NetworkAnalysis& a)
{
    PluginLayerState const* plugin = pluginLayerState(layer);
    InferFn fn = inferFunction(layer.kind());
    if (fn == nullptr && plugin == nullptr)
    {
        return unsupported(layerLabel(layer) + ": Kiln does not support " + layerKindName(layer.kind())
            + " layers yet");
    }
    std::vector<TensorInfo> inputs;
    for (Tensor const* t : layer.inputs())
    {
        if (t == nullptr || (layer.kind() == LayerType::kRECURRENCE && inputs.size() == 1))
        {
            // (a recurrence's next value is inferred later; loopAnalysis.cpp checks it against the initial value)
            inputs.emplace_back();
            continue;
        }
        auto it = a.infos.find(t);
        if (it == a.infos.end())
        {
            return invalidArgument(layerLabel(layer) + ": input '" + t->name() + "' has no known shape");
        }
        inputs.push_back(it->second);
    }
    std::vector<WeightsInfo> weights;
    for (nvinfer1::Weights const& w : layer.weights())
    {
        WeightsInfo wi;
        wi.present = w.count > 0;
        wi.type = w.type;
        wi.count = w.count;
        wi.values = w.values;
        if (wi.present && w.values == nullptr)
        {
            return invalidArgument(layerLabel(layer) + ": weights have count " + std::to_string(w.count)
                + " but no values");
        }
        weights.push_back(wi);
    }
    InferContext ctx(*a.graph, layer.name(), layer.kind(), layer.attrs(), std::move(inputs), std::move(weights),
        static_cast<int32_t>(layer.outputs().size()), network.stronglyTyped());
    std::vector<std::pair<int32_t, int32_t>> sizeTensors; // plugin size-tensor outputs: (output, symbol)
    size_t const symbolsBefore = a.graph->symbols().size();
    Status st = plugin != nullptr ? inferPluginLayer(layer, *plugin, ctx, sizeTensors) : fn(ctx);
    if (!st.isOk())
    {
        return st;
    }
    if (plugin == nullptr)
    {
        // Built-in layers with data-dependent shapes (NonZero, NMS): an output whose value is a kDATA_DEPENDENT
        // symbol the layer's own inference created is that symbol's size tensor (see layers/dataDependentOutput.h).
        for (int32_t o = 0; o < ctx.nbOutputs(); ++o)
        {
            TensorInfo const& info = ctx.outputs()[static_cast<size_t>(o)];
            if (!info.values.has_value() || info.values->size() != 1)
            {
                continue;
            }
            ExprNode const& n = a.graph->node((*info.values)[0].id());
            if (n.op == ExprOp::kSYMBOL && static_cast<size_t>(n.value) >= symbolsBefore
                && a.graph->symbols()[static_cast<size_t>(n.value)].kind == SymbolKind::kDATA_DEPENDENT)
            {
                sizeTensors.emplace_back(o, static_cast<int32_t>(n.value));
            }
        }
    }
    for (auto const& [output, symbol] : sizeTensors)
    {
        a.sizeTensorSymbols[layer.outputs()[static_cast<size_t>(output)]] = symbol;
    }
    for (size_t i = 0; i < layer.outputs().size(); ++i)
    {
        TensorInfo info = ctx.outputs()[i];
        Tensor const* out = layer.outputs()[i];
        if (!info.present)
        {
            return internalError(layerLabel(layer) + ": inference did not produce output " + std::to_string(i));
        }
        info.name = out->name();
        if (layer.kind() == LayerType::kCONSTANT && !layer.weights().empty())
        {
            info.constantData = layer.weights()[0].values;
        }
        nvinfer1::DataType const natural = info.type;
        if (layer.outputTypeSet(static_cast<int32_t>(i)))
        {
            if (network.stronglyTyped())
            {
                return invalidArgument(layerLabel(layer)
                    + ": setOutputType is not allowed in a strongly typed network (use a cast layer)");
            }
            info.type = layer.outputType(static_cast<int32_t>(i));
        }
        if (out->typeSetByUser())
        {
            info.type = out->declaredType();
        }
        if (info.type != natural)
        {
            a.naturalTypes[out] = natural;
            if (info.values.has_value())
            {
                info.values = castValues(*info.values, natural, info.type); // integer <-> FLOAT value expressions
            }
        }
        a.infos[out] = std::move(info);
    }
    return Status::ok();
}

StatusOr<std::unique_ptr<NetworkAnalysis>> analyzeNetwork(NetworkDefinition const& network, bool strict)
{
    auto a = std::make_unique<NetworkAnalysis>();
    Status st = sortLayers(network, a->order);
    if (!st.isOk())
    {
        if (strict)
        {
            return st;
        }
        a->errors.push_back(st);
        return a;
    }
    classifyTensors(network, *a);
    std::map<std::string, ExprId> namedDims;
    for (Tensor const* in : network.inputs())
    {
        st = inferInput(*in, *a, namedDims);
        if (!st.isOk())
        {
            if (strict)
            {
                return st;
            }
            a->errors.push_back(st);
        }
    }
    for (Layer const* layer : a->order)
    {
        st = inferLayer(network, *layer, *a);
        if (!st.isOk())
        {
            if (strict)
            {
                return st;
            }
            a->errors.push_back(st);
        }
    }
    if (a->errors.empty())
    {
        st = analyzeControlFlow(network, *a);
        if (!st.isOk())
        {
            if (strict)
            {
                return st;
            }
            a->errors.push_back(st);
        }
    }
    return a;
}

} // namespace kiln
