// Plugin fallback of the ONNX parser: nodes without an importer served by registered creators (V1 BarPlugin and V3
// ScaleTacticsPlugin from samples/plugins, run end to end), PluginField conversion to the declared types (recorded
// by test creators), range errors, plugin_version / plugin_namespace attributes, the domain as namespace,
// kENABLE_PLUGIN_OVERRIDE, the miss message with the closest creators, unknown-attribute warnings, and the plugin
// library a creator comes from.
#include "onnxTestModels.h"

#include "onnx/pluginFallback.h"
#include "plugin/samplePluginsTestUtils.h"

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <random>

KILN_IGNORE_DEPRECATED_BEGIN

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::PluginField;
using nvinfer1::PluginFieldType;

//! A copy of one field a creator received.
struct RecordedField
{
    PluginFieldType type{};
    int32_t length{0};
    std::vector<uint8_t> bytes;

    template <typename T>
    T at(size_t i) const
    {
        T v{};
        std::memcpy(&v, bytes.data() + i * sizeof(T), sizeof(T));
        return v;
    }
};

size_t fieldElementSize(PluginFieldType t)
{
    switch (t)
    {
    case PluginFieldType::kFLOAT16:
    case PluginFieldType::kBF16:
    case PluginFieldType::kINT16: return 2;
    case PluginFieldType::kFLOAT32:
    case PluginFieldType::kINT32: return 4;
    case PluginFieldType::kFLOAT64:
    case PluginFieldType::kINT64: return 8;
    case PluginFieldType::kDIMS: return sizeof(nvinfer1::Dims);
    default: return 1;
    }
}

std::map<std::string, RecordedField> record(nvinfer1::PluginFieldCollection const* fc)
{
    std::map<std::string, RecordedField> out;
    for (int32_t i = 0; fc != nullptr && i < fc->nbFields; ++i)
    {
        PluginField const& f = fc->fields[i];
        RecordedField r;
        r.type = f.type;
        r.length = f.length;
        auto const* p = static_cast<uint8_t const*>(f.data);
        r.bytes.assign(p, p + fieldElementSize(f.type) * static_cast<size_t>(f.length));
        out[f.name] = r;
    }
    return out;
}

//! IPluginCreator that records the fields it receives and hands out a sample BarPlugin (two inputs, two outputs).
class RecordingCreatorV1 : public nvinfer1::IPluginCreator
{
public:
    RecordingCreatorV1(std::string name, std::string version, std::vector<PluginField> declared)
        : mName(std::move(name))
        , mVersion(std::move(version))
        , mDeclared(std::move(declared))
    {
        mFc.nbFields = static_cast<int32_t>(mDeclared.size());
        mFc.fields = mDeclared.data();
    }
    char const* getPluginName() const noexcept override { return mName.c_str(); }
    char const* getPluginVersion() const noexcept override { return mVersion.c_str(); }
    nvinfer1::PluginFieldCollection const* getFieldNames() noexcept override { return &mFc; }
    nvinfer1::IPluginV2* createPlugin(char const* name, nvinfer1::PluginFieldCollection const* fc) noexcept override
    {
        recorded = record(fc);
        ++calls;
        auto* bar = getPluginRegistry()->getPluginCreator("BarPlugin", "1", samples::kSAMPLE_NAMESPACE);
        nvinfer1::PluginFieldCollection empty{};
        return bar == nullptr ? nullptr : bar->createPlugin(name, &empty);
    }
    nvinfer1::IPluginV2* deserializePlugin(char const*, void const*, size_t) noexcept override { return nullptr; }
    void setPluginNamespace(char const* ns) noexcept override { mNamespace = ns; }
    char const* getPluginNamespace() const noexcept override { return mNamespace.c_str(); }

    std::map<std::string, RecordedField> recorded;
    int calls{0};

private:
    std::string mName;
    std::string mVersion;
    std::vector<PluginField> mDeclared;
    nvinfer1::PluginFieldCollection mFc{};
    std::string mNamespace;
};

//! Registers a creator with the global registry for the duration of a test.
class ScopedCreator
{
public:
    ScopedCreator(nvinfer1::IPluginCreatorInterface& creator, char const* ns)
        : mCreator(creator)
    {
        EXPECT_TRUE(getPluginRegistry()->registerCreator(creator, ns));
    }
    ~ScopedCreator() { getPluginRegistry()->deregisterCreator(mCreator); }

private:
    nvinfer1::IPluginCreatorInterface& mCreator;
};

HostTensor concatRows(HostTensor const& a, HostTensor const& b)
{
    nvinfer1::Dims dims = a.dims;
    dims.d[0] += b.dims.d[0];
    HostTensor out(a.type, dims);
    for (int64_t i = 0; i < a.volume(); ++i)
    {
        out.set(i, a.at(i));
    }
    for (int64_t i = 0; i < b.volume(); ++i)
    {
        out.set(a.volume() + i, b.at(i));
    }
    return out;
}

class PluginFallbackTest : public ::testing::Test
{
protected:
    void SetUp() override { ASSERT_TRUE(samples::registerSamplePlugins()); }

    //! a[2,2,3], b[1,2,3] -> op -> (concat, copy)
    OnnxModelBuilder barModel(std::string const& op, std::string const& domain,
        std::vector<::onnx::AttributeProto> const& attributes = {})
    {
        OnnxModelBuilder model(17);
        if (!domain.empty())
        {
            model.addOpset(domain, 1);
        }
        model.addInput("a", DataType::kFLOAT, {2, 2, 3});
        model.addInput("b", DataType::kFLOAT, {1, 2, 3});
        model.addNode(op, {"a", "b"}, {"concat", "copy"}, attributes, domain).set_name("custom");
        model.addOutput("concat", DataType::kFLOAT);
        model.addOutput("copy", DataType::kFLOAT);
        return model;
    }

    std::mt19937 mRng{424242};
};

TEST_F(PluginFallbackTest, V1CreatorFoundThroughTheNodeDomainRuns)
{
    HostTensor const a = HostTensor::random(DataType::kFLOAT, makeDims({2, 2, 3}), mRng);
    HostTensor const b = HostTensor::random(DataType::kFLOAT, makeDims({1, 2, 3}), mRng);
    OnnxRunner runner;
    ASSERT_TRUE(runner.parse(barModel("BarPlugin", samples::kSAMPLE_NAMESPACE)));
    ASSERT_EQ(runner.network().getNbLayers(), 1);
    EXPECT_EQ(runner.network().getLayer(0)->getType(), nvinfer1::LayerType::kPLUGIN_V2);
    EXPECT_STREQ(runner.network().getLayer(0)->getName(), "custom");
    int64_t nbLibs = -1;
    runner.parser().getUsedVCPluginLibraries(nbLibs);
    EXPECT_EQ(nbLibs, 0); // the sample creators are compiled into the test executable
    ASSERT_TRUE(runner.build());
    auto outputs = runner.run({{"a", a}, {"b", b}});
    EXPECT_TRUE(allClose(outputs["concat"], concatRows(a, b), 0.0, 0.0));
    EXPECT_TRUE(allClose(outputs["copy"], a, 0.0, 0.0));
}

TEST_F(PluginFallbackTest, V3CreatorGetsAlphaAndRuns)
{
    float const alpha = std::uniform_real_distribution<float>(1.5F, 3.0F)(mRng);
    HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({2, 5}), mRng);
    OnnxModelBuilder model(17);
    model.addInput("x", DataType::kFLOAT, {2, 5});
    model.addNode("ScaleTacticsPlugin", {"x"}, {"y"},
        {floatAttr("alpha", alpha), stringAttr("plugin_namespace", samples::kSAMPLE_NAMESPACE),
            stringAttr("plugin_version", "1")});
    model.addOutput("y", DataType::kFLOAT);
    OnnxRunner runner;
    ASSERT_TRUE(runner.parse(model));
    ASSERT_EQ(runner.network().getNbLayers(), 1);
    EXPECT_EQ(runner.network().getLayer(0)->getType(), nvinfer1::LayerType::kPLUGIN_V3);
    ASSERT_TRUE(runner.build());
    auto outputs = runner.run({{"x", x}});
    HostTensor expected(DataType::kFLOAT, x.dims);
    for (int64_t i = 0; i < x.volume(); ++i)
    {
        expected.set(i, alpha * static_cast<float>(x.at(i)));
    }
    EXPECT_TRUE(allClose(outputs["y"], expected, 1e-6, 1e-6));
}

TEST_F(PluginFallbackTest, UsingAnOutputThePluginDoesNotProduceIsAnError)
{
    OnnxModelBuilder model(17);
    model.addInput("x", DataType::kFLOAT, {2, 5});
    model.addNode("ScaleTacticsPlugin", {"x"}, {"y", "extra"}, {stringAttr("plugin_namespace", samples::kSAMPLE_NAMESPACE)})
        .set_name("scale");
    model.addNode("Add", {"extra", "y"}, {"z"}).set_name("consumer");
    model.addOutput("z", DataType::kFLOAT);
    expectSingleParserError(parseOnly(model), nvonnxparser::ErrorCode::kUNSUPPORTED_NODE,
        "node 'consumer' (Add): input 0 'extra' is an output of node 'scale' (ScaleTacticsPlugin) that Kiln's "
        "importer does not produce");

    OnnxModelBuilder direct(17);
    direct.addInput("x", DataType::kFLOAT, {2, 5});
    direct.addNode("ScaleTacticsPlugin", {"x"}, {"y", "extra"}, {stringAttr("plugin_namespace", samples::kSAMPLE_NAMESPACE)})
        .set_name("scale");
    direct.addOutput("extra", DataType::kFLOAT);
    expectSingleParserError(parseOnly(direct), nvonnxparser::ErrorCode::kUNSUPPORTED_GRAPH,
        "graph output 'extra' is an output of node 'scale' (ScaleTacticsPlugin)");
}

TEST_F(PluginFallbackTest, AttributesAreConvertedToTheDeclaredFieldTypes)
{
    std::vector<PluginField> declared{{"i8", nullptr, PluginFieldType::kINT8, 1},
        {"i16", nullptr, PluginFieldType::kINT16, 1}, {"i32s", nullptr, PluginFieldType::kINT32, 3},
        {"i64", nullptr, PluginFieldType::kINT64, 1}, {"f16", nullptr, PluginFieldType::kFLOAT16, 1},
        {"f32s", nullptr, PluginFieldType::kFLOAT32, 2}, {"f64", nullptr, PluginFieldType::kFLOAT64, 1},
        {"intAsFloat", nullptr, PluginFieldType::kFLOAT32, 1}, {"name", nullptr, PluginFieldType::kCHAR, 0},
        {"shape", nullptr, PluginFieldType::kDIMS, 1}, {"table", nullptr, PluginFieldType::kUNKNOWN, 0}};
    RecordingCreatorV1 creator("KilnRecorder", "1", declared);
    ScopedCreator scope(creator, "kilnTestNs");

    int64_t const big = (int64_t{1} << 40) + 7;
    OnnxConstant const table = OnnxConstant::fromInt32({5, -6, 7}, {3});
    auto model = barModel("KilnRecorder", "kilnTestNs",
        {intAttr("i8", -100), intAttr("i16", 30000), intsAttr("i32s", {1, -2, 2000000000}), intAttr("i64", big),
            floatAttr("f16", 0.5F), floatsAttr("f32s", {1.25F, -3.5F}), floatAttr("f64", 0.1F), intAttr("intAsFloat", 3),
            stringAttr("name", "hello"), intsAttr("shape", {4, 5, 6}), tensorAttr("table", table)});
    OnnxRunner runner;
    ASSERT_TRUE(runner.parse(model));
    ASSERT_EQ(creator.calls, 1);
    auto const& r = creator.recorded;
    ASSERT_EQ(r.size(), 11U);
    EXPECT_EQ(r.at("i8").type, PluginFieldType::kINT8);
    EXPECT_EQ(r.at("i8").at<int8_t>(0), -100);
    EXPECT_EQ(r.at("i16").at<int16_t>(0), 30000);
    ASSERT_EQ(r.at("i32s").length, 3);
    EXPECT_EQ(r.at("i32s").at<int32_t>(2), 2000000000);
    EXPECT_EQ(r.at("i32s").at<int32_t>(1), -2);
    EXPECT_EQ(r.at("i64").at<int64_t>(0), big);
    EXPECT_EQ(r.at("f16").type, PluginFieldType::kFLOAT16);
    EXPECT_EQ(r.at("f16").at<uint16_t>(0), 0x3800); // 0.5 in binary16
    EXPECT_EQ(r.at("f32s").at<float>(1), -3.5F);
    EXPECT_EQ(r.at("f64").at<double>(0), static_cast<double>(0.1F));
    EXPECT_EQ(r.at("intAsFloat").at<float>(0), 3.0F);
    EXPECT_EQ(r.at("name").type, PluginFieldType::kCHAR);
    EXPECT_EQ(r.at("name").length, 5); // without the NUL, as TensorRT
    EXPECT_EQ(std::string(r.at("name").bytes.begin(), r.at("name").bytes.end()), "hello");
    auto const dims = r.at("shape").at<nvinfer1::Dims>(0);
    ASSERT_EQ(dims.nbDims, 3);
    EXPECT_EQ(dims.d[2], 6);
    EXPECT_EQ(r.at("table").type, PluginFieldType::kINT32); // tensors go by their element type
    EXPECT_EQ(r.at("table").length, 3);
    EXPECT_EQ(r.at("table").at<int32_t>(1), -6);
}

TEST_F(PluginFallbackTest, IntegerOutOfRangeOfTheDeclaredTypeIsAnError)
{
    RecordingCreatorV1 creator("KilnRecorder", "1", {{"count", nullptr, PluginFieldType::kINT32, 1}});
    ScopedCreator scope(creator, "kilnTestNs");
    expectSingleParserError(parseOnly(barModel("KilnRecorder", "kilnTestNs", {intAttr("count", int64_t{1} << 33)})),
        nvonnxparser::ErrorCode::kINVALID_NODE,
        "node 'custom' (KilnRecorder): attribute 'count' value 8589934592 does not fit the plugin field type kINT32");
    EXPECT_EQ(creator.calls, 0);
}

TEST_F(PluginFallbackTest, FloatAttributeForAnIntegerFieldIsAnError)
{
    RecordingCreatorV1 creator("KilnRecorder", "1", {{"count", nullptr, PluginFieldType::kINT32, 1}});
    ScopedCreator scope(creator, "kilnTestNs");
    ParseOutcome const outcome = parseOnly(barModel("KilnRecorder", "kilnTestNs", {floatAttr("count", 1.5F)}));
    ASSERT_EQ(outcome.errors.size(), 1U);
    EXPECT_TRUE(outcome.hasError("attribute 'count' holds floating-point values but the plugin declares the field "
                                 "as kINT32"))
        << outcome.allErrors();
}

TEST_F(PluginFallbackTest, UnknownAttributesAreWarnedAboutAndSkipped)
{
    RecordingCreatorV1 creator("KilnRecorder", "1", {{"count", nullptr, PluginFieldType::kINT32, 1}});
    ScopedCreator scope(creator, "kilnTestNs");
    ParseOutcome const outcome = parseOnly(barModel(
        "KilnRecorder", "kilnTestNs", {intAttr("count", 3), intAttr("mystery", 1), stringAttr("plugin_version", "1")}));
    EXPECT_TRUE(outcome.ok) << outcome.allErrors();
    ASSERT_EQ(creator.recorded.size(), 1U);
    EXPECT_EQ(creator.recorded.at("count").at<int32_t>(0), 3);
    bool warned = false;
    for (auto const& w : outcome.loggedWarnings)
    {
        warned = warned || (w.find("'mystery'") != std::string::npos && w.find("KilnRecorder") != std::string::npos);
    }
    EXPECT_TRUE(warned);
}

TEST_F(PluginFallbackTest, CreatorWithoutDeclaredFieldsGetsNaturalTypes)
{
    RecordingCreatorV1 creator("KilnRecorder", "1", {});
    ScopedCreator scope(creator, "kilnTestNs");
    ParseOutcome const outcome = parseOnly(barModel("KilnRecorder", "kilnTestNs",
        {intAttr("small", 7), intAttr("large", int64_t{1} << 35), floatsAttr("fs", {2.5F}), stringAttr("s", "ab")}));
    EXPECT_TRUE(outcome.ok) << outcome.allErrors();
    auto const& r = creator.recorded;
    ASSERT_EQ(r.size(), 4U);
    EXPECT_EQ(r.at("small").type, PluginFieldType::kINT32);
    EXPECT_EQ(r.at("large").type, PluginFieldType::kINT64);
    EXPECT_EQ(r.at("large").at<int64_t>(0), int64_t{1} << 35);
    EXPECT_EQ(r.at("fs").type, PluginFieldType::kFLOAT32);
    EXPECT_EQ(r.at("s").type, PluginFieldType::kCHAR);
}

TEST_F(PluginFallbackTest, PluginVersionAttributeSelectsTheCreator)
{
    RecordingCreatorV1 creator("KilnVersioned", "2", {});
    ScopedCreator scope(creator, "kilnTestNs");
    ParseOutcome const miss = parseOnly(barModel("KilnVersioned", "kilnTestNs"));
    expectSingleParserError(miss, nvonnxparser::ErrorCode::kUNSUPPORTED_NODE,
        "no plugin creator 'KilnVersioned' version '1' namespace 'kilnTestNs'");
    EXPECT_TRUE(miss.hasError("closest registered: 'KilnVersioned' version '2' namespace 'kilnTestNs'"))
        << miss.allErrors();
    ParseOutcome const hit = parseOnly(barModel("KilnVersioned", "kilnTestNs", {stringAttr("plugin_version", "2")}));
    EXPECT_TRUE(hit.ok) << hit.allErrors();
    EXPECT_EQ(creator.calls, 1);
}

TEST_F(PluginFallbackTest, PluginNamespaceAttributeOverridesTheDomain)
{
    HostTensor const a = HostTensor::random(DataType::kFLOAT, makeDims({2, 2, 3}), mRng);
    ParseOutcome const outcome
        = parseOnly(barModel("BarPlugin", "com.example", {stringAttr("plugin_namespace", samples::kSAMPLE_NAMESPACE)}));
    EXPECT_TRUE(outcome.ok) << outcome.allErrors();
    // Without the attribute, the domain "com.example" is the namespace and nothing is registered there.
    ParseOutcome const miss = parseOnly(barModel("BarPlugin", "com.example"));
    EXPECT_FALSE(miss.ok);
    EXPECT_TRUE(miss.hasError("namespace 'com.example'")) << miss.allErrors();
}

TEST_F(PluginFallbackTest, MissNamesTheClosestCreatorsAndTheRegistries)
{
    ParseOutcome const outcome = parseOnly(barModel("BarPlugn", samples::kSAMPLE_NAMESPACE));
    EXPECT_FALSE(outcome.ok);
    ASSERT_EQ(outcome.errors.size(), 1U);
    EXPECT_EQ(outcome.errors[0].code, nvonnxparser::ErrorCode::kUNSUPPORTED_NODE);
    std::string const& desc = outcome.errors[0].desc;
    EXPECT_NE(desc.find("node 'custom' (BarPlugn): no importer for op 'BarPlugn'"), std::string::npos) << desc;
    EXPECT_NE(desc.find("searched the builder's plugin registry then the global plugin registry"), std::string::npos)
        << desc;
    EXPECT_NE(desc.find("closest registered: 'BarPlugin' version '1' namespace 'kilnSamples'"), std::string::npos)
        << desc;
}

TEST_F(PluginFallbackTest, OverrideFlagPrefersACreatorOverTheBuiltInImporter)
{
    RecordingCreatorV1 creator("Add", "1", {});
    ScopedCreator scope(creator, "");
    OnnxModelBuilder model(17);
    model.addInput("a", DataType::kFLOAT, {2, 2, 3});
    model.addInput("b", DataType::kFLOAT, {1, 2, 3});
    model.addNode("Add", {"a", "b"}, {"sum"}).set_name("add");
    model.addOutput("sum", DataType::kFLOAT);
    {
        OnnxRunner runner;
        ASSERT_TRUE(runner.parse(model));
        EXPECT_EQ(creator.calls, 0);
        EXPECT_TRUE(runner.parser().supportsOperator("Add"));
    }
    OnnxRunner runner;
    runner.parser().setFlag(nvonnxparser::OnnxParserFlag::kENABLE_PLUGIN_OVERRIDE);
    ASSERT_TRUE(runner.parse(model));
    EXPECT_EQ(creator.calls, 1);
    bool plugin = false;
    for (int32_t i = 0; i < runner.network().getNbLayers(); ++i)
    {
        plugin = plugin || runner.network().getLayer(i)->getType() == nvinfer1::LayerType::kPLUGIN_V2;
    }
    EXPECT_TRUE(plugin);
}

TEST_F(PluginFallbackTest, SupportsOperatorKnowsImportersAndCreators)
{
    OnnxRunner runner;
    EXPECT_TRUE(runner.parser().supportsOperator("Constant"));
    EXPECT_TRUE(runner.parser().supportsOperator("BarPlugin"));
    EXPECT_FALSE(runner.parser().supportsOperator("KilnNoSuchOp"));
    EXPECT_FALSE(runner.parser().supportsOperator(nullptr));
}

TEST_F(PluginFallbackTest, CreatorReturningNullIsAnError)
{
    class NullCreator : public RecordingCreatorV1
    {
    public:
        NullCreator()
            : RecordingCreatorV1("KilnNull", "1", {})
        {
        }
        nvinfer1::IPluginV2* createPlugin(char const*, nvinfer1::PluginFieldCollection const*) noexcept override
        {
            return nullptr;
        }
    } creator;
    ScopedCreator scope(creator, "kilnTestNs");
    ParseOutcome const outcome = parseOnly(barModel("KilnNull", "kilnTestNs"));
    ASSERT_EQ(outcome.errors.size(), 1U);
    EXPECT_TRUE(outcome.hasError("IPluginCreator::createPlugin returned nullptr")) << outcome.allErrors();
}

TEST_F(PluginFallbackTest, LibraryOfALoadedCreatorIsReported)
{
    auto* registry = getPluginRegistry();
    std::string const path = std::string(KILN_LIBRARY_DIR) + "/libkilnToyPluginsV1.so";
    auto* handle = registry->loadLibrary(path.c_str());
    ASSERT_NE(handle, nullptr);
    auto* creator = registry->getCreator("ToyLibraryPluginV1", "2", "");
    ASSERT_NE(creator, nullptr);
    std::string const library = pluginLibraryOf(creator);
    EXPECT_NE(library.find("libkilnToyPluginsV1.so"), std::string::npos) << library;
    auto* bar = registry->getCreator("BarPlugin", "1", samples::kSAMPLE_NAMESPACE);
    ASSERT_NE(bar, nullptr);
    EXPECT_EQ(pluginLibraryOf(bar), "");
    registry->deregisterLibrary(handle);
}

} // namespace
} // namespace kiln::test

KILN_IGNORE_DEPRECATED_END
