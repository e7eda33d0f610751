// lowerPass: turns the analysed network into plan tensors, nodes and weights.
// - Layers that feed no output are dropped, except assertions (no outputs; kept while their condition is data).
// - Layers whose needed outputs all have known values (shape computations) are not executed: the runtime
//   evaluates their values and writes them into the tensors (TensorRT likewise computes shape tensors on the host).
// - Constant layers become constant tensors bound to weights, unless their output is a network output.
// - An output whose type the user overrode is produced in the layer's own type and converted by an Identity node.
// - Loops and conditionals (loopRegions.h): trip limits execute with their loop, a recurrence's next value makes
//   liveness iterate to a fixed point, each loop/conditional is emitted contiguously with "cf.*" attributes, and a
//   conditional output with a build-time condition becomes an Identity of the taken branch.
// - Plugin layers always execute when needed (their size-tensor outputs carry data-dependent values); values that
//   depend on a data-dependent size do not count as known. Plugin nodes are remembered for the plugin pass.
#include "builder/buildContext.h"
#include "builder/dataDependentShapes.h"
#include "builder/passes/loopRegions.h"
#include "network/layers/loopAnalysis.h"
#include "network/layers/pluginLayer.h"

#include "core/dataType.h"

#include <algorithm>
#include <unordered_set>

namespace kiln
{
using nvinfer1::DataType;
using nvinfer1::LayerType;

namespace
{

std::vector<ExprId> ids(ShapeExpr const& s)
{
    std::vector<ExprId> out;
    for (auto const& d : s)
    {
        out.push_back(d.id());
    }
    return out;
}

int32_t addTensor(BuildContext& ctx, Tensor const* t)
{
    auto it = ctx.tensorIndex.find(t);
    if (it != ctx.tensorIndex.end())
    {
        return it->second;
    }
    TensorInfo const& info = ctx.analysis->infos.at(t);
    PlanTensor pt;
    pt.name = t->name();
    pt.type = info.type;
    pt.dims = ids(info.dims);
    if (info.values.has_value())
    {
        pt.hasValues = true;
        for (auto const& v : *info.values)
        {
            pt.values.push_back(v.id());
        }
    }
    auto sizeTensor = ctx.analysis->sizeTensorSymbols.find(t);
    if (sizeTensor != ctx.analysis->sizeTensorSymbols.end())
    {
        pt.sizeTensorSymbol = sizeTensor->second;
    }
    int32_t const index = static_cast<int32_t>(ctx.plan.tensors.size());
    ctx.plan.tensors.push_back(std::move(pt));
    ctx.tensorIndex[t] = index;
    return index;
}

Status checkWeights(Layer const& layer, nvinfer1::Weights const& w)
{
    if (!isValidDataType(static_cast<int32_t>(w.type)) || elementSize(w.type) == 0)
    {
        return invalidArgument("layer '" + layer.name() + "': weights have unsupported type "
            + std::to_string(static_cast<int32_t>(w.type)));
    }
    if (w.count < 0)
    {
        return invalidArgument("layer '" + layer.name() + "': weights count is negative");
    }
    return Status::ok();
}

StatusOr<int32_t> addWeights(BuildContext& ctx, Layer const& layer, nvinfer1::Weights const& w)
{
    KILN_RETURN_IF_ERROR(checkWeights(layer, w));
    PlanWeights pw = addPlanWeights(ctx.plan, w.type, w.count, w.values, byteSize(w.type, w.count));
    if (pw.data == nullptr)
    {
        return failedAllocation("layer '" + layer.name() + "': cannot allocate weights");
    }
    ctx.plan.weights.push_back(pw);
    return static_cast<int32_t>(ctx.plan.weights.size()) - 1;
}

} // namespace

Status lowerPass(BuildContext& ctx)
{
    NetworkAnalysis const& a = *ctx.analysis;
    NetworkDefinition const& net = ctx.network;

    ctx.plan.shapes = *a.graph;
    std::vector<bool> const dataDependent = dataDependentExprs(ctx.plan.shapes);
    auto knownValues = [&](TensorInfo const& info) {
        if (!info.values.has_value())
        {
            return false;
        }
        std::vector<ExprId> ids;
        for (DimExpr const& v : *info.values)
        {
            ids.push_back(v.id());
        }
        return !dependsOnData(dataDependent, ids);
    };

    // 1. Liveness, from the outputs backwards (repeated until stable: a loop's next values are back edges).
    std::unordered_set<Tensor const*> needed(net.outputs().begin(), net.outputs().end());
    std::unordered_set<Layer const*> executed;
    size_t liveBefore = ~size_t{0};
    while (liveBefore != needed.size() + executed.size())
    {
        liveBefore = needed.size() + executed.size();
        for (auto it = a.order.rbegin(); it != a.order.rend(); ++it)
        {
            Layer const& layer = **it;
            if (layer.kind() == LayerType::kTRIP_LIMIT)
            {
                // Executes with its loop (the runtime reads its count or condition).
                if (!layer.inputs().empty() && layer.inputs()[0] != nullptr)
                {
                    executed.insert(&layer);
                    needed.insert(layer.inputs()[0]);
                }
                continue;
            }
            if (layer.kind() == LayerType::kASSERTION)
            {
                // No outputs, but a side effect: execute it unless its condition's values are known (then shape
                // inference made each element a shape constraint, checked by the build or the runtime shape check).
                Tensor const* cond = layer.inputs().empty() ? nullptr : layer.inputs()[0];
                if (cond != nullptr && !knownValues(a.infos.at(cond)))
                {
                    executed.insert(&layer);
                    needed.insert(cond);
                }
                continue;
            }
            bool anyNeeded = false;
            bool allKnown = true;
            for (Tensor const* o : layer.outputs())
            {
                if (needed.count(o) != 0)
                {
                    anyNeeded = true;
                    allKnown = allKnown && knownValues(a.infos.at(o));
                }
            }
            if (!anyNeeded)
            {
                continue;
            }
            bool const isOutputConstant = layer.kind() == LayerType::kCONSTANT
                && std::any_of(layer.outputs().begin(), layer.outputs().end(), [](Tensor const* o) { return o->isOutput(); });
            bool const isPlugin = pluginLayerState(layer) != nullptr;
            if ((allKnown || layer.kind() == LayerType::kCONSTANT) && !isOutputConstant && !isPlugin)
            {
                continue; // materialized from values, or bound to weights
            }
            executed.insert(&layer);
            int32_t const taken = constantConditionalInput(layer, a);
            for (size_t s = 0; s < layer.inputs().size(); ++s)
            {
                Tensor const* in = layer.inputs()[s];
                if (in != nullptr && (taken < 0 || static_cast<int32_t>(s) == taken))
                {
                    needed.insert(in);
                }
            }
        }
    }

    // 2. I/O tensors first: every network input (in order), then every output.
    for (Tensor const* in : net.inputs())
    {
        int32_t const idx = addTensor(ctx, in);
        PlanTensor& pt = ctx.plan.tensors[static_cast<size_t>(idx)];
        pt.ioMode = nvinfer1::TensorIOMode::kINPUT;
        pt.hostShapeTensor = a.shapeTensorInputs.count(in) != 0;
        pt.dimNames = in->dimensionNames();
        ctx.plan.ioTensors.push_back(idx);
    }
    for (Tensor const* out : net.outputs())
    {
        int32_t const idx = addTensor(ctx, out);
        ctx.plan.tensors[static_cast<size_t>(idx)].ioMode = nvinfer1::TensorIOMode::kOUTPUT;
        ctx.plan.ioTensors.push_back(idx);
    }

    // 3. Nodes in topological order (loops and conditionals contiguous); constants become weight-bound tensors.
    KILN_ASSIGN_OR_RETURN(std::vector<Layer*> const order, controlFlowOrder(a));
    for (Layer const* layerPtr : order)
    {
        Layer const& layer = *layerPtr;
        bool const isExecuted = executed.count(&layer) != 0;
        if (!isExecuted)
        {
            if (layer.kind() == LayerType::kCONSTANT && needed.count(layer.outputs()[0]) != 0)
            {
                int32_t const idx = addTensor(ctx, layer.outputs()[0]);
                KILN_ASSIGN_OR_RETURN(int32_t w, addWeights(ctx, layer, layer.weights().at(0)));
                ctx.plan.tensors[static_cast<size_t>(idx)].constant = w;
            }
            continue;
        }
        PlanNode node;
        node.kind = layer.kind();
        node.name = layer.name();
        node.metadata = layer.metadata();
        node.attrs = layer.attrs();
        node.precision = layer.precisionSet() ? layer.precision() : DataType::kFLOAT;
        annotateControlFlow(node, layer, a, [&](Tensor const* t) { return addTensor(ctx, t); });
        if (int32_t const taken = constantConditionalInput(layer, a); taken >= 0)
        {
            node.kind = LayerType::kIDENTITY; // build-time condition: only the taken branch was kept
            node.inputs.push_back(addTensor(ctx, layer.inputs()[static_cast<size_t>(taken)]));
        }
        else
        {
            for (Tensor const* in : layer.inputs())
            {
                node.inputs.push_back(in == nullptr ? -1 : addTensor(ctx, in));
            }
        }
        for (nvinfer1::Weights const& w : layer.weights())
        {
            if (w.count > 0)
            {
                KILN_ASSIGN_OR_RETURN(int32_t wi, addWeights(ctx, layer, w));
                node.weights.push_back(wi);
            }
            else
            {
                node.weights.push_back(-1);
            }
        }
        std::vector<PlanNode> conversions;
        for (Tensor const* out : layer.outputs())
        {
            int32_t const idx = addTensor(ctx, out);
            auto nat = a.naturalTypes.find(out);
            if (nat == a.naturalTypes.end())
            {
                node.outputs.push_back(idx);
                continue;
            }
            // Produce the layer's own type into a temporary, then convert into the requested type.
            PlanTensor tmp = ctx.plan.tensors[static_cast<size_t>(idx)];
            tmp.name = out->name() + " (before conversion to " + dataTypeName(tmp.type) + ")";
            tmp.type = nat->second;
            tmp.ioMode = nvinfer1::TensorIOMode::kNONE;
            int32_t const tmpIdx = static_cast<int32_t>(ctx.plan.tensors.size());
            ctx.plan.tensors.push_back(std::move(tmp));
            node.outputs.push_back(tmpIdx);
            PlanNode convert;
            convert.kind = LayerType::kIDENTITY;
            convert.name = layer.name() + " [output type conversion]";
            convert.inputs = {tmpIdx};
            convert.outputs = {idx};
            for (auto const& [key, value] : node.attrs.values())
            {
                if (key.rfind("cf.", 0) == 0)
                {
                    convert.attrs.values()[key] = value; // stays in its loop / branch
                }
            }
            conversions.push_back(std::move(convert));
        }
        if (PluginLayerState const* plugin = pluginLayerState(layer))
        {
            node.attrs.setInt("plugin.nbShapeInputs", plugin->nbShapeInputs());
            ctx.nodePlugins[ctx.plan.nodes.size()] = plugin;
        }
        ctx.plan.nodes.push_back(std::move(node));
        for (auto& c : conversions)
        {
            ctx.plan.nodes.push_back(std::move(c));
        }
    }
    return Status::ok();
}

} // namespace kiln
