// TimingCache: "KILNTC01" + entry count + (16-byte key, uint64 tactic hash, float ms) per entry.
#include "builder/timingCache.h"

#include "core/hostMemory.h"
#include "core/runtimeTypeInfo.h"

#include <cstring>
#include <limits>

namespace kiln
{
namespace
{
constexpr char kMAGIC[8] = {'K', 'I', 'L', 'N', 'T', 'C', '0', '1'};
constexpr size_t kENTRY = 16 + 8 + 4;
} // namespace

StatusOr<std::unique_ptr<TimingCache>> TimingCache::create(void const* blob, std::size_t size)
{
    auto cache = std::make_unique<TimingCache>();
    if (size == 0)
    {
        return cache;
    }
    auto const* p = static_cast<uint8_t const*>(blob);
    if (p == nullptr || size < 16 || std::memcmp(p, kMAGIC, 8) != 0)
    {
        return invalidArgument("createTimingCache: the blob is not a Kiln timing cache");
    }
    uint64_t count = 0;
    std::memcpy(&count, p + 8, 8);
    if (count > (size - 16) / kENTRY || 16 + count * kENTRY != size)
    {
        return invalidArgument("createTimingCache: the timing cache blob is truncated or corrupt");
    }
    for (uint64_t i = 0; i < count; ++i)
    {
        uint8_t const* e = p + 16 + i * kENTRY;
        nvinfer1::TimingCacheValue v{};
        std::memcpy(&v.tacticHash, e + 16, 8);
        std::memcpy(&v.timingMSec, e + 24, 4);
        cache->mEntries[std::string(reinterpret_cast<char const*>(e), 16)] = v;
    }
    return cache;
}

nvinfer1::IHostMemory* TimingCache::serialize() const noexcept
{
    try
    {
        std::lock_guard<std::mutex> lock(mMutex);
        std::vector<uint8_t> bytes(16 + mEntries.size() * kENTRY);
        std::memcpy(bytes.data(), kMAGIC, 8);
        uint64_t const count = mEntries.size();
        std::memcpy(bytes.data() + 8, &count, 8);
        size_t off = 16;
        for (auto const& [k, v] : mEntries)
        {
            std::memcpy(bytes.data() + off, k.data(), 16);
            std::memcpy(bytes.data() + off + 16, &v.tacticHash, 8);
            std::memcpy(bytes.data() + off + 24, &v.timingMSec, 4);
            off += kENTRY;
        }
        return new HostMemory(std::move(bytes));
    }
    catch (...)
    {
        return nullptr;
    }
}

bool TimingCache::combine(nvinfer1::ITimingCache const& inputCache, bool) noexcept
{
    try
    {
        auto const* other = safeDynamicCast<TimingCache const>(&inputCache);
        if (other == nullptr || other == this)
        {
            return other == this;
        }
        std::scoped_lock lock(mMutex, other->mMutex);
        for (auto const& [k, v] : other->mEntries)
        {
            mEntries.emplace(k, v);
        }
        return true;
    }
    catch (...)
    {
        return false;
    }
}

bool TimingCache::reset() noexcept
{
    std::lock_guard<std::mutex> lock(mMutex);
    mEntries.clear();
    return true;
}

int64_t TimingCache::queryKeys(nvinfer1::TimingCacheKey* keyBuffer, int64_t capacity) const noexcept
{
    std::lock_guard<std::mutex> lock(mMutex);
    if (keyBuffer == nullptr)
    {
        return static_cast<int64_t>(mEntries.size());
    }
    int64_t n = 0;
    for (auto const& [k, v] : mEntries)
    {
        if (n >= capacity)
        {
            break;
        }
        std::memcpy(keyBuffer[n].data, k.data(), 16);
        ++n;
    }
    return n;
}

nvinfer1::TimingCacheValue TimingCache::query(nvinfer1::TimingCacheKey const& key) const noexcept
{
    try
    {
        std::lock_guard<std::mutex> lock(mMutex);
        auto it = mEntries.find(std::string(reinterpret_cast<char const*>(key.data), 16));
        if (it != mEntries.end())
        {
            return it->second;
        }
    }
    catch (...)
    {
    }
    nvinfer1::TimingCacheValue invalid{};
    invalid.tacticHash = std::numeric_limits<uint64_t>::max();
    invalid.timingMSec = -1.0F;
    return invalid;
}

bool TimingCache::update(nvinfer1::TimingCacheKey const& key, nvinfer1::TimingCacheValue const& value) noexcept
{
    try
    {
        std::lock_guard<std::mutex> lock(mMutex);
        mEntries[std::string(reinterpret_cast<char const*>(key.data), 16)] = value;
        return true;
    }
    catch (...)
    {
        return false;
    }
}

} // namespace kiln
