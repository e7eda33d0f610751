// The Kiln extension functions of include/kiln/KilnCpuThreads.h: the CPU backend's thread count and its pool for
// plugins' host work (core/threadPool.h).
#include "kiln/KilnCpuThreads.h"

#include "core/threadPool.h"

namespace kiln
{

bool setCpuThreadCount(int32_t threads) noexcept
{
    try
    {
        return resizeCpuThreadPool(threads).isOk();
    }
    catch (...)
    {
        return false;
    }
}

int32_t getCpuThreadCount() noexcept
{
    try
    {
        return cpuThreadPool().threads();
    }
    catch (...)
    {
        return 1;
    }
}

bool cpuParallelFor(int64_t count, int64_t grain, CpuTaskFunction fn, void* user) noexcept
{
    if (fn == nullptr || count < 0)
    {
        return false;
    }
    try
    {
        parallelFor(count, grain, [fn, user](int64_t begin, int64_t end) { fn(user, begin, end); });
        return true;
    }
    catch (...)
    {
        return false;
    }
}

} // namespace kiln
