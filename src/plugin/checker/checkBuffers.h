// Host buffers for running a plugin under the contract checker: each buffer has guard bytes before and after its
// payload (to catch writes out of bounds), is aligned like device allocations, and can be filled with a poison
// pattern (to see which elements enqueue wrote). Also the seeded random input data (never all zeros).
#pragma once

#include "NvInferRuntime.h"

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace kiln::checker
{

//! Guard bytes on each side of a payload, and the payload alignment.
constexpr size_t kCHECK_GUARD_BYTES = 256;

//! Poison and guard byte patterns of run `index` (four distinct pairs, cycled).
uint8_t poisonByte(int32_t index);
uint8_t guardByte(int32_t index);

class GuardedBuffer
{
public:
    explicit GuardedBuffer(size_t payloadBytes);

    void* data() { return mStorage.data() + mOffset; }
    void const* data() const { return mStorage.data() + mOffset; }
    size_t size() const { return mSize; }

    //! Payload := `poison`, guards := `guard`.
    void fill(uint8_t poison, uint8_t guard);
    //! Payload := bytes (size() bytes), guards := `guard`.
    void load(std::vector<uint8_t> const& bytes, uint8_t guard);
    std::vector<uint8_t> payload() const;

    //! How far past the end of the payload the farthest changed guard byte lies (0: the guard after is intact).
    size_t overrunAfter(uint8_t guard) const;
    //! How far before the start the farthest changed guard byte lies (0: intact).
    size_t overrunBefore(uint8_t guard) const;

private:
    std::vector<uint8_t> mStorage;
    size_t mOffset{0};
    size_t mSize{0};
};

//! Random contents for a tensor of `count` elements of `type`: uniform in [lo, hi] (integers: whole numbers in the
//! range) when `rangeGiven`, else the type's default range. The result is never all zeros when count > 0: when the
//! range holds no non-zero value of the type, element 0 becomes the nearest one (1 or -1 for integers).
std::vector<uint8_t> randomTensorBytes(
    nvinfer1::DataType type, int64_t count, std::mt19937_64& rng, bool rangeGiven, double lo, double hi);

} // namespace kiln::checker
