// tensorLifetimes: when each tensor of a Plan is live, in node steps. The builder's memory pass packs the arena
// with these lifetimes, and the engine reader checks with the same ones that tensors alive at the same time do not
// share arena bytes, so that the two can never disagree.
#pragma once

#include "engine/plan.h"

#include <cstdint>
#include <vector>

namespace kiln
{

//! first[t]..last[t]: the node steps at which tensor t is live. A tensor produced by node n starts at n; one read
//! before any node produces it (network inputs, constants) starts at -1; last is its last use. A tensor no node
//! touches has last == -2. Tensors touched by a loop's nodes stay live from the loop's first node to its last
//! ("cf.loop" attributes), since the body runs again. Node tensor indices must be valid (validatePlan's checkNodes).
struct TensorLifetimes
{
    std::vector<int32_t> first;
    std::vector<int32_t> last;
};
TensorLifetimes tensorLifetimes(Plan const& plan);

//! For each tensor, the tensor whose arena slot it shares: itself, unless a plugin output aliases an input through
//! the node's "plugin.aliases" attribute, or the tensor is the input or output of a pure reshape (isPureReshape; same
//! type, linear format, no host values, neither tensor written in place by a plugin), whose kernels then move no
//! data. Follow it to a fixed point with aliasRoot. Invalid alias entries are ignored here (validatePlan reports
//! them).
//! A node whose output is written over its fused addition's tensor (fuse.add, the last input) shares that tensor's
//! slot too (kADD_IN_PLACE, set by the builder's inPlaceAddPass).
std::vector<int32_t> aliasParents(Plan const& plan);
int32_t aliasRoot(std::vector<int32_t>& parents, int32_t tensor);

//! Node attribute: the node's single output is written into the memory of its fused addition's tensor (its last
//! input), which dies there; the kernel must add into it where it lies.
constexpr char const* kADD_IN_PLACE = "fuse.addInPlace";
//! True when `node` has kADD_IN_PLACE set with a fused addition, one output and valid-looking tensor indices.
bool addsInPlace(PlanNode const& node);

//! A Shuffle of `plan` that only reshapes (both transposes absent or the identity over the rank they apply to),
//! outside loops, with one output and valid tensor indices.
bool isPureReshape(Plan const& plan, PlanNode const& node);

} // namespace kiln
