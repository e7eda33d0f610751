// loopRunner: executes one loop of a plan's control flow (controlFlowPlan.h) for the execution context's node
// runner, and the slice copies its iterators and concatenating outputs use.
#pragma once

#include "engine/controlFlowPlan.h"
#include "runtime/shapeBinding.h"

#include <functional>

namespace kiln
{

//! Run loop `loop` (loopRunner.cpp): initial values, then per iteration the iterators' slices, the kWHILE
//! condition's nodes, the check, the other body nodes, the loop outputs and the recurrences' next values.
//! `runNode(n, true)` runs node n. Errors name the loop and start with "IExecutionContext::<api>".
Status runLoop(char const* api, LoopPlan const& loop, Plan const& plan, EvaluatedShapes const& shapes,
    std::vector<void*> const& tensorData, std::function<Status(size_t, bool)> const& runNode);

//! Copy slice `index` along `axis` of `src` (extents `dims`) into the contiguous `dst`.
void extractSlice(void const* src, nvinfer1::Dims const& dims, int32_t axis, int64_t index, void* dst, int64_t elementBytes);
//! Copy the contiguous `src` into slice `index` along `axis` of `dst` (extents `dims`).
void insertSlice(void const* src, void* dst, nvinfer1::Dims const& dims, int32_t axis, int64_t index, int64_t elementBytes);

} // namespace kiln
