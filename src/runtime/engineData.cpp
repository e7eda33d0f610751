// EngineData: derivation of the runtime lookup tables from a Plan.
#include "runtime/engineData.h"

#include "backends/backend.h"
#include "core/quoting.h"

#include "core/dataType.h"
#include "core/tensorFormat.h"

#include <algorithm>

namespace kiln
{

using nvinfer1::TensorFormat;
using nvinfer1::TensorIOMode;

int32_t EngineData::findIo(char const* name) const
{
    if (name == nullptr)
    {
        return -1;
    }
    auto it = ioByName.find(name);
    return it == ioByName.end() ? -1 : it->second;
}

int64_t EngineData::arenaOffset(int32_t profile, int32_t t) const
{
    auto const& offsets = plan.profiles[static_cast<size_t>(profile)].tensorOffsets;
    return static_cast<size_t>(t) < offsets.size() ? offsets[static_cast<size_t>(t)] : -1;
}

int64_t EngineData::arenaCapacity(int32_t profile, int32_t t) const
{
    auto const& capacity = plan.profiles[static_cast<size_t>(profile)].tensorCapacity;
    return static_cast<size_t>(t) < capacity.size() ? capacity[static_cast<size_t>(t)] : 0;
}

namespace
{

//! Record which input binds each symbol (for error messages), and check that every input-bound symbol
//! has a binder.
Status findSymbolBinders(EngineData& d)
{
    Plan const& plan = d.plan;
    ShapeGraph const& g = plan.shapes;
    d.symbolBinder.assign(g.symbols().size(), std::string());
    for (int32_t pos = 0; pos < d.nbInputs; ++pos)
    {
        PlanTensor const& t = d.ioTensor(pos);
        for (size_t i = 0; i < t.dims.size(); ++i)
        {
            ExprNode const& n = g.node(t.dims[i]);
            if (n.op == ExprOp::kSYMBOL && d.symbolBinder[static_cast<size_t>(n.value)].empty())
            {
                d.symbolBinder[static_cast<size_t>(n.value)]
                    = "input " + singleQuoted(t.name) + " dimension " + std::to_string(i);
            }
        }
        for (size_t i = 0; i < t.values.size(); ++i)
        {
            ExprNode const& n = g.node(t.values[i]);
            if (n.op == ExprOp::kSYMBOL && d.symbolBinder[static_cast<size_t>(n.value)].empty())
            {
                d.symbolBinder[static_cast<size_t>(n.value)] = "input " + singleQuoted(t.name) + " value " + std::to_string(i);
            }
        }
    }
    for (size_t s = 0; s < g.symbols().size(); ++s)
    {
        if (!d.symbolBinder[s].empty())
        {
            continue;
        }
        SymbolInfo const& info = g.symbols()[s];
        if (info.kind == SymbolKind::kDATA_DEPENDENT)
        {
            d.hasDataDependentShapes = true;
            continue;
        }
        // A runtime dimension or value that no engine input supplies cannot ever be evaluated.
        return invalidArgument("the engine's shape symbol " + singleQuoted(info.name)
            + " is not bound by any input tensor (the engine is inconsistent)");
    }
    return Status::ok();
}

//! Data-dependent symbols: each needs an upper bound and a size tensor written by a node; derive which node binds
//! each symbol, which expressions and tensors depend on them, and the shape graph used at upper bounds.
Status analyzeDataDependentShapes(EngineData& d)
{
    Plan const& plan = d.plan;
    ShapeGraph const& g = plan.shapes;
    size_t const nbSymbols = g.symbols().size();
    d.symbolSizeTensor.assign(nbSymbols, -1);
    d.symbolBinderNode.assign(nbSymbols, -1);
    d.nodeBindsSymbols.assign(plan.nodes.size(), {});
    d.exprLastBinder.assign(g.nodes().size(), -1);
    d.tensorDependsOnData.assign(plan.tensors.size(), false);
    d.dataDependentSymbols.clear();
    for (size_t t = 0; t < plan.tensors.size(); ++t)
    {
        int32_t const s = plan.tensors[t].sizeTensorSymbol;
        if (s >= 0)
        {
            d.symbolSizeTensor[static_cast<size_t>(s)] = static_cast<int32_t>(t);
        }
    }
    for (size_t s = 0; s < nbSymbols; ++s)
    {
        SymbolInfo const& info = g.symbols()[s];
        if (info.kind != SymbolKind::kDATA_DEPENDENT || !d.symbolBinder[s].empty())
        {
            continue;
        }
        int32_t const tensor = d.symbolSizeTensor[s];
        if (tensor < 0)
        {
            return invalidArgument("the engine's data-dependent shape symbol " + singleQuoted(info.name)
                + " has no size tensor (the engine is inconsistent)");
        }
        int32_t const node = d.producer[static_cast<size_t>(tensor)];
        if (node < 0)
        {
            return invalidArgument("size tensor " + singleQuoted(plan.tensors[static_cast<size_t>(tensor)].name)
                + " of the data-dependent shape symbol " + singleQuoted(info.name) + " is not written by any layer");
        }
        if (info.upper == kNO_EXPR)
        {
            return invalidArgument("the engine's data-dependent shape symbol " + singleQuoted(info.name)
                + " has no upper bound (declareSizeTensor gives one)");
        }
        d.symbolBinderNode[s] = node;
        d.nodeBindsSymbols[static_cast<size_t>(node)].push_back(static_cast<int32_t>(s));
        d.dataDependentSymbols.push_back(static_cast<int32_t>(s));
    }
    std::stable_sort(d.dataDependentSymbols.begin(), d.dataDependentSymbols.end(),
        [&](int32_t a, int32_t b) { return d.symbolBinderNode[static_cast<size_t>(a)] < d.symbolBinderNode[static_cast<size_t>(b)]; });
    for (size_t i = 0; i < g.nodes().size(); ++i)
    {
        ExprNode const& n = g.nodes()[i];
        int32_t& last = d.exprLastBinder[i];
        auto const from = [&](ExprId operand) { last = std::max(last, d.exprLastBinder[static_cast<size_t>(operand)]); };
        switch (n.op)
        {
        case ExprOp::kCONSTANT: break;
        case ExprOp::kSYMBOL: last = d.symbolBinderNode[static_cast<size_t>(n.value)]; break;
        case ExprOp::kSELECT:
            from(n.a);
            from(n.b);
            from(n.c);
            break;
        case ExprOp::kSCALE: from(n.a); break;
        default:
            from(n.a);
            from(n.b);
            break;
        }
    }
    for (int32_t s : d.dataDependentSymbols)
    {
        SymbolInfo const& info = g.symbols()[static_cast<size_t>(s)];
        int32_t const binder = d.symbolBinderNode[static_cast<size_t>(s)];
        if (d.exprLastBinder[static_cast<size_t>(info.upper)] >= binder)
        {
            return invalidArgument("the upper bound of the data-dependent shape symbol " + singleQuoted(info.name) + " ("
                + g.toString(info.upper) + ") depends on a size tensor that is only known after layer "
                + singleQuoted(plan.nodes[static_cast<size_t>(binder)].name) + " ran");
        }
    }
    for (size_t t = 0; t < plan.tensors.size(); ++t)
    {
        for (ExprId id : plan.tensors[t].dims)
        {
            if (d.exprLastBinder[static_cast<size_t>(id)] >= 0)
            {
                d.tensorDependsOnData[t] = true;
            }
        }
    }
    std::vector<bool> const floatDependent = g.dependsOnKind(SymbolKind::kINPUT_FLOAT_VALUE);
    d.tensorSizedAtRun.assign(plan.tensors.size(), false);
    for (size_t t = 0; t < plan.tensors.size(); ++t)
    {
        for (ExprId id : plan.tensors[t].dims)
        {
            d.tensorSizedAtRun[t] = d.tensorSizedAtRun[t] || floatDependent[static_cast<size_t>(id)];
        }
    }
    if (d.hasDataDependentShapes)
    {
        std::vector<ShapeConstraint> constraints;
        for (ShapeConstraint const& c : g.constraints())
        {
            if (d.exprLastBinder[static_cast<size_t>(c.condition)] < 0)
            {
                constraints.push_back(c);
            }
        }
        KILN_ASSIGN_OR_RETURN(d.boundsGraph, ShapeGraph::fromParts(g.nodes(), g.symbols(), std::move(constraints)));
    }
    return Status::ok();
}

//! Outputs that alias an input (a plugin's getAliasedInput) where both are network I/O.
void findAliasedInputs(EngineData& d)
{
    Plan const& plan = d.plan;
    d.ioAliasedInput.assign(plan.ioTensors.size(), -1);
    for (int32_t pos = d.nbInputs; pos < d.nbIo(); ++pos)
    {
        int32_t const t = plan.ioTensors[static_cast<size_t>(pos)];
        int32_t const n = d.producer[static_cast<size_t>(t)];
        if (n < 0)
        {
            continue;
        }
        PlanNode const& node = plan.nodes[static_cast<size_t>(n)];
        std::vector<int64_t> const aliases = node.attrs.getInts("plugin.aliases");
        for (size_t k = 0; k < node.outputs.size() && k < aliases.size(); ++k)
        {
            int64_t const a = aliases[k];
            if (node.outputs[k] == t && a >= 0 && static_cast<size_t>(a) < node.inputs.size() && node.inputs[static_cast<size_t>(a)] >= 0)
            {
                int32_t const in = d.ioPosition[static_cast<size_t>(node.inputs[static_cast<size_t>(a)])];
                d.ioAliasedInput[static_cast<size_t>(pos)] = in >= 0 && in < d.nbInputs ? in : -1;
            }
        }
    }
}

} // namespace

StatusOr<std::shared_ptr<EngineData const>> makeEngineData(Plan plan)
{
    auto d = std::make_shared<EngineData>();
    d->plan = std::move(plan);
    Plan const& p = d->plan;
    StatusOr<Backend const*> backend = backendNamed(p.backend);
    if (!backend.isOk())
    {
        return Status(backend.status().code(), "the engine was built for the '" + p.backend + "' backend: "
            + backend.status().message());
    }
    d->backend = backend.value();
    if (p.profiles.empty())
    {
        return invalidArgument("the engine has no optimization profile (every engine needs at least one)");
    }
    if (planHasControlFlow(p))
    {
        KILN_ASSIGN_OR_RETURN(d->controlFlow, parseControlFlow(p));
    }
    size_t const nbTensors = p.tensors.size();
    d->ioPosition.assign(nbTensors, -1);
    for (size_t i = 0; i < p.ioTensors.size(); ++i)
    {
        int32_t const t = p.ioTensors[i];
        d->ioPosition[static_cast<size_t>(t)] = static_cast<int32_t>(i);
        d->ioByName.emplace(p.tensors[static_cast<size_t>(t)].name, static_cast<int32_t>(i));
        if (p.tensors[static_cast<size_t>(t)].ioMode == TensorIOMode::kINPUT)
        {
            d->nbInputs = static_cast<int32_t>(i) + 1;
        }
    }
    d->producer.assign(nbTensors, -1);
    d->consumed.assign(nbTensors, false);
    for (size_t n = 0; n < p.nodes.size(); ++n)
    {
        for (int32_t out : p.nodes[n].outputs)
        {
            if (d->producer[static_cast<size_t>(out)] != -1)
            {
                return invalidArgument("tensor " + singleQuoted(p.tensors[static_cast<size_t>(out)].name)
                    + " is written by two nodes (" + singleQuoted(p.nodes[static_cast<size_t>(d->producer[static_cast<size_t>(out)])].name)
                    + " and " + singleQuoted(p.nodes[n].name) + ")");
            }
            d->producer[static_cast<size_t>(out)] = static_cast<int32_t>(n);
        }
        for (int32_t in : p.nodes[n].inputs)
        {
            if (in >= 0)
            {
                d->consumed[static_cast<size_t>(in)] = true;
            }
        }
    }
    for (int32_t pos = 0; pos < d->nbIo(); ++pos)
    {
        PlanTensor const& t = d->ioTensor(pos);
        int32_t const ti = p.ioTensors[static_cast<size_t>(pos)];
        if (t.ioMode == TensorIOMode::kINPUT && d->producer[static_cast<size_t>(ti)] != -1)
        {
            return invalidArgument("input tensor " + singleQuoted(t.name) + " is written by a node");
        }
        if (t.ioMode == TensorIOMode::kOUTPUT && d->producer[static_cast<size_t>(ti)] == -1 && !t.hasValues
            && t.constant < 0)
        {
            return invalidArgument("output tensor " + singleQuoted(t.name) + " is not computed by any node");
        }
        d->formatDesc.push_back(formatDescription(t.format, t.type));
    }
    d->profileInput.resize(p.profiles.size());
    d->profileValues32.resize(p.profiles.size());
    for (size_t pi = 0; pi < p.profiles.size(); ++pi)
    {
        PlanProfile const& prof = p.profiles[pi];
        d->profileInput[pi].assign(p.ioTensors.size(), -1);
        d->profileValues32[pi].resize(p.ioTensors.size());
        for (size_t k = 0; k < prof.inputs.size(); ++k)
        {
            int32_t const pos = d->ioPosition[static_cast<size_t>(prof.inputs[k].tensor)];
            if (pos < 0)
            {
                return invalidArgument("optimization profile " + std::to_string(pi) + " lists tensor "
                    + singleQuoted(p.tensors[static_cast<size_t>(prof.inputs[k].tensor)].name) + ", which is not an input");
            }
            d->profileInput[pi][static_cast<size_t>(pos)] = static_cast<int32_t>(k);
            std::vector<int64_t> const* values[3] = {&prof.inputs[k].minValues, &prof.inputs[k].optValues, &prof.inputs[k].maxValues};
            for (size_t s = 0; s < 3; ++s)
            {
                auto& out = d->profileValues32[pi][static_cast<size_t>(pos)][s];
                for (int64_t v : *values[s])
                {
                    out.push_back(static_cast<int32_t>(std::clamp<int64_t>(v, INT32_MIN, INT32_MAX)));
                }
            }
        }
        d->maxArenaSize = std::max(d->maxArenaSize, prof.arenaSize);
    }
    for (PlanWeights const& w : p.weights)
    {
        d->totalWeightsSize += w.size;
    }
    KILN_RETURN_IF_ERROR(findSymbolBinders(*d));
    KILN_RETURN_IF_ERROR(analyzeDataDependentShapes(*d));
    findAliasedInputs(*d);
    return std::shared_ptr<EngineData const>(std::move(d));
}

} // namespace kiln
