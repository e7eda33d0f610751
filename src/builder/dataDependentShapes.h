// Data-dependent shapes at build time. A plugin size tensor (IExprBuilder::declareSizeTensor) introduces a
// kDATA_DEPENDENT symbol whose value is only known after the plugin runs. The builder evaluates such symbols at 0
// (kMIN), their opt expression (kOPT) and their upper bound (kMAX), and keeps tensors whose dimensions depend on
// them out of the activation arena (the runtime allocates them at their upper bound).
#pragma once

#include "core/shapeExpr.h"
#include "core/status.h"

#include <vector>

namespace kiln
{

//! Per expression of `g`: true when it depends on a kDATA_DEPENDENT symbol.
std::vector<bool> dataDependentExprs(ShapeGraph const& g);

//! True when some expression of `ids` depends on a kDATA_DEPENDENT symbol.
bool dependsOnData(std::vector<bool> const& dataDependent, std::vector<ExprId> const& ids);

//! Set the value of every kDATA_DEPENDENT symbol in `symbolValues` (one per symbol; the others already bound) for
//! profile selector 0 (kMIN: 0), 1 (kOPT: the symbol's opt expression) or 2 (kMAX: its upper bound).
Status bindDataDependentSymbols(ShapeGraph const& g, int32_t selector, std::vector<int64_t>& symbolValues);

} // namespace kiln
