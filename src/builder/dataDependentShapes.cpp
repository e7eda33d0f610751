// Data-dependent shapes at build time: see dataDependentShapes.h.
#include "builder/dataDependentShapes.h"

#include <algorithm>

namespace kiln
{

std::vector<bool> dataDependentExprs(ShapeGraph const& g)
{
    std::vector<ExprNode> const& nodes = g.nodes();
    std::vector<bool> dd(nodes.size(), false);
    auto depends = [&](ExprId id) {
        return id >= 0 && static_cast<size_t>(id) < dd.size() && dd[static_cast<size_t>(id)];
    };
    // Operands are created before the expressions that use them, so one forward pass suffices.
    for (size_t i = 0; i < nodes.size(); ++i)
    {
        ExprNode const& n = nodes[i];
        if (n.op == ExprOp::kSYMBOL)
        {
            size_t const s = static_cast<size_t>(n.value);
            dd[i] = s < g.symbols().size() && g.symbols()[s].kind == SymbolKind::kDATA_DEPENDENT;
        }
        else if (n.op != ExprOp::kCONSTANT)
        {
            dd[i] = depends(n.a) || depends(n.b) || depends(n.c);
        }
    }
    return dd;
}

bool dependsOnData(std::vector<bool> const& dataDependent, std::vector<ExprId> const& ids)
{
    return std::any_of(ids.begin(), ids.end(), [&](ExprId id) {
        return id >= 0 && static_cast<size_t>(id) < dataDependent.size() && dataDependent[static_cast<size_t>(id)];
    });
}

Status bindDataDependentSymbols(ShapeGraph const& g, int32_t selector, std::vector<int64_t>& symbolValues)
{
    std::vector<SymbolInfo> const& symbols = g.symbols();
    std::vector<size_t> dds;
    for (size_t s = 0; s < symbols.size(); ++s)
    {
        if (symbols[s].kind == SymbolKind::kDATA_DEPENDENT)
        {
            dds.push_back(s);
            symbolValues[s] = 0;
        }
    }
    if (dds.empty() || selector == 0)
    {
        return Status::ok();
    }
    // Evaluate without the constraints: they may only hold once the data-dependent values are known. Bounds may
    // refer to other size tensors, so repeat until every bound has seen its inputs' final values.
    KILN_ASSIGN_OR_RETURN(ShapeGraph unconstrained, ShapeGraph::fromParts(g.nodes(), g.symbols(), {}));
    std::vector<int64_t> values;
    for (size_t round = 0; round <= dds.size(); ++round)
    {
        KILN_RETURN_IF_ERROR(unconstrained.evaluate(symbolValues, values));
        bool changed = false;
        for (size_t s : dds)
        {
            ExprId const bound = selector == 1 ? symbols[s].opt : symbols[s].upper;
            if (bound < 0 || static_cast<size_t>(bound) >= values.size())
            {
                return internalError("data-dependent size '" + symbols[s].name + "' has no "
                    + (selector == 1 ? "opt value" : "upper bound") + " (IExprBuilder::declareSizeTensor)");
            }
            int64_t const v = values[static_cast<size_t>(bound)];
            if (v < 0)
            {
                return invalidArgument("data-dependent size '" + symbols[s].name + "' has a negative "
                    + (selector == 1 ? "opt value " : "upper bound ") + g.toString(bound) + " = " + std::to_string(v));
            }
            changed = changed || symbolValues[s] != v;
            symbolValues[s] = v;
        }
        if (!changed)
        {
            break;
        }
    }
    return Status::ok();
}

} // namespace kiln
