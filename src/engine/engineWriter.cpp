// Engine writer: encodes each section of a Plan into little-endian bytes, lays the sections out canonically
// (8-byte aligned, the weights blob and every weight 64-byte aligned), then fills the header and checksums.
#include "engine/engineWriter.h"

#include "NvInferVersion.h"
#include "engine/engineFormat.h"
#include "engine/planValidation.h"

#include <bit>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <variant>

namespace kiln
{
namespace
{

using namespace engine;

//! Appends little-endian values to a byte vector; remembers the first encoding error.
class Sink
{
public:
    void u8(uint8_t v) { mBytes.push_back(v); }
    void u32(uint32_t v)
    {
        for (int i = 0; i < 4; ++i)
        {
            mBytes.push_back(static_cast<uint8_t>(v >> (8 * i)));
        }
    }
    void i32(int32_t v) { u32(static_cast<uint32_t>(v)); }
    void u64(uint64_t v)
    {
        for (int i = 0; i < 8; ++i)
        {
            mBytes.push_back(static_cast<uint8_t>(v >> (8 * i)));
        }
    }
    void i64(int64_t v) { u64(static_cast<uint64_t>(v)); }
    void f64(double v) { u64(std::bit_cast<uint64_t>(v)); }
    void f32(float v) { u32(std::bit_cast<uint32_t>(v)); }
    void boolean(bool v) { u8(v ? 1 : 0); }
    //! Element count of a list (u32).
    void count(size_t n, char const* what)
    {
        if (n > std::numeric_limits<uint32_t>::max())
        {
            fail(std::string("too many ") + what + " (" + std::to_string(n) + ") for the engine format");
            n = 0;
        }
        u32(static_cast<uint32_t>(n));
    }
    void str(std::string const& s)
    {
        count(s.size(), "string bytes");
        mBytes.insert(mBytes.end(), s.begin(), s.end());
    }
    template <typename T, typename F>
    void list(std::vector<T> const& v, char const* what, F&& each)
    {
        count(v.size(), what);
        for (auto const& e : v)
        {
            each(e);
        }
    }
    void i32s(std::vector<int32_t> const& v, char const* what)
    {
        list(v, what, [&](int32_t x) { i32(x); });
    }
    void i64s(std::vector<int64_t> const& v, char const* what)
    {
        list(v, what, [&](int64_t x) { i64(x); });
    }
    void dims(nvinfer1::Dims const& d)
    {
        i32(d.nbDims);
        for (int32_t i = 0; i < d.nbDims && i < nvinfer1::Dims::MAX_DIMS; ++i)
        {
            i64(d.d[i]);
        }
    }

    void fail(std::string msg)
    {
        if (mError.empty())
        {
            mError = std::move(msg);
        }
    }
    Status status() const { return mError.empty() ? Status::ok() : invalidArgument("cannot write engine: " + mError); }
    std::vector<uint8_t>& bytes() { return mBytes; }

private:
    std::vector<uint8_t> mBytes;
    std::string mError;
};

template <typename E>
int32_t enumValue(E e)
{
    return static_cast<int32_t>(e);
}

void encodeMetadata(Plan const& plan, Sink& s)
{
    s.str(plan.name);
    s.u32(plan.builderFlags);
    s.boolean(plan.stronglyTyped);
    s.i32(enumValue(plan.profilingVerbosity));
    s.i32(enumValue(plan.hardwareCompatibility));
}

void encodeShapes(ShapeGraph const& g, Sink& s)
{
    s.list(g.nodes(), "shape expressions", [&](ExprNode const& n) {
        s.u8(static_cast<uint8_t>(n.op));
        s.u8(static_cast<uint8_t>(n.rounding));
        s.i32(n.a);
        s.i32(n.b);
        s.i32(n.c);
        s.i64(n.value);
        s.f64(n.scale);
    });
    s.list(g.symbols(), "shape symbols", [&](SymbolInfo const& sym) {
        s.u8(static_cast<uint8_t>(sym.kind));
        s.str(sym.name);
        s.i32(sym.upper);
        s.i32(sym.opt);
    });
    s.list(g.constraints(), "shape constraints", [&](ShapeConstraint const& c) {
        s.i32(c.condition);
        s.str(c.message);
    });
}

void encodeTensors(Plan const& plan, Sink& s)
{
    s.list(plan.tensors, "tensors", [&](PlanTensor const& t) {
        s.str(t.name);
        s.i32(enumValue(t.type));
        s.i32(enumValue(t.format));
        s.i32s(t.dims, "dimensions");
        s.boolean(t.hasValues);
        s.i32s(t.values, "tensor values");
        s.i32(enumValue(t.ioMode));
        s.boolean(t.hostShapeTensor);
        s.i32(t.constant);
        s.list(t.dimNames, "dimension names", [&](std::string const& n) { s.str(n); });
        s.i32(t.sizeTensorSymbol);
        s.f32(t.scale);
    });
}

void encodeAttrValue(AttrValue const& v, Sink& s)
{
    std::visit(
        [&](auto const& x) {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, int64_t>)
            {
                s.u8(static_cast<uint8_t>(AttrTag::kINT));
                s.i64(x);
            }
            else if constexpr (std::is_same_v<T, double>)
            {
                s.u8(static_cast<uint8_t>(AttrTag::kFLOAT));
                s.f64(x);
            }
            else if constexpr (std::is_same_v<T, std::vector<int64_t>>)
            {
                s.u8(static_cast<uint8_t>(AttrTag::kINTS));
                s.i64s(x, "attribute values");
            }
            else if constexpr (std::is_same_v<T, std::vector<double>>)
            {
                s.u8(static_cast<uint8_t>(AttrTag::kFLOATS));
                s.list(x, "attribute values", [&](double d) { s.f64(d); });
            }
            else
            {
                static_assert(std::is_same_v<T, std::string>);
                s.u8(static_cast<uint8_t>(AttrTag::kSTRING));
                s.str(x);
            }
        },
        v);
}

void encodeNodes(Plan const& plan, Sink& s)
{
    s.list(plan.nodes, "nodes", [&](PlanNode const& n) {
        s.i32(enumValue(n.kind));
        s.str(n.name);
        s.str(n.metadata);
        auto const& attrs = n.attrs.values(); // std::map: sorted by key, so the order is deterministic
        s.count(attrs.size(), "attributes");
        for (auto const& [key, value] : attrs)
        {
            s.str(key);
            encodeAttrValue(value, s);
        }
        s.i32s(n.inputs, "node inputs");
        s.i32s(n.outputs, "node outputs");
        s.i32s(n.weights, "node weights");
        s.str(n.tactic);
        s.i32(enumValue(n.precision));
    });
}

void encodeIo(Plan const& plan, Sink& s)
{
    s.i32s(plan.ioTensors, "I/O tensors");
}

void encodeProfiles(Plan const& plan, Sink& s)
{
    s.list(plan.profiles, "profiles", [&](PlanProfile const& p) {
        s.list(p.inputs, "profile inputs", [&](PlanProfileInput const& in) {
            s.i32(in.tensor);
            s.dims(in.min);
            s.dims(in.opt);
            s.dims(in.max);
            s.i64s(in.minValues, "profile values");
            s.i64s(in.optValues, "profile values");
            s.i64s(in.maxValues, "profile values");
        });
        s.i64(p.arenaSize);
        s.i64s(p.tensorOffsets, "arena offsets");
        s.i64s(p.tensorCapacity, "arena capacities");
        s.i64s(p.workspaceOffsets, "workspace offsets");
        s.i64s(p.workspaceSizes, "workspace sizes");
    });
}

void encodePluginLibraries(Plan const& plan, Sink& s)
{
    s.list(plan.pluginLibraries, "plugin libraries", [&](PlanPluginLibrary const& lib) {
        s.str(lib.fileName);
        s.str(lib.bytes);
    });
}

//! Bytes of the weights table for `n` entries: count + n * (type i32, count i64, offset u64, size u64).
constexpr uint64_t weightsTableSize(uint64_t n)
{
    return 4 + n * 28;
}

} // namespace

StatusOr<std::vector<uint8_t>> writeEngine(Plan const& plan)
{
    Status const valid = validatePlan(plan);
    if (!valid.isOk())
    {
        return valid.withContext("cannot write engine");
    }
    return writeEngineUnchecked(plan);
}

StatusOr<std::vector<uint8_t>> writeEngineUnchecked(Plan const& plan)
{
    if (plan.weights.size() > std::numeric_limits<uint32_t>::max())
    {
        return invalidArgument("cannot write engine: too many weights");
    }

    // Encode every section except the weights table and the blob, whose contents depend on the layout.
    SectionId const order[kSECTION_COUNT] = {SectionId::kMETADATA, SectionId::kSHAPES, SectionId::kTENSORS,
        SectionId::kIO, SectionId::kNODES, SectionId::kPROFILES, SectionId::kWEIGHTS, SectionId::kBLOB,
        SectionId::kPLUGIN_LIBRARIES};
    Sink encoded[kSECTION_COUNT];
    encodeMetadata(plan, encoded[0]);
    encodeShapes(plan.shapes, encoded[1]);
    encodeTensors(plan, encoded[2]);
    encodeIo(plan, encoded[3]);
    encodeNodes(plan, encoded[4]);
    encodeProfiles(plan, encoded[5]);
    encodePluginLibraries(plan, encoded[8]);
    for (auto const& s : encoded)
    {
        KILN_RETURN_IF_ERROR(s.status());
    }

    // Layout: the header, then each section at the next multiple of 8 (the blob at the next multiple of 64).
    SectionEntry entries[kSECTION_COUNT];
    uint64_t cursor = kHEADER_SIZE;
    for (uint32_t i = 0; i < kSECTION_COUNT; ++i)
    {
        SectionEntry& e = entries[i];
        e.id = static_cast<uint32_t>(order[i]);
        e.offset = alignUp(cursor, order[i] == SectionId::kBLOB ? kWEIGHTS_ALIGNMENT : kSECTION_ALIGNMENT);
        if (order[i] == SectionId::kWEIGHTS)
        {
            e.size = weightsTableSize(plan.weights.size());
        }
        else if (order[i] == SectionId::kBLOB)
        {
            // Each weight at the next multiple of 64 (relative to the file start) after the previous one.
            uint64_t end = e.offset;
            Sink& table = encoded[i - 1];
            table.count(plan.weights.size(), "weights");
            for (PlanWeights const& w : plan.weights)
            {
                uint64_t const at = alignUp(end, kWEIGHTS_ALIGNMENT);
                table.i32(enumValue(w.type));
                table.i64(w.count);
                table.u64(at);
                table.u64(static_cast<uint64_t>(w.size));
                end = at + static_cast<uint64_t>(w.size);
            }
            e.size = end - e.offset;
        }
        else
        {
            e.size = encoded[i].bytes().size();
        }
        cursor = e.offset + e.size;
    }
    uint64_t const fileSize = cursor;
    if (encoded[6].bytes().size() != entries[6].size)
    {
        return internalError("engine writer: weights table size mismatch");
    }
    if (fileSize > std::numeric_limits<size_t>::max() / 2)
    {
        return invalidArgument("cannot write engine: the engine would be too large");
    }

    std::vector<uint8_t> out;
    try
    {
        out.assign(static_cast<size_t>(fileSize), 0);
    }
    catch (...)
    {
        return failedAllocation("cannot write engine: out of memory for " + std::to_string(fileSize) + " bytes");
    }
    uint8_t* const base = out.data();

    for (uint32_t i = 0; i < kSECTION_COUNT; ++i)
    {
        if (order[i] == SectionId::kBLOB)
        {
            uint64_t end = entries[i].offset;
            for (PlanWeights const& w : plan.weights)
            {
                uint64_t const at = alignUp(end, kWEIGHTS_ALIGNMENT);
                if (w.size > 0)
                {
                    std::memcpy(base + at, w.data, static_cast<size_t>(w.size));
                }
                end = at + static_cast<uint64_t>(w.size);
            }
        }
        else if (!encoded[i].bytes().empty())
        {
            std::memcpy(base + entries[i].offset, encoded[i].bytes().data(), encoded[i].bytes().size());
        }
        entries[i].checksum = checksum64(base + entries[i].offset, static_cast<size_t>(entries[i].size));
    }

    // Header.
    std::memcpy(base + kOFF_MAGIC, kMAGIC, sizeof(kMAGIC));
    storeU32(base + kOFF_FORMAT_VERSION, kFORMAT_VERSION);
    storeU32(base + kOFF_HEADER_SIZE, static_cast<uint32_t>(kHEADER_SIZE));
    storeU32(base + kOFF_FLAGS, 0);
    storeU32(base + kOFF_SECTION_COUNT, kSECTION_COUNT);
    int32_t const kilnVersion = KILN_VERSION_MAJOR * 10000 + KILN_VERSION_MINOR * 100 + KILN_VERSION_PATCH;
    storeU32(base + kOFF_API_VERSION,
        static_cast<uint32_t>(plan.apiVersion != 0 ? plan.apiVersion : static_cast<int32_t>(NV_TENSORRT_VERSION)));
    storeU32(base + kOFF_KILN_VERSION, static_cast<uint32_t>(plan.kilnVersion != 0 ? plan.kilnVersion : kilnVersion));
    storeU64(base + kOFF_FILE_SIZE, fileSize);
    std::memcpy(base + kOFF_BACKEND, plan.backend.data(), plan.backend.size()); // length checked by validatePlan
    for (uint32_t i = 0; i < kSECTION_COUNT; ++i)
    {
        uint8_t* const entry = base + kFIXED_HEADER_SIZE + i * kSECTION_ENTRY_SIZE;
        storeU32(entry, entries[i].id);
        storeU32(entry + 4, 0);
        storeU64(entry + 8, entries[i].offset);
        storeU64(entry + 16, entries[i].size);
        storeU64(entry + 24, entries[i].checksum);
    }
    storeU64(base + kOFF_HEADER_CHECKSUM, headerChecksum(base, kHEADER_SIZE));
    return out;
}

} // namespace kiln
