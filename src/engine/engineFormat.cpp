// Engine file layout helpers: section names, the quoting of names in messages, the 64-bit checksum (xxHash64
// algorithm, implemented here) and the test/fuzz helper that refreshes checksums after a deliberate edit.
#include "engine/engineFormat.h"

#include <cstring>

namespace kiln
{
namespace engine
{

char const* sectionName(uint32_t id)
{
    switch (static_cast<SectionId>(id))
    {
    case SectionId::kMETADATA: return "metadata";
    case SectionId::kSHAPES: return "shape graph";
    case SectionId::kTENSORS: return "tensors";
    case SectionId::kIO: return "I/O order";
    case SectionId::kNODES: return "nodes";
    case SectionId::kPROFILES: return "profiles";
    case SectionId::kWEIGHTS: return "weights table";
    case SectionId::kBLOB: return "weights blob";
    case SectionId::kPLUGIN_LIBRARIES: return "plugin libraries";
    }
    return "unknown";
}

std::string printableQuoted(std::string const& s)
{
    std::string out = "'";
    for (char c : s.substr(0, 64))
    {
        out += (c >= 0x20 && c < 0x7f) ? c : '?';
    }
    out += s.size() > 64 ? "...'" : "'";
    return out;
}

namespace
{

constexpr uint64_t kP1 = 0x9E3779B185EBCA87ULL;
constexpr uint64_t kP2 = 0xC2B2AE3D27D4EB4FULL;
constexpr uint64_t kP3 = 0x165667B19E3779F9ULL;
constexpr uint64_t kP4 = 0x85EBCA77C2B2AE63ULL;
constexpr uint64_t kP5 = 0x27D4EB2F165667C5ULL;

inline uint64_t rotl(uint64_t x, int r)
{
    return (x << r) | (x >> (64 - r));
}

inline uint64_t mixLane(uint64_t acc, uint64_t lane)
{
    acc += lane * kP2;
    acc = rotl(acc, 31);
    return acc * kP1;
}

inline uint64_t foldLane(uint64_t hash, uint64_t acc)
{
    hash ^= mixLane(0, acc);
    return hash * kP1 + kP4;
}

} // namespace

uint64_t checksum64(void const* data, size_t size)
{
    auto const* p = static_cast<uint8_t const*>(data);
    uint8_t const* const end = p + size;
    uint64_t hash = 0;
    if (size >= 32)
    {
        // Four accumulators over 32-byte stripes.
        uint64_t a1 = kP1 + kP2;
        uint64_t a2 = kP2;
        uint64_t a3 = 0;
        uint64_t a4 = 0 - kP1;
        uint8_t const* const lastStripe = end - 32;
        do
        {
            a1 = mixLane(a1, loadU64(p));
            a2 = mixLane(a2, loadU64(p + 8));
            a3 = mixLane(a3, loadU64(p + 16));
            a4 = mixLane(a4, loadU64(p + 24));
            p += 32;
        } while (p <= lastStripe);
        hash = rotl(a1, 1) + rotl(a2, 7) + rotl(a3, 12) + rotl(a4, 18);
        hash = foldLane(hash, a1);
        hash = foldLane(hash, a2);
        hash = foldLane(hash, a3);
        hash = foldLane(hash, a4);
    }
    else
    {
        hash = kP5;
    }
    hash += static_cast<uint64_t>(size);

    while (end - p >= 8)
    {
        hash ^= mixLane(0, loadU64(p));
        hash = rotl(hash, 27) * kP1 + kP4;
        p += 8;
    }
    if (end - p >= 4)
    {
        hash ^= static_cast<uint64_t>(loadU32(p)) * kP1;
        hash = rotl(hash, 23) * kP2 + kP3;
        p += 4;
    }
    while (p < end)
    {
        hash ^= static_cast<uint64_t>(*p) * kP5;
        hash = rotl(hash, 11) * kP1;
        ++p;
    }

    // Final avalanche.
    hash ^= hash >> 33;
    hash *= kP2;
    hash ^= hash >> 29;
    hash *= kP3;
    hash ^= hash >> 32;
    return hash;
}

uint64_t headerChecksum(uint8_t const* header, size_t headerSize)
{
    std::vector<uint8_t> copy(header, header + headerSize);
    if (headerSize >= kOFF_HEADER_CHECKSUM + 8)
    {
        std::memset(copy.data() + kOFF_HEADER_CHECKSUM, 0, 8);
    }
    return checksum64(copy.data(), copy.size());
}

void recomputeChecksums(std::vector<uint8_t>& bytes)
{
    if (bytes.size() < kFIXED_HEADER_SIZE)
    {
        return;
    }
    uint8_t* const base = bytes.data();
    uint64_t const size = bytes.size();
    uint64_t const headerSize = loadU32(base + kOFF_HEADER_SIZE);
    uint64_t const sectionCount = loadU32(base + kOFF_SECTION_COUNT);
    if (headerSize < kFIXED_HEADER_SIZE || headerSize > size)
    {
        return;
    }
    // Refresh the checksum of every section whose table entry lies inside the header and whose byte range lies
    // inside the buffer.
    for (uint64_t i = 0; i < sectionCount; ++i)
    {
        uint64_t const entry = kFIXED_HEADER_SIZE + i * kSECTION_ENTRY_SIZE;
        if (entry + kSECTION_ENTRY_SIZE > headerSize)
        {
            break;
        }
        uint64_t const offset = loadU64(base + entry + 8);
        uint64_t const length = loadU64(base + entry + 16);
        if (offset <= size && length <= size - offset)
        {
            storeU64(base + entry + 24, checksum64(base + offset, static_cast<size_t>(length)));
        }
    }
    storeU64(base + kOFF_HEADER_CHECKSUM, headerChecksum(base, static_cast<size_t>(headerSize)));
}

} // namespace engine
} // namespace kiln
