// Causal masks known at build time, for the attention fusion (attention.cpp): an additive mask or a Where condition
// whose build-time values (buildTimeValues.h) are exactly the causal band of square scores, so that the fused node
// runs with "causal" = 1 and no mask (cuDNN's causal SDPA skips the masked tiles and reads no bias).
#pragma once

#include "builder/passes/fusion/fusion.h"

#include <cstdint>

namespace kiln::fusion
{

//! The smallest magnitude of a negative number that counts as "masked" in an additive mask (or as the value a
//! Where puts in masked places): exp(x − max) underflows to 0 in FLOAT for any realistic score range.
constexpr double kMASKED_BIAS = -1.0e4;

//! True when additive mask `mask` (rank 4, broadcasting to the scores) is, for every element, 0 where key j ≤ query i
//! and ≤ kMASKED_BIAS (or −inf) elsewhere, the scores [b, h, q, k] having constant q == k and the mask's last two
//! extents q and k (its others may broadcast, also over a run-time batch).
bool isCausalBias(FusionGraph& g, int32_t mask, int32_t scores);

//! True when BOOL tensor `condition` of a Where over the scores is true exactly where key j ≤ query i (`keepWhere`
//! true: the scores are the Where's second input) or exactly where j > i (`keepWhere` false), under the same shape
//! conditions as isCausalBias.
bool isCausalCondition(FusionGraph& g, int32_t condition, int32_t scores, bool keepWhere);

//! True when every build-time value of `t` is ≤ kMASKED_BIAS or −inf (the value a Where puts in masked places).
bool isMaskedFill(FusionGraph& g, int32_t t);

//! Erases the nodes left without readers once causal attentions stopped reading their masks: pure layers (those
//! buildTimeValues evaluates) whose outputs are internal tensors nothing reads, repeatedly. Returns the number erased.
int32_t eraseUnreadMaskLayers(FusionGraph& g);

} // namespace kiln::fusion
