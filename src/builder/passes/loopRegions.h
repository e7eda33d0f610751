// Loops and conditionals in the plan. The plan stays one flat, topologically ordered node list; control flow is
// carried by node attributes that the runtime interprets (src/engine/controlFlowPlan.h):
//  - every node of a loop (boundary and body) has "cf.loop" = the loop's index; a loop's nodes are contiguous;
//    body nodes the kWHILE condition needs also have "cf.loopCondition" = 1 and come first in the body;
//  - every node of a conditional branch has "cf.if" = the conditional's index, "cf.branch" = 1 (true) / 0
//    (false) and "cf.condition" = the plan tensor index of the 0-D BOOL condition.
// lowerPass calls these helpers; engine/tensorLifetimes.h keeps loop tensors live across every iteration.
#pragma once

#include "engine/plan.h"
#include "network/networkAnalysis.h"

#include <functional>

namespace kiln
{
class Layer;

//! Add the control-flow attributes of `layer` (see above) to `node`.
void annotateControlFlow(PlanNode& node, Layer const& layer, NetworkAnalysis const& analysis,
    std::function<int32_t(Tensor const*)> const& tensorIndex);

//! For an IIfConditionalOutputLayer whose condition is known at build time: the input slot taken (0 or 1);
//! -1 otherwise.
int32_t constantConditionalInput(Layer const& layer, NetworkAnalysis const& analysis);

} // namespace kiln
