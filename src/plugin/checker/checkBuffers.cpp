// Guarded, poisonable host buffers and seeded random tensor data for the plugin contract checker.
#include "plugin/checker/checkBuffers.h"

#include "core/dataType.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace kiln::checker
{

uint8_t poisonByte(int32_t index)
{
    static uint8_t const kPOISON[] = {0xA5, 0x5A, 0x96, 0x69};
    return kPOISON[static_cast<size_t>(index) % 4];
}

uint8_t guardByte(int32_t index)
{
    static uint8_t const kGUARD[] = {0xC3, 0x3C, 0xE1, 0x1E};
    return kGUARD[static_cast<size_t>(index) % 4];
}

GuardedBuffer::GuardedBuffer(size_t payloadBytes)
    : mSize(payloadBytes)
{
    // Room for alignment, the guard before, the payload and the guard after.
    mStorage.resize(kCHECK_GUARD_BYTES * 3 + payloadBytes);
    auto base = reinterpret_cast<uintptr_t>(mStorage.data()) + kCHECK_GUARD_BYTES;
    uintptr_t aligned = (base + kCHECK_GUARD_BYTES - 1) / kCHECK_GUARD_BYTES * kCHECK_GUARD_BYTES;
    mOffset = static_cast<size_t>(aligned - reinterpret_cast<uintptr_t>(mStorage.data()));
}

void GuardedBuffer::fill(uint8_t poison, uint8_t guard)
{
    std::memset(mStorage.data(), guard, mStorage.size());
    if (mSize > 0)
    {
        std::memset(mStorage.data() + mOffset, poison, mSize);
    }
}

void GuardedBuffer::load(std::vector<uint8_t> const& bytes, uint8_t guard)
{
    std::memset(mStorage.data(), guard, mStorage.size());
    std::memcpy(mStorage.data() + mOffset, bytes.data(), std::min(bytes.size(), mSize));
}

std::vector<uint8_t> GuardedBuffer::payload() const
{
    return std::vector<uint8_t>(mStorage.begin() + static_cast<std::ptrdiff_t>(mOffset),
        mStorage.begin() + static_cast<std::ptrdiff_t>(mOffset + mSize));
}

size_t GuardedBuffer::overrunAfter(uint8_t guard) const
{
    size_t const end = mOffset + mSize;
    for (size_t i = mStorage.size(); i > end; --i)
    {
        if (mStorage[i - 1] != guard)
        {
            return i - end;
        }
    }
    return 0;
}

size_t GuardedBuffer::overrunBefore(uint8_t guard) const
{
    for (size_t i = 0; i < mOffset; ++i)
    {
        if (mStorage[i] != guard)
        {
            return mOffset - i;
        }
    }
    return 0;
}

std::vector<uint8_t> randomTensorBytes(
    nvinfer1::DataType type, int64_t count, std::mt19937_64& rng, bool rangeGiven, double lo, double hi)
{
    using nvinfer1::DataType;
    std::vector<uint8_t> bytes(static_cast<size_t>(std::max<int64_t>(byteSize(type, count), 0)), 0);
    if (count <= 0)
    {
        return bytes;
    }
    bool const isFloat = isFloatType(type);
    if (!rangeGiven)
    {
        switch (type)
        {
        case DataType::kINT8: lo = -127; hi = 127; break;
        case DataType::kBOOL: lo = 0; hi = 1; break;
        default:
            lo = isFloat ? -1.0 : 0.0;
            hi = isFloat ? 1.0 : 3.0;
            break;
        }
    }
    bool anyNonZero = false;
    for (int64_t i = 0; i < count; ++i)
    {
        double value = 0.0;
        if (isFloat)
        {
            value = std::uniform_real_distribution<double>(lo, hi)(rng);
        }
        else
        {
            auto ilo = static_cast<int64_t>(std::ceil(lo));
            auto ihi = static_cast<int64_t>(std::floor(hi));
            value = static_cast<double>(std::uniform_int_distribution<int64_t>(ilo, std::max(ilo, ihi))(rng));
        }
        storeElement(bytes.data(), type, i, value);
        anyNonZero = anyNonZero || loadElement(bytes.data(), type, i) != 0.0;
    }
    if (!anyNonZero)
    {
        // A range that holds no non-zero value of the type (e.g. [0, 0.4] for integers) still must not give an
        // all-zero tensor: element 0 becomes the nearest non-zero value (1 or -1 for integer types).
        double value = std::abs(hi) >= std::abs(lo) ? hi : lo;
        if (!isFloat || value == 0.0)
        {
            value = value < 0.0 ? -1.0 : 1.0;
        }
        storeElement(bytes.data(), type, 0, value);
    }
    return bytes;
}

} // namespace kiln::checker
