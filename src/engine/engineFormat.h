// Engine file layout shared by engineWriter, engineReader and planValidation: magic, version, header field offsets,
// section ids and names, the 64-bit checksum, little-endian byte helpers and the quoting of names in messages.
// docs/engine-format.md describes the format.
#pragma once

#include "core/status.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace kiln
{
namespace engine
{

//! "KILNENG\0": the first eight bytes of every engine file.
constexpr uint8_t kMAGIC[8] = {'K', 'I', 'L', 'N', 'E', 'N', 'G', 0};
//! The format version this Kiln writes and reads. Version 2 added plugin data (size-tensor symbols, INT8 scales,
//! symbol bounds, per-node workspaces, embedded plugin libraries); version 1 engines are refused.
constexpr uint32_t kFORMAT_VERSION = 2;

// Fixed part of the header (byte offsets from the start of the file).
constexpr size_t kOFF_MAGIC = 0;            // 8 bytes
constexpr size_t kOFF_FORMAT_VERSION = 8;   // u32
constexpr size_t kOFF_HEADER_SIZE = 12;     // u32: fixed part + section table
constexpr size_t kOFF_FLAGS = 16;           // u32: must be 0 (no flags are defined)
constexpr size_t kOFF_SECTION_COUNT = 20;   // u32
constexpr size_t kOFF_API_VERSION = 24;     // i32: NV_TENSORRT_VERSION of the build
constexpr size_t kOFF_KILN_VERSION = 28;    // i32: Kiln version of the build
constexpr size_t kOFF_FILE_SIZE = 32;       // u64
constexpr size_t kOFF_HEADER_CHECKSUM = 40; // u64: checksum of the header with this field zeroed
constexpr size_t kOFF_RESERVED = 48;        // 16 zero bytes
constexpr size_t kOFF_BACKEND = 64;         // 32 bytes: backend name, NUL-padded
constexpr size_t kBACKEND_FIELD_SIZE = 32;
constexpr size_t kFIXED_HEADER_SIZE = 96;   // the section table starts here
constexpr size_t kSECTION_ENTRY_SIZE = 32;  // id u32, reserved u32, offset u64, size u64, checksum u64

//! Sections of a version-2 file, in file order. Every file has all of them, exactly once, in this order.
enum class SectionId : uint32_t
{
    kMETADATA = 1,
    kSHAPES = 2,
    kTENSORS = 3,
    kIO = 4,
    kNODES = 5,
    kPROFILES = 6,
    kWEIGHTS = 7,
    kBLOB = 8,
    kPLUGIN_LIBRARIES = 9,
};
constexpr uint32_t kSECTION_COUNT = 9;
constexpr size_t kHEADER_SIZE = kFIXED_HEADER_SIZE + kSECTION_COUNT * kSECTION_ENTRY_SIZE;

//! Sections start at multiples of 8 bytes; the weights blob and each weight at multiples of 64.
constexpr uint64_t kSECTION_ALIGNMENT = 8;
constexpr uint64_t kWEIGHTS_ALIGNMENT = 64;

//! Attribute value tags (the index of the alternative in kiln::AttrValue).
enum class AttrTag : uint8_t
{
    kINT = 0,
    kFLOAT = 1,
    kINTS = 2,
    kFLOATS = 3,
    kSTRING = 4,
};

//! Name of a section as used in error messages ("nodes", "weights blob", ...).
char const* sectionName(uint32_t id);

//! How messages quote a name read from a file: single quotes, at most 64 characters (then "..."), bytes outside
//! printable ASCII shown as '?'.
std::string printableQuoted(std::string const& s);

//! 64-bit checksum of a byte range (the xxHash64 algorithm, seed 0).
uint64_t checksum64(void const* data, size_t size);

//! What the header of an engine file says, after checkEngineHeader-level validation.
struct SectionEntry
{
    uint32_t id{0};
    uint64_t offset{0};
    uint64_t size{0};
    uint64_t checksum{0};
};

struct EngineHeaderInfo
{
    uint32_t formatVersion{0};
    uint32_t headerSize{0};
    uint32_t flags{0};
    int32_t apiVersion{0};
    int32_t kilnVersion{0};
    uint64_t fileSize{0};
    std::string backend;
    std::vector<SectionEntry> sections; // in SectionId order
};

//! Round `value` up to a multiple of `alignment` (a power of two).
constexpr uint64_t alignUp(uint64_t value, uint64_t alignment)
{
    return (value + alignment - 1) & ~(alignment - 1);
}

//! Little-endian loads and stores (independent of the host's byte order).
inline uint32_t loadU32(uint8_t const* p)
{
    return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) | (static_cast<uint32_t>(p[2]) << 16)
        | (static_cast<uint32_t>(p[3]) << 24);
}
inline uint64_t loadU64(uint8_t const* p)
{
    return static_cast<uint64_t>(loadU32(p)) | (static_cast<uint64_t>(loadU32(p + 4)) << 32);
}
inline void storeU32(uint8_t* p, uint32_t v)
{
    for (int i = 0; i < 4; ++i)
    {
        p[i] = static_cast<uint8_t>(v >> (8 * i));
    }
}
inline void storeU64(uint8_t* p, uint64_t v)
{
    for (int i = 0; i < 8; ++i)
    {
        p[i] = static_cast<uint8_t>(v >> (8 * i));
    }
}

//! Checksum of the header bytes [0, headerSize) with the header-checksum field read as zero.
uint64_t headerChecksum(uint8_t const* header, size_t headerSize);

//! TEST/FUZZ ONLY: rewrite every section checksum and the header checksum of `bytes` so that a deliberately
//! modified file gets past the checksum checks and reaches the deeper validation. Does nothing to parts it
//! cannot locate (the buffer may be arbitrary data); never reads or writes out of bounds.
void recomputeChecksums(std::vector<uint8_t>& bytes);

} // namespace engine
} // namespace kiln
