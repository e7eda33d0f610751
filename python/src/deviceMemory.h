// Where memory lives, as far as the Python module needs to know without linking CUDA: the backend of the engine a
// binding runs (a per-thread hint set around execution and builds), and, for Python plugins whose buffers arrive
// without that hint, the CUDA driver's own answer (cuPointerGetAttribute, looked up only when the process has
// already loaded libcuda, i.e. when the CUDA backend or another CUDA user is active). Plugin trampolines use this
// to hand Python either host views (numpy) or __cuda_array_interface__ objects.
#pragma once

#include "kiln/KilnBackend.h"

#include <cstdint>

namespace kiln::python
{

//! Where the buffers of the engine being run or built on this thread live.
enum class Placement : int32_t
{
    kUNKNOWN = 0, //!< no binding on this thread said so: ask the driver
    kHOST = 1,    //!< the CPU backend
    kDEVICE = 2,  //!< the CUDA backend
};

//! The placement of a backend kind (kDEFAULT: kUNKNOWN, the builder decides).
Placement placementOf(kiln::BackendKind kind);

//! Sets this thread's placement hint for its lifetime (restoring the previous one), e.g. around enqueueV3 of an
//! engine whose backend is known. Nests.
class PlacementScope
{
public:
    explicit PlacementScope(Placement placement);
    ~PlacementScope();
    PlacementScope(PlacementScope const&) = delete;
    PlacementScope& operator=(PlacementScope const&) = delete;

private:
    Placement mPrevious;
};

//! This thread's hint (kUNKNOWN when none is set).
Placement currentPlacement();

//! True when `pointer` is CUDA device (or managed) memory according to the driver; false for host memory, null, or
//! when the process has not loaded libcuda.so.1 (then no device memory can exist). Never initialises CUDA.
bool isDevicePointer(void const* pointer);

//! Whether plugin buffers are device memory: the thread's hint when set, else isDevicePointer() of the first
//! non-null pointer among `pointers` (false when all are null).
bool buffersOnDevice(void const* const* pointers, int32_t count);

} // namespace kiln::python
