// Counts the heap allocations (global operator new) that the calling thread makes while an AllocationCounter is
// alive: the test executable replaces the global operator new and delete (allocationCounter.cpp) with malloc-based
// versions that count. Allocations made with malloc directly (e.g. inside oneDNN's C code) are not seen.
#pragma once

#include <cstdint>

namespace kiln::test
{

class AllocationCounter
{
public:
    AllocationCounter();
    ~AllocationCounter();
    AllocationCounter(AllocationCounter const&) = delete;
    AllocationCounter& operator=(AllocationCounter const&) = delete;

    //! Allocations so far in this scope (by this thread).
    int64_t count() const;

private:
    int64_t mStart;
    bool mOuter;
};

} // namespace kiln::test
