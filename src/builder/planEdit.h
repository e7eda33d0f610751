// Edits of a plan that the builder's passes share: removing nodes while keeping the per-node arrays of the profiles
// (plugin workspaces) aligned with the nodes.
#pragma once

#include "engine/plan.h"

#include <vector>

namespace kiln
{

//! Removes the nodes whose `erased` entry is true (node order kept) and the matching entries of every profile's
//! per-node arrays (workspaceSizes, workspaceOffsets). Tensors stay, so tensor indices remain valid.
void erasePlanNodes(Plan& plan, std::vector<bool> const& erased);

} // namespace kiln
