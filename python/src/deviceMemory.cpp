// Implementation of deviceMemory.h: the per-thread placement hint and the driver query through a libcuda that the
// process already loaded (dlopen with RTLD_NOLOAD, so the module neither links nor loads CUDA itself).
#include "deviceMemory.h"

#include <dlfcn.h>

#include <mutex>

namespace kiln::python
{

namespace
{

thread_local Placement tPlacement = Placement::kUNKNOWN;

// The few driver API values used here (cuda.h, stable ABI).
constexpr int32_t kCU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2;
constexpr int32_t kCU_POINTER_ATTRIBUTE_IS_MANAGED = 8;
constexpr uint32_t kCU_MEMORYTYPE_DEVICE = 2;
constexpr uint32_t kCU_MEMORYTYPE_UNIFIED = 4;
using PointerGetAttributeFn = int32_t (*)(void* data, int32_t attribute, unsigned long long pointer);

//! cuPointerGetAttribute of a libcuda.so.1 that is already loaded, or nullptr. Looked up again until found, since
//! the CUDA backend may load the driver after the first query.
PointerGetAttributeFn pointerGetAttribute()
{
    static std::mutex mutex;
    static PointerGetAttributeFn function = nullptr;
    std::lock_guard<std::mutex> lock(mutex);
    if (function == nullptr)
    {
        void* handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
        if (handle != nullptr)
        {
            function = reinterpret_cast<PointerGetAttributeFn>(dlsym(handle, "cuPointerGetAttribute"));
            // The reference taken by this dlopen is kept: the driver stays loaded for the process anyway.
        }
    }
    return function;
}

} // namespace

Placement placementOf(kiln::BackendKind kind)
{
    switch (kind)
    {
    case kiln::BackendKind::kCPU: return Placement::kHOST;
    case kiln::BackendKind::kCUDA: return Placement::kDEVICE;
    case kiln::BackendKind::kDEFAULT: break;
    }
    return Placement::kUNKNOWN;
}

PlacementScope::PlacementScope(Placement placement)
    : mPrevious(tPlacement)
{
    tPlacement = placement;
}

PlacementScope::~PlacementScope()
{
    tPlacement = mPrevious;
}

Placement currentPlacement()
{
    return tPlacement;
}

bool isDevicePointer(void const* pointer)
{
    if (pointer == nullptr)
    {
        return false;
    }
    PointerGetAttributeFn query = pointerGetAttribute();
    if (query == nullptr)
    {
        return false;
    }
    auto const address = static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(pointer));
    uint32_t memoryType = 0;
    if (query(&memoryType, kCU_POINTER_ATTRIBUTE_MEMORY_TYPE, address) != 0)
    {
        return false; // CUDA_ERROR_INVALID_VALUE: memory the driver does not know, i.e. ordinary host memory
    }
    if (memoryType == kCU_MEMORYTYPE_DEVICE || memoryType == kCU_MEMORYTYPE_UNIFIED)
    {
        return true;
    }
    uint32_t managed = 0;
    return query(&managed, kCU_POINTER_ATTRIBUTE_IS_MANAGED, address) == 0 && managed != 0;
}

bool buffersOnDevice(void const* const* pointers, int32_t count)
{
    Placement const hint = currentPlacement();
    if (hint != Placement::kUNKNOWN)
    {
        return hint == Placement::kDEVICE;
    }
    for (int32_t i = 0; i < count; ++i)
    {
        if (pointers[i] != nullptr)
        {
            return isDevicePointer(pointers[i]);
        }
    }
    return false;
}

} // namespace kiln::python
