// Tactic timing: when a node has two or more candidate implementations on a device backend (e.g. "cudnn" and
// "kiln" for a convolution), the builder runs each at the opt shapes of profile 0 on random data (one warm-up run,
// then a few timed ones, synchronised) and keeps the fastest. The times are logged at kVERBOSE and recorded in the
// node's "tactic.timing" attribute, which the engine inspector shows next to the chosen TacticName. A node whose
// configuration was timed earlier in the same build (BuildContext::timedTactics: kind, attributes, candidates, tensor
// types, formats and extents; not the weights' values) takes that choice without timing, and its report names the
// node that was timed (ResNet-50 has 53 convolutions of about 20 configurations).
// KILN_TACTIC_TIMING=0 turns timing off (the backend's first candidate is taken).
#pragma once

#include "builder/buildContext.h"

#include <string>
#include <vector>

namespace kiln
{

//! Choose among `tactics` for `node` by timing them; sets node.tactic and node.attrs["tactic.timing"]. Nodes whose
//! inputs carry shape values or depend on data are not timed (the first tactic is taken).
Status timeTactics(BuildContext& ctx, PlanNode& node, KernelSetup const& setup, std::vector<std::string> const& tactics,
    BackendSession& session);

} // namespace kiln
