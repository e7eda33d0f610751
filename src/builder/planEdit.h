// Edits of a plan that the builder's passes share: removing and inserting nodes while keeping the per-node arrays of
// the profiles (plugin workspaces) aligned with the nodes, and the tensors and reformat nodes that passes add.
#pragma once

#include "engine/plan.h"

#include <string>
#include <vector>

namespace kiln
{

//! Removes the nodes whose `erased` entry is true (node order kept) and the matching entries of every profile's
//! per-node arrays (workspaceSizes, workspaceOffsets). Tensors stay, so tensor indices remain valid.
void erasePlanNodes(Plan& plan, std::vector<bool> const& erased);

//! Inserts `front` before the first node and `after[k]` right after node k (after.size() == plan.nodes.size()), node
//! order otherwise kept; the profiles' per-node arrays get no workspace for the new nodes.
void insertPlanNodes(Plan& plan, std::vector<PlanNode> front, std::vector<std::vector<PlanNode>> after);

//! A new tensor shaped like `source` (the same dimension expressions) with another type and format, for a node the
//! builder adds: no I/O role, not a constant, no shape values. `scale` is kept for INT8 only. Returns its index.
int32_t addDerivedTensor(Plan& plan, int32_t source, std::string name, nvinfer1::DataType type,
    nvinfer1::TensorFormat format, float scale);

//! A reformat node (kIDENTITY with "reformat" = 1) from tensor `from` to tensor `to`: their formats and scales.
PlanNode makeReformatNode(Plan const& plan, std::string name, int32_t from, int32_t to);

} // namespace kiln
