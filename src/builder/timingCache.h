// TimingCache: Kiln's ITimingCache, a key/value store with a small serialized form. The builder's tactic timing
// (builder/tacticTiming.h) reads and fills the cache set in the builder config: key = the node's configuration and
// the backend's device, value = the chosen tactic's hash and time, plus a Kiln detail (the chosen library
// configurations, the node's "autotune" text) so that a rebuild from the cache times nothing.
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

    //! update() with Kiln's detail text for the entry (serialized with it).
    bool updateWithDetail(nvinfer1::TimingCacheKey const& key, nvinfer1::TimingCacheValue const& value,
        std::string detail);
    //! The entry's detail text; empty when there is none.
    std::string detail(nvinfer1::TimingCacheKey const& key) const;

private:
    struct Entry
    {
        nvinfer1::TimingCacheValue value{};
        std::string detail;
    };
    mutable std::mutex mMutex;
    std::map<std::string, Entry> mEntries; // key: the 16 key bytes
};

} // namespace kiln
