// Engine file format, plugin data (format version 2): round trips of size-tensor symbols, INT8 scales, symbol
// bounds, per-node workspaces, embedded plugin libraries and binary plugin records; validation of every new index
// and value; refusal of version-1 engines. With KILN_WRITE_FUZZ_SEEDS=<dir>, WriteFuzzSeed writes plugin.kiln.
#include "engine/engineReader.h"
#include "engine/engineWriter.h"
#include "engine/planValidation.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace kiln
{
namespace
{

using nvinfer1::DataType;
using Bytes = std::vector<uint8_t>;
namespace ef = engine;

nvinfer1::Dims dims1(int64_t a, int64_t b)
{
    nvinfer1::Dims d{};
    d.nbDims = 2;
    d.d[0] = a;
    d.d[1] = b;
    return d;
}

//! Random bytes including NUL and 0xFF, like a plugin's serialize() output.
std::string randomBytes(std::mt19937& rng, size_t n)
{
    std::string s(n, '\0');
    for (auto& c : s)
    {
        c = static_cast<char>(rng() & 0xFF);
    }
    s[0] = '\0';
    s[n / 2] = static_cast<char>(0xFF);
    return s;
}

//! x [R,5] INT8 (scale) -> plugin node (binary record) -> idx [count,2] + count (size tensor) ; two profiles with
//! workspaces; one embedded library.
Plan makePluginPlan(std::mt19937& rng)
{
    Plan plan;
    plan.name = "plugin-format";
    plan.apiVersion = NV_TENSORRT_VERSION;
    plan.kilnVersion = 100;
    ShapeGraph& g = plan.shapes;
    ExprId const rows = g.symbol(SymbolKind::kINPUT_DIM, "x[0]");
    ExprId const cols = g.constant(5);
    ExprId const count = g.symbol(SymbolKind::kDATA_DEPENDENT, "nz.1.size");
    ExprId const upper = g.op(ExprOp::kPROD, rows, cols);
    ExprId const opt = g.op(ExprOp::kFLOOR_DIV, upper, g.constant(2));
    g.setSymbolBounds(static_cast<int32_t>(g.node(count).value), upper, opt);

    PlanTensor x;
    x.name = "x";
    x.type = DataType::kINT8;
    x.dims = {rows, cols};
    x.ioMode = nvinfer1::TensorIOMode::kINPUT;
    x.scale = 0.0078125F;
    PlanTensor idx;
    idx.name = "idx";
    idx.type = DataType::kINT32;
    idx.dims = {count, g.constant(2)};
    idx.ioMode = nvinfer1::TensorIOMode::kOUTPUT;
    PlanTensor size;
    size.name = "count";
    size.type = DataType::kINT64;
    size.hasValues = true;
    size.values = {count};
    size.sizeTensorSymbol = static_cast<int32_t>(g.node(count).value);
    plan.tensors = {x, idx, size};
    plan.ioTensors = {0, 1};

    PlanNode node;
    node.kind = nvinfer1::LayerType::kPLUGIN_V3;
    node.name = "nz";
    node.attrs.setString("plugin.data", randomBytes(rng, 300));
    node.attrs.setString("plugin.name", "NonZero");
    node.attrs.setInt("plugin.nbShapeInputs", 0);
    node.inputs = {0};
    node.outputs = {1, 2};
    node.tactic = "plugin:2";
    plan.nodes = {node};

    for (int64_t maxRows : {4, 64})
    {
        PlanProfile p;
        PlanProfileInput in;
        in.tensor = 0;
        in.min = dims1(1, 5);
        in.opt = dims1(2, 5);
        in.max = dims1(maxRows, 5);
        p.inputs = {in};
        p.arenaSize = (256 + 100 * maxRows + 255) / 256 * 256; // the workspace's end, rounded up to 256 bytes
        p.tensorOffsets = {-1, -1, 0};
        p.tensorCapacity = {0, 0, 8};
        p.workspaceOffsets = {256};
        p.workspaceSizes = {100 * maxRows};
        plan.profiles.push_back(p);
    }
    plan.pluginLibraries.push_back(PlanPluginLibrary{"libnonzero.so", "\x7f" "ELF" + randomBytes(rng, 1000)});
    plan.pluginLibraries.push_back(PlanPluginLibrary{"libother.so", randomBytes(rng, 17)});
    return plan;
}

Bytes write(Plan const& plan)
{
    auto bytes = writeEngine(plan);
    EXPECT_TRUE(bytes.isOk()) << bytes.status().message();
    return bytes.isOk() ? bytes.value() : Bytes{};
}

std::string writeError(Plan const& plan)
{
    auto bytes = writeEngine(plan);
    return bytes.isOk() ? std::string() : bytes.status().message();
}

void expectInvalid(Plan const& plan, std::string const& expected)
{
    Status const st = validatePlan(plan);
    ASSERT_FALSE(st.isOk()) << "expected an error containing: " << expected;
    EXPECT_NE(st.message().find(expected), std::string::npos) << st.message();
    EXPECT_NE(writeError(plan).find(expected), std::string::npos) << "the writer must refuse it too";
}

TEST(PluginEngineFormatTest, PluginFieldsRoundTrip)
{
    std::mt19937 rng(7);
    Plan const plan = makePluginPlan(rng);
    Bytes const bytes = write(plan);
    auto read = readEngine(bytes.data(), bytes.size());
    ASSERT_TRUE(read.isOk()) << read.status().message();
    Plan const& r = read.value();

    ASSERT_EQ(r.shapes.symbols().size(), plan.shapes.symbols().size());
    for (size_t s = 0; s < plan.shapes.symbols().size(); ++s)
    {
        EXPECT_EQ(r.shapes.symbols()[s].kind, plan.shapes.symbols()[s].kind);
        EXPECT_EQ(r.shapes.symbols()[s].upper, plan.shapes.symbols()[s].upper) << "symbol " << s;
        EXPECT_EQ(r.shapes.symbols()[s].opt, plan.shapes.symbols()[s].opt) << "symbol " << s;
    }
    EXPECT_EQ(r.shapes.symbols()[1].upper, plan.shapes.symbols()[1].upper);
    EXPECT_NE(r.shapes.symbols()[1].upper, -1);
    ASSERT_EQ(r.tensors.size(), 3U);
    for (size_t t = 0; t < r.tensors.size(); ++t)
    {
        EXPECT_EQ(r.tensors[t].sizeTensorSymbol, plan.tensors[t].sizeTensorSymbol) << "tensor " << t;
        EXPECT_EQ(std::memcmp(&r.tensors[t].scale, &plan.tensors[t].scale, sizeof(float)), 0) << "tensor " << t;
    }
    EXPECT_EQ(r.tensors[2].sizeTensorSymbol, 1);
    EXPECT_EQ(r.tensors[0].scale, 0.0078125F);
    EXPECT_EQ(r.tensors[1].scale, -1.0F);
    ASSERT_EQ(r.nodes.size(), 1U);
    EXPECT_TRUE(r.nodes[0].attrs == plan.nodes[0].attrs);
    std::string const data = r.nodes[0].attrs.getString("plugin.data");
    EXPECT_EQ(data.size(), 300U);
    EXPECT_EQ(data, plan.nodes[0].attrs.getString("plugin.data")); // NUL and 0xFF bytes survive
    EXPECT_EQ(r.nodes[0].tactic, "plugin:2");
    ASSERT_EQ(r.profiles.size(), 2U);
    for (size_t p = 0; p < 2; ++p)
    {
        EXPECT_EQ(r.profiles[p].workspaceOffsets, plan.profiles[p].workspaceOffsets);
        EXPECT_EQ(r.profiles[p].workspaceSizes, plan.profiles[p].workspaceSizes);
    }
    ASSERT_EQ(r.pluginLibraries.size(), 2U);
    for (size_t i = 0; i < 2; ++i)
    {
        EXPECT_EQ(r.pluginLibraries[i].fileName, plan.pluginLibraries[i].fileName);
        EXPECT_EQ(r.pluginLibraries[i].bytes, plan.pluginLibraries[i].bytes);
    }
    // Canonical: read then write reproduces the bytes; and the bound still evaluates.
    EXPECT_EQ(write(r), bytes);
    std::vector<int64_t> values;
    ASSERT_TRUE(r.shapes.evaluate({7, 3}, values).isOk());
    EXPECT_EQ(values[static_cast<size_t>(r.shapes.symbols()[1].upper)], 35);
    EXPECT_EQ(values[static_cast<size_t>(r.shapes.symbols()[1].opt)], 17);
}

TEST(PluginEngineFormatTest, PluginLibrariesAreTheLastSection)
{
    std::mt19937 rng(8);
    Plan const plan = makePluginPlan(rng);
    Bytes const bytes = write(plan);
    auto header = readEngineHeader(bytes.data(), bytes.size());
    ASSERT_TRUE(header.isOk()) << header.status().message();
    ASSERT_EQ(header->sections.size(), 9U);
    ef::SectionEntry const& libs = header->sections.back();
    EXPECT_EQ(libs.id, static_cast<uint32_t>(ef::SectionId::kPLUGIN_LIBRARIES));
    EXPECT_EQ(std::string(ef::sectionName(libs.id)), "plugin libraries");
    EXPECT_EQ(libs.offset + libs.size, bytes.size());
    EXPECT_EQ(libs.offset % 8, 0U);
    // list<library>: count, then str fileName, str bytes
    EXPECT_EQ(ef::loadU32(&bytes[libs.offset]), 2U);
    EXPECT_EQ(ef::loadU32(&bytes[libs.offset + 4]), std::string("libnonzero.so").size());
}

TEST(PluginEngineFormatTest, Version1EnginesAreRefusedWithAClearMessage)
{
    std::mt19937 rng(9);
    Bytes bytes = write(makePluginPlan(rng));
    ef::storeU32(&bytes[ef::kOFF_FORMAT_VERSION], 1);
    ef::recomputeChecksums(bytes);
    auto read = readEngine(bytes.data(), bytes.size());
    ASSERT_FALSE(read.isOk());
    EXPECT_NE(read.status().message().find("engine format version 1 is no longer supported, rebuild the engine"),
        std::string::npos)
        << read.status().message();
    EXPECT_FALSE(checkEngineHeader(bytes.data(), bytes.size()).isOk());
}

TEST(PluginEngineFormatTest, ValidationChecksSymbolBounds)
{
    std::mt19937 rng(10);
    Plan plan = makePluginPlan(rng);
    int32_t const inputSymbol = 0;
    plan.shapes.setSymbolBounds(inputSymbol, 0, -1);
    expectInvalid(plan, "shape symbol 0 ('x[0]') has an upper bound, but only data-dependent symbols have bounds");

    plan = makePluginPlan(rng);
    plan.shapes.setSymbolBounds(1, 999, -1);
    expectInvalid(plan, "shape symbol 1 ('nz.1.size'): its upper bound refers to shape expression 999");
    plan = makePluginPlan(rng);
    plan.shapes.setSymbolBounds(1, plan.shapes.symbols()[1].upper, -7);
    expectInvalid(plan, "its opt value refers to shape expression -7");
}

TEST(PluginEngineFormatTest, ValidationChecksSizeTensors)
{
    std::mt19937 rng(11);
    Plan plan = makePluginPlan(rng);
    plan.tensors[2].sizeTensorSymbol = 5;
    expectInvalid(plan, "tensor 2 ('count') is the size tensor of shape symbol 5, but the shape graph has 2 symbols");
    plan = makePluginPlan(rng);
    plan.tensors[2].sizeTensorSymbol = 0;
    expectInvalid(plan, "is the size tensor of shape symbol 'x[0]', which is not data-dependent");
    plan = makePluginPlan(rng);
    plan.tensors[2].type = DataType::kFLOAT;
    expectInvalid(plan, "tensor 2 ('count') is a size tensor, so it must be a 0-D INT32 or INT64 tensor");
    plan = makePluginPlan(rng);
    plan.tensors[2].dims = {plan.shapes.constant(1)};
    expectInvalid(plan, "must be a 0-D INT32 or INT64 tensor");
    plan = makePluginPlan(rng);
    plan.tensors[1].sizeTensorSymbol = 1;
    plan.tensors[1].dims = {};
    expectInvalid(plan, "tensor 2 ('count') and tensor 1 ('idx') are both the size tensor of shape symbol 'nz.1.size'");
}

TEST(PluginEngineFormatTest, ValidationChecksScales)
{
    std::mt19937 rng(12);
    for (float bad : {0.0F, -0.5F, -0.0F, std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()})
    {
        Plan plan = makePluginPlan(rng);
        plan.tensors[0].scale = bad;
        expectInvalid(plan, "tensor 0 ('x') has the INT8 scale");
    }
    // Crafted in the file: the scale is the last 4 bytes of a tensor entry.
    Plan const plan = makePluginPlan(rng);
    Bytes bytes = write(plan);
    auto header = readEngineHeader(bytes.data(), bytes.size());
    ASSERT_TRUE(header.isOk());
    ef::SectionEntry const& tensors = header->sections[static_cast<size_t>(ef::SectionId::kTENSORS) - 1];
    // tensor 0: name "x" (4+1), type, format, dims list (4+2*4), hasValues, values (4), ioMode, host, constant,
    // dimNames (4), sizeTensorSymbol, then the scale.
    size_t const scaleAt = tensors.offset + 4 + 5 + 4 + 4 + 12 + 1 + 4 + 4 + 1 + 4 + 4 + 4;
    float stored = 0.0F;
    std::memcpy(&stored, &bytes[scaleAt], sizeof(float));
    ASSERT_EQ(stored, 0.0078125F) << "the test's offset arithmetic is off";
    uint32_t const nanBits = 0x7FC00001U;
    ef::storeU32(&bytes[scaleAt], nanBits);
    ef::recomputeChecksums(bytes);
    auto read = readEngine(bytes.data(), bytes.size());
    ASSERT_FALSE(read.isOk());
    EXPECT_NE(read.status().message().find("invalid engine: tensor 0 ('x') has the INT8 scale"), std::string::npos)
        << read.status().message();
}

TEST(PluginEngineFormatTest, ValidationChecksWorkspaces)
{
    std::mt19937 rng(13);
    Plan plan = makePluginPlan(rng);
    plan.profiles[0].workspaceSizes = {};
    expectInvalid(plan, "profile 0 has 1 workspace offsets and 0 workspace sizes for 1 nodes");
    plan = makePluginPlan(rng);
    plan.profiles[1].workspaceOffsets = {0, 0};
    plan.profiles[1].workspaceSizes = {0, 0};
    expectInvalid(plan, "profile 1 has 2 workspace offsets and 2 workspace sizes for 1 nodes");
    plan = makePluginPlan(rng);
    plan.profiles[0].workspaceOffsets = {768 - 10};
    expectInvalid(plan, "profile 0: node 0 ('nz') has workspace offset 758 and size 400, outside the arena of 768 bytes");
    plan = makePluginPlan(rng);
    plan.profiles[0].workspaceOffsets = {-1};
    expectInvalid(plan, "has workspace offset -1 and size 400");
    plan = makePluginPlan(rng);
    plan.profiles[0].workspaceSizes = {-3};
    expectInvalid(plan, "has workspace offset 256 and size -3");
    // No workspace at all is fine, and so is an empty one without a place.
    plan = makePluginPlan(rng);
    plan.profiles[0].workspaceOffsets = {};
    plan.profiles[0].workspaceSizes = {};
    plan.profiles[1].workspaceOffsets = {-1};
    plan.profiles[1].workspaceSizes = {0};
    plan.profiles[0].arenaSize = 256; // the arenas end with tensor 2's slot now
    plan.profiles[1].arenaSize = 256;
    EXPECT_TRUE(validatePlan(plan).isOk()) << validatePlan(plan).message();
}

TEST(PluginEngineFormatTest, ValidationChecksPluginLibraries)
{
    std::mt19937 rng(14);
    Plan plan = makePluginPlan(rng);
    plan.pluginLibraries[1].fileName = "../libevil.so";
    expectInvalid(plan, "plugin library 1 ('../libevil.so') needs a plain file name");
    plan = makePluginPlan(rng);
    plan.pluginLibraries[1].fileName = "";
    expectInvalid(plan, "plugin library 1 ('') needs a plain file name");
    plan = makePluginPlan(rng);
    plan.pluginLibraries[1].fileName = plan.pluginLibraries[0].fileName;
    expectInvalid(plan, "plugin library 1 ('libnonzero.so') appears twice");
    plan = makePluginPlan(rng);
    plan.pluginLibraries[0].bytes.clear();
    expectInvalid(plan, "plugin library 0 ('libnonzero.so') is empty");
}

TEST(PluginEngineFormatTest, CraftedPluginSectionsFailCleanly)
{
    std::mt19937 rng(15);
    Bytes const bytes = write(makePluginPlan(rng));
    auto header = readEngineHeader(bytes.data(), bytes.size());
    ASSERT_TRUE(header.isOk());
    ef::SectionEntry const& libs = header->sections.back();
    Bytes c = bytes;
    ef::storeU32(&c[libs.offset], 0xFFFFFFFFU);
    ef::recomputeChecksums(c);
    auto read = readEngine(c.data(), c.size());
    ASSERT_FALSE(read.isOk());
    EXPECT_NE(read.status().message().find("section 'plugin libraries' is malformed: plugin library count 4294967295"),
        std::string::npos)
        << read.status().message();
    c = bytes;
    ef::storeU32(&c[libs.offset + 4 + 4 + 13], 0x7FFFFFFFU); // the first library's byte count
    ef::recomputeChecksums(c);
    read = readEngine(c.data(), c.size());
    ASSERT_FALSE(read.isOk());
    EXPECT_NE(read.status().message().find("plugin library bytes count 2147483647 needs at least"), std::string::npos)
        << read.status().message();
    // Random edits never crash, and anything accepted is canonical.
    for (int round = 0; round < 500; ++round)
    {
        Bytes b = bytes;
        for (int e = 0; e < 1 + static_cast<int>(rng() % 4); ++e)
        {
            b[rng() % b.size()] = static_cast<uint8_t>(rng());
        }
        ef::recomputeChecksums(b);
        auto r = readEngine(b.data(), b.size());
        if (r.isOk())
        {
            EXPECT_EQ(write(r.value()), b);
        }
        else
        {
            EXPECT_FALSE(r.status().message().empty());
        }
    }
}

TEST(PluginEngineFormatTest, WriteFuzzSeed)
{
    char const* dir = std::getenv("KILN_WRITE_FUZZ_SEEDS");
    if (dir == nullptr || *dir == 0)
    {
        GTEST_SKIP() << "set KILN_WRITE_FUZZ_SEEDS=<dir> to write the engineReaderFuzz seed plugin.kiln";
    }
    std::mt19937 rng(16);
    Plan plan = makePluginPlan(rng);
    plan.pluginLibraries[0].bytes.resize(64); // keep the seed small
    Bytes const bytes = write(plan);
    std::ofstream out(std::string(dir) + "/plugin.kiln", std::ios::binary | std::ios::trunc);
    ASSERT_TRUE(out.good());
    out.write(reinterpret_cast<char const*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    ASSERT_TRUE(out.good());
}

} // namespace
} // namespace kiln
