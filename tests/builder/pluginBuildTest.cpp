// Plugin nodes through the builder: plan records, the build-time lifecycle order, format/type negotiation with
// reformat nodes, INT8 scales, workspace, tactic timing, aliasing, CPU opt-in, data-dependent and shape-input
// plumbing, and build errors that name the plugin. Tests that run the engine compare with references computed here.
#include "builder/pluginTestPlugins.h"
#include "common/builtPlan.h"
#include "common/networkRunner.h"
#include "engine/engineReader.h"
#include "plugin/pluginAdapter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <mutex>
#include <optional>

namespace kiln::test
{
namespace
{
using namespace nvinfer1;
using plugins::ScaleConfig;
using plugins::TestScaleV2;
using plugins::TestScaleV2NoCpu;
using plugins::TestV3;
using plugins::V3Config;
using plugins::V3Mode;

constexpr uint32_t bit(DataType t)
{
    return 1U << static_cast<uint32_t>(t);
}
constexpr uint32_t bit(TensorFormat f)
{
    return 1U << static_cast<uint32_t>(f);
}

std::vector<PlanNode const*> reformatNodes(Plan const& plan)
{
    std::vector<PlanNode const*> out;
    for (PlanNode const& n : plan.nodes)
    {
        if (n.kind == LayerType::kIDENTITY && n.attrs.getInt("reformat", 0) == 1)
        {
            out.push_back(&n);
        }
    }
    return out;
}

ITensor* addScale(NetworkRunner& r, ITensor* in, ScaleConfig const& c, char const* name)
{
    TestScaleV2 plugin(c);
    ITensor* inputs[] = {in};
    IPluginV2Layer* layer = r.network().addPluginV2(inputs, 1, plugin);
    EXPECT_NE(layer, nullptr) << r.logger().allErrors();
    if (layer == nullptr)
    {
        return nullptr;
    }
    layer->setName(name);
    return layer->getOutput(0);
}

IPluginV3Layer* addV3(NetworkRunner& r, std::vector<ITensor*> inputs, std::vector<ITensor*> shapeInputs,
    V3Config const& c, char const* name)
{
    TestV3 plugin(c);
    IPluginV3Layer* layer = r.network().addPluginV3(inputs.data(), static_cast<int32_t>(inputs.size()),
        shapeInputs.data(), static_cast<int32_t>(shapeInputs.size()), plugin);
    EXPECT_NE(layer, nullptr) << r.logger().allErrors();
    if (layer != nullptr)
    {
        layer->setName(name);
    }
    return layer;
}

//! Records the lifecycle calls of one plugin (by name) while alive.
class TraceRecorder
{
public:
    explicit TraceRecorder(std::string plugin)
        : mPlugin(std::move(plugin))
    {
        PluginAdapter::setTraceSink([this](std::string const& name, std::string const& call) {
            if (name == mPlugin)
            {
                std::lock_guard<std::mutex> lock(mMutex);
                mCalls.push_back(call);
            }
        });
    }
    ~TraceRecorder() { PluginAdapter::setTraceSink(nullptr); }
    std::vector<std::string> calls() const
    {
        std::lock_guard<std::mutex> lock(mMutex);
        return mCalls;
    }

private:
    std::string mPlugin;
    mutable std::mutex mMutex;
    std::vector<std::string> mCalls;
};

//! True when `expected` appears in `calls` in order (other calls may come between).
::testing::AssertionResult inOrder(std::vector<std::string> const& calls, std::vector<std::string> const& expected)
{
    size_t next = 0;
    for (std::string const& c : calls)
    {
        if (next < expected.size() && c == expected[next])
        {
            ++next;
        }
    }
    if (next == expected.size())
    {
        return ::testing::AssertionSuccess();
    }
    std::string all;
    for (std::string const& c : calls)
    {
        all += c + " ";
    }
    return ::testing::AssertionFailure() << "missing '" << expected[next] << "' (in order) in: " << all;
}

std::vector<std::string> fromFirst(std::vector<std::string> const& calls, std::string const& first)
{
    auto it = std::find(calls.begin(), calls.end(), first);
    return std::vector<std::string>(it, calls.end());
}

class PluginBuildTest : public ::testing::Test
{
protected:
    void SetUp() override { plugins::registerTestPluginCreators(); }
    std::mt19937 mRng{20261121};
};

TEST_F(PluginBuildTest, V2DynamicExtAndV3BuildIntoRecordsAndRun)
{
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {-1, 6});
    r.setProfileDims("x", {1, 6}, {2, 6}, {4, 6});
    ScaleConfig c;
    c.factor = 3.0F;
    ITensor* scaled = addScale(r, x, c, "scale");
    IPluginV3Layer* addOne = addV3(r, {scaled}, {}, V3Config{}, "addOne");
    ASSERT_NE(addOne, nullptr);
    r.markOutput(addOne->getOutput(0), "y");
    bool const built = r.build();
    auto plan = builtPlan(r);
    ASSERT_TRUE(plan.has_value()) << r.logger().allErrors();

    PlanNode const* v2 = findNode(*plan, "scale");
    ASSERT_NE(v2, nullptr);
    EXPECT_EQ(v2->kind, LayerType::kPLUGIN_V2);
    EXPECT_EQ(v2->tactic, "plugin");
    auto rec2 = loadPluginRecord(v2->attrs);
    ASSERT_TRUE(rec2.isOk()) << rec2.status().message();
    EXPECT_EQ(rec2->name, "KilnTestScale");
    EXPECT_EQ(rec2->version, "1");
    EXPECT_EQ(rec2->generation, PluginGeneration::kV2_DYNAMIC_EXT);
    ASSERT_EQ(rec2->data.size(), sizeof(ScaleConfig));
    ScaleConfig stored;
    std::memcpy(&stored, rec2->data.data(), sizeof(stored));
    EXPECT_EQ(stored.factor, 3.0F) << "the record holds the plugin's serialize() bytes";

    PlanNode const* v3 = findNode(*plan, "addOne");
    ASSERT_NE(v3, nullptr);
    EXPECT_EQ(v3->kind, LayerType::kPLUGIN_V3);
    auto rec3 = loadPluginRecord(v3->attrs);
    ASSERT_TRUE(rec3.isOk()) << rec3.status().message();
    EXPECT_EQ(rec3->name, "KilnTestV3");
    EXPECT_EQ(rec3->generation, PluginGeneration::kV3_ONE);
    EXPECT_FALSE(rec3->data.empty());
    EXPECT_TRUE(reformatNodes(*plan).empty()) << "FP32/kLINEAR everywhere needs no reformat";

    ASSERT_TRUE(built) << r.logger().allErrors();
    HostTensor in = HostTensor::random(DataType::kFLOAT, makeDims({3, 6}), mRng);
    auto out = r.run({{"x", in}});
    HostTensor expected(DataType::kFLOAT, makeDims({3, 6}));
    for (int64_t i = 0; i < in.volume(); ++i)
    {
        expected.set(i, static_cast<float>(static_cast<float>(in.at(i)) * 3.0F) + 1.0F);
    }
    EXPECT_TRUE(allClose(out["y"], expected, 1e-6, 1e-6));
}

TEST_F(PluginBuildTest, BuildLifecycleOrderOfV2)
{
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {-1, 4});
    ITensor* y = addScale(r, x, ScaleConfig{}, "scale");
    r.markOutput(y, "y");
    for (int32_t p = 0; p < 2; ++p)
    {
        IOptimizationProfile* profile = r.builder().createOptimizationProfile();
        profile->setDimensions("x", OptProfileSelector::kMIN, makeDims({1 + p, 4}));
        profile->setDimensions("x", OptProfileSelector::kOPT, makeDims({2 + p, 4}));
        profile->setDimensions("x", OptProfileSelector::kMAX, makeDims({3 + p, 4}));
        ASSERT_EQ(r.config().addOptimizationProfile(profile), p);
    }
    std::vector<std::string> calls;
    {
        TraceRecorder trace("KilnTestScale");
        std::unique_ptr<IHostMemory> blob(r.builder().buildSerializedNetwork(r.network(), r.config()));
        ASSERT_NE(blob, nullptr) << r.logger().allErrors();
        calls = fromFirst(trace.calls(), "clone");
    }
    EXPECT_TRUE(inOrder(calls, {"clone", "getNbOutputs", "getOutputDataType", "getOutputDimensions",
        "supportsFormatCombination", "configurePlugin", "getWorkspaceSize", "configurePlugin", "getWorkspaceSize",
        "initialize", "terminate", "getSerializationSize", "serialize", "destroy"}));
    EXPECT_EQ(std::count(calls.begin(), calls.end(), "configurePlugin"), 2) << "once per optimization profile";
    EXPECT_EQ(std::count(calls.begin(), calls.end(), "clone"), 1) << "one builder copy per build";
    EXPECT_EQ(std::count(calls.begin(), calls.end(), "destroy"), 1) << "the builder's copy is destroyed";
}

TEST_F(PluginBuildTest, BuildLifecycleOrderOfV3)
{
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {2, 4});
    IPluginV3Layer* l = addV3(r, {x}, {}, V3Config{}, "addOne");
    ASSERT_NE(l, nullptr);
    r.markOutput(l->getOutput(0), "y");
    std::vector<std::string> calls;
    {
        TraceRecorder trace("KilnTestV3");
        std::unique_ptr<IHostMemory> blob(r.builder().buildSerializedNetwork(r.network(), r.config()));
        ASSERT_NE(blob, nullptr) << r.logger().allErrors();
        calls = fromFirst(trace.calls(), "clone");
    }
    EXPECT_TRUE(inOrder(calls, {"clone", "getNbOutputs", "getOutputDataTypes", "getOutputShapes",
        "supportsFormatCombination", "configurePlugin", "getWorkspaceSize", "getFieldsToSerialize", "destroy"}));
    EXPECT_EQ(std::count(calls.begin(), calls.end(), "initialize"), 0) << "IPluginV3 has no initialize";
}

TEST_F(PluginBuildTest, Fp16OnlyPluginGetsCastsAroundIt)
{
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {4, 5});
    ScaleConfig c;
    c.typeMask = bit(DataType::kHALF);
    r.markOutput(addScale(r, x, c, "half"), "y");
    bool const built = r.build();
    auto plan = builtPlan(r);
    ASSERT_TRUE(plan.has_value()) << r.logger().allErrors();
    PlanNode const* node = findNode(*plan, "half");
    ASSERT_NE(node, nullptr);
    EXPECT_EQ(plan->tensors[static_cast<size_t>(node->inputs[0])].type, DataType::kHALF);
    EXPECT_EQ(plan->tensors[static_cast<size_t>(node->outputs[0])].type, DataType::kHALF);
    auto reformats = reformatNodes(*plan);
    ASSERT_EQ(reformats.size(), 2U) << "a cast before and after the plugin";
    EXPECT_EQ(plan->tensors[static_cast<size_t>(reformats[0]->inputs[0])].name, "x");
    EXPECT_EQ(plan->tensors[static_cast<size_t>(reformats[1]->outputs[0])].name, "y");
    EXPECT_EQ(plan->tensors[static_cast<size_t>(reformats[1]->outputs[0])].type, DataType::kFLOAT);

    ASSERT_TRUE(built) << r.logger().allErrors();
    HostTensor in = HostTensor::random(DataType::kFLOAT, makeDims({4, 5}), mRng);
    auto out = r.run({{"x", in}});
    HostTensor expected(DataType::kFLOAT, makeDims({4, 5}));
    for (int64_t i = 0; i < in.volume(); ++i)
    {
        expected.set(i, 2.0 * in.at(i));
    }
    EXPECT_TRUE(allClose(out["y"], expected, 1e-3, 1e-3)) << "FP16 rounding of the input only";
}

TEST_F(PluginBuildTest, Int8PluginGetsScalesFromDynamicRanges)
{
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {3, 7});
    ASSERT_TRUE(x->setDynamicRange(-2.0F, 2.0F));
    ScaleConfig c;
    c.factor = 1.5F;
    c.typeMask = bit(DataType::kINT8);
    ITensor* y = addScale(r, x, c, "int8");
    ASSERT_TRUE(y->setDynamicRange(-3.0F, 3.0F));
    r.markOutput(y, "y");
    r.config().setFlag(BuilderFlag::kINT8);
    bool const built = r.build();
    auto plan = builtPlan(r);
    ASSERT_TRUE(plan.has_value()) << r.logger().allErrors();
    PlanNode const* node = findNode(*plan, "int8");
    ASSERT_NE(node, nullptr);
    PlanTensor const& pin = plan->tensors[static_cast<size_t>(node->inputs[0])];
    PlanTensor const& pout = plan->tensors[static_cast<size_t>(node->outputs[0])];
    EXPECT_EQ(pin.type, DataType::kINT8);
    EXPECT_EQ(pout.type, DataType::kINT8);
    float const si = 2.0F / 127.0F;
    float const so = 3.0F / 127.0F;
    EXPECT_FLOAT_EQ(pin.scale, si);
    EXPECT_FLOAT_EQ(pout.scale, so);

    ASSERT_TRUE(built) << r.logger().allErrors();
    HostTensor in = HostTensor::random(DataType::kFLOAT, makeDims({3, 7}), mRng, -2.0, 2.0);
    auto out = r.run({{"x", in}});
    HostTensor expected(DataType::kFLOAT, makeDims({3, 7}));
    for (int64_t i = 0; i < in.volume(); ++i)
    {
        float const q = std::fmax(-128.F, std::fmin(127.F, std::nearbyint(static_cast<float>(in.at(i)) / si)));
        float const qo = std::fmax(-128.F, std::fmin(127.F, std::nearbyint(q * si * 1.5F / so)));
        expected.set(i, qo * so);
    }
    EXPECT_TRUE(allClose(out["y"], expected, 1e-6, 1e-6));
}

TEST_F(PluginBuildTest, Int8WithoutDynamicRangeNamesTheTensor)
{
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {3, 7});
    ScaleConfig c;
    c.typeMask = bit(DataType::kINT8);
    r.markOutput(addScale(r, x, c, "int8"), "y");
    r.config().setFlag(BuilderFlag::kINT8);
    EXPECT_FALSE(r.build());
    EXPECT_TRUE(r.logger().hasError("KilnTestScale")) << r.logger().allErrors();
    EXPECT_TRUE(r.logger().hasError("'x'")) << r.logger().allErrors();
    EXPECT_TRUE(r.logger().hasError("no dynamic range")) << r.logger().allErrors();
}

class PluginFormatTest : public PluginBuildTest, public ::testing::WithParamInterface<TensorFormat>
{
};

TEST_P(PluginFormatTest, ReformatsRoundTrip)
{
    TensorFormat const format = GetParam();
    bool const threeD = format == TensorFormat::kDHWC8 || format == TensorFormat::kCDHW32 || format == TensorFormat::kDHWC;
    std::vector<int64_t> const dims = threeD ? std::vector<int64_t>{2, 3, 2, 3, 2} : std::vector<int64_t>{2, 3, 4, 5};
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, dims);
    ScaleConfig c;
    c.formatMask = bit(format);
    r.markOutput(addScale(r, x, c, "formatted"), "y");
    bool const built = r.build();
    auto plan = builtPlan(r);
    ASSERT_TRUE(plan.has_value()) << r.logger().allErrors();
    PlanNode const* node = findNode(*plan, "formatted");
    ASSERT_NE(node, nullptr);
    EXPECT_EQ(plan->tensors[static_cast<size_t>(node->inputs[0])].format, format);
    EXPECT_EQ(plan->tensors[static_cast<size_t>(node->outputs[0])].format, format);
    EXPECT_EQ(reformatNodes(*plan).size(), 2U);
    // The arena slot of the formatted input holds the padded tensor.
    int64_t const padded = plugins::paddedVolume(makeDims(dims), format) * 4;
    EXPECT_GE(plan->profiles[0].tensorCapacity[static_cast<size_t>(node->inputs[0])], padded);

    ASSERT_TRUE(built) << r.logger().allErrors();
    HostTensor in = HostTensor::random(DataType::kFLOAT, makeDims(dims), mRng);
    auto out = r.run({{"x", in}});
    HostTensor expected(DataType::kFLOAT, makeDims(dims));
    for (int64_t i = 0; i < in.volume(); ++i)
    {
        expected.set(i, 2.0 * in.at(i));
    }
    EXPECT_TRUE(allClose(out["y"], expected, 0.0, 0.0));
}

INSTANTIATE_TEST_SUITE_P(Formats, PluginFormatTest,
    ::testing::Values(TensorFormat::kCHW4, TensorFormat::kHWC, TensorFormat::kHWC8, TensorFormat::kCHW2,
        TensorFormat::kCHW16, TensorFormat::kCHW32, TensorFormat::kHWC16, TensorFormat::kDHWC8, TensorFormat::kCDHW32,
        TensorFormat::kDHWC));

TEST_F(PluginBuildTest, AllowedFormatsAtNetworkIoAvoidReformats)
{
    NetworkRunner r;
    std::vector<int64_t> const dims{2, 4, 3, 5}; // 4 channels: kCHW4 needs no padding, so the buffers keep their size
    ITensor* x = r.addInput("x", DataType::kFLOAT, dims);
    x->setAllowedFormats(bit(TensorFormat::kCHW4));
    ScaleConfig c;
    c.formatMask = bit(TensorFormat::kLINEAR) | bit(TensorFormat::kCHW4);
    ITensor* y = addScale(r, x, c, "vectorized");
    r.markOutput(y, "y");
    y->setAllowedFormats(bit(TensorFormat::kCHW4));
    bool const built = r.build();
    auto plan = builtPlan(r);
    ASSERT_TRUE(plan.has_value()) << r.logger().allErrors();
    EXPECT_TRUE(reformatNodes(*plan).empty()) << "the plugin reads and writes the I/O format directly";
    PlanNode const* node = findNode(*plan, "vectorized");
    ASSERT_NE(node, nullptr);
    EXPECT_EQ(plan->tensors[static_cast<size_t>(node->inputs[0])].format, TensorFormat::kCHW4);

    ASSERT_TRUE(built) << r.logger().allErrors();
    EXPECT_EQ(r.engine().getTensorFormat("x"), TensorFormat::kCHW4);
    EXPECT_EQ(r.engine().getTensorFormat("y"), TensorFormat::kCHW4);
    // The plugin is elementwise and both sides share the layout, so y = 2 x element by element in any layout.
    HostTensor in = HostTensor::random(DataType::kFLOAT, makeDims(dims), mRng);
    auto out = r.run({{"x", in}});
    HostTensor expected(DataType::kFLOAT, makeDims(dims));
    for (int64_t i = 0; i < in.volume(); ++i)
    {
        expected.set(i, 2.0 * in.at(i));
    }
    EXPECT_TRUE(allClose(out["y"], expected, 0.0, 0.0));
}

TEST_F(PluginBuildTest, AllowedFormatsAtIoReadByOtherLayersAreRefused)
{
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {2, 4, 3, 5});
    x->setAllowedFormats(bit(TensorFormat::kHWC8));
    auto* id = r.network().addIdentity(*x);
    r.markOutput(id->getOutput(0), "y");
    EXPECT_FALSE(r.build());
    EXPECT_TRUE(r.logger().hasError("network input 'x'")) << r.logger().allErrors();
    EXPECT_TRUE(r.logger().hasError("setAllowedFormats")) << r.logger().allErrors();
}

TEST_F(PluginBuildTest, NoCombinationListsWhatWasRejected)
{
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {2, 3});
    ScaleConfig c;
    c.formatMask = 0;
    r.markOutput(addScale(r, x, c, "picky"), "y");
    EXPECT_FALSE(r.build());
    EXPECT_TRUE(r.logger().hasError("KilnTestScale")) << r.logger().allErrors();
    EXPECT_TRUE(r.logger().hasError("supportsFormatCombination accepted no combination")) << r.logger().allErrors();
    EXPECT_TRUE(r.logger().hasError("position 0 (input 'x') rejected FP32/kLINEAR, FP16/kLINEAR"))
        << r.logger().allErrors();
}

TEST_F(PluginBuildTest, FormatCombinationLimitStopsTheSearch)
{
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {2, 3, 4, 5});
    V3Config c;
    c.formatLimit = 3;
    c.acceptAnyInput = 1;
    c.rejectOutputs = 1;
    IPluginV3Layer* l = addV3(r, {x}, {}, c, "indecisive");
    ASSERT_NE(l, nullptr);
    r.markOutput(l->getOutput(0), "y");
    EXPECT_FALSE(r.build());
    EXPECT_TRUE(r.logger().hasError("KilnTestV3")) << r.logger().allErrors();
    EXPECT_TRUE(r.logger().hasError("format combination limit of 3")) << r.logger().allErrors();
}

TEST_F(PluginBuildTest, Int8OutputWithoutDynamicRangeNamesTheTensor)
{
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {3, 7});
    ASSERT_TRUE(x->setDynamicRange(-1.0F, 1.0F));
    ScaleConfig c;
    c.typeMask = bit(DataType::kINT8);
    r.markOutput(addScale(r, x, c, "int8"), "y");
    r.config().setFlag(BuilderFlag::kINT8);
    EXPECT_FALSE(r.build());
    EXPECT_TRUE(r.logger().hasError("output 0 'y'")) << r.logger().allErrors();
    EXPECT_TRUE(r.logger().hasError("no dynamic range")) << r.logger().allErrors();
}

TEST_F(PluginBuildTest, WorkspaceIsReservedInTheArena)
{
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {16});
    ScaleConfig c;
    c.workspace = 3000;
    ITensor* a = addScale(r, x, ScaleConfig{}, "first");
    ITensor* b = addScale(r, a, c, "withWorkspace");
    r.markOutput(addScale(r, b, ScaleConfig{}, "last"), "y");
    bool const built = r.build();
    auto plan = builtPlan(r);
    ASSERT_TRUE(plan.has_value()) << r.logger().allErrors();
    size_t index = 0;
    while (index < plan->nodes.size() && plan->nodes[index].name != "withWorkspace")
    {
        ++index;
    }
    ASSERT_LT(index, plan->nodes.size());
    PlanProfile const& p = plan->profiles[0];
    ASSERT_EQ(p.workspaceSizes.size(), plan->nodes.size());
    ASSERT_EQ(p.workspaceOffsets.size(), plan->nodes.size());
    EXPECT_EQ(p.workspaceSizes[index], 3000);
    int64_t const offset = p.workspaceOffsets[index];
    ASSERT_GE(offset, 0);
    EXPECT_LE(offset + 3000, p.arenaSize);
    for (int32_t t : {plan->nodes[index].inputs[0], plan->nodes[index].outputs[0]})
    {
        int64_t const to = p.tensorOffsets[static_cast<size_t>(t)];
        int64_t const tc = p.tensorCapacity[static_cast<size_t>(t)];
        EXPECT_TRUE(to + tc <= offset || offset + 3000 <= to) << "workspace overlaps tensor " << t;
    }
    for (size_t n = 0; n < plan->nodes.size(); ++n)
    {
        if (n != index)
        {
            EXPECT_EQ(p.workspaceSizes[n], 0);
            EXPECT_EQ(p.workspaceOffsets[n], -1);
        }
    }

    ASSERT_TRUE(built) << r.logger().allErrors();
    HostTensor in = HostTensor::random(DataType::kFLOAT, makeDims({16}), mRng);
    auto out = r.run({{"x", in}});
    HostTensor expected(DataType::kFLOAT, makeDims({16}));
    for (int64_t i = 0; i < in.volume(); ++i)
    {
        expected.set(i, 8.0 * in.at(i));
    }
    EXPECT_TRUE(allClose(out["y"], expected, 0.0, 0.0)) << "the workspace must not overlap live tensors";
}

TEST_F(PluginBuildTest, WorkspaceLimitNamesThePlugin)
{
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {16});
    ScaleConfig c;
    c.workspace = 3000;
    r.markOutput(addScale(r, x, c, "greedy"), "y");
    r.config().setMemoryPoolLimit(MemoryPoolType::kWORKSPACE, 1024);
    EXPECT_FALSE(r.build());
    EXPECT_TRUE(r.logger().hasError("KilnTestScale")) << r.logger().allErrors();
    EXPECT_TRUE(r.logger().hasError("'greedy'")) << r.logger().allErrors();
    EXPECT_TRUE(r.logger().hasError("kWORKSPACE")) << r.logger().allErrors();
}

class PluginTacticTest : public PluginBuildTest, public ::testing::WithParamInterface<int32_t>
{
};

TEST_P(PluginTacticTest, TimingPicksTheFasterTactic)
{
    int32_t const slow = GetParam();
    int32_t const fast = slow == 1 ? 2 : 1;
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {8});
    V3Config c;
    c.tactics = 1;
    c.slowTactic = slow;
    IPluginV3Layer* l = addV3(r, {x}, {}, c, "tactical");
    ASSERT_NE(l, nullptr);
    r.markOutput(l->getOutput(0), "y");
    bool const built = r.build();
    auto plan = builtPlan(r);
    ASSERT_TRUE(plan.has_value()) << r.logger().allErrors();
    PlanNode const* node = findNode(*plan, "tactical");
    ASSERT_NE(node, nullptr);
    EXPECT_EQ(node->tactic, "plugin:" + std::to_string(fast));
    auto rec = loadPluginRecord(node->attrs);
    ASSERT_TRUE(rec.isOk());
    EXPECT_EQ(rec->tactic, fast);

    ASSERT_TRUE(built) << r.logger().allErrors();
    HostTensor in = HostTensor::random(DataType::kFLOAT, makeDims({8}), mRng);
    auto out = r.run({{"x", in}});
    HostTensor expected(DataType::kFLOAT, makeDims({8}));
    for (int64_t i = 0; i < in.volume(); ++i)
    {
        expected.set(i, static_cast<float>(in.at(i)) + 1.0F);
    }
    EXPECT_TRUE(allClose(out["y"], expected, 0.0, 0.0));
}

INSTANTIATE_TEST_SUITE_P(SlowTactic, PluginTacticTest, ::testing::Values(1, 2));

TEST_F(PluginBuildTest, AliasedOutputSharesTheInputSlot)
{
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {10});
    ITensor* t = addScale(r, x, ScaleConfig{}, "double");
    V3Config c;
    c.aliasInput = 0;
    IPluginV3Layer* inPlace = addV3(r, {t}, {}, c, "inPlace");
    ASSERT_NE(inPlace, nullptr);
    ScaleConfig three;
    three.factor = 3.0F;
    r.markOutput(addScale(r, inPlace->getOutput(0), three, "triple"), "y");
    bool const built = r.build();
    auto plan = builtPlan(r);
    ASSERT_TRUE(plan.has_value()) << r.logger().allErrors();
    PlanNode const* node = findNode(*plan, "inPlace");
    ASSERT_NE(node, nullptr);
    auto rec = loadPluginRecord(node->attrs);
    ASSERT_TRUE(rec.isOk());
    ASSERT_EQ(rec->aliases.size(), 1U);
    EXPECT_EQ(rec->aliases[0], 0);
    PlanNode const* producer = findNode(*plan, "double");
    ASSERT_NE(producer, nullptr);
    EXPECT_EQ(node->inputs[0], producer->outputs[0]) << "no copy is needed: nothing else reads the input";
    PlanProfile const& p = plan->profiles[0];
    EXPECT_EQ(p.tensorOffsets[static_cast<size_t>(node->inputs[0])], p.tensorOffsets[static_cast<size_t>(node->outputs[0])]);
    EXPECT_GE(p.tensorOffsets[static_cast<size_t>(node->inputs[0])], 0);

    ASSERT_TRUE(built) << r.logger().allErrors();
    HostTensor in = HostTensor::random(DataType::kFLOAT, makeDims({10}), mRng);
    auto out = r.run({{"x", in}});
    HostTensor expected(DataType::kFLOAT, makeDims({10}));
    for (int64_t i = 0; i < in.volume(); ++i)
    {
        expected.set(i, (static_cast<float>(in.at(i)) * 2.0F + 1.0F) * 3.0F);
    }
    EXPECT_TRUE(allClose(out["y"], expected, 0.0, 0.0));
}

TEST_F(PluginBuildTest, AliasedInputReadLaterGetsACopy)
{
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {10});
    ITensor* t = addScale(r, x, ScaleConfig{}, "double");
    V3Config c;
    c.aliasInput = 0;
    IPluginV3Layer* inPlace = addV3(r, {t}, {}, c, "inPlace");
    ASSERT_NE(inPlace, nullptr);
    r.markOutput(addScale(r, inPlace->getOutput(0), ScaleConfig{}, "again"), "y");
    auto* later = r.network().addIdentity(*t); // reads t after the in-place plugin
    ASSERT_NE(later, nullptr);
    r.markOutput(later->getOutput(0), "t");
    bool const built = r.build();
    auto plan = builtPlan(r);
    ASSERT_TRUE(plan.has_value()) << r.logger().allErrors();
    PlanNode const* node = findNode(*plan, "inPlace");
    PlanNode const* producer = findNode(*plan, "double");
    ASSERT_NE(node, nullptr);
    ASSERT_NE(producer, nullptr);
    EXPECT_NE(node->inputs[0], producer->outputs[0]) << "the plugin must update a copy";
    PlanProfile const& p = plan->profiles[0];
    EXPECT_EQ(p.tensorOffsets[static_cast<size_t>(node->inputs[0])], p.tensorOffsets[static_cast<size_t>(node->outputs[0])]);

    ASSERT_TRUE(built) << r.logger().allErrors();
    HostTensor in = HostTensor::random(DataType::kFLOAT, makeDims({10}), mRng);
    auto out = r.run({{"x", in}});
    HostTensor expectedY(DataType::kFLOAT, makeDims({10}));
    HostTensor expectedT(DataType::kFLOAT, makeDims({10}));
    for (int64_t i = 0; i < in.volume(); ++i)
    {
        float const doubled = static_cast<float>(in.at(i)) * 2.0F;
        expectedT.set(i, doubled);
        expectedY.set(i, (doubled + 1.0F) * 2.0F);
    }
    EXPECT_TRUE(allClose(out["y"], expectedY, 0.0, 0.0));
    EXPECT_TRUE(allClose(out["t"], expectedT, 0.0, 0.0)) << "the later reader must see the value before the plugin";
}

TEST_F(PluginBuildTest, AliasToAMissingInputIsRejected)
{
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {10});
    V3Config c;
    c.aliasInput = 3;
    IPluginV3Layer* l = addV3(r, {x}, {}, c, "badAlias");
    ASSERT_NE(l, nullptr);
    r.markOutput(l->getOutput(0), "y");
    EXPECT_FALSE(r.build());
    EXPECT_TRUE(r.logger().hasError("KilnTestV3")) << r.logger().allErrors();
    EXPECT_TRUE(r.logger().hasError("getAliasedInput(0) returned 3")) << r.logger().allErrors();
}

TEST_F(PluginBuildTest, AliasBetweenDifferentTypesIsRejected)
{
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {3, 4});
    V3Config c;
    c.mode = V3Mode::kNON_ZERO; // output 0 is INT32, input 0 is FP32
    c.aliasInput = 0;
    IPluginV3Layer* l = addV3(r, {x}, {}, c, "mismatched");
    ASSERT_NE(l, nullptr);
    r.markOutput(l->getOutput(0), "indices");
    r.markOutput(l->getOutput(1), "count");
    EXPECT_FALSE(r.build());
    EXPECT_TRUE(r.logger().hasError("'mismatched'")) << r.logger().allErrors();
    EXPECT_TRUE(r.logger().hasError("types/formats differ (FP32/kLINEAR vs INT32/kLINEAR)")) << r.logger().allErrors();
}

TEST_F(PluginBuildTest, PluginWithoutCpuOptInIsRejected)
{
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {4});
    TestScaleV2NoCpu plugin(ScaleConfig{});
    ITensor* inputs[] = {x};
    IPluginV2Layer* l = r.network().addPluginV2(inputs, 1, plugin);
    ASSERT_NE(l, nullptr) << r.logger().allErrors();
    l->setName("gpuOnly");
    r.markOutput(l->getOutput(0), "y");
    EXPECT_FALSE(r.build());
    EXPECT_TRUE(r.logger().hasError("KilnTestScale")) << r.logger().allErrors();
    EXPECT_TRUE(r.logger().hasError("'gpuOnly'")) << r.logger().allErrors();
    EXPECT_TRUE(r.logger().hasError("does not support the CPU backend")) << r.logger().allErrors();
    EXPECT_TRUE(r.logger().hasError("kiln::IPluginCpuSupport")) << r.logger().allErrors();
}

TEST_F(PluginBuildTest, NullBuilderCloneFailsTheBuild)
{
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {4});
    ScaleConfig c;
    c.cloneBudget = 1; // the network's clone works, the builder's copy is nullptr
    r.markOutput(addScale(r, x, c, "fragile"), "y");
    EXPECT_FALSE(r.build());
    EXPECT_TRUE(r.logger().hasError("KilnTestScale")) << r.logger().allErrors();
    EXPECT_TRUE(r.logger().hasError("clone")) << r.logger().allErrors();
}

TEST_F(PluginBuildTest, ConfigureFailureFailsTheBuild)
{
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {4});
    V3Config c;
    c.failConfigure = 1;
    IPluginV3Layer* l = addV3(r, {x}, {}, c, "unconfigurable");
    ASSERT_NE(l, nullptr);
    r.markOutput(l->getOutput(0), "y");
    EXPECT_FALSE(r.build());
    EXPECT_TRUE(r.logger().hasError("KilnTestV3")) << r.logger().allErrors();
    EXPECT_TRUE(r.logger().hasError("'unconfigurable'")) << r.logger().allErrors();
    EXPECT_TRUE(r.logger().hasError("configurePlugin")) << r.logger().allErrors();
}

TEST_F(PluginBuildTest, BadOutputDimsFailTheBuild)
{
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {4});
    ScaleConfig c;
    c.badDims = 1;
    r.markOutput(addScale(r, x, c, "badDims"), "y");
    EXPECT_FALSE(r.build());
    EXPECT_TRUE(r.logger().hasError("KilnTestScale")) << r.logger().allErrors();
    EXPECT_TRUE(r.logger().hasError("getOutputDimensions")) << r.logger().allErrors();
}

TEST_F(PluginBuildTest, SizeTensorAndDataDependentTensorsInThePlan)
{
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {3, 4});
    V3Config c;
    c.mode = V3Mode::kNON_ZERO;
    IPluginV3Layer* l = addV3(r, {x}, {}, c, "nonZero");
    ASSERT_NE(l, nullptr);
    auto* copy = r.network().addIdentity(*l->getOutput(0)); // an internal data-dependent tensor
    ASSERT_NE(copy, nullptr);
    r.markOutput(copy->getOutput(0), "indices");
    r.markOutput(l->getOutput(1), "count");
    r.build(); // running needs an IOutputAllocator: the runtime tests cover it
    auto plan = builtPlan(r);
    ASSERT_TRUE(plan.has_value()) << r.logger().allErrors();
    PlanNode const* node = findNode(*plan, "nonZero");
    ASSERT_NE(node, nullptr);
    PlanTensor const& indices = plan->tensors[static_cast<size_t>(node->outputs[0])];
    PlanTensor const& count = plan->tensors[static_cast<size_t>(node->outputs[1])];
    ASSERT_GE(count.sizeTensorSymbol, 0);
    SymbolInfo const& symbol = plan->shapes.symbols()[static_cast<size_t>(count.sizeTensorSymbol)];
    EXPECT_EQ(symbol.kind, SymbolKind::kDATA_DEPENDENT);
    ASSERT_TRUE(plan->shapes.isValid(symbol.upper));
    EXPECT_EQ(plan->shapes.valueOrUnknown(symbol.upper), 12) << "declared upper bound: the input volume";
    EXPECT_EQ(plan->shapes.valueOrUnknown(symbol.opt), 6);
    ASSERT_EQ(indices.dims.size(), 1U);
    EXPECT_FALSE(plan->shapes.isConstant(indices.dims[0]));
    EXPECT_EQ(plan->profiles[0].tensorOffsets[static_cast<size_t>(node->outputs[0])], -1)
        << "a data-dependent tensor is not placed in the arena";
}

TEST_F(PluginBuildTest, ShapeInputIsAppendedAfterTheRegularInputs)
{
    NetworkRunner r;
    ITensor* data = r.addInput("data", DataType::kFLOAT, {6, 4});
    ITensor* like = r.addInput("like", DataType::kFLOAT, {3, 8});
    auto* shape = r.network().addShape(*like);
    ASSERT_NE(shape, nullptr);
    V3Config c;
    c.mode = V3Mode::kRESHAPE;
    IPluginV3Layer* l = addV3(r, {data}, {shape->getOutput(0)}, c, "reshape");
    ASSERT_NE(l, nullptr);
    r.markOutput(l->getOutput(0), "y");
    auto* keep = r.network().addIdentity(*like);
    r.markOutput(keep->getOutput(0), "likeCopy");
    bool const built = r.build();
    auto plan = builtPlan(r);
    ASSERT_TRUE(plan.has_value()) << r.logger().allErrors();
    PlanNode const* node = findNode(*plan, "reshape");
    ASSERT_NE(node, nullptr);
    ASSERT_EQ(node->inputs.size(), 2U);
    EXPECT_EQ(node->attrs.getInt("plugin.nbShapeInputs", -1), 1);
    EXPECT_TRUE(plan->tensors[static_cast<size_t>(node->inputs[1])].hasValues);

    ASSERT_TRUE(built) << r.logger().allErrors();
    HostTensor in = HostTensor::random(DataType::kFLOAT, makeDims({6, 4}), mRng);
    HostTensor likeIn = HostTensor::random(DataType::kFLOAT, makeDims({3, 8}), mRng);
    auto out = r.run({{"data", in}, {"like", likeIn}});
    HostTensor expected = in;
    expected.dims = makeDims({3, 8});
    EXPECT_TRUE(allClose(out["y"], expected, 0.0, 0.0));
}

} // namespace
} // namespace kiln::test
