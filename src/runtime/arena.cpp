// ActivationMemory implementation.
#include "runtime/arena.h"

#include <cstdlib>
#include <string>

namespace kiln
{

Status ActivationMemory::allocate(int64_t size, bool exact)
{
    if (size < 0)
    {
        return invalidArgument("activation memory size " + std::to_string(size) + " is negative");
    }
    if (mOwned && mPresent && mSize >= size && (!exact || mSize == size))
    {
        return Status::ok();
    }
    release();
    if (size > 0)
    {
        auto const rounded = static_cast<size_t>((size + kALIGNMENT - 1) / kALIGNMENT * kALIGNMENT);
        void* p = std::aligned_alloc(static_cast<size_t>(kALIGNMENT), rounded);
        if (p == nullptr)
        {
            return failedAllocation("cannot allocate " + std::to_string(size) + " bytes of activation memory");
        }
        mBase = static_cast<uint8_t*>(p);
    }
    mSize = size;
    mOwned = true;
    mPresent = true;
    return Status::ok();
}

void ActivationMemory::useExternal(void* memory, int64_t size)
{
    release();
    mBase = static_cast<uint8_t*>(memory);
    mSize = size;
    mOwned = false;
    mPresent = memory != nullptr || size == 0;
}

void ActivationMemory::release()
{
    if (mOwned && mBase != nullptr)
    {
        std::free(mBase);
    }
    mBase = nullptr;
    mSize = 0;
    mOwned = false;
    mPresent = false;
}

} // namespace kiln
