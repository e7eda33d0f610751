// HostMemory implementation.
#include "core/hostMemory.h"

namespace kiln
{

void* HostMemory::data() const noexcept
{
    return mBytes.empty() ? nullptr : mBytes.data();
}

std::size_t HostMemory::size() const noexcept
{
    return mBytes.size();
}

nvinfer1::DataType HostMemory::type() const noexcept
{
    return mType;
}

} // namespace kiln
