// The test executable's global operator new / delete: malloc and free, counting the calls of threads that hold an
// AllocationCounter (see allocationCounter.h).
#include "common/allocationCounter.h"

#include <cstdlib>
#include <new>

namespace
{
thread_local bool tCounting = false;
thread_local int64_t tAllocations = 0;

void* allocate(std::size_t size)
{
    if (tCounting)
    {
        ++tAllocations;
    }
    void* p = std::malloc(size == 0 ? 1 : size);
    if (p == nullptr)
    {
        throw std::bad_alloc();
    }
    return p;
}
} // namespace

void* operator new(std::size_t size)
{
    return allocate(size);
}

void* operator new[](std::size_t size)
{
    return allocate(size);
}

void operator delete(void* p) noexcept
{
    std::free(p);
}

void operator delete[](void* p) noexcept
{
    std::free(p);
}

void operator delete(void* p, std::size_t) noexcept
{
    std::free(p);
}

void operator delete[](void* p, std::size_t) noexcept
{
    std::free(p);
}

namespace kiln::test
{

AllocationCounter::AllocationCounter()
    : mStart(tAllocations)
    , mOuter(!tCounting)
{
    tCounting = true;
}

AllocationCounter::~AllocationCounter()
{
    if (mOuter)
    {
        tCounting = false;
    }
}

int64_t AllocationCounter::count() const
{
    return tAllocations - mStart;
}

} // namespace kiln::test
