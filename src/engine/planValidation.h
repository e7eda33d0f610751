// Plan validation: the structural invariants of a kiln::Plan, checked on their own (no bytes involved), so that
// the engine reader, the engine writer and the runtime apply exactly the same rules.
#pragma once

#include "core/status.h"
#include "engine/plan.h"

namespace kiln
{

//! Check a Plan's internal consistency: enum values in range, every tensor/weights/expression index valid,
//! dims ranks in [0, 8], weights sizes consistent with type and count, I/O order, profile dims and arena
//! placement, plugin libraries and control flow. writeEngine refuses plans that fail it; readEngine applies it to
//! everything it decodes.
Status validatePlan(Plan const& plan);

} // namespace kiln
