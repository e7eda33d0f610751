// Tests of the engine file format: write/read round trips, determinism, weights alignment, and every error path
// of the reader (truncation, bit flips, foreign data, versions, crafted counts and cross-references).
// With KILN_WRITE_FUZZ_SEEDS=<dir>, EngineFormatTest.WriteFuzzSeeds writes the fuzzer's seed engines there.
#include "engine/engineReader.h"
#include "engine/engineWriter.h"
#include "engine/planValidation.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
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

nvinfer1::Dims dims(std::initializer_list<int64_t> v)
{
    nvinfer1::Dims d{};
    d.nbDims = static_cast<int32_t>(v.size());
    int32_t i = 0;
    for (int64_t x : v)
    {
        d.d[i++] = x;
    }
    return d;
}

//! A Plan with a bit of everything: symbols and constraints, I/O and shape tensors, nodes with every attribute
//! value type, weights of several types (including an empty one), two profiles.
Plan makeFullPlan()
{
    Plan plan;
    plan.name = "engine-format-test";
    plan.apiVersion = NV_TENSORRT_VERSION;
    plan.kilnVersion = 102;
    plan.backend = "cpu";
    plan.builderFlags = 0x80000005U;
    plan.stronglyTyped = true;
    plan.profilingVerbosity = nvinfer1::ProfilingVerbosity::kDETAILED;
    plan.hardwareCompatibility = nvinfer1::HardwareCompatibilityLevel::kAMPERE_PLUS;

    ShapeGraph& g = plan.shapes;
    ExprId const batch = g.symbol(SymbolKind::kINPUT_DIM, "batch");
    ExprId const len = g.symbol(SymbolKind::kINPUT_VALUE, "shape.value[0]");
    ExprId const dd = g.symbol(SymbolKind::kDATA_DEPENDENT, "nonzero.count");
    ExprId const c3 = g.constant(3);
    ExprId const c4 = g.constant(4);
    ExprId const prod = g.op(ExprOp::kPROD, batch, c3);
    ExprId const half = g.scale(len, 0.5, ExprRounding::kCEIL);
    ExprId const positive = g.op(ExprOp::kLESS, g.constant(0), batch);
    ExprId const pick = g.select(positive, prod, half);
    ExprId const minimum = g.op(ExprOp::kMIN, dd, c4);
    EXPECT_TRUE(g.require(positive, "layer 'conv': batch must be positive").isOk());
    EXPECT_TRUE(g.require(g.op(ExprOp::kEQUAL, g.op(ExprOp::kFLOOR_MOD, len, c4), g.constant(0)),
                    "layer 'reshape': length must be a multiple of 4")
                    .isOk());

    float const f32[6] = {1.5F, -2.0F, 3.25F, 0.0F, 1e-7F, -1e30F};
    uint16_t const f16[3] = {0x3C00, 0xC000, 0x7BFF};
    int8_t const i8[5] = {-128, -1, 0, 1, 127};
    int64_t const i64[2] = {int64_t{1} << 40, -7};
    uint8_t const i4[2] = {0x21, 0x03}; // three INT4 values
    plan.weights.push_back(addPlanWeights(plan, DataType::kFLOAT, 6, f32, sizeof(f32)));
    plan.weights.push_back(addPlanWeights(plan, DataType::kHALF, 3, f16, sizeof(f16)));
    plan.weights.push_back(addPlanWeights(plan, DataType::kINT8, 5, i8, sizeof(i8)));
    plan.weights.push_back(addPlanWeights(plan, DataType::kINT64, 2, i64, sizeof(i64)));
    plan.weights.push_back(addPlanWeights(plan, DataType::kINT4, 3, i4, sizeof(i4)));
    plan.weights.push_back(addPlanWeights(plan, DataType::kBOOL, 0, nullptr, 0));

    PlanTensor input;
    input.name = "input";
    input.type = DataType::kHALF;
    input.dims = {batch, c3, c4, c4};
    input.ioMode = nvinfer1::TensorIOMode::kINPUT;
    input.dimNames = {"batch", "", "", ""};

    PlanTensor shape;
    shape.name = "shape";
    shape.type = DataType::kINT32;
    shape.dims = {g.constant(2)};
    shape.hasValues = true;
    shape.values = {len, c4};
    shape.ioMode = nvinfer1::TensorIOMode::kINPUT;
    shape.hostShapeTensor = true;

    PlanTensor weight;
    weight.name = "conv.weight";
    weight.dims = {c3, c3};
    weight.constant = 0;

    PlanTensor mid;
    mid.name = "mid";
    mid.type = DataType::kBF16;
    mid.format = nvinfer1::TensorFormat::kHWC8;
    mid.dims = {pick, c4};

    PlanTensor output;
    output.name = "output";
    output.dims = {minimum};
    output.ioMode = nvinfer1::TensorIOMode::kOUTPUT;

    plan.tensors = {input, shape, weight, mid, output};
    plan.ioTensors = {0, 1, 4};

    PlanNode conv;
    conv.kind = nvinfer1::LayerType::kCONVOLUTION;
    conv.name = "conv";
    conv.metadata = "onnx:Conv_0";
    conv.attrs.setInt("groups", 1);
    conv.attrs.setInt("negative", -(int64_t{1} << 50));
    conv.attrs.setFloat("alpha", 0.125);
    conv.attrs.setFloat("tiny", -1e-300);
    conv.attrs.setInts("stride", {1, 2});
    conv.attrs.setInts("empty", {});
    conv.attrs.setFloats("scales", {0.5, -1.0, 1e300});
    conv.attrs.setFloats("noFloats", {});
    conv.attrs.setString("mode", "same_upper");
    conv.attrs.setString("blank", "");
    conv.inputs = {0, -1, 2};
    conv.outputs = {3};
    conv.weights = {0, -1, 1};
    conv.tactic = "reference";
    conv.precision = DataType::kHALF;

    PlanNode plugin;
    plugin.kind = nvinfer1::LayerType::kPLUGIN_V3;
    plugin.name = "custom";
    plugin.attrs.setString("serialized", std::string("\0\x01\xff binary", 10));
    plugin.attrs.setString("pluginName", "MyPlugin");
    plugin.inputs = {3, 1};
    plugin.outputs = {4};
    plugin.weights = {2, 3, 4, 5};
    plugin.tactic = "plugin";
    plugin.precision = DataType::kFLOAT;

    PlanNode identity;
    identity.kind = nvinfer1::LayerType::kIDENTITY;
    identity.name = "";
    plan.nodes = {conv, plugin, identity};

    PlanProfile p0;
    PlanProfileInput in0;
    in0.tensor = 0;
    in0.min = dims({1, 3, 4, 4});
    in0.opt = dims({4, 3, 4, 4});
    in0.max = dims({16, 3, 4, 4});
    PlanProfileInput in1;
    in1.tensor = 1;
    in1.min = dims({2});
    in1.opt = dims({2});
    in1.max = dims({2});
    in1.minValues = {4, 4};
    in1.optValues = {8, 4};
    in1.maxValues = {64, 4};
    p0.inputs = {in0, in1};
    p0.arenaSize = 4096;
    p0.tensorOffsets = {-1, -1, -1, 0, 2048};
    p0.tensorCapacity = {0, 0, 0, 2048, 2048};

    PlanProfile p1;
    in0.min = dims({32, 3, 4, 4});
    in0.opt = dims({32, 3, 4, 4});
    in0.max = dims({64, 3, 4, 4});
    p1.inputs = {in0};
    p1.arenaSize = 100608; // the end of tensor 3's slot, rounded up to 256 bytes
    p1.tensorOffsets = {-1, -1, -1, 512, 0};
    p1.tensorCapacity = {0, 0, 0, 100000, 512};
    plan.profiles = {p0, p1};
    return plan;
}

//! The smallest useful plan: input -> identity -> output, one profile, no weights.
Plan makeTinyPlan()
{
    Plan plan;
    plan.name = "tiny";
    plan.apiVersion = NV_TENSORRT_VERSION;
    plan.kilnVersion = 100;
    ExprId const n = plan.shapes.symbol(SymbolKind::kINPUT_DIM, "n");
    PlanTensor in;
    in.name = "x";
    in.dims = {n};
    in.ioMode = nvinfer1::TensorIOMode::kINPUT;
    PlanTensor out;
    out.name = "y";
    out.dims = {n};
    out.ioMode = nvinfer1::TensorIOMode::kOUTPUT;
    plan.tensors = {in, out};
    plan.ioTensors = {0, 1};
    PlanNode node;
    node.kind = nvinfer1::LayerType::kIDENTITY;
    node.name = "id";
    node.attrs.setInt("k", 1);
    node.inputs = {0};
    node.outputs = {1};
    node.tactic = "reference";
    plan.nodes = {node};
    PlanProfile p;
    PlanProfileInput pi;
    pi.tensor = 0;
    pi.min = dims({1});
    pi.opt = dims({2});
    pi.max = dims({3});
    p.inputs = {pi};
    p.arenaSize = 0;
    plan.profiles = {p};
    return plan;
}

//! A plan made of constants: weights feed an elementwise node; no profiles.
Plan makeConstantPlan()
{
    Plan plan;
    plan.name = "constants";
    plan.apiVersion = NV_TENSORRT_VERSION;
    plan.kilnVersion = 100;
    ExprId const two = plan.shapes.constant(2);
    int32_t const a[2] = {7, -9};
    float const b[2] = {0.5F, 2.0F};
    plan.weights.push_back(addPlanWeights(plan, DataType::kINT32, 2, a, sizeof(a)));
    plan.weights.push_back(addPlanWeights(plan, DataType::kFLOAT, 2, b, sizeof(b)));
    PlanTensor ta;
    ta.name = "a";
    ta.type = DataType::kINT32;
    ta.dims = {two};
    ta.hasValues = true;
    ta.values = {plan.shapes.constant(7), plan.shapes.constant(-9)};
    ta.constant = 0;
    PlanTensor tb;
    tb.name = "b";
    tb.dims = {two};
    tb.constant = 1;
    PlanTensor out;
    out.name = "sum";
    out.dims = {two};
    out.ioMode = nvinfer1::TensorIOMode::kOUTPUT;
    plan.tensors = {ta, tb, out};
    plan.ioTensors = {2};
    PlanNode node;
    node.kind = nvinfer1::LayerType::kELEMENTWISE;
    node.name = "add";
    node.attrs.setInt("operation", 0);
    node.attrs.setFloat("beta", 1.0);
    node.inputs = {0, 1};
    node.outputs = {2};
    node.weights = {0, 1};
    node.tactic = "reference";
    plan.nodes = {node};
    return plan;
}

Bytes write(Plan const& plan)
{
    auto bytes = writeEngine(plan);
    EXPECT_TRUE(bytes.isOk()) << bytes.status().message();
    return bytes.isOk() ? bytes.value() : Bytes{};
}

void expectDimsEqual(nvinfer1::Dims const& a, nvinfer1::Dims const& b)
{
    ASSERT_EQ(a.nbDims, b.nbDims);
    for (int32_t i = 0; i < a.nbDims; ++i)
    {
        EXPECT_EQ(a.d[i], b.d[i]) << "dimension " << i;
    }
}

bool sameBits(double a, double b)
{
    return std::memcmp(&a, &b, sizeof(double)) == 0;
}

void expectPlansEqual(Plan const& a, Plan const& b)
{
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.apiVersion, b.apiVersion);
    EXPECT_EQ(a.kilnVersion, b.kilnVersion);
    EXPECT_EQ(a.backend, b.backend);
    EXPECT_EQ(a.builderFlags, b.builderFlags);
    EXPECT_EQ(a.stronglyTyped, b.stronglyTyped);
    EXPECT_EQ(a.profilingVerbosity, b.profilingVerbosity);
    EXPECT_EQ(a.hardwareCompatibility, b.hardwareCompatibility);

    ASSERT_EQ(a.shapes.nodes().size(), b.shapes.nodes().size());
    for (size_t i = 0; i < a.shapes.nodes().size(); ++i)
    {
        ExprNode const& x = a.shapes.nodes()[i];
        ExprNode const& y = b.shapes.nodes()[i];
        EXPECT_EQ(x.op, y.op) << "expression " << i;
        EXPECT_EQ(x.rounding, y.rounding) << "expression " << i;
        EXPECT_EQ(x.a, y.a) << "expression " << i;
        EXPECT_EQ(x.b, y.b) << "expression " << i;
        EXPECT_EQ(x.c, y.c) << "expression " << i;
        EXPECT_EQ(x.value, y.value) << "expression " << i;
        EXPECT_TRUE(sameBits(x.scale, y.scale)) << "expression " << i;
    }
    ASSERT_EQ(a.shapes.symbols().size(), b.shapes.symbols().size());
    for (size_t i = 0; i < a.shapes.symbols().size(); ++i)
    {
        EXPECT_EQ(a.shapes.symbols()[i].kind, b.shapes.symbols()[i].kind);
        EXPECT_EQ(a.shapes.symbols()[i].name, b.shapes.symbols()[i].name);
    }
    ASSERT_EQ(a.shapes.constraints().size(), b.shapes.constraints().size());
    for (size_t i = 0; i < a.shapes.constraints().size(); ++i)
    {
        EXPECT_EQ(a.shapes.constraints()[i].condition, b.shapes.constraints()[i].condition);
        EXPECT_EQ(a.shapes.constraints()[i].message, b.shapes.constraints()[i].message);
    }

    ASSERT_EQ(a.tensors.size(), b.tensors.size());
    for (size_t i = 0; i < a.tensors.size(); ++i)
    {
        PlanTensor const& x = a.tensors[i];
        PlanTensor const& y = b.tensors[i];
        SCOPED_TRACE("tensor " + x.name);
        EXPECT_EQ(x.name, y.name);
        EXPECT_EQ(x.type, y.type);
        EXPECT_EQ(x.format, y.format);
        EXPECT_EQ(x.dims, y.dims);
        EXPECT_EQ(x.hasValues, y.hasValues);
        EXPECT_EQ(x.values, y.values);
        EXPECT_EQ(x.ioMode, y.ioMode);
        EXPECT_EQ(x.hostShapeTensor, y.hostShapeTensor);
        EXPECT_EQ(x.constant, y.constant);
        EXPECT_EQ(x.dimNames, y.dimNames);
    }
    EXPECT_EQ(a.ioTensors, b.ioTensors);

    ASSERT_EQ(a.nodes.size(), b.nodes.size());
    for (size_t i = 0; i < a.nodes.size(); ++i)
    {
        PlanNode const& x = a.nodes[i];
        PlanNode const& y = b.nodes[i];
        SCOPED_TRACE("node " + x.name);
        EXPECT_EQ(x.kind, y.kind);
        EXPECT_EQ(x.name, y.name);
        EXPECT_EQ(x.metadata, y.metadata);
        EXPECT_TRUE(x.attrs == y.attrs) << x.attrs.toJson() << " vs " << y.attrs.toJson();
        EXPECT_EQ(x.inputs, y.inputs);
        EXPECT_EQ(x.outputs, y.outputs);
        EXPECT_EQ(x.weights, y.weights);
        EXPECT_EQ(x.tactic, y.tactic);
        EXPECT_EQ(x.precision, y.precision);
    }

    ASSERT_EQ(a.weights.size(), b.weights.size());
    for (size_t i = 0; i < a.weights.size(); ++i)
    {
        PlanWeights const& x = a.weights[i];
        PlanWeights const& y = b.weights[i];
        SCOPED_TRACE("weights " + std::to_string(i));
        EXPECT_EQ(x.type, y.type);
        EXPECT_EQ(x.count, y.count);
        ASSERT_EQ(x.size, y.size);
        if (x.size > 0)
        {
            EXPECT_EQ(std::memcmp(x.data, y.data, static_cast<size_t>(x.size)), 0);
        }
    }

    ASSERT_EQ(a.profiles.size(), b.profiles.size());
    for (size_t i = 0; i < a.profiles.size(); ++i)
    {
        PlanProfile const& x = a.profiles[i];
        PlanProfile const& y = b.profiles[i];
        SCOPED_TRACE("profile " + std::to_string(i));
        ASSERT_EQ(x.inputs.size(), y.inputs.size());
        for (size_t k = 0; k < x.inputs.size(); ++k)
        {
            EXPECT_EQ(x.inputs[k].tensor, y.inputs[k].tensor);
            expectDimsEqual(x.inputs[k].min, y.inputs[k].min);
            expectDimsEqual(x.inputs[k].opt, y.inputs[k].opt);
            expectDimsEqual(x.inputs[k].max, y.inputs[k].max);
            EXPECT_EQ(x.inputs[k].minValues, y.inputs[k].minValues);
            EXPECT_EQ(x.inputs[k].optValues, y.inputs[k].optValues);
            EXPECT_EQ(x.inputs[k].maxValues, y.inputs[k].maxValues);
        }
        EXPECT_EQ(x.arenaSize, y.arenaSize);
        EXPECT_EQ(x.tensorOffsets, y.tensorOffsets);
        EXPECT_EQ(x.tensorCapacity, y.tensorCapacity);
    }
}

//! Where a section lies in an engine (read from the section table).
struct Span
{
    size_t offset;
    size_t size;
};

Span section(Bytes const& bytes, ef::SectionId id)
{
    uint8_t const* entry = bytes.data() + ef::kFIXED_HEADER_SIZE + (static_cast<size_t>(id) - 1) * ef::kSECTION_ENTRY_SIZE;
    return Span{static_cast<size_t>(ef::loadU64(entry + 8)), static_cast<size_t>(ef::loadU64(entry + 16))};
}

void patchU32(Bytes& bytes, ef::SectionId id, size_t at, uint32_t value)
{
    ef::storeU32(bytes.data() + section(bytes, id).offset + at, value);
}

void patchU64(Bytes& bytes, ef::SectionId id, size_t at, uint64_t value)
{
    ef::storeU64(bytes.data() + section(bytes, id).offset + at, value);
}

//! Read `bytes` after refreshing checksums; expect a failure whose message contains `expected`.
void expectReadFails(Bytes bytes, std::string const& expected)
{
    ef::recomputeChecksums(bytes);
    auto plan = readEngine(bytes.data(), bytes.size());
    ASSERT_FALSE(plan.isOk()) << "expected an error containing: " << expected;
    EXPECT_NE(plan.status().message().find(expected), std::string::npos)
        << "message: " << plan.status().message() << "\nexpected to contain: " << expected;
}

std::string readError(Bytes const& bytes)
{
    auto plan = readEngine(bytes.data(), bytes.size());
    return plan.isOk() ? std::string() : plan.status().message();
}

bool startsWith(std::string const& s, std::string const& prefix)
{
    return s.compare(0, prefix.size(), prefix) == 0;
}

// ---------------------------------------------------------------------------------------------------------
// Round trips
// ---------------------------------------------------------------------------------------------------------

TEST(EngineFormatTest, RoundTripPreservesEveryField)
{
    for (Plan const& plan : {makeFullPlan(), makeTinyPlan(), makeConstantPlan(), Plan{}})
    {
        Bytes const bytes = write(plan);
        ASSERT_FALSE(bytes.empty());
        auto read = readEngine(bytes.data(), bytes.size());
        ASSERT_TRUE(read.isOk()) << read.status().message();
        Plan expected = plan;
        if (expected.apiVersion == 0)
        {
            expected.apiVersion = NV_TENSORRT_VERSION;
            expected.kilnVersion = KILN_VERSION_MAJOR * 10000 + KILN_VERSION_MINOR * 100 + KILN_VERSION_PATCH;
        }
        expectPlansEqual(expected, read.value());
    }
}

TEST(EngineFormatTest, ShapeGraphStillEvaluatesAfterRoundTrip)
{
    Plan const plan = makeFullPlan();
    Bytes const bytes = write(plan);
    auto read = readEngine(bytes.data(), bytes.size());
    ASSERT_TRUE(read.isOk()) << read.status().message();
    std::vector<int64_t> before;
    std::vector<int64_t> after;
    ASSERT_TRUE(plan.shapes.evaluate({5, 12, 7}, before).isOk());
    ASSERT_TRUE(read->shapes.evaluate({5, 12, 7}, after).isOk());
    EXPECT_EQ(before, after);
    // Constraints survive too: a length that is not a multiple of 4 violates one.
    Status const violated = read->shapes.evaluate({5, 13, 7}, after);
    EXPECT_FALSE(violated.isOk());
    EXPECT_NE(violated.message().find("multiple of 4"), std::string::npos) << violated.message();
}

TEST(EngineFormatTest, WriteIsDeterministic)
{
    Bytes const first = write(makeFullPlan());
    Bytes const second = write(makeFullPlan()); // separately built: different weights addresses
    EXPECT_EQ(first, second);
    Plan const plan = makeFullPlan();
    EXPECT_EQ(write(plan), write(plan));
}

TEST(EngineFormatTest, ReadThenWriteGivesIdenticalBytes)
{
    for (Plan const& plan : {makeFullPlan(), makeTinyPlan(), makeConstantPlan()})
    {
        Bytes const bytes = write(plan);
        auto read = readEngine(bytes.data(), bytes.size());
        ASSERT_TRUE(read.isOk()) << read.status().message();
        EXPECT_EQ(write(read.value()), bytes);
    }
}

TEST(EngineFormatTest, HeaderFieldsAreWhereTheDocumentationSays)
{
    Plan plan = makeTinyPlan();
    plan.backend = "cuda";
    plan.kilnVersion = 10203;
    Bytes const bytes = write(plan);
    ASSERT_GE(bytes.size(), ef::kHEADER_SIZE);
    EXPECT_EQ(std::memcmp(bytes.data(), "KILNENG\0", 8), 0);
    EXPECT_EQ(ef::loadU32(&bytes[8]), 2U);                      // format version
    EXPECT_EQ(ef::loadU32(&bytes[12]), ef::kHEADER_SIZE);        // header size
    EXPECT_EQ(ef::loadU32(&bytes[16]), 0U);                      // flags
    EXPECT_EQ(ef::loadU32(&bytes[20]), 9U);                      // section count
    EXPECT_EQ(ef::loadU32(&bytes[24]), uint32_t{NV_TENSORRT_VERSION});
    EXPECT_EQ(ef::loadU32(&bytes[28]), 10203U);
    EXPECT_EQ(ef::loadU64(&bytes[32]), bytes.size());
    EXPECT_EQ(std::string(reinterpret_cast<char const*>(&bytes[64])), "cuda");
    // Little-endian: the low byte of the format version comes first.
    EXPECT_EQ(bytes[8], 2);
    EXPECT_EQ(bytes[9], 0);

    auto header = readEngineHeader(bytes.data(), bytes.size());
    ASSERT_TRUE(header.isOk()) << header.status().message();
    EXPECT_EQ(header->backend, "cuda");
    EXPECT_EQ(header->kilnVersion, 10203);
    ASSERT_EQ(header->sections.size(), 9U);
    for (auto const& s : header->sections)
    {
        EXPECT_EQ(s.offset % (s.id == 8 ? 64 : 8), 0U) << ef::sectionName(s.id);
    }
}

TEST(EngineFormatTest, WeightsAreAlignedAndPointIntoTheCopy)
{
    Bytes bytes = write(makeFullPlan());
    auto read = readEngine(bytes.data(), bytes.size());
    ASSERT_TRUE(read.isOk()) << read.status().message();
    Plan plan = std::move(read).value();
    ASSERT_EQ(plan.storage.size(), 1U);
    auto const* begin = static_cast<uint8_t const*>(plan.storage[0].get());
    EXPECT_EQ(reinterpret_cast<uintptr_t>(begin) % 64, 0U);
    Plan const reference = makeFullPlan();
    // The input buffer may go away: the Plan owns its copy.
    std::fill(bytes.begin(), bytes.end(), uint8_t{0xEE});
    bytes.clear();
    bytes.shrink_to_fit();
    for (size_t i = 0; i < plan.weights.size(); ++i)
    {
        PlanWeights const& w = plan.weights[i];
        ASSERT_NE(w.data, nullptr);
        EXPECT_EQ(reinterpret_cast<uintptr_t>(w.data) % 64, 0U) << "weights " << i;
        EXPECT_GE(w.data, begin);
        if (w.size > 0)
        {
            EXPECT_EQ(std::memcmp(w.data, reference.weights[i].data, static_cast<size_t>(w.size)), 0);
        }
    }
}

TEST(EngineFormatTest, ReadEngineSharedUsesCallerMemoryInPlace)
{
    Bytes const bytes = write(makeFullPlan());
    size_t const rounded = (bytes.size() + 63) / 64 * 64;
    void* raw = std::aligned_alloc(64, rounded);
    ASSERT_NE(raw, nullptr);
    std::memcpy(raw, bytes.data(), bytes.size());
    std::shared_ptr<void const> memory(raw, [](void const* p) { std::free(const_cast<void*>(p)); });
    auto const* begin = static_cast<uint8_t const*>(raw);

    auto read = readEngineShared(memory, bytes.size());
    ASSERT_TRUE(read.isOk()) << read.status().message();
    ASSERT_EQ(read->storage.size(), 1U);
    EXPECT_EQ(read->storage[0].get(), raw);
    EXPECT_EQ(memory.use_count(), 2);
    for (PlanWeights const& w : read->weights)
    {
        EXPECT_GE(w.data, begin);
        EXPECT_LE(w.data + w.size, begin + bytes.size());
        EXPECT_EQ(reinterpret_cast<uintptr_t>(w.data) % 64, 0U);
    }
    expectPlansEqual(makeFullPlan(), read.value());

    // Misaligned memory is refused with a message that points to readEngine.
    Bytes shifted(bytes.size() + 64);
    auto* base = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(shifted.data()) + 63) / 64 * 64 + 1);
    std::memcpy(base, bytes.data(), bytes.size());
    std::shared_ptr<void const> unaligned(base, [](void const*) {});
    auto bad = readEngineShared(unaligned, bytes.size());
    ASSERT_FALSE(bad.isOk());
    EXPECT_NE(bad.status().message().find("64-byte aligned"), std::string::npos) << bad.status().message();
    EXPECT_FALSE(readEngineShared(nullptr, 100).isOk());
}

// ---------------------------------------------------------------------------------------------------------
// Writer refusals and plan validation
// ---------------------------------------------------------------------------------------------------------

void expectInvalid(Plan const& plan, std::string const& expected)
{
    Status const s = validatePlan(plan);
    ASSERT_FALSE(s.isOk()) << "expected: " << expected;
    EXPECT_NE(s.message().find(expected), std::string::npos) << "message: " << s.message();
    auto bytes = writeEngine(plan);
    ASSERT_FALSE(bytes.isOk());
    EXPECT_TRUE(startsWith(bytes.status().message(), "cannot write engine: ")) << bytes.status().message();
}

TEST(EngineFormatTest, ValidatePlanChecksEveryCrossReference)
{
    ASSERT_TRUE(validatePlan(makeFullPlan()).isOk()) << validatePlan(makeFullPlan()).message();

    Plan p = makeFullPlan();
    p.nodes[0].inputs[0] = 5;
    expectInvalid(p, "node 0 ('conv'): input 0 refers to tensor 5, but the engine has 5 tensors");
    p = makeFullPlan();
    p.nodes[1].outputs[0] = -1;
    expectInvalid(p, "output 0 refers to tensor -1");
    p = makeFullPlan();
    p.nodes[0].weights[1] = 6;
    expectInvalid(p, "weights slot 1 refers to weights 6");
    p = makeFullPlan();
    p.nodes[0].weights[1] = -2;
    expectInvalid(p, "weights slot 1 refers to weights -2");
    p = makeFullPlan();
    p.tensors[2].constant = 99;
    expectInvalid(p, "refers to weights 99");
    p = makeFullPlan();
    p.tensors[3].dims.assign(9, 0);
    expectInvalid(p, "has rank 9 (at most 8)");
    p = makeFullPlan();
    p.tensors[3].dims[0] = 1000;
    expectInvalid(p, "dimension 0 refers to shape expression 1000");
    p = makeFullPlan();
    p.tensors[1].values[0] = -1;
    expectInvalid(p, "value 0 refers to shape expression -1");
    p = makeFullPlan();
    p.tensors[3].dimNames = {"a", "b", "c"};
    expectInvalid(p, "3 dimension names for rank 2");
    p = makeFullPlan();
    p.ioTensors = {0, 1, 4, 4};
    expectInvalid(p, "appears twice in the I/O order");
    p = makeFullPlan();
    p.ioTensors = {0, 4, 1};
    expectInvalid(p, "after an output");
    p = makeFullPlan();
    p.ioTensors = {0, 1, 3};
    expectInvalid(p, "neither an input nor an output");
    p = makeFullPlan();
    p.ioTensors = {0, 1};
    expectInvalid(p, "missing from the I/O order");
    p = makeFullPlan();
    p.ioTensors = {0, 1, 17};
    expectInvalid(p, "I/O tensor 2 refers to tensor 17");
    p = makeFullPlan();
    p.tensors[4].name = "input";
    expectInvalid(p, "empty or duplicate name");
    p = makeFullPlan();
    p.profiles[0].inputs[0].tensor = 4;
    expectInvalid(p, "not a network input");
    p = makeFullPlan();
    p.profiles[0].inputs[0].tensor = 40;
    expectInvalid(p, "input 0 refers to tensor 40");
    p = makeFullPlan();
    p.profiles[0].inputs[1].tensor = 0;
    expectInvalid(p, "listed twice");
    p = makeFullPlan();
    p.profiles[1].inputs[0].min = dims({1, 3, 4});
    expectInvalid(p, "min dims has 3 dimensions, but the tensor has rank 4");
    p = makeFullPlan();
    p.profiles[1].inputs[0].max.nbDims = -1;
    expectInvalid(p, "max dims has -1 dimensions");
    p = makeFullPlan();
    p.profiles[1].inputs[0].opt.d[0] = 100;
    expectInvalid(p, "violates min <= opt <= max");
    p = makeFullPlan();
    p.profiles[0].inputs[0].min.d[1] = -3;
    expectInvalid(p, "negative extent -3");
    p = makeFullPlan();
    p.profiles[0].inputs[1].maxValues.pop_back();
    expectInvalid(p, "differ in count");
    p = makeFullPlan();
    p.profiles[0].inputs[1].optValues[0] = 100;
    expectInvalid(p, "shape value 0 violates");
    p = makeFullPlan();
    p.profiles[0].arenaSize = -1;
    expectInvalid(p, "negative arena size");
    p = makeFullPlan();
    p.profiles[0].tensorCapacity[4] = 2049;
    expectInvalid(p, "outside the arena of 4096 bytes");
    p = makeFullPlan();
    p.profiles[0].tensorOffsets[4] = std::numeric_limits<int64_t>::max();
    expectInvalid(p, "outside the arena");
    p = makeFullPlan();
    p.profiles[0].tensorCapacity[0] = -5;
    expectInvalid(p, "outside the arena");
    p = makeFullPlan();
    p.profiles[0].tensorOffsets.pop_back();
    expectInvalid(p, "4 arena offsets and 5 capacities for 5 tensors");
    p = makeFullPlan();
    p.weights[0].count = 7;
    expectInvalid(p, "weights 0 holds 7 FP32 values but 24 bytes");
    p = makeFullPlan();
    p.weights[4].count = 4; // 4 INT4 values take 2 bytes, as do 3
    EXPECT_TRUE(validatePlan(p).isOk());
    p.weights[4].count = 5;
    expectInvalid(p, "holds 5 INT4 values but 2 bytes");
    p = makeFullPlan();
    p.weights[3].count = std::numeric_limits<int64_t>::max() / 4;
    expectInvalid(p, "INT64 values but 16 bytes");
    p = makeFullPlan();
    p.weights[0].count = -1;
    expectInvalid(p, "negative count or size");
    p = makeFullPlan();
    p.weights[0].data = nullptr;
    expectInvalid(p, "weights 0 has no data");
    p = makeFullPlan();
    p.backend = "";
    expectInvalid(p, "backend name");
    p = makeFullPlan();
    p.backend = std::string(32, 'x');
    expectInvalid(p, "must have 1 to 31 characters");
    p = makeFullPlan();
    p.backend = "my backend";
    expectInvalid(p, "printable ASCII");
}

TEST(EngineFormatTest, ValidatePlanChecksEnumRanges)
{
    Plan p = makeFullPlan();
    p.tensors[0].type = static_cast<DataType>(12);
    expectInvalid(p, "tensor 0 ('input') has the unknown data type 12");
    p = makeFullPlan();
    p.tensors[0].format = static_cast<nvinfer1::TensorFormat>(-1);
    expectInvalid(p, "unknown format -1");
    p = makeFullPlan();
    p.tensors[0].ioMode = static_cast<nvinfer1::TensorIOMode>(3);
    expectInvalid(p, "unknown I/O mode 3");
    p = makeFullPlan();
    p.nodes[2].kind = static_cast<nvinfer1::LayerType>(nvinfer1::EnumMax<nvinfer1::LayerType>());
    expectInvalid(p, "unknown layer type");
    p = makeFullPlan();
    p.nodes[2].precision = static_cast<DataType>(-4);
    expectInvalid(p, "unknown precision -4");
    p = makeFullPlan();
    p.weights[1].type = static_cast<DataType>(99);
    expectInvalid(p, "weights 1 has the unknown data type 99");
    p = makeFullPlan();
    p.profilingVerbosity = static_cast<nvinfer1::ProfilingVerbosity>(3);
    expectInvalid(p, "unknown profiling verbosity 3");
    p = makeFullPlan();
    p.hardwareCompatibility = static_cast<nvinfer1::HardwareCompatibilityLevel>(7);
    expectInvalid(p, "unknown hardware compatibility level 7");
}

// ---------------------------------------------------------------------------------------------------------
// Reader error paths
// ---------------------------------------------------------------------------------------------------------

TEST(EngineFormatTest, EveryTruncationFailsCleanly)
{
    for (Plan const& plan : {makeTinyPlan(), makeFullPlan()})
    {
        Bytes const bytes = write(plan);
        for (size_t length = 0; length < bytes.size(); ++length)
        {
            // An exactly-sized heap copy, so that a sanitizer would see any read past the end.
            std::unique_ptr<uint8_t[]> prefix(new uint8_t[length == 0 ? 1 : length]);
            std::memcpy(prefix.get(), bytes.data(), length);
            auto read = readEngine(prefix.get(), length);
            ASSERT_FALSE(read.isOk()) << "prefix of " << length << " bytes was accepted";
            std::string const& msg = read.status().message();
            if (length == 0)
            {
                EXPECT_EQ(msg, "not a Kiln engine (empty buffer)");
            }
            else if (length >= 40)
            {
                EXPECT_EQ(msg, "engine file truncated: expected " + std::to_string(bytes.size()) + " bytes, got "
                        + std::to_string(length));
            }
            else
            {
                EXPECT_TRUE(startsWith(msg, "engine file truncated: expected at least")) << msg;
            }
            EXPECT_FALSE(checkEngineHeader(prefix.get(), length).isOk());
        }
        // Trailing data is refused as well.
        Bytes longer = bytes;
        longer.push_back(0);
        EXPECT_NE(readError(longer).find("engine file size mismatch"), std::string::npos) << readError(longer);
    }
}

TEST(EngineFormatTest, EveryHeaderByteFlipFails)
{
    Bytes const bytes = write(makeFullPlan());
    for (size_t i = 0; i < ef::kHEADER_SIZE; ++i)
    {
        for (uint8_t mask : {uint8_t{0x01}, uint8_t{0x80}, uint8_t{0xFF}})
        {
            Bytes flipped = bytes;
            flipped[i] ^= mask;
            std::string const msg = readError(flipped);
            ASSERT_FALSE(msg.empty()) << "flipping header byte " << i << " with mask " << int{mask} << " was accepted";
            EXPECT_FALSE(checkEngineHeader(flipped.data(), flipped.size()).isOk()) << "byte " << i;
        }
    }
}

TEST(EngineFormatTest, EverySectionByteFlipIsCaughtByItsChecksum)
{
    Bytes const bytes = write(makeFullPlan());
    auto header = readEngineHeader(bytes.data(), bytes.size());
    ASSERT_TRUE(header.isOk());
    size_t covered = ef::kHEADER_SIZE;
    for (auto const& s : header->sections)
    {
        std::string const expected = std::string("checksum mismatch in section '") + ef::sectionName(s.id) + "' (file corrupt)";
        for (size_t i = s.offset; i < s.offset + s.size; ++i)
        {
            Bytes flipped = bytes;
            flipped[i] ^= 0x10;
            EXPECT_EQ(readError(flipped), expected) << "byte " << i;
            // The cheap header check does not read section contents.
            EXPECT_TRUE(checkEngineHeader(flipped.data(), flipped.size()).isOk());
        }
        covered += s.size;
    }
    // The remaining bytes are padding between sections and weights; they must be zero.
    size_t padding = 0;
    for (size_t i = ef::kHEADER_SIZE; i < bytes.size(); ++i)
    {
        bool inSection = false;
        for (auto const& s : header->sections)
        {
            inSection = inSection || (i >= s.offset && i < s.offset + s.size);
        }
        if (!inSection)
        {
            ++padding;
            Bytes flipped = bytes;
            flipped[i] = 0x5A;
            EXPECT_NE(readError(flipped).find("non-zero padding"), std::string::npos) << "byte " << i;
        }
    }
    EXPECT_EQ(covered + padding, bytes.size());
    EXPECT_GT(padding, 0U);
}

TEST(EngineFormatTest, PaddingInsideTheWeightsBlobMustBeZero)
{
    Bytes bytes = write(makeFullPlan());
    Span const blob = section(bytes, ef::SectionId::kBLOB);
    // Weights 0 is 24 bytes at the blob start; bytes 24..63 are padding before weights 1.
    bytes[blob.offset + 30] = 1;
    expectReadFails(bytes, "non-zero padding before weights 1");
}

TEST(EngineFormatTest, WrongMagicIsNotAKilnEngine)
{
    Bytes bytes = write(makeTinyPlan());
    bytes[3] = 'X';
    std::string const msg = readError(bytes);
    EXPECT_TRUE(startsWith(msg, "not a Kiln engine (bad magic)")) << msg;
    EXPECT_TRUE(startsWith(checkEngineHeader(bytes.data(), bytes.size()).message(), "not a Kiln engine (bad magic)"));
}

TEST(EngineFormatTest, FutureFormatVersionIsRefused)
{
    Bytes bytes = write(makeTinyPlan());
    ef::storeU32(&bytes[ef::kOFF_FORMAT_VERSION], 3);
    ef::recomputeChecksums(bytes);
    EXPECT_EQ(readError(bytes),
        "engine built by Kiln engine format version 3; this Kiln reads version 2 (rebuild the engine with this Kiln)");
}

TEST(EngineFormatTest, UnknownHeaderFlagsAndReservedBytesAreRefused)
{
    Bytes const bytes = write(makeTinyPlan());
    Bytes c = bytes;
    ef::storeU32(&c[ef::kOFF_FLAGS], 0x10);
    expectReadFails(c, "engine header has flags 0x00000010 that this Kiln does not know");
    c = bytes;
    c[ef::kOFF_RESERVED + 3] = 1;
    expectReadFails(c, "reserved byte 51 is not zero");
    c = bytes;
    c[ef::kOFF_BACKEND + 1] = ' ';
    expectReadFails(c, "backend name is not a NUL-terminated printable name");
    c = bytes;
    c[ef::kOFF_BACKEND + 20] = 'x'; // garbage after the terminator
    expectReadFails(c, "backend name is not a NUL-terminated printable name");
    c = bytes;
    ef::storeU32(&c[ef::kOFF_KILN_VERSION], 0);
    expectReadFails(c, "invalid engine header: Kiln version 0");
    c = bytes;
    ef::storeU32(&c[ef::kOFF_SECTION_COUNT], 10);
    expectReadFails(c, "invalid engine header: header size 384, 10 sections");
    c = bytes;
    ef::storeU32(&c[ef::kFIXED_HEADER_SIZE + 3 * ef::kSECTION_ENTRY_SIZE], 5); // entry 3 claims to be 'nodes'
    expectReadFails(c, "section table entry 3 has id 5, expected 4 ('I/O order')");
}

TEST(EngineFormatTest, OtherTensorRtApiOrBackendIsExplained)
{
    Plan plan = makeTinyPlan();
    plan.apiVersion = 110100;
    plan.backend = "cuda";
    plan.kilnVersion = 300;
    std::string msg = readError(write(plan));
    EXPECT_TRUE(startsWith(msg, "engine was built for TensorRT API 11.1.0 / backend 'cuda' by Kiln 0.3.0; "
                                "this Kiln implements TensorRT API 10.16.0"))
        << msg;
    plan.apiVersion = 90000;
    msg = readError(write(plan));
    EXPECT_TRUE(startsWith(msg, "engine was built for TensorRT API 9.0.0")) << msg;

    // The backend is recorded; choosing (or refusing) a backend is the runtime's job.
    plan = makeTinyPlan();
    plan.backend = "cuda";
    auto read = readEngine(write(plan).data(), write(plan).size());
    ASSERT_TRUE(read.isOk()) << read.status().message();
    EXPECT_EQ(read->backend, "cuda");
}

TEST(EngineFormatTest, ForeignDataIsNotAKilnEngine)
{
    std::mt19937 rng(1234);
    for (size_t length : {1, 7, 8, 100, 4096})
    {
        Bytes random(length);
        for (auto& b : random)
        {
            b = static_cast<uint8_t>(rng());
        }
        random[0] = 0x4B ^ 0x01; // never 'K'
        EXPECT_TRUE(startsWith(readError(random), "not a Kiln engine (bad magic)")) << readError(random);
    }
    // An ONNX model: a protobuf whose first field is ir_version (tag 0x08), then the producer name.
    Bytes onnx = {0x08, 0x07, 0x12, 0x07, 'p', 'y', 't', 'o', 'r', 'c', 'h', 0x1a, 0x03, '2', '.', '1', 0x3a, 0x80, 0x01};
    EXPECT_TRUE(startsWith(readError(onnx), "not a Kiln engine (bad magic)")) << readError(onnx);
    // A TensorRT plan file starts with its own tag and version words.
    Bytes trt = {'f', 't', 'r', 't', 0xE8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x27, 0x00, 0x00};
    trt.resize(2048, 0);
    EXPECT_TRUE(startsWith(readError(trt), "not a Kiln engine (bad magic)")) << readError(trt);
    // Text.
    std::string const text = "KILN engine? no, a text file\n";
    Bytes textBytes(text.begin(), text.end());
    EXPECT_TRUE(startsWith(readError(textBytes), "not a Kiln engine (bad magic)")) << readError(textBytes);
    EXPECT_EQ(readError(Bytes{}), "not a Kiln engine (empty buffer)");
    EXPECT_FALSE(readEngine(nullptr, 0).isOk());
    EXPECT_FALSE(readEngine(nullptr, 64).isOk());
    // A magic-only prefix is a truncated engine, not foreign data.
    EXPECT_TRUE(startsWith(readError(Bytes{'K', 'I', 'L', 'N'}), "engine file truncated")) << readError(Bytes{'K', 'I', 'L', 'N'});
}

TEST(EngineFormatTest, CraftedHugeCountsAreRefused)
{
    Bytes const bytes = write(makeFullPlan());
    // First u32 of each list-headed section is an element count.
    struct Case
    {
        ef::SectionId id;
        size_t at;
        std::string expected;
    };
    Case const cases[] = {
        {ef::SectionId::kMETADATA, 0, "section 'metadata' is malformed: engine name count 4294967295 needs at least"},
        {ef::SectionId::kSHAPES, 0, "section 'shape graph' is malformed: shape expression count 4294967295"},
        {ef::SectionId::kTENSORS, 0, "section 'tensors' is malformed: tensor count 4294967295"},
        {ef::SectionId::kTENSORS, 4, "tensor name count 4294967295"},
        {ef::SectionId::kIO, 0, "section 'I/O order' is malformed: I/O tensor count 4294967295"},
        {ef::SectionId::kNODES, 0, "section 'nodes' is malformed: node count 4294967295"},
        {ef::SectionId::kNODES, 8, "node name count 4294967295"},
        {ef::SectionId::kPROFILES, 0, "section 'profiles' is malformed: profile count 4294967295"},
        {ef::SectionId::kPROFILES, 4, "profile input count 4294967295"},
        {ef::SectionId::kWEIGHTS, 0, "section 'weights table' is malformed: weights count 4294967295"},
    };
    for (auto const& c : cases)
    {
        SCOPED_TRACE(c.expected);
        Bytes crafted = bytes;
        patchU32(crafted, c.id, c.at, 0xFFFFFFFFU);
        expectReadFails(crafted, c.expected);
        crafted = bytes;
        patchU32(crafted, c.id, c.at, 0x7FFFFFFFU);
        expectReadFails(crafted, "count 2147483647 needs at least");
    }
}

TEST(EngineFormatTest, CraftedFieldsReachTheDeepValidation)
{
    Bytes const bytes = write(makeFullPlan());
    size_t const nameBytes = 4 + std::string("engine-format-test").size();
    Bytes c = bytes;

    // metadata: name, builderFlags u32, stronglyTyped u8, profilingVerbosity i32, hardwareCompatibility i32
    patchU32(c, ef::SectionId::kMETADATA, nameBytes + 5, 9);
    expectReadFails(c, "invalid engine: unknown profiling verbosity 9");
    c = bytes;
    c[section(c, ef::SectionId::kMETADATA).offset + nameBytes + 4] = 2;
    expectReadFails(c, "strongly-typed flag has the value 2 (expected 0 or 1)");

    // I/O order: count, then indices.
    c = bytes;
    patchU32(c, ef::SectionId::kIO, 4, 99);
    expectReadFails(c, "invalid engine: I/O tensor 0 refers to tensor 99, but the engine has 5 tensors");

    // tensors: count, then tensor 0 = name "input" (4 + 5 bytes), type i32, format i32, ...
    c = bytes;
    patchU32(c, ef::SectionId::kTENSORS, 4 + 9, 42);
    expectReadFails(c, "invalid engine: tensor 0 ('input') has the unknown data type 42");
    c = bytes;
    patchU32(c, ef::SectionId::kTENSORS, 4 + 9 + 4, 13);
    expectReadFails(c, "unknown format 13");
    c = bytes;
    patchU32(c, ef::SectionId::kTENSORS, 4 + 9 + 8 + 4, 77); // first dimension's expression id
    expectReadFails(c, "dimension 0 refers to shape expression 77");

    // nodes: count, then node 0 kind i32
    c = bytes;
    patchU32(c, ef::SectionId::kNODES, 4, 1000);
    expectReadFails(c, "invalid engine: node 0 ('conv') has the unknown layer type 1000");
    // node 0: kind, name "conv" (8 bytes), metadata "onnx:Conv_0" (15 bytes), attribute count, first key "alpha"
    size_t const firstAttr = 4 + 4 + 8 + 15 + 4;
    c = bytes;
    c[section(c, ef::SectionId::kNODES).offset + firstAttr + 4 + 5] = 9; // value tag of "alpha"
    expectReadFails(c, "attribute 'alpha' has the unknown value type tag 9");
    c = bytes;
    c[section(c, ef::SectionId::kNODES).offset + firstAttr + 4] = 'z'; // "zlpha" sorts after "blank"
    expectReadFails(c, "attribute 'blank' is out of order or repeated");

    // profiles: count, profile 0: input count, input 0 = tensor i32, min dims (nbDims i32 ...)
    c = bytes;
    patchU32(c, ef::SectionId::kPROFILES, 8, 3);
    expectReadFails(c, "invalid engine: profile 0, tensor 3 ('mid'): not a network input");
    c = bytes;
    patchU32(c, ef::SectionId::kPROFILES, 12, 9);
    expectReadFails(c, "profile min dims has nbDims 9 (expected 0 to 8)");
    c = bytes;
    patchU32(c, ef::SectionId::kPROFILES, 12, 0x80000000U);
    expectReadFails(c, "profile min dims has nbDims -2147483648");

    // weights table: count, entries of (type i32, count i64, offset u64, size u64)
    c = bytes;
    patchU32(c, ef::SectionId::kWEIGHTS, 4, 55);
    expectReadFails(c, "invalid engine: weights 0 has the unknown data type 55");
    c = bytes;
    patchU64(c, ef::SectionId::kWEIGHTS, 8, 5);
    expectReadFails(c, "weights 0 holds 5 FP32 values but 24 bytes");
    c = bytes;
    patchU64(c, ef::SectionId::kWEIGHTS, 16, section(bytes, ef::SectionId::kBLOB).offset + 8);
    expectReadFails(c, "weights 0 claims bytes");
    c = bytes;
    patchU64(c, ef::SectionId::kWEIGHTS, 24, ~uint64_t{0});
    expectReadFails(c, "weights 0 claims bytes");
    c = bytes;
    patchU64(c, ef::SectionId::kWEIGHTS, 24, 1U << 20);
    expectReadFails(c, "end within the weights blob");

    // shape graph: count, then expression 0 (op u8, rounding u8, a, b, c, value, scale)
    c = bytes;
    c[section(c, ef::SectionId::kSHAPES).offset + 4] = 200;
    expectReadFails(c, "section 'shape graph': shape expression 0 has an unknown operation");
    c = bytes;
    c[section(c, ef::SectionId::kSHAPES).offset + 4 + 30 * 7] = static_cast<uint8_t>(ExprOp::kSUM); // a constant
    expectReadFails(c, "has an invalid operand");

    // Section table: a section that claims more bytes than the file has.
    c = bytes;
    ef::storeU64(&c[ef::kFIXED_HEADER_SIZE + 2 * ef::kSECTION_ENTRY_SIZE + 16], ~uint64_t{0} - 4);
    expectReadFails(c, "invalid engine header: section 'tensors' claims bytes");
}

TEST(EngineFormatTest, RecomputeChecksumsIsSafeOnAnyInput)
{
    std::mt19937 rng(99);
    Bytes const valid = write(makeTinyPlan());
    for (int round = 0; round < 2000; ++round)
    {
        Bytes b = valid;
        int const edits = 1 + static_cast<int>(rng() % 8);
        for (int e = 0; e < edits; ++e)
        {
            b[rng() % b.size()] = static_cast<uint8_t>(rng());
        }
        if (round % 3 == 0)
        {
            b.resize(rng() % (b.size() + 1));
        }
        ef::recomputeChecksums(b);
        auto read = readEngine(b.data(), b.size()); // must not crash
        if (read.isOk())
        {
            // Anything the reader accepts is canonical: writing it again gives the same bytes.
            EXPECT_EQ(write(read.value()), b);
        }
    }
}

// ---------------------------------------------------------------------------------------------------------
// Fuzzer seeds
// ---------------------------------------------------------------------------------------------------------

TEST(EngineFormatTest, WriteFuzzSeeds)
{
    char const* dir = std::getenv("KILN_WRITE_FUZZ_SEEDS");
    if (dir == nullptr || *dir == 0)
    {
        GTEST_SKIP() << "set KILN_WRITE_FUZZ_SEEDS=<dir> to write the engineReaderFuzz seed corpus";
    }
    std::pair<char const*, Plan> const seeds[] = {
        {"tiny.kiln", makeTinyPlan()},
        {"constants.kiln", makeConstantPlan()},
        {"full.kiln", makeFullPlan()},
    };
    for (auto const& [name, plan] : seeds)
    {
        Bytes const bytes = write(plan);
        std::ofstream out(std::string(dir) + "/" + name, std::ios::binary | std::ios::trunc);
        ASSERT_TRUE(out.good()) << dir << "/" << name;
        out.write(reinterpret_cast<char const*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
        ASSERT_TRUE(out.good());
    }
}

} // namespace
} // namespace kiln
