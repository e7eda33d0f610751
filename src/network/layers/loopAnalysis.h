// Control-flow analysis of a network: which layers form each loop's body and each conditional's branches, plus the
// checks TensorRT makes on them. It runs at the end of the network analysis (networkAnalysis.cpp), after shape
// inference, and its result travels in NetworkAnalysis::controlFlow to the builder (lowerPass, loopRegions.h).
//
// Loop body: the layers on a data path from the loop's entries (recurrence and iterator outputs) to its exits
// (recurrence next values, loop output values, the kWHILE condition). Layers that read only loop-invariant
// tensors stay outside and run once. Branch of a conditional: the layers that only that branch's output values
// need (stopping at the conditional's input layers); shared or outside layers run unconditionally. Conditionals
// inside a loop body run as part of the body (their output layers select); nested loops are not supported.
#pragma once

#include "core/status.h"

#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace kiln
{
class IfConditional;
class Layer;
class Loop;
class NetworkDefinition;
struct NetworkAnalysis;

struct LoopRegion
{
    Loop const* loop{nullptr};
    std::vector<Layer*> recurrences;
    std::vector<Layer*> iterators;
    std::vector<Layer*> tripLimits;
    std::vector<Layer*> outputs;
    std::unordered_set<Layer const*> body;      //!< non-boundary layers of the body
    std::unordered_set<Layer const*> condition; //!< body layers the kWHILE condition needs
};

struct ConditionalRegion
{
    IfConditional const* conditional{nullptr};
    Layer* condition{nullptr};
    std::vector<Layer*> inputs;
    std::vector<Layer*> outputs;
    std::unordered_set<Layer const*> branch[2]; //!< [1]: true branch, [0]: false branch
    bool insideLoop{false};                     //!< part of a loop body: runs there, no branch skipping
    bool grouped{false};                        //!< branches found: emitted contiguously, the other one skipped
};

struct ControlFlowInfo
{
    std::vector<LoopRegion> loops;
    std::vector<ConditionalRegion> conditionals;
    std::unordered_map<Layer const*, int32_t> loopOf;       //!< boundary and body layers -> loop index
    std::unordered_map<Layer const*, int32_t> conditionalOf; //!< boundary and branch layers -> conditional index
    std::unordered_map<Layer const*, int32_t> branchOf;      //!< branch layers -> 1 (true) or 0 (false)
    bool empty() const { return loops.empty() && conditionals.empty(); }
};

//! Fill analysis.controlFlow; fails with a message naming the loop/conditional and the layer.
Status analyzeControlFlow(NetworkDefinition const& network, NetworkAnalysis& analysis);

//! analysis.order with each loop and each (top-level) conditional made contiguous: loop = recurrences,
//! iterators, the kWHILE condition's layers, the rest of the body, trip limits, loop outputs; conditional (with
//! branches) = true branch, false branch, output layers. Fails if a loop's outside depends on itself.
StatusOr<std::vector<Layer*>> controlFlowOrder(NetworkAnalysis const& analysis);

} // namespace kiln
