// engineFuzzCommon.h — the check both engine fuzz targets (engineReaderFuzz, engineStructureFuzz) apply to every
// read: a refusal says what is wrong, and anything accepted is canonical (writing the Plan again reproduces the
// bytes exactly) with weights that lie inside the storage. A violation traps, which libFuzzer reports as a crash.
#pragma once

#include "engine/engineReader.h"
#include "engine/engineWriter.h"

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace kiln::fuzz
{

//! Read `data`; true when the reader accepted it.
inline bool readAndCheck(uint8_t const* data, size_t size)
{
    auto plan = kiln::readEngine(data, size);
    if (!plan.isOk())
    {
        if (plan.status().message().empty())
        {
            __builtin_trap(); // every failure must say what is wrong
        }
        return false;
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
    return true;
}

} // namespace kiln::fuzz
