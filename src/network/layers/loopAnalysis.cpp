// Control-flow analysis: loop bodies, conditional branches and their checks (see loopAnalysis.h).
#include "network/layers/loopAnalysis.h"

#include "core/dataType.h"
#include "network/layers/conditionLayer.h"
#include "network/layers/ifConditional.h"
#include "network/layers/loop.h"
#include "network/networkAnalysis.h"
#include "network/networkDefinition.h"

#include <algorithm>
#include <map>
#include <queue>

namespace kiln
{
using nvinfer1::LayerType;

namespace
{

using Consumers = std::unordered_map<Tensor const*, std::vector<std::pair<Layer*, int32_t>>>;

std::string layerLabel(Layer const& layer)
{
    return "layer '" + layer.name() + "' (" + layerKindName(layer.kind()) + ")";
}

bool isLoopBoundary(LayerType k)
{
    return k == LayerType::kRECURRENCE || k == LayerType::kITERATOR || k == LayerType::kTRIP_LIMIT
        || k == LayerType::kLOOP_OUTPUT;
}

Status analyzeLoop(LoopRegion& region, Consumers const& consumers, NetworkAnalysis& a)
{
    Loop const& loop = *region.loop;
    if (region.tripLimits.empty())
    {
        return invalidArgument(loop.label() + " has no trip limit (call ILoop::addTripLimit)");
    }
    int32_t counts[2] = {0, 0};
    for (Layer const* t : region.tripLimits)
    {
        int64_t const k = t->attrs().getInt("kind");
        if (++counts[k == 0 ? 0 : 1] > 1)
        {
            return invalidArgument(loop.label() + ": trip limit " + layerLabel(*t) + " is the second of kind "
                + (k == 0 ? "kCOUNT" : "kWHILE") + "; a loop takes at most one of each kind");
        }
    }
    for (Layer const* r : region.recurrences)
    {
        if (r->inputs().size() < 2 || r->inputs()[1] == nullptr)
        {
            return invalidArgument(loop.label() + ": recurrence " + layerLabel(*r)
                + " has no next value (set input 1 with ILayer::setInput(1, nextValue))");
        }
    }
    // Forward from the entries.
    std::unordered_set<Layer const*> forward;
    std::vector<Tensor const*> work;
    for (Layer const* l : region.recurrences)
    {
        work.push_back(l->outputs()[0]);
    }
    for (Layer const* l : region.iterators)
    {
        work.push_back(l->outputs()[0]);
    }
    std::vector<Tensor const*> const entries = work;
    while (!work.empty())
    {
        Tensor const* t = work.back();
        work.pop_back();
        auto it = consumers.find(t);
        if (it == consumers.end())
        {
            continue;
        }
        for (auto const& [c, slot] : it->second)
        {
            Loop const* other = loopOf(*c);
            if (other == &loop)
            {
                continue; // an exit (or another entry's input)
            }
            if (other != nullptr)
            {
                return unsupported(loop.label() + ": " + layerLabel(*c) + " of " + other->label()
                    + " is inside the loop's body; nested loops are not supported by Kiln yet");
            }
            if (forward.insert(c).second)
            {
                for (Tensor const* o : c->outputs())
                {
                    work.push_back(o);
                }
            }
        }
    }
    // Backward from the exits, within the forward set.
    auto backward = [&](std::vector<Tensor const*> from, std::unordered_set<Layer const*>& into) {
        while (!from.empty())
        {
            Tensor const* t = from.back();
            from.pop_back();
            Layer const* p = t == nullptr ? nullptr : t->producer();
            if (p == nullptr || forward.count(p) == 0 || !into.insert(p).second)
            {
                continue;
            }
            for (Tensor const* in : p->inputs())
            {
                from.push_back(in);
            }
        }
    };
    std::vector<Tensor const*> exits;
    for (Layer const* l : region.recurrences)
    {
        exits.push_back(l->inputs()[1]);
    }
    for (Layer const* l : region.outputs)
    {
        exits.push_back(l->inputs()[0]);
    }
    Tensor const* whileCondition = nullptr;
    for (Layer const* l : region.tripLimits)
    {
        exits.push_back(l->inputs()[0]);
        if (l->attrs().getInt("kind") == static_cast<int64_t>(nvinfer1::TripLimit::kWHILE))
        {
            whileCondition = l->inputs()[0];
        }
    }
    backward(exits, region.body);
    if (whileCondition != nullptr)
    {
        backward({whileCondition}, region.condition);
    }
    for (Layer const* l : region.body)
    {
        for (Tensor const* o : l->outputs())
        {
            if (a.sizeTensorSymbols.count(o) != 0 || l->kind() == LayerType::kNON_ZERO || l->kind() == LayerType::kNMS)
            {
                return unsupported(loop.label() + ": " + layerLabel(*l) + " has a data-dependent output shape; such "
                    "layers inside a loop body are not supported by Kiln yet");
            }
        }
    }
    // Body values may leave the loop only through loop outputs.
    auto escapes = [&](Layer const& l) -> Status {
        for (Tensor const* o : l.outputs())
        {
            if (o->isOutput())
            {
                return invalidArgument(loop.label() + ": tensor '" + o->name() + "' of the loop (from " + layerLabel(l)
                    + ") is a network output; values leave a loop only through ILoopOutputLayer");
            }
        }
        return Status::ok();
    };
    for (Layer const* l : forward)
    {
        KILN_RETURN_IF_ERROR(escapes(*l));
        if (region.body.count(l) == 0)
        {
            // Reads the loop's values but leads to no exit: used outside the loop if anything consumes it.
            for (Tensor const* o : l->outputs())
            {
                auto it = consumers.find(o);
                if (it == consumers.end())
                {
                    continue;
                }
                for (auto const& [c, slot] : it->second)
                {
                    if (forward.count(c) == 0 && loopOf(*c) != &loop)
                    {
                        return invalidArgument(loop.label() + ": " + layerLabel(*c) + " uses tensor '" + o->name()
                            + "' of the loop body outside the loop; use ILoopOutputLayer to take values out of a loop");
                    }
                }
            }
        }
    }
    for (Tensor const* e : entries)
    {
        if (e->isOutput())
        {
            return invalidArgument(loop.label() + ": tensor '" + e->name()
                + "' (a recurrence/iterator output) is a network output; use ILoopOutputLayer");
        }
    }
    // Loop outputs: the value must come from the loop; its length (input 1) from outside.
    for (Layer const* l : region.outputs)
    {
        if (l->inputs().size() > 1 && l->inputs()[1] != nullptr)
        {
            Layer const* p = l->inputs()[1]->producer();
            if (p != nullptr && (region.body.count(p) != 0 || loopOf(*p) == &loop))
            {
                return invalidArgument(loop.label() + ": the concatenation length '" + l->inputs()[1]->name()
                    + "' of " + layerLabel(*l) + " is computed inside the loop; it must be defined before the loop");
            }
        }
    }
    // Next values: same type and shape as the initial value.
    for (Layer const* r : region.recurrences)
    {
        TensorInfo const& init = a.infos.at(r->outputs()[0]);
        auto it = a.infos.find(r->inputs()[1]);
        if (it == a.infos.end())
        {
            return invalidArgument(loop.label() + ": the next value '" + r->inputs()[1]->name() + "' of recurrence "
                + layerLabel(*r) + " has no known shape");
        }
        TensorInfo const& next = it->second;
        std::string const what = loop.label() + ": recurrence " + layerLabel(*r) + ": the next value '" + next.name
            + "' " + shapeToString(*a.graph, next.dims) + " " + dataTypeName(next.type) + " differs from the initial value '"
            + r->inputs()[0]->name() + "' " + shapeToString(*a.graph, init.dims) + " " + dataTypeName(init.type);
        if (next.type != init.type || next.rank() != init.rank())
        {
            return invalidArgument(what);
        }
        for (size_t i = 0; i < init.dims.size(); ++i)
        {
            DimExpr const x = init.dims[i];
            DimExpr const y = next.dims[i];
            if (x.id() == y.id())
            {
                continue;
            }
            if (x.known() >= 0 && y.known() >= 0)
            {
                return invalidArgument(what);
            }
            KILN_RETURN_IF_ERROR(a.graph->require(x.eq(y).id(), what));
        }
    }
    return Status::ok();
}

Status analyzeConditional(ConditionalRegion& region, ControlFlowInfo const& info, Consumers const& consumers,
    NetworkAnalysis const& a)
{
    IfConditional const& cond = *region.conditional;
    if (region.condition == nullptr)
    {
        return invalidArgument(cond.label() + " has no condition (call IIfConditional::setCondition)");
    }
    if (region.outputs.empty())
    {
        return invalidArgument(cond.label() + " has no outputs (call IIfConditional::addOutput)");
    }
    for (Layer const* l : region.outputs)
    {
        if (info.loopOf.count(l) != 0)
        {
            region.insideLoop = true;
        }
    }
    for (Layer const* l : region.inputs)
    {
        if (info.loopOf.count(l) != 0)
        {
            region.insideLoop = true;
        }
    }
    if (region.insideLoop || buildTimeCondition(a.infos.at(region.condition->inputs()[0])) >= 0)
    {
        return Status::ok(); // no branch skipping: the output layers select (or inference kept one branch)
    }
    region.grouped = true;
    for (int32_t b = 0; b < 2; ++b)
    {
        int32_t const slot = b == 1 ? 0 : 1;
        std::unordered_set<Layer const*> candidates;
        std::vector<Tensor const*> work;
        for (Layer const* o : region.outputs)
        {
            work.push_back(o->inputs()[static_cast<size_t>(slot)]);
        }
        while (!work.empty())
        {
            Tensor const* t = work.back();
            work.pop_back();
            Layer const* p = t == nullptr ? nullptr : t->producer();
            if (p == nullptr || conditionalOf(*p) != nullptr || loopOf(*p) != nullptr || info.loopOf.count(p) != 0
                || !candidates.insert(p).second)
            {
                continue;
            }
            for (Tensor const* in : p->inputs())
            {
                work.push_back(in);
            }
        }
        // Reverse topological order: a layer belongs to the branch when all its consumers do.
        for (auto it = a.order.rbegin(); it != a.order.rend(); ++it)
        {
            Layer const* l = *it;
            if (candidates.count(l) == 0)
            {
                continue;
            }
            bool exclusive = true;
            for (Tensor const* o : l->outputs())
            {
                exclusive = exclusive && !o->isOutput();
                auto c = consumers.find(o);
                if (c == consumers.end())
                {
                    continue;
                }
                for (auto const& [user, userSlot] : c->second)
                {
                    bool const toOutput = conditionalOf(*user) == &cond && user->kind() == LayerType::kCONDITIONAL_OUTPUT
                        && userSlot == slot;
                    exclusive = exclusive && (toOutput || region.branch[b].count(user) != 0);
                }
            }
            if (exclusive)
            {
                region.branch[b].insert(l);
            }
        }
    }
    return Status::ok();
}

} // namespace

Status analyzeControlFlow(NetworkDefinition const& network, NetworkAnalysis& a)
{
    auto info = std::make_shared<ControlFlowInfo>();
    std::map<Loop const*, size_t> loopIndex;
    std::map<IfConditional const*, size_t> condIndex;
    for (auto const& up : network.layers())
    {
        Layer* l = up.get();
        if (Loop const* loop = isLoopBoundary(l->kind()) ? loopOf(*l) : nullptr)
        {
            auto [it, added] = loopIndex.emplace(loop, info->loops.size());
            if (added)
            {
                info->loops.emplace_back();
                info->loops.back().loop = loop;
            }
            LoopRegion& r = info->loops[it->second];
            switch (l->kind())
            {
            case LayerType::kRECURRENCE: r.recurrences.push_back(l); break;
            case LayerType::kITERATOR: r.iterators.push_back(l); break;
            case LayerType::kTRIP_LIMIT: r.tripLimits.push_back(l); break;
            default: r.outputs.push_back(l); break;
            }
            info->loopOf[l] = static_cast<int32_t>(it->second);
        }
        else if (IfConditional const* cond = conditionalOf(*l))
        {
            auto [it, added] = condIndex.emplace(cond, info->conditionals.size());
            if (added)
            {
                info->conditionals.emplace_back();
                info->conditionals.back().conditional = cond;
            }
            ConditionalRegion& r = info->conditionals[it->second];
            switch (l->kind())
            {
            case LayerType::kCONDITION: r.condition = l; break;
            case LayerType::kCONDITIONAL_INPUT: r.inputs.push_back(l); break;
            default: r.outputs.push_back(l); break;
            }
            info->conditionalOf[l] = static_cast<int32_t>(it->second);
        }
    }
    if (info->empty())
    {
        a.controlFlow = std::move(info);
        return Status::ok();
    }
    Consumers consumers;
    for (auto const& up : network.layers())
    {
        for (size_t s = 0; s < up->inputs().size(); ++s)
        {
            if (up->inputs()[s] != nullptr)
            {
                consumers[up->inputs()[s]].emplace_back(up.get(), static_cast<int32_t>(s));
            }
        }
    }
    for (size_t k = 0; k < info->loops.size(); ++k)
    {
        LoopRegion& r = info->loops[k];
        KILN_RETURN_IF_ERROR(analyzeLoop(r, consumers, a));
        for (Layer const* l : r.body)
        {
            info->loopOf[l] = static_cast<int32_t>(k);
        }
    }
    for (size_t k = 0; k < info->conditionals.size(); ++k)
    {
        ConditionalRegion& r = info->conditionals[k];
        KILN_RETURN_IF_ERROR(analyzeConditional(r, *info, consumers, a));
        for (int32_t b = 0; b < 2; ++b)
        {
            for (Layer const* l : r.branch[b])
            {
                info->conditionalOf[l] = static_cast<int32_t>(k);
                info->branchOf[l] = b;
            }
        }
    }
    a.controlFlow = std::move(info);
    return Status::ok();
}

StatusOr<std::vector<Layer*>> controlFlowOrder(NetworkAnalysis const& a)
{
    ControlFlowInfo const* info = a.controlFlow.get();
    if (info == nullptr || info->empty())
    {
        return a.order;
    }
    // Units: one per loop, one per top-level conditional, one per other layer.
    size_t const nbLoops = info->loops.size();
    std::unordered_map<Layer const*, size_t> unitOf;
    std::vector<std::vector<Layer*>> members;
    std::unordered_map<Layer const*, size_t> position;
    for (size_t i = 0; i < a.order.size(); ++i)
    {
        position[a.order[i]] = i;
    }
    members.resize(nbLoops + info->conditionals.size());
    for (size_t i = 0; i < a.order.size(); ++i)
    {
        Layer* l = a.order[i];
        auto lp = info->loopOf.find(l);
        auto cp = info->conditionalOf.find(l);
        size_t unit = 0;
        if (lp != info->loopOf.end())
        {
            unit = static_cast<size_t>(lp->second);
        }
        else if (cp != info->conditionalOf.end() && info->conditionals[static_cast<size_t>(cp->second)].grouped
            && (info->branchOf.count(l) != 0 || l->kind() == LayerType::kCONDITIONAL_OUTPUT))
        {
            // Branch layers and the output layers; input layers and the condition stay ordinary (they run first).
            unit = nbLoops + static_cast<size_t>(cp->second);
        }
        else
        {
            unit = members.size();
            members.emplace_back();
        }
        unitOf[l] = unit;
        members[unit].push_back(l);
    }
    // Dependencies between units (the recurrences' next values are back edges inside their loop).
    std::vector<std::unordered_set<size_t>> successors(members.size());
    std::vector<int32_t> pending(members.size(), 0);
    for (size_t u = 0; u < members.size(); ++u)
    {
        for (Layer const* l : members[u])
        {
            for (size_t s = 0; s < l->inputs().size(); ++s)
            {
                Tensor const* t = l->inputs()[s];
                if (t == nullptr || t->producer() == nullptr || (l->kind() == LayerType::kRECURRENCE && s == 1))
                {
                    continue;
                }
                auto p = unitOf.find(t->producer());
                if (p != unitOf.end() && p->second != u && successors[p->second].insert(u).second)
                {
                    ++pending[u];
                }
            }
        }
    }
    auto key = [&](size_t u) { return members[u].empty() ? a.order.size() : position.at(members[u].front()); };
    using Item = std::pair<size_t, size_t>; // (key, unit)
    std::priority_queue<Item, std::vector<Item>, std::greater<>> ready;
    for (size_t u = 0; u < members.size(); ++u)
    {
        if (pending[u] == 0)
        {
            ready.emplace(key(u), u);
        }
    }
    std::vector<Layer*> order;
    size_t done = 0;
    while (!ready.empty())
    {
        size_t const u = ready.top().second;
        ready.pop();
        ++done;
        std::vector<Layer*> const& m = members[u];
        if (u < nbLoops)
        {
            LoopRegion const& r = info->loops[u];
            auto add = [&](auto pred) {
                for (Layer* l : m)
                {
                    if (pred(l))
                    {
                        order.push_back(l);
                    }
                }
            };
            add([](Layer* l) { return l->kind() == LayerType::kRECURRENCE; });
            add([](Layer* l) { return l->kind() == LayerType::kITERATOR; });
            add([&](Layer* l) { return !isLoopBoundary(l->kind()) && r.condition.count(l) != 0; });
            add([&](Layer* l) { return !isLoopBoundary(l->kind()) && r.condition.count(l) == 0; });
            add([](Layer* l) { return l->kind() == LayerType::kTRIP_LIMIT; });
            add([](Layer* l) { return l->kind() == LayerType::kLOOP_OUTPUT; });
        }
        else if (u < nbLoops + info->conditionals.size())
        {
            auto add = [&](auto pred) {
                for (Layer* l : m)
                {
                    if (pred(l))
                    {
                        order.push_back(l);
                    }
                }
            };
            auto branch = [&](Layer* l) {
                auto b = info->branchOf.find(l);
                return b == info->branchOf.end() ? -1 : b->second;
            };
            add([&](Layer* l) { return branch(l) == 1; });
            add([&](Layer* l) { return branch(l) == 0; });
            add([](Layer* l) { return l->kind() == LayerType::kCONDITIONAL_OUTPUT; });
        }
        else
        {
            order.insert(order.end(), m.begin(), m.end());
        }
        for (size_t s : successors[u])
        {
            if (--pending[s] == 0)
            {
                ready.emplace(key(s), s);
            }
        }
    }
    if (done != members.size())
    {
        return invalidArgument("a loop or conditional depends on its own results through layers outside it "
                               "(the network has a cycle through a loop or conditional)");
    }
    return order;
}

} // namespace kiln
