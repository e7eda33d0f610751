// TimingCache: Kiln's ITimingCache. The CPU backend does not time tactics yet, but trtexec-style tools create,
// load, combine and save caches, so the cache is a real key/value store with a small serialized form.
#pragma once

#include "NvInfer.h"
#include "core/status.h"

#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace kiln
{

class TimingCache final : public nvinfer1::ITimingCache
{
public:
    //! Empty cache for size 0; otherwise parses a blob written by serialize().
    static StatusOr<std::unique_ptr<TimingCache>> create(void const* blob, std::size_t size);

    nvinfer1::IHostMemory* serialize() const noexcept override;
    bool combine(nvinfer1::ITimingCache const& inputCache, bool ignoreMismatch) noexcept override;
    bool reset() noexcept override;
    int64_t queryKeys(nvinfer1::TimingCacheKey* keyBuffer, int64_t capacity) const noexcept override;
    nvinfer1::TimingCacheValue query(nvinfer1::TimingCacheKey const& key) const noexcept override;
    bool update(nvinfer1::TimingCacheKey const& key, nvinfer1::TimingCacheValue const& value) noexcept override;

private:
    mutable std::mutex mMutex;
    std::map<std::string, nvinfer1::TimingCacheValue> mEntries; // key: the 16 key bytes
};

} // namespace kiln
