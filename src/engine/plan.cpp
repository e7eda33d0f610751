// Plan helpers.
#include "engine/plan.h"

#include <cstdlib>
#include <cstring>

namespace kiln
{

PlanWeights addPlanWeights(Plan& plan, nvinfer1::DataType type, int64_t count, void const* bytes, int64_t size)
{
    size_t const rounded = static_cast<size_t>((size + 63) / 64 * 64);
    void* raw = std::aligned_alloc(64, rounded == 0 ? 64 : rounded);
    if (raw == nullptr)
    {
        return PlanWeights{type, count, nullptr, size};
    }
    if (size > 0)
    {
        std::memcpy(raw, bytes, static_cast<size_t>(size));
    }
    plan.storage.emplace_back(raw, [](void const* p) { std::free(const_cast<void*>(p)); });
    return PlanWeights{type, count, static_cast<uint8_t const*>(raw), size};
}

} // namespace kiln
