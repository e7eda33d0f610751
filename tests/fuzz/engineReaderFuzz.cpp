// engineReaderFuzz.cpp — libFuzzer target for the engine-file reader. Each input is read (a) as given and (b) with
// its checksums refreshed, so mutations reach the section decoders and the plan validation. Anything the reader
// accepts must be canonical: writing the Plan again reproduces the bytes exactly (checked with a trap).
#include "fuzz/engineFuzzCommon.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(uint8_t const* data, size_t size)
{
    // (a) The raw bytes, as a user would pass them.
    kiln::fuzz::readAndCheck(data, size);
    (void) kiln::checkEngineHeader(data, size);

    // (b) The same bytes with valid checksums, so the deeper validation is exercised.
    std::vector<uint8_t> fixed(data, data + size);
    kiln::engine::recomputeChecksums(fixed);
    kiln::fuzz::readAndCheck(fixed.data(), fixed.size());

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
