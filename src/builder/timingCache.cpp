// TimingCache: "KILNTC02" + entry count + per entry (16-byte key, uint64 tactic hash, float ms, uint32 detail length,
// the detail bytes); "KILNTC01" blobs (entries without details) are read too.
#include "builder/timingCache.h"

#include "core/hostMemory.h"
#include "core/runtimeTypeInfo.h"

#include <cstring>
#include <limits>

namespace kiln
{
namespace
{
constexpr char kMAGIC_V1[8] = {'K', 'I', 'L', 'N', 'T', 'C', '0', '1'};
constexpr char kMAGIC[8] = {'K', 'I', 'L', 'N', 'T', 'C', '0', '2'};
constexpr size_t kENTRY = 16 + 8 + 4;
constexpr uint32_t kMAX_DETAIL = 1U << 20; //!< a detail longer than this is a corrupt blob
} // namespace

StatusOr<std::unique_ptr<TimingCache>> TimingCache::create(void const* blob, std::size_t size)
{
    auto cache = std::make_unique<TimingCache>();
    if (size == 0)
    {
        return cache;
    }
    auto const* p = static_cast<uint8_t const*>(blob);
    bool const v1 = p != nullptr && size >= 16 && std::memcmp(p, kMAGIC_V1, 8) == 0;
    if (p == nullptr || size < 16 || (!v1 && std::memcmp(p, kMAGIC, 8) != 0))
    {
        return invalidArgument("createTimingCache: the blob is not a Kiln timing cache");
    }
    uint64_t count = 0;
    std::memcpy(&count, p + 8, 8);
    size_t const entryMin = v1 ? kENTRY : kENTRY + 4;
    auto const corrupt = [] { return invalidArgument("createTimingCache: the timing cache blob is truncated or corrupt"); };
    if (count > (size - 16) / entryMin || (v1 && 16 + count * kENTRY != size))
    {
        return corrupt();
    }
    size_t off = 16;
    for (uint64_t i = 0; i < count; ++i)
    {
        if (size - off < entryMin)
        {
            return corrupt();
        }
        uint8_t const* e = p + off;
        Entry entry;
        std::memcpy(&entry.value.tacticHash, e + 16, 8);
        std::memcpy(&entry.value.timingMSec, e + 24, 4);
        off += entryMin;
        if (!v1)
        {
            uint32_t length = 0;
            std::memcpy(&length, e + kENTRY, 4);
            if (length > kMAX_DETAIL || size - off < length)
            {
                return corrupt();
            }
            entry.detail.assign(reinterpret_cast<char const*>(p + off), length);
            off += length;
        }
        cache->mEntries[std::string(reinterpret_cast<char const*>(e), 16)] = std::move(entry);
    }
    if (off != size)
    {
        return corrupt();
    }
    return cache;
}

nvinfer1::IHostMemory* TimingCache::serialize() const noexcept
{
    try
    {
        std::lock_guard<std::mutex> lock(mMutex);
        size_t total = 16;
        for (auto const& [k, e] : mEntries)
        {
            total += kENTRY + 4 + e.detail.size();
        }
        std::vector<uint8_t> bytes(total);
        std::memcpy(bytes.data(), kMAGIC, 8);
        uint64_t const count = mEntries.size();
        std::memcpy(bytes.data() + 8, &count, 8);
        size_t off = 16;
        for (auto const& [k, e] : mEntries)
        {
            uint32_t const length = static_cast<uint32_t>(e.detail.size());
            std::memcpy(bytes.data() + off, k.data(), 16);
            std::memcpy(bytes.data() + off + 16, &e.value.tacticHash, 8);
            std::memcpy(bytes.data() + off + 24, &e.value.timingMSec, 4);
            std::memcpy(bytes.data() + off + kENTRY, &length, 4);
            std::memcpy(bytes.data() + off + kENTRY + 4, e.detail.data(), length);
            off += kENTRY + 4 + length;
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
        for (auto const& [k, e] : other->mEntries)
        {
            mEntries.emplace(k, e);
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
            return it->second.value;
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
        mEntries[std::string(reinterpret_cast<char const*>(key.data), 16)] = Entry{value, {}};
        return true;
    }
    catch (...)
    {
        return false;
    }
}

bool TimingCache::updateWithDetail(
    nvinfer1::TimingCacheKey const& key, nvinfer1::TimingCacheValue const& value, std::string detail)
{
    try
    {
        std::lock_guard<std::mutex> lock(mMutex);
        mEntries[std::string(reinterpret_cast<char const*>(key.data), 16)] = Entry{value, std::move(detail)};
        return true;
    }
    catch (...)
    {
        return false;
    }
}

std::string TimingCache::detail(nvinfer1::TimingCacheKey const& key) const
{
    std::lock_guard<std::mutex> lock(mMutex);
    auto it = mEntries.find(std::string(reinterpret_cast<char const*>(key.data), 16));
    return it != mEntries.end() ? it->second.detail : std::string();
}

} // namespace kiln
