// DeviceWeights: one allocation holding every weights record, each 256-byte aligned.
#include "runtime/deviceWeights.h"

namespace kiln
{

StatusOr<std::shared_ptr<DeviceWeights const>> DeviceWeights::upload(
    Plan const& plan, Backend const& backend, nvinfer1::IGpuAllocator* allocator)
{
    auto weights = std::make_shared<DeviceWeights>();
    int64_t total = 0;
    for (PlanWeights const& w : plan.weights)
    {
        if (w.size <= 0 || w.data == nullptr)
        {
            weights->mOffsets.push_back(-1);
            continue;
        }
        weights->mOffsets.push_back(total);
        total += (w.size + ActivationMemory::kALIGNMENT - 1) / ActivationMemory::kALIGNMENT * ActivationMemory::kALIGNMENT;
    }
    KILN_RETURN_IF_ERROR(weights->mMemory.allocate(allocator, total, "engine weights on the device"));
    for (size_t i = 0; i < plan.weights.size(); ++i)
    {
        if (weights->mOffsets[i] >= 0)
        {
            KILN_RETURN_IF_ERROR(backend.copy(weights->mMemory.data() + weights->mOffsets[i], plan.weights[i].data,
                plan.weights[i].size, CopyKind::kHOST_TO_DEVICE, nullptr));
        }
    }
    KILN_RETURN_IF_ERROR(backend.synchronize(nullptr));
    return std::shared_ptr<DeviceWeights const>(std::move(weights));
}

} // namespace kiln
