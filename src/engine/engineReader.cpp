// Engine reader (decoding: bytes → Plan): checks the header and section table, verifies checksums, decodes each
// section with a bounds-checked cursor (every count is capped by the bytes left), then hands the decoded Plan to
// validatePlan (planValidation.cpp) for every cross-reference and structural invariant.
#include "engine/engineReader.h"

#include "NvInferVersion.h"
#include "core/dataType.h"
#include "engine/planValidation.h"

#include <bit>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace kiln
{
namespace
{

using namespace engine;

std::string versionText(int64_t v)
{
    if (v < 0)
    {
        return std::to_string(v);
    }
    return std::to_string(v / 10000) + "." + std::to_string((v / 100) % 100) + "." + std::to_string(v % 100);
}

std::string hexBytes(uint8_t const* p, size_t n)
{
    std::string out;
    char buf[4];
    for (size_t i = 0; i < n; ++i)
    {
        std::snprintf(buf, sizeof(buf), "%02x", p[i]);
        out += (i == 0 ? "" : " ");
        out += buf;
    }
    return out;
}

Status corrupt(std::string msg)
{
    return invalidArgument(std::move(msg));
}

// ---------------------------------------------------------------------------------------------------------
// Header
// ---------------------------------------------------------------------------------------------------------

StatusOr<EngineHeaderInfo> parseHeader(uint8_t const* p, size_t size)
{
    if (p == nullptr && size != 0)
    {
        return invalidArgument("engine data is a null pointer");
    }
    if (size == 0)
    {
        return corrupt("not a Kiln engine (empty buffer)");
    }
    size_t const magicBytes = size < sizeof(kMAGIC) ? size : sizeof(kMAGIC);
    if (std::memcmp(p, kMAGIC, magicBytes) != 0)
    {
        return corrupt("not a Kiln engine (bad magic): a Kiln engine starts with \"KILNENG\\0\", this data starts with "
            + hexBytes(p, magicBytes));
    }
    if (size < kOFF_FORMAT_VERSION + 4)
    {
        return corrupt("engine file truncated: expected at least " + std::to_string(kHEADER_SIZE) + " bytes, got "
            + std::to_string(size));
    }
    EngineHeaderInfo h;
    h.formatVersion = loadU32(p + kOFF_FORMAT_VERSION);
    if (h.formatVersion == 1)
    {
        return corrupt("engine format version 1 is no longer supported, rebuild the engine (this Kiln reads version "
            + std::to_string(kFORMAT_VERSION) + ", which adds plugin data)");
    }
    if (h.formatVersion != kFORMAT_VERSION)
    {
        return corrupt("engine built by Kiln engine format version " + std::to_string(h.formatVersion)
            + "; this Kiln reads version " + std::to_string(kFORMAT_VERSION) + " (rebuild the engine with this Kiln)");
    }
    if (size < kOFF_FILE_SIZE + 8)
    {
        return corrupt("engine file truncated: expected at least " + std::to_string(kHEADER_SIZE) + " bytes, got "
            + std::to_string(size));
    }
    h.fileSize = loadU64(p + kOFF_FILE_SIZE);
    if (size < h.fileSize)
    {
        return corrupt("engine file truncated: expected " + std::to_string(h.fileSize) + " bytes, got "
            + std::to_string(size));
    }
    if (size > h.fileSize)
    {
        return corrupt("engine file size mismatch: the header says " + std::to_string(h.fileSize) + " bytes, but "
            + std::to_string(size) + " bytes were given (trailing data or a corrupt header)");
    }
    h.headerSize = loadU32(p + kOFF_HEADER_SIZE);
    uint32_t const sectionCount = loadU32(p + kOFF_SECTION_COUNT);
    if (h.fileSize < kHEADER_SIZE || h.headerSize != kHEADER_SIZE || sectionCount != kSECTION_COUNT)
    {
        return corrupt("invalid engine header: header size " + std::to_string(h.headerSize) + ", "
            + std::to_string(sectionCount) + " sections and file size " + std::to_string(h.fileSize)
            + " (format version " + std::to_string(kFORMAT_VERSION) + " has a " + std::to_string(kHEADER_SIZE)
            + "-byte header and "
            + std::to_string(kSECTION_COUNT) + " sections)");
    }
    if (headerChecksum(p, kHEADER_SIZE) != loadU64(p + kOFF_HEADER_CHECKSUM))
    {
        return corrupt("checksum mismatch in the engine header (file corrupt)");
    }
    h.flags = loadU32(p + kOFF_FLAGS);
    if (h.flags != 0)
    {
        char flags[16];
        std::snprintf(flags, sizeof(flags), "0x%08x", h.flags);
        return corrupt(std::string("engine header has flags ") + flags
            + " that this Kiln does not know (format version " + std::to_string(kFORMAT_VERSION) + " defines none)");
    }
    for (size_t i = kOFF_RESERVED; i < kOFF_BACKEND; ++i)
    {
        if (p[i] != 0)
        {
            return corrupt("invalid engine header: reserved byte " + std::to_string(i) + " is not zero");
        }
    }
    // Backend name: printable ASCII, NUL-terminated inside its field, zero-padded.
    size_t nameLength = 0;
    while (nameLength < kBACKEND_FIELD_SIZE && p[kOFF_BACKEND + nameLength] != 0)
    {
        ++nameLength;
    }
    bool backendOk = nameLength > 0 && nameLength < kBACKEND_FIELD_SIZE;
    for (size_t i = 0; i < kBACKEND_FIELD_SIZE && backendOk; ++i)
    {
        uint8_t const c = p[kOFF_BACKEND + i];
        backendOk = i < nameLength ? (c > 0x20 && c < 0x7f) : c == 0;
    }
    if (!backendOk)
    {
        return corrupt("invalid engine header: the backend name is not a NUL-terminated printable name");
    }
    h.backend.assign(reinterpret_cast<char const*>(p + kOFF_BACKEND), nameLength);
    h.apiVersion = static_cast<int32_t>(loadU32(p + kOFF_API_VERSION));
    h.kilnVersion = static_cast<int32_t>(loadU32(p + kOFF_KILN_VERSION));
    if (h.kilnVersion <= 0)
    {
        return corrupt("invalid engine header: Kiln version " + std::to_string(h.kilnVersion));
    }
    int64_t const ourApi = NV_TENSORRT_VERSION;
    int64_t const oldestApi = static_cast<int64_t>(NV_TENSORRT_MAJOR) * 10000;
    if (h.apiVersion < oldestApi || h.apiVersion > ourApi)
    {
        return corrupt("engine was built for TensorRT API " + versionText(h.apiVersion) + " / backend '" + h.backend
            + "' by Kiln " + versionText(h.kilnVersion) + "; this Kiln implements TensorRT API " + versionText(ourApi)
            + " and reads engines built for API " + versionText(oldestApi) + " to " + versionText(ourApi));
    }

    // Section table: every section of this version, in order, each at its canonical offset; gaps are zero bytes.
    uint64_t cursor = kHEADER_SIZE;
    for (uint32_t i = 0; i < kSECTION_COUNT; ++i)
    {
        uint8_t const* entry = p + kFIXED_HEADER_SIZE + i * kSECTION_ENTRY_SIZE;
        SectionEntry e;
        e.id = loadU32(entry);
        e.offset = loadU64(entry + 8);
        e.size = loadU64(entry + 16);
        e.checksum = loadU64(entry + 24);
        uint32_t const expectedId = i + 1;
        if (e.id != expectedId || loadU32(entry + 4) != 0)
        {
            return corrupt("invalid engine header: section table entry " + std::to_string(i) + " has id "
                + std::to_string(e.id) + ", expected " + std::to_string(expectedId) + " ('"
                + sectionName(expectedId) + "')");
        }
        uint64_t const align
            = static_cast<SectionId>(e.id) == SectionId::kBLOB ? kWEIGHTS_ALIGNMENT : kSECTION_ALIGNMENT;
        uint64_t const expectedOffset = alignUp(cursor, align);
        if (e.offset != expectedOffset || e.offset > h.fileSize || e.size > h.fileSize - e.offset)
        {
            return corrupt(std::string("invalid engine header: section '") + sectionName(e.id) + "' claims bytes ["
                + std::to_string(e.offset) + ", +" + std::to_string(e.size) + ") but must start at "
                + std::to_string(expectedOffset) + " and end within the " + std::to_string(h.fileSize)
                + "-byte file");
        }
        for (uint64_t at = cursor; at < e.offset; ++at)
        {
            if (p[at] != 0)
            {
                return corrupt(std::string("engine file corrupt: non-zero padding before section '")
                    + sectionName(e.id) + "' at byte " + std::to_string(at));
            }
        }
        cursor = e.offset + e.size;
        h.sections.push_back(e);
    }
    if (cursor != h.fileSize)
    {
        return corrupt("invalid engine header: the sections end at byte " + std::to_string(cursor)
            + " but the file has " + std::to_string(h.fileSize) + " bytes");
    }
    return h;
}

// ---------------------------------------------------------------------------------------------------------
// Section decoding
// ---------------------------------------------------------------------------------------------------------

//! Bounds-checked little-endian reader over one section. The first error sticks: later reads return zero
//! values and empty lists, so decoding loops end quickly.
class Cursor
{
public:
    Cursor(uint8_t const* data, uint64_t size, uint32_t section)
        : mData(data)
        , mSize(size)
        , mSection(section)
    {
    }

    bool ok() const { return mError.empty(); }
    uint64_t remaining() const { return mSize - mPos; }

    void fail(std::string const& msg)
    {
        if (mError.empty())
        {
            mError = msg + " (at byte " + std::to_string(mPos) + " of the section)";
            mPos = mSize;
        }
    }

    uint8_t u8()
    {
        uint8_t const* p = take(1);
        return p == nullptr ? 0 : *p;
    }
    uint32_t u32()
    {
        uint8_t const* p = take(4);
        return p == nullptr ? 0 : loadU32(p);
    }
    int32_t i32() { return static_cast<int32_t>(u32()); }
    uint64_t u64()
    {
        uint8_t const* p = take(8);
        return p == nullptr ? 0 : loadU64(p);
    }
    int64_t i64() { return static_cast<int64_t>(u64()); }
    double f64() { return std::bit_cast<double>(u64()); }
    float f32() { return std::bit_cast<float>(u32()); }
    bool boolean(char const* what)
    {
        uint8_t const v = u8();
        if (v > 1)
        {
            fail(std::string(what) + " has the value " + std::to_string(v) + " (expected 0 or 1)");
        }
        return v == 1;
    }

    //! A list length, refused when the elements (at least `minBytes` each) cannot fit in the bytes left.
    uint32_t count(uint64_t minBytes, char const* what)
    {
        uint32_t const n = u32();
        if (ok() && static_cast<uint64_t>(n) * minBytes > remaining())
        {
            fail(std::string(what) + " count " + std::to_string(n) + " needs at least "
                + std::to_string(static_cast<uint64_t>(n) * minBytes) + " bytes, but only "
                + std::to_string(remaining()) + " are left");
            return 0;
        }
        return n;
    }

    std::string str(char const* what)
    {
        uint32_t const n = count(1, what);
        uint8_t const* p = take(n);
        return p == nullptr ? std::string() : std::string(reinterpret_cast<char const*>(p), n);
    }
    std::vector<int32_t> i32s(char const* what)
    {
        std::vector<int32_t> v(count(4, what));
        for (auto& x : v)
        {
            x = i32();
        }
        return v;
    }
    std::vector<int64_t> i64s(char const* what)
    {
        std::vector<int64_t> v(count(8, what));
        for (auto& x : v)
        {
            x = i64();
        }
        return v;
    }
    nvinfer1::Dims dims(char const* what)
    {
        nvinfer1::Dims d{};
        int32_t const n = i32();
        if (n < 0 || n > nvinfer1::Dims::MAX_DIMS)
        {
            fail(std::string(what) + " has nbDims " + std::to_string(n) + " (expected 0 to "
                + std::to_string(nvinfer1::Dims::MAX_DIMS) + ")");
            d.nbDims = 0;
            return d;
        }
        d.nbDims = n;
        for (int32_t i = 0; i < n; ++i)
        {
            d.d[i] = i64();
        }
        return d;
    }

    //! OK when every byte was consumed without error.
    Status finish()
    {
        if (ok() && mPos != mSize)
        {
            fail(std::to_string(mSize - mPos) + " unexpected bytes after the section's contents");
        }
        if (ok())
        {
            return Status::ok();
        }
        return corrupt(std::string("engine file corrupt: section '") + sectionName(mSection) + "' is malformed: " + mError);
    }

private:
    uint8_t const* take(uint64_t n)
    {
        if (!ok())
        {
            return nullptr;
        }
        if (n > remaining())
        {
            fail("a read of " + std::to_string(n) + " bytes runs past the end of the section ("
                + std::to_string(remaining()) + " bytes left)");
            return nullptr;
        }
        uint8_t const* p = mData + mPos;
        mPos += n;
        return p;
    }

    uint8_t const* mData;
    uint64_t mSize;
    uint64_t mPos{0};
    uint32_t mSection;
    std::string mError;
};

// Smallest encodings, used to cap counts by the bytes left.
constexpr uint64_t kMIN_EXPR_BYTES = 1 + 1 + 4 + 4 + 4 + 8 + 8;
constexpr uint64_t kMIN_SYMBOL_BYTES = 1 + 4 + 4 + 4;
constexpr uint64_t kMIN_CONSTRAINT_BYTES = 4 + 4;
constexpr uint64_t kMIN_TENSOR_BYTES = 4 + 4 + 4 + 4 + 1 + 4 + 4 + 1 + 4 + 4 + 4 + 4;
constexpr uint64_t kMIN_NODE_BYTES = 4 + 4 + 4 + 4 + 4 + 4 + 4 + 4 + 4;
constexpr uint64_t kMIN_ATTR_BYTES = 4 + 1 + 4;
constexpr uint64_t kMIN_PROFILE_BYTES = 4 + 8 + 4 + 4 + 4 + 4;
constexpr uint64_t kMIN_LIBRARY_BYTES = 4 + 4;
constexpr uint64_t kMIN_PROFILE_INPUT_BYTES = 4 + 3 * 4 + 3 * 4;
constexpr uint64_t kWEIGHTS_ENTRY_BYTES = 4 + 8 + 8 + 8;

template <typename E>
E asEnum(int32_t v)
{
    return static_cast<E>(v);
}

void decodeMetadata(Cursor& c, Plan& plan)
{
    plan.name = c.str("engine name");
    plan.builderFlags = c.u32();
    plan.stronglyTyped = c.boolean("strongly-typed flag");
    plan.profilingVerbosity = asEnum<nvinfer1::ProfilingVerbosity>(c.i32());
    plan.hardwareCompatibility = asEnum<nvinfer1::HardwareCompatibilityLevel>(c.i32());
}

Status decodeShapes(Cursor& c, Plan& plan)
{
    std::vector<ExprNode> nodes(c.count(kMIN_EXPR_BYTES, "shape expression"));
    for (auto& n : nodes)
    {
        n.op = static_cast<ExprOp>(c.u8());
        n.rounding = static_cast<ExprRounding>(c.u8());
        n.a = c.i32();
        n.b = c.i32();
        n.c = c.i32();
        n.value = c.i64();
        n.scale = c.f64();
    }
    std::vector<SymbolInfo> symbols(c.count(kMIN_SYMBOL_BYTES, "shape symbol"));
    for (auto& s : symbols)
    {
        s.kind = static_cast<SymbolKind>(c.u8());
        s.name = c.str("symbol name");
        s.upper = c.i32();
        s.opt = c.i32();
    }
    std::vector<ShapeConstraint> constraints(c.count(kMIN_CONSTRAINT_BYTES, "shape constraint"));
    for (auto& k : constraints)
    {
        k.condition = c.i32();
        k.message = c.str("constraint message");
    }
    KILN_RETURN_IF_ERROR(c.finish());
    auto graph = ShapeGraph::fromParts(std::move(nodes), std::move(symbols), std::move(constraints));
    if (!graph.isOk())
    {
        return corrupt("invalid engine: section 'shape graph': " + graph.status().message());
    }
    plan.shapes = std::move(graph).value();
    return Status::ok();
}

void decodeTensors(Cursor& c, Plan& plan)
{
    plan.tensors.resize(c.count(kMIN_TENSOR_BYTES, "tensor"));
    for (auto& t : plan.tensors)
    {
        t.name = c.str("tensor name");
        t.type = asEnum<nvinfer1::DataType>(c.i32());
        t.format = asEnum<nvinfer1::TensorFormat>(c.i32());
        t.dims = c.i32s("tensor dimension");
        t.hasValues = c.boolean("tensor has-values flag");
        t.values = c.i32s("tensor value");
        t.ioMode = asEnum<nvinfer1::TensorIOMode>(c.i32());
        t.hostShapeTensor = c.boolean("host-shape-tensor flag");
        t.constant = c.i32();
        t.dimNames.resize(c.count(4, "dimension name"));
        for (auto& n : t.dimNames)
        {
            n = c.str("dimension name");
        }
        t.sizeTensorSymbol = c.i32();
        t.scale = c.f32();
    }
}

void decodeIo(Cursor& c, Plan& plan)
{
    plan.ioTensors = c.i32s("I/O tensor");
}

void decodeAttributes(Cursor& c, Attributes& attrs)
{
    auto& values = attrs.values();
    uint32_t const n = c.count(kMIN_ATTR_BYTES, "attribute");
    for (uint32_t i = 0; i < n && c.ok(); ++i)
    {
        std::string key = c.str("attribute name");
        if (!values.empty() && !(values.rbegin()->first < key))
        {
            c.fail("attribute " + printableQuoted(key) + " is out of order or repeated (names must be strictly ascending)");
            return;
        }
        uint8_t const tag = c.u8();
        AttrValue value;
        switch (static_cast<AttrTag>(tag))
        {
        case AttrTag::kINT: value = c.i64(); break;
        case AttrTag::kFLOAT: value = c.f64(); break;
        case AttrTag::kINTS: value = c.i64s("attribute value"); break;
        case AttrTag::kFLOATS:
        {
            std::vector<double> v(c.count(8, "attribute value"));
            for (auto& x : v)
            {
                x = c.f64();
            }
            value = std::move(v);
            break;
        }
        case AttrTag::kSTRING: value = c.str("attribute value"); break;
        default:
            c.fail("attribute " + printableQuoted(key) + " has the unknown value type tag " + std::to_string(tag));
            return;
        }
        values.emplace_hint(values.end(), std::move(key), std::move(value));
    }
}

void decodeNodes(Cursor& c, Plan& plan)
{
    plan.nodes.resize(c.count(kMIN_NODE_BYTES, "node"));
    for (auto& n : plan.nodes)
    {
        n.kind = asEnum<nvinfer1::LayerType>(c.i32());
        n.name = c.str("node name");
        n.metadata = c.str("node metadata");
        decodeAttributes(c, n.attrs);
        n.inputs = c.i32s("node input");
        n.outputs = c.i32s("node output");
        n.weights = c.i32s("node weights");
        n.tactic = c.str("node tactic");
        n.precision = asEnum<nvinfer1::DataType>(c.i32());
    }
}

void decodeProfiles(Cursor& c, Plan& plan)
{
    plan.profiles.resize(c.count(kMIN_PROFILE_BYTES, "profile"));
    for (auto& p : plan.profiles)
    {
        p.inputs.resize(c.count(kMIN_PROFILE_INPUT_BYTES, "profile input"));
        for (auto& in : p.inputs)
        {
            in.tensor = c.i32();
            in.min = c.dims("profile min dims");
            in.opt = c.dims("profile opt dims");
            in.max = c.dims("profile max dims");
            in.minValues = c.i64s("profile min value");
            in.optValues = c.i64s("profile opt value");
            in.maxValues = c.i64s("profile max value");
        }
        p.arenaSize = c.i64();
        p.tensorOffsets = c.i64s("arena offset");
        p.tensorCapacity = c.i64s("arena capacity");
        p.workspaceOffsets = c.i64s("workspace offset");
        p.workspaceSizes = c.i64s("workspace size");
    }
}

void decodePluginLibraries(Cursor& c, Plan& plan)
{
    plan.pluginLibraries.resize(c.count(kMIN_LIBRARY_BYTES, "plugin library"));
    for (auto& lib : plan.pluginLibraries)
    {
        lib.fileName = c.str("plugin library file name");
        lib.bytes = c.str("plugin library bytes");
    }
}

//! Weights table: entries must describe the canonical layout of the blob (each weight at the next multiple of
//! 64 bytes after the previous one, padding zero), which makes every valid file canonical.
Status decodeWeights(Cursor& c, Plan& plan, uint8_t const* file, SectionEntry const& blob)
{
    plan.weights.resize(c.count(kWEIGHTS_ENTRY_BYTES, "weights"));
    uint64_t end = blob.offset;
    uint64_t const blobEnd = blob.offset + blob.size;
    for (size_t i = 0; i < plan.weights.size() && c.ok(); ++i)
    {
        PlanWeights& w = plan.weights[i];
        w.type = asEnum<nvinfer1::DataType>(c.i32());
        w.count = c.i64();
        uint64_t const offset = c.u64();
        uint64_t const size = c.u64();
        if (!c.ok())
        {
            break;
        }
        uint64_t const expected = alignUp(end, kWEIGHTS_ALIGNMENT);
        if (offset != expected || expected > blobEnd || size > blobEnd - expected)
        {
            c.fail("weights " + std::to_string(i) + " claims bytes [" + std::to_string(offset) + ", +"
                + std::to_string(size) + ") but must start at " + std::to_string(expected)
                + " and end within the weights blob [" + std::to_string(blob.offset) + ", " + std::to_string(blobEnd)
                + ")");
            break;
        }
        for (uint64_t at = end; at < offset; ++at)
        {
            if (file[at] != 0)
            {
                c.fail("non-zero padding before weights " + std::to_string(i) + " at byte " + std::to_string(at));
                break;
            }
        }
        w.size = static_cast<int64_t>(size); // size <= file size, so it fits
        w.data = file + offset;
        end = offset + size;
    }
    KILN_RETURN_IF_ERROR(c.finish());
    if (end != blobEnd)
    {
        return corrupt("engine file corrupt: the weights blob has " + std::to_string(blobEnd - end)
            + " bytes after the last weights");
    }
    return Status::ok();
}

StatusOr<Plan> parse(uint8_t const* file, size_t size, std::shared_ptr<void const> storage)
{
    KILN_ASSIGN_OR_RETURN(EngineHeaderInfo header, parseHeader(file, size));
    for (SectionEntry const& e : header.sections)
    {
        if (checksum64(file + e.offset, static_cast<size_t>(e.size)) != e.checksum)
        {
            return corrupt(std::string("checksum mismatch in section '") + sectionName(e.id) + "' (file corrupt)");
        }
    }

    Plan plan;
    plan.apiVersion = header.apiVersion;
    plan.kilnVersion = header.kilnVersion;
    plan.backend = header.backend;
    plan.storage.push_back(std::move(storage));

    auto cursor = [&](SectionId id) {
        SectionEntry const& e = header.sections[static_cast<size_t>(id) - 1];
        return Cursor(file + e.offset, e.size, e.id);
    };
    {
        Cursor c = cursor(SectionId::kMETADATA);
        decodeMetadata(c, plan);
        KILN_RETURN_IF_ERROR(c.finish());
    }
    {
        Cursor c = cursor(SectionId::kSHAPES);
        KILN_RETURN_IF_ERROR(decodeShapes(c, plan));
    }
    {
        Cursor c = cursor(SectionId::kTENSORS);
        decodeTensors(c, plan);
        KILN_RETURN_IF_ERROR(c.finish());
    }
    {
        Cursor c = cursor(SectionId::kIO);
        decodeIo(c, plan);
        KILN_RETURN_IF_ERROR(c.finish());
    }
    {
        Cursor c = cursor(SectionId::kNODES);
        decodeNodes(c, plan);
        KILN_RETURN_IF_ERROR(c.finish());
    }
    {
        Cursor c = cursor(SectionId::kPROFILES);
        decodeProfiles(c, plan);
        KILN_RETURN_IF_ERROR(c.finish());
    }
    {
        Cursor c = cursor(SectionId::kWEIGHTS);
        KILN_RETURN_IF_ERROR(decodeWeights(c, plan, file, header.sections[static_cast<size_t>(SectionId::kBLOB) - 1]));
    }
    {
        Cursor c = cursor(SectionId::kPLUGIN_LIBRARIES);
        decodePluginLibraries(c, plan);
        KILN_RETURN_IF_ERROR(c.finish());
    }

    Status const valid = validatePlan(plan);
    if (!valid.isOk())
    {
        return corrupt("invalid engine: " + valid.message());
    }
    return plan;
}

} // namespace

StatusOr<engine::EngineHeaderInfo> readEngineHeader(void const* data, size_t size)
{
    return parseHeader(static_cast<uint8_t const*>(data), size);
}

Status checkEngineHeader(void const* data, size_t size)
{
    auto header = parseHeader(static_cast<uint8_t const*>(data), size);
    return header.isOk() ? Status::ok() : header.status();
}

StatusOr<Plan> readEngine(void const* data, size_t size)
{
    // Check the header before allocating, so that foreign data costs nothing.
    KILN_RETURN_IF_ERROR(checkEngineHeader(data, size));
    size_t const rounded = (size + kWEIGHTS_ALIGNMENT - 1) / kWEIGHTS_ALIGNMENT * kWEIGHTS_ALIGNMENT;
    void* copy = std::aligned_alloc(kWEIGHTS_ALIGNMENT, rounded);
    if (copy == nullptr)
    {
        return failedAllocation("cannot read engine: out of memory for a copy of " + std::to_string(size) + " bytes");
    }
    std::memcpy(copy, data, size);
    std::memset(static_cast<uint8_t*>(copy) + size, 0, rounded - size);
    std::shared_ptr<void const> storage(copy, [](void const* p) { std::free(const_cast<void*>(p)); });
    return parse(static_cast<uint8_t const*>(copy), size, std::move(storage));
}

StatusOr<Plan> readEngineShared(std::shared_ptr<void const> bytes, size_t size)
{
    if (bytes == nullptr)
    {
        return invalidArgument("readEngineShared: the engine memory is a null pointer");
    }
    auto const address = reinterpret_cast<uintptr_t>(bytes.get());
    if (address % kWEIGHTS_ALIGNMENT != 0)
    {
        return invalidArgument("readEngineShared: the engine memory must be 64-byte aligned (it is "
            + std::to_string(address % kWEIGHTS_ALIGNMENT) + " bytes past a multiple of 64); use readEngine, which copies");
    }
    uint8_t const* file = static_cast<uint8_t const*>(bytes.get());
    return parse(file, size, std::move(bytes));
}

} // namespace kiln
