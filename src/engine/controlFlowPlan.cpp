// ControlFlowPlan: reading and validating the plan's loops and conditional branches (see controlFlowPlan.h).
#include "engine/controlFlowPlan.h"

#include "core/quoting.h"

#include <map>

namespace kiln
{
using nvinfer1::LayerType;

bool planHasControlFlow(Plan const& plan)
{
    for (PlanNode const& node : plan.nodes)
    {
        if (node.kind == LayerType::kTRIP_LIMIT || node.kind == LayerType::kRECURRENCE
            || node.kind == LayerType::kITERATOR || node.kind == LayerType::kLOOP_OUTPUT || node.attrs.has("cf.loop")
            || node.attrs.has("cf.if"))
        {
            return true;
        }
    }
    return false;
}

StatusOr<ControlFlowPlan> parseControlFlow(Plan const& plan)
{
    ControlFlowPlan cf;
    size_t const nbNodes = plan.nodes.size();
    auto const nbTensors = static_cast<int64_t>(plan.tensors.size());
    cf.loopAt.assign(nbNodes, -1);
    cf.branchCondition.assign(nbNodes, -1);
    cf.branch.assign(nbNodes, 0);
    auto corrupt = [](std::string const& m) { return invalidArgument("corrupt control flow in the engine: " + m); };
    auto nodeLabel = [&](size_t n) {
        return "node " + singleQuoted(plan.nodes[n].name) + " (#" + std::to_string(n) + ")";
    };
    std::map<int64_t, size_t> loopIndex;
    for (size_t n = 0; n < nbNodes; ++n)
    {
        PlanNode const& node = plan.nodes[n];
        bool const boundary = node.kind == LayerType::kTRIP_LIMIT || node.kind == LayerType::kRECURRENCE
            || node.kind == LayerType::kITERATOR || node.kind == LayerType::kLOOP_OUTPUT;
        if (node.attrs.has("cf.if"))
        {
            int64_t const cond = node.attrs.getInt("cf.condition", -1);
            int64_t const b = node.attrs.getInt("cf.branch", -1);
            if (cond < 0 || cond >= nbTensors || (b != 0 && b != 1)
                || plan.tensors[static_cast<size_t>(cond)].type != nvinfer1::DataType::kBOOL
                || !plan.tensors[static_cast<size_t>(cond)].dims.empty() || node.attrs.has("cf.loop"))
            {
                return corrupt(nodeLabel(n) + " has an invalid conditional branch");
            }
            cf.branchCondition[n] = static_cast<int32_t>(cond);
            cf.branch[n] = static_cast<int8_t>(b);
            cf.hasBranches = true;
            continue;
        }
        if (!node.attrs.has("cf.loop"))
        {
            if (boundary)
            {
                return corrupt(nodeLabel(n) + " belongs to no loop");
            }
            continue;
        }
        int64_t const id = node.attrs.getInt("cf.loop");
        auto [it, added] = loopIndex.emplace(id, cf.loops.size());
        if (added)
        {
            cf.loops.emplace_back();
            cf.loops.back().first = n;
            cf.loops.back().name = node.attrs.getString("loop");
            cf.loopAt[n] = static_cast<int32_t>(it->second);
        }
        LoopPlan& loop = cf.loops[it->second];
        if (it->second + 1 != cf.loops.size())
        {
            return corrupt(nodeLabel(n) + " belongs to loop " + std::to_string(id) + ", whose nodes are not contiguous");
        }
        // Nodes between the loop's nodes without the attribute (e.g. inserted reformats) run with the body.
        for (size_t k = loop.last + 1; !added && k < n; ++k)
        {
            loop.bodyNodes.push_back(k);
        }
        loop.last = n;
        auto tensor = [&](size_t slot, bool output) -> StatusOr<int32_t> {
            std::vector<int32_t> const& list = output ? node.outputs : node.inputs;
            if (slot >= list.size() || list[slot] < 0 || list[slot] >= nbTensors)
            {
                return corrupt(nodeLabel(n) + " lacks " + (output ? "output " : "input ") + std::to_string(slot));
            }
            return list[slot];
        };
        if (loop.name.empty() && node.attrs.has("loop"))
        {
            loop.name = node.attrs.getString("loop");
        }
        switch (node.kind)
        {
        case LayerType::kRECURRENCE:
        {
            LoopPlan::Recurrence r;
            KILN_ASSIGN_OR_RETURN(r.init, tensor(0, false));
            KILN_ASSIGN_OR_RETURN(r.next, tensor(1, false));
            KILN_ASSIGN_OR_RETURN(r.state, tensor(0, true));
            loop.recurrences.push_back(r);
            break;
        }
        case LayerType::kITERATOR:
        {
            LoopPlan::Iterator i;
            KILN_ASSIGN_OR_RETURN(i.input, tensor(0, false));
            KILN_ASSIGN_OR_RETURN(i.output, tensor(0, true));
            i.axis = static_cast<int32_t>(node.attrs.getInt("axis", -1));
            i.reverse = node.attrs.getInt("reverse") != 0;
            if (i.axis < 0 || static_cast<size_t>(i.axis) >= plan.tensors[static_cast<size_t>(i.input)].dims.size())
            {
                return corrupt(nodeLabel(n) + " has an invalid axis");
            }
            loop.iterators.push_back(i);
            break;
        }
        case LayerType::kTRIP_LIMIT:
        {
            KILN_ASSIGN_OR_RETURN(int32_t t, tensor(0, false));
            int64_t const kind = node.attrs.getInt("kind", -1);
            int32_t& slot = kind == 0 ? loop.countTensor : loop.whileTensor;
            if ((kind != 0 && kind != 1) || slot >= 0 || !plan.tensors[static_cast<size_t>(t)].dims.empty())
            {
                return corrupt(nodeLabel(n) + " is an invalid or repeated trip limit");
            }
            slot = t;
            break;
        }
        case LayerType::kLOOP_OUTPUT:
        {
            LoopPlan::Output o;
            KILN_ASSIGN_OR_RETURN(o.value, tensor(0, false));
            KILN_ASSIGN_OR_RETURN(o.output, tensor(0, true));
            int64_t const kind = node.attrs.getInt("kind", -1);
            o.axis = static_cast<int32_t>(node.attrs.getInt("axis"));
            if (kind < 0 || kind > 2)
            {
                return corrupt(nodeLabel(n) + " has an invalid loop output kind");
            }
            o.kind = static_cast<nvinfer1::LoopOutput>(kind);
            size_t const rank = plan.tensors[static_cast<size_t>(o.output)].dims.size();
            if (o.kind != nvinfer1::LoopOutput::kLAST_VALUE && (o.axis < 0 || static_cast<size_t>(o.axis) >= rank))
            {
                return corrupt(nodeLabel(n) + " has an invalid axis");
            }
            loop.outputs.push_back(o);
            break;
        }
        default:
            (node.attrs.getInt("cf.loopCondition") != 0 ? loop.conditionNodes : loop.bodyNodes).push_back(n);
            break;
        }
    }
    for (LoopPlan& loop : cf.loops)
    {
        if (loop.countTensor < 0 && loop.whileTensor < 0)
        {
            return corrupt("loop " + singleQuoted(loop.name) + " has no trip limit");
        }
        for (LoopPlan::Output& o : loop.outputs)
        {
            for (LoopPlan::Recurrence const& r : loop.recurrences)
            {
                o.fromRecurrence = o.fromRecurrence || (o.kind == nvinfer1::LoopOutput::kLAST_VALUE && o.value == r.state);
            }
        }
    }
    return cf;
}

} // namespace kiln
