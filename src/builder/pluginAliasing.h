// Aliased (in-place) plugin outputs (getAliasedInput, pluginPass's last step): the plugin gets a private copy of
// its input when the input is a network tensor, a constant or a shape value, or is read again (by the same node or
// after it), and a private output when the output is a network output; copies are reformat nodes. memoryPass gives
// each aliased pair one arena slot.
#pragma once

#include "builder/buildContext.h"
#include "builder/pluginReformats.h"

#include <vector>

namespace kiln
{

//! A node of the plan that pluginPass rebuilds, with its workspace size per profile (plugin nodes only).
struct PluginNodeEntry
{
    PlanNode node;
    std::vector<int64_t> workspace;
};

//! Checks every aliased output of the plugin nodes in `entries` (same type/format as its input, no data-dependent
//! shape) and inserts the copies where sharing would be unsafe. `dataDependent` is dataDependentExprs of the plan.
Status isolatePluginAliases(BuildContext const& ctx, PluginReformats& reformats,
    std::vector<bool> const& dataDependent, std::vector<PluginNodeEntry>& entries);

} // namespace kiln
