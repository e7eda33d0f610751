// engineReaderFuzz.cpp — libFuzzer target for the engine-file reader. Each input is read (a) as given and (b) with
// its checksums refreshed, so mutations reach the section decoders and the plan validation. Anything the reader
// accepts must be canonical: writing the Plan again reproduces the bytes exactly (checked with a trap).
#include "engine/engineReader.h"
#include "engine/engineWriter.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

namespace
{

void readAndCheck(uint8_t const* data, size_t size)
{
    auto plan = kiln::readEngine(data, size);
    if (!plan.isOk())
    {
        if (plan.status().message().empty())
        {
            __builtin_trap(); // every failure must say what is wrong
        }
        return;
    }
    auto again = kiln::writeEngine(plan.value());
    if (!again.isOk() || again.value().size() != size || std::memcmp(again.value().data(), data, size) != 0)
    {
        __builtin_trap(); // the reader accepted a file the writer would not produce
    }
    // Touch every weights byte (a sanitizer reports a pointer outside the storage).
    uint8_t sum = 0;
    for (auto const& w : plan.value().weights)
    {
        for (int64_t i = 0; i < w.size; ++i)
        {
            sum = static_cast<uint8_t>(sum + w.data[i]);
        }
    }
    volatile uint8_t sink = sum;
    (void) sink;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(uint8_t const* data, size_t size)
{
    // (a) The raw bytes, as a user would pass them.
    readAndCheck(data, size);
    (void) kiln::checkEngineHeader(data, size);

    // (b) The same bytes with valid checksums, so the deeper validation is exercised.
    std::vector<uint8_t> fixed(data, data + size);
    kiln::engine::recomputeChecksums(fixed);
    readAndCheck(fixed.data(), fixed.size());

    // (c) In place from 64-byte aligned memory, as with an mmap'd file.
    if (size > 0)
    {
        size_t const rounded = (size + 63) / 64 * 64;
        void* aligned = std::aligned_alloc(64, rounded);
        if (aligned != nullptr)
        {
            std::memcpy(aligned, fixed.data(), size);
            std::shared_ptr<void const> memory(aligned, [](void const* p) { std::free(const_cast<void*>(p)); });
            auto plan = kiln::readEngineShared(memory, size);
            if (plan.isOk() && !plan.value().weights.empty() && plan.value().weights[0].size > 0)
            {
                auto const* begin = static_cast<uint8_t const*>(aligned);
                if (plan.value().weights[0].data < begin || plan.value().weights[0].data >= begin + size)
                {
                    __builtin_trap(); // in-place weights must point into the caller's memory
                }
            }
        }
    }
    return 0;
}
