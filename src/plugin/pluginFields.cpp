// Plugin field collections as bytes: how V3 plugins' getFieldsToSerialize() state is stored in engines.
// Format (little-endian): magic "KPF1", uint32 format version (1), uint32 field count, then per field:
// uint32 name length, name bytes, int32 PluginFieldType, int32 length (elements), uint64 data bytes, data.
// The decoder checks every count and length against the remaining bytes (engine files are untrusted input).
#include "plugin/pluginAdapter.h"

#include <algorithm>
#include <cstring>
#include <limits>

namespace kiln
{

using nvinfer1::PluginField;
using nvinfer1::PluginFieldCollection;
using nvinfer1::PluginFieldType;

namespace
{

constexpr uint32_t kFIELDS_MAGIC = 0x3146504BU; // "KPF1"
constexpr uint32_t kFIELDS_VERSION = 1;
//! Smallest encoded field: name length, type, length, byte count.
constexpr size_t kMIN_FIELD_BYTES = 4 + 4 + 4 + 8;
//! Total field bytes accepted (2 GiB).
constexpr uint64_t kMAX_FIELD_BYTES = uint64_t{1} << 31;

void putU32(std::string& out, uint32_t v)
{
    for (int i = 0; i < 4; ++i)
    {
        out.push_back(static_cast<char>((v >> (8 * i)) & 0xFFU));
    }
}

void putU64(std::string& out, uint64_t v)
{
    for (int i = 0; i < 8; ++i)
    {
        out.push_back(static_cast<char>((v >> (8 * i)) & 0xFFU));
    }
}

//! Bounds-checked little-endian reader.
class Reader
{
public:
    explicit Reader(std::string const& bytes)
        : mBytes(bytes)
    {
    }

    size_t remaining() const { return mBytes.size() - mPos; }

    bool u32(uint32_t& v)
    {
        if (remaining() < 4)
        {
            return false;
        }
        v = 0;
        for (int i = 0; i < 4; ++i)
        {
            v |= static_cast<uint32_t>(static_cast<uint8_t>(mBytes[mPos + static_cast<size_t>(i)])) << (8 * i);
        }
        mPos += 4;
        return true;
    }

    bool u64(uint64_t& v)
    {
        if (remaining() < 8)
        {
            return false;
        }
        v = 0;
        for (int i = 0; i < 8; ++i)
        {
            v |= static_cast<uint64_t>(static_cast<uint8_t>(mBytes[mPos + static_cast<size_t>(i)])) << (8 * i);
        }
        mPos += 8;
        return true;
    }

    bool bytes(size_t n, char const*& p)
    {
        if (remaining() < n)
        {
            return false;
        }
        p = mBytes.data() + mPos;
        mPos += n;
        return true;
    }

private:
    std::string const& mBytes;
    size_t mPos{0};
};

Status corrupt(std::string const& what)
{
    return invalidArgument("corrupt plugin field data: " + what);
}

} // namespace

int64_t pluginFieldByteSize(PluginFieldType type, int64_t length)
{
    if (length < 0)
    {
        return -1;
    }
    switch (type)
    {
    case PluginFieldType::kFLOAT16:
    case PluginFieldType::kBF16:
    case PluginFieldType::kINT16: return length * 2;
    case PluginFieldType::kFLOAT32:
    case PluginFieldType::kINT32: return length * 4;
    case PluginFieldType::kFLOAT64:
    case PluginFieldType::kINT64: return length * 8;
    case PluginFieldType::kINT8:
    case PluginFieldType::kCHAR:
    case PluginFieldType::kUNKNOWN:
    case PluginFieldType::kFP8: return length;
    case PluginFieldType::kDIMS: return length * static_cast<int64_t>(sizeof(nvinfer1::Dims));
    case PluginFieldType::kINT4:
    case PluginFieldType::kFP4: return (length + 1) / 2;
    }
    return -1;
}

Status validatePluginFields(PluginFieldCollection const& fields, std::string const& who)
{
    if (fields.nbFields < 0)
    {
        return invalidArgument(who + ": the field collection has nbFields " + std::to_string(fields.nbFields));
    }
    if (fields.nbFields > 0 && fields.fields == nullptr)
    {
        return invalidArgument(who + ": the field collection has " + std::to_string(fields.nbFields)
            + " field(s) but a null fields pointer");
    }
    uint64_t total = 0;
    for (int32_t i = 0; i < fields.nbFields; ++i)
    {
        PluginField const& f = fields.fields[i];
        std::string const name = f.name == nullptr ? std::string("#") + std::to_string(i) : std::string(f.name);
        int64_t const bytes = pluginFieldByteSize(f.type, f.length);
        if (f.length < 0)
        {
            return invalidArgument(who + ": field '" + name + "' has the negative length " + std::to_string(f.length));
        }
        if (bytes < 0)
        {
            return invalidArgument(who + ": field '" + name + "' has the unknown PluginFieldType "
                + std::to_string(static_cast<int32_t>(f.type)));
        }
        if (f.length > 0 && f.data == nullptr)
        {
            return invalidArgument(who + ": field '" + name + "' has length " + std::to_string(f.length)
                + " but null data");
        }
        total += static_cast<uint64_t>(bytes);
        if (total > kMAX_FIELD_BYTES)
        {
            return invalidArgument(who + ": the fields hold more than 2 GiB");
        }
    }
    return Status::ok();
}

std::string encodePluginFields(PluginFieldCollection const& fields)
{
    std::string out;
    putU32(out, kFIELDS_MAGIC);
    putU32(out, kFIELDS_VERSION);
    int32_t const count = fields.fields == nullptr ? 0 : std::max(fields.nbFields, 0);
    putU32(out, static_cast<uint32_t>(count));
    for (int32_t i = 0; i < count; ++i)
    {
        PluginField const& f = fields.fields[i];
        size_t const nameLength = f.name == nullptr ? 0 : std::strlen(f.name);
        putU32(out, static_cast<uint32_t>(nameLength));
        out.append(f.name == nullptr ? "" : f.name, nameLength);
        int64_t const bytes = pluginFieldByteSize(f.type, f.length);
        bool const valid = bytes >= 0 && (bytes == 0 || f.data != nullptr);
        if (!valid)
        {
            // validatePluginFields() reports these; never read through a bad pointer.
            putU32(out, static_cast<uint32_t>(PluginFieldType::kUNKNOWN));
            putU32(out, 0);
            putU64(out, 0);
            continue;
        }
        putU32(out, static_cast<uint32_t>(f.type));
        putU32(out, static_cast<uint32_t>(f.length));
        putU64(out, static_cast<uint64_t>(bytes));
        if (bytes > 0)
        {
            out.append(static_cast<char const*>(f.data), static_cast<size_t>(bytes));
        }
    }
    return out;
}

StatusOr<std::unique_ptr<DecodedPluginFields>> decodePluginFields(std::string const& bytes)
{
    Reader r(bytes);
    uint32_t magic = 0;
    uint32_t version = 0;
    uint32_t count = 0;
    if (!r.u32(magic) || magic != kFIELDS_MAGIC)
    {
        return corrupt("missing the \"KPF1\" header");
    }
    if (!r.u32(version) || version != kFIELDS_VERSION)
    {
        return corrupt("format version " + std::to_string(version) + " (this Kiln reads version "
            + std::to_string(kFIELDS_VERSION) + ")");
    }
    if (!r.u32(count) || count > r.remaining() / kMIN_FIELD_BYTES)
    {
        return corrupt("field count " + std::to_string(count) + " does not fit in " + std::to_string(r.remaining())
            + " remaining bytes");
    }
    auto decoded = std::make_unique<DecodedPluginFields>();
    std::vector<PluginFieldType> types;
    std::vector<int32_t> lengths;
    decoded->mNames.reserve(count);
    decoded->mData.reserve(count);
    for (uint32_t i = 0; i < count; ++i)
    {
        std::string const where = "field " + std::to_string(i);
        uint32_t nameLength = 0;
        char const* name = nullptr;
        if (!r.u32(nameLength) || !r.bytes(nameLength, name))
        {
            return corrupt(where + ": name runs past the end of the data");
        }
        decoded->mNames.emplace_back(name, nameLength);
        if (decoded->mNames.back().find('\0') != std::string::npos)
        {
            return corrupt(where + ": name contains a NUL byte");
        }
        uint32_t type = 0;
        uint32_t length = 0;
        uint64_t byteCount = 0;
        if (!r.u32(type) || !r.u32(length) || !r.u64(byteCount))
        {
            return corrupt(where + " ('" + decoded->mNames.back() + "'): header runs past the end of the data");
        }
        auto const fieldType = static_cast<PluginFieldType>(static_cast<int32_t>(type));
        if (length > static_cast<uint32_t>(std::numeric_limits<int32_t>::max()))
        {
            return corrupt(where + " ('" + decoded->mNames.back() + "'): length " + std::to_string(length));
        }
        int64_t const expected = pluginFieldByteSize(fieldType, static_cast<int64_t>(length));
        if (expected < 0)
        {
            return corrupt(where + " ('" + decoded->mNames.back() + "'): unknown PluginFieldType "
                + std::to_string(static_cast<int32_t>(type)));
        }
        if (byteCount != static_cast<uint64_t>(expected))
        {
            return corrupt(where + " ('" + decoded->mNames.back() + "'): " + std::to_string(byteCount)
                + " data bytes for " + std::to_string(length) + " element(s), expected " + std::to_string(expected));
        }
        char const* data = nullptr;
        if (!r.bytes(static_cast<size_t>(byteCount), data))
        {
            return corrupt(where + " ('" + decoded->mNames.back() + "'): data runs past the end");
        }
        // One extra zero byte so that kCHAR data without a terminator still reads as a C string.
        std::vector<uint8_t> storage(static_cast<size_t>(byteCount) + 1, 0);
        if (byteCount != 0)
        {
            std::memcpy(storage.data(), data, static_cast<size_t>(byteCount));
        }
        decoded->mData.push_back(std::move(storage));
        types.push_back(fieldType);
        lengths.push_back(static_cast<int32_t>(length));
    }
    if (r.remaining() != 0)
    {
        return corrupt(std::to_string(r.remaining()) + " unexpected trailing bytes");
    }
    // Pointers are taken only now that the vectors no longer move.
    for (uint32_t i = 0; i < count; ++i)
    {
        decoded->mFields.emplace_back(decoded->mNames[i].c_str(), decoded->mData[i].data(), types[i], lengths[i]);
    }
    decoded->mCollection.nbFields = static_cast<int32_t>(count);
    decoded->mCollection.fields = decoded->mFields.empty() ? nullptr : decoded->mFields.data();
    return decoded;
}

} // namespace kiln
