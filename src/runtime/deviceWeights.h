// DeviceWeights: the engine's weights copied once into device memory (CUDA engines), shared by every execution
// context of the engine: constant tensors point into it and kernels find their weights there
// (WeightsView::device).
#pragma once

#include "backends/backend.h"
#include "engine/plan.h"
#include "runtime/arena.h"

#include <memory>
#include <vector>

namespace kiln
{

class DeviceWeights
{
public:
    //! Upload every weights record of `plan` through `allocator` (synchronously).
    static StatusOr<std::shared_ptr<DeviceWeights const>> upload(
        Plan const& plan, Backend const& backend, nvinfer1::IGpuAllocator* allocator);

    //! Device address of weights record `index` (nullptr for empty records).
    void const* at(int32_t index) const
    {
        return index >= 0 && static_cast<size_t>(index) < mOffsets.size() && mOffsets[static_cast<size_t>(index)] >= 0
            ? mMemory.data() + mOffsets[static_cast<size_t>(index)]
            : nullptr;
    }
    int64_t bytes() const { return mMemory.size(); }

    //! Point the weights views of `setup` (the kernel setup of `node`) at their device copies.
    void attach(PlanNode const& node, KernelSetup& setup) const
    {
        for (size_t w = 0; w < node.weights.size() && w < setup.weights.size(); ++w)
        {
            setup.weights[w].device = at(node.weights[w]);
        }
    }

private:
    DeviceBuffer mMemory;
    std::vector<int64_t> mOffsets; // per weights record, -1 when empty
};

} // namespace kiln
