// Tests of deserializePlugin (src/plugin/pluginDeserialize.cpp): recreating engine plugins through a registry and
// its parent (V2 family via IPluginCreator::deserializePlugin, V3 via createPlugin(kRUNTIME)), the "no plugin
// creator" message with the registries searched and the closest registered creators, generation mismatches,
// creators returning nullptr and corrupt V3 fields. Also generation detection details and supportsCpu on a V3
// plugin whose runtime capability carries the CPU mix-in.
#include "common/networkRunner.h"
#include "plugin/pluginAdapter.h"
#include "plugin/pluginAdapterTestPlugins.h"
#include "plugin/pluginRegistry.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

KILN_IGNORE_DEPRECATED_BEGIN

namespace
{
using namespace nvinfer1;
using namespace kiln;
using namespace kiln::adapter_test;
using ::testing::HasSubstr;

PluginTensorDesc desc(std::vector<int64_t> const& dims)
{
    PluginTensorDesc d{};
    d.dims = kiln::test::makeDims(dims);
    d.type = DataType::kFLOAT;
    d.format = TensorFormat::kLINEAR;
    d.scale = -1.0F;
    return d;
}

class PluginDeserializeTest : public ::testing::Test
{
protected:
    kiln::test::CapturingLogger mLog;
    Logger mLogger{&mLog};
    std::shared_ptr<Behaviour> mB = std::make_shared<Behaviour>();
    std::mt19937 mRng{std::random_device{}()};
    DynCreator mDynCreator{mB};
    V3Creator mV3Creator{mB};
    std::unique_ptr<PluginRegistry> mParent = createLocalRegistry(nullptr, &mLog, "the parent registry");
    std::unique_ptr<PluginRegistry> mChild = createLocalRegistry(mParent.get(), &mLog, "the child registry");

    float randomScale()
    {
        return std::uniform_real_distribution<float>(0.5F, 4.0F)(mRng);
    }
};

TEST_F(PluginDeserializeTest, V2FromParentRegistryRunsWithItsState)
{
    ASSERT_TRUE(mParent->registerCreator(mDynCreator, "ns"));
    float const scale = randomScale();
    std::string data;
    {
        DynPlugin plugin(mB, scale);
        data = PluginAdapter::wrapV2(&plugin, PluginOwnership::kBORROWED, mLogger).value()->serialize().value();
    }
    PluginRecord record{"Dyn", "1", "ns", PluginGeneration::kV2_DYNAMIC_EXT, data, 0, {}};
    auto adapter = deserializePlugin(*mChild, record, "dyn7", mLogger);
    ASSERT_TRUE(adapter.isOk()) << adapter.status().message();
    PluginAdapter& a = *adapter.value();
    EXPECT_EQ(a.generation(), PluginGeneration::kV2_DYNAMIC_EXT);
    EXPECT_EQ(a.layerName(), "dyn7");
    EXPECT_EQ(a.pluginNamespace(), "ns"); // set on the deserialized plugin, as TensorRT does
    EXPECT_TRUE(mB->called("creator.deserializePlugin"));
    ASSERT_TRUE(a.initialize().isOk());

    std::uniform_real_distribution<float> dist(-3.0F, 3.0F);
    std::vector<float> x(6), y(4);
    for (auto& v : x)
    {
        v = dist(mRng);
    }
    for (auto& v : y)
    {
        v = dist(mRng);
    }
    std::vector<float> out0(10, std::nanf("")), out1(6, std::nanf(""));
    std::vector<uint8_t> ws(mB->workspace);
    void const* in[] = {x.data(), y.data()};
    void* out[] = {out0.data(), out1.data()};
    ASSERT_TRUE(a.enqueue({desc({3, 2}), desc({2, 2})}, {desc({5, 2}), desc({3, 2})}, in, out, ws.data(), nullptr).isOk());
    for (size_t i = 0; i < 6; ++i)
    {
        EXPECT_EQ(out0[i], x[i] * scale);
        EXPECT_EQ(out1[i], x[i] * scale);
    }
    for (size_t i = 0; i < 4; ++i)
    {
        EXPECT_EQ(out0[6 + i], y[i] * scale);
    }
    adapter = StatusOr<std::unique_ptr<PluginAdapter>>(internalError("released"));
    EXPECT_TRUE(mB->called("terminate"));
    EXPECT_EQ(mB->liveObjects.load(), 0);
}

TEST_F(PluginDeserializeTest, MissingCreatorNamesRegistriesAndClosestCreators)
{
    ASSERT_TRUE(mParent->registerCreator(mDynCreator, "ns"));
    ASSERT_TRUE(mChild->registerCreator(mV3Creator, "test"));
    PluginRecord record{"Dyn", "2", "ns", PluginGeneration::kV2_DYNAMIC_EXT, "", 0, {}};
    auto missing = deserializePlugin(*mChild, record, "layerX", mLogger);
    ASSERT_FALSE(missing.isOk());
    std::string const& m = missing.status().message();
    EXPECT_THAT(m, HasSubstr("no plugin creator for 'Dyn' version '2' namespace 'ns' (needed by layer 'layerX')"));
    EXPECT_THAT(m, HasSubstr("searched the child registry then the parent registry"));
    EXPECT_THAT(m, HasSubstr("closest registered: 'Dyn' version '1' namespace 'ns' (IPluginCreator, in the parent "
                             "registry), 'V3Toy' version '2' namespace 'test' (IPluginCreatorV3One, in the child "
                             "registry)"));
    EXPECT_THAT(m, HasSubstr("initLibNvInferPlugins() or IPluginRegistry::loadLibrary()"));
    EXPECT_THAT(m, HasSubstr("REGISTER_TENSORRT_PLUGIN"));

    // Ranked by edit distance when no name matches.
    PluginRecord typo{"V3Tay", "2", "test", PluginGeneration::kV3_ONE, "", 0, {}};
    auto t = deserializePlugin(*mChild, typo, "l", mLogger);
    ASSERT_FALSE(t.isOk());
    EXPECT_LT(t.status().message().find("'V3Toy'"), t.status().message().find("'Dyn'"));

    // Without parent search only the child is searched.
    mChild->setParentSearchEnabled(false);
    auto child = deserializePlugin(*mChild, record, "layerX", mLogger);
    ASSERT_FALSE(child.isOk());
    EXPECT_THAT(child.status().message(), HasSubstr("searched the child registry;"));
    EXPECT_THAT(child.status().message(), ::testing::Not(HasSubstr("in the parent registry")));
}

TEST_F(PluginDeserializeTest, EmptyRegistrySaysSo)
{
    auto lonely = createLocalRegistry(nullptr, &mLog, "the runtime's plugin registry");
    PluginRecord record{"Bar", "1", "", PluginGeneration::kV2_DYNAMIC_EXT, "", 0, {}};
    auto r = deserializePlugin(*lonely, record, "bar", mLogger);
    ASSERT_FALSE(r.isOk());
    EXPECT_THAT(r.status().message(), HasSubstr("searched the runtime's plugin registry; no plugin creators are registered"));
}

TEST_F(PluginDeserializeTest, GenerationMismatchAndNullResults)
{
    ASSERT_TRUE(mChild->registerCreator(mDynCreator, ""));
    ASSERT_TRUE(mChild->registerCreator(mV3Creator, "test"));
    PluginRecord wrongV3{"Dyn", "1", "", PluginGeneration::kV3_ONE, "", 0, {}};
    auto a = deserializePlugin(*mChild, wrongV3, "l1", mLogger);
    ASSERT_FALSE(a.isOk());
    EXPECT_THAT(a.status().message(), HasSubstr("layer 'l1': the engine holds an IPluginV3 plugin 'Dyn'"));
    EXPECT_THAT(a.status().message(), HasSubstr("the registered creator is an IPluginCreator"));

    PluginRecord wrongV2{"V3Toy", "2", "test", PluginGeneration::kV2_EXT, "", 0, {}};
    auto b = deserializePlugin(*mChild, wrongV2, "l2", mLogger);
    ASSERT_FALSE(b.isOk());
    EXPECT_THAT(b.status().message(), HasSubstr("IPluginV2Ext plugin 'V3Toy'"));
    EXPECT_THAT(b.status().message(), HasSubstr("IPluginCreatorV3One"));

    PluginRecord badData{"Dyn", "1", "", PluginGeneration::kV2_DYNAMIC_EXT, "toolong!", 0, {}};
    auto c = deserializePlugin(*mChild, badData, "l3", mLogger);
    ASSERT_FALSE(c.isOk());
    EXPECT_THAT(c.status().message(), HasSubstr("IPluginCreator of plugin 'Dyn'"));
    EXPECT_THAT(c.status().message(), HasSubstr("deserializePlugin returned nullptr for layer 'l3' (8 bytes)"));

    PluginRecord corrupt{"V3Toy", "2", "test", PluginGeneration::kV3_ONE, "KPF1garbage", 0, {}};
    auto d = deserializePlugin(*mChild, corrupt, "l4", mLogger);
    ASSERT_FALSE(d.isOk());
    EXPECT_THAT(d.status().message(), HasSubstr("layer 'l4', plugin 'V3Toy' version '2' namespace 'test'"));
    EXPECT_THAT(d.status().message(), HasSubstr("corrupt plugin field data"));
}

TEST_F(PluginDeserializeTest, V3RuntimeObjectGetsTheSerializedFields)
{
    ASSERT_TRUE(mChild->registerCreator(mV3Creator, "test"));
    float const scale = randomScale();
    std::string data;
    {
        V3Plugin plugin(mB, scale, false);
        data = PluginAdapter::wrapV3(&plugin, PluginOwnership::kBORROWED, TensorRTPhase::kBUILD, mLogger)
                   .value()
                   ->serialize()
                   .value();
    }
    auto adapter = deserializePlugin(
        *mChild, PluginRecord{"V3Toy", "2", "test", PluginGeneration::kV3_ONE, data, 0, {}}, "v", mLogger);
    ASSERT_TRUE(adapter.isOk()) << adapter.status().message();
    auto* plugin = static_cast<V3Plugin*>(static_cast<IPluginV3*>(adapter.value()->object()));
    std::vector<float> x{1.25F, -0.5F, 3.0F, 2.0F}, y(4, std::nanf(""));
    void const* in[] = {x.data()};
    void* out[] = {y.data()};
    ASSERT_TRUE(adapter.value()->enqueue({desc({4})}, {desc({4})}, in, out, nullptr, nullptr).isOk());
    for (size_t i = 0; i < 4; ++i)
    {
        EXPECT_EQ(y[i], x[i] * scale);
    }
    EXPECT_EQ(plugin->tactic(), 0);
}

// ---- Generation details --------------------------------------------------------------------------------------

//! A Python IPluginV2DynamicExt reports kV2_DYNAMICEXT_PYTHON (0x43) in the top byte.
class PythonTagPlugin : public DynPlugin
{
public:
    using DynPlugin::DynPlugin;

protected:
    int32_t getTensorRTVersion() const noexcept override
    {
        return static_cast<int32_t>((0x43U << 24U) | 1600U);
    }
};

class NullTypePlugin : public DynPlugin
{
public:
    using DynPlugin::DynPlugin;
    char const* getPluginType() const noexcept override { return nullptr; }
};

TEST_F(PluginDeserializeTest, PythonTagIsDynamicExtAndOwnedFailuresDestroy)
{
    PythonTagPlugin python(mB, 1.0F);
    auto a = PluginAdapter::wrapV2(&python, PluginOwnership::kBORROWED, mLogger);
    ASSERT_TRUE(a.isOk());
    EXPECT_EQ(a.value()->generation(), PluginGeneration::kV2_DYNAMIC_EXT);

    int32_t const before = mB->liveObjects.load();
    auto* nullType = new NullTypePlugin(mB, 1.0F);
    auto b = PluginAdapter::wrapV2(nullType, PluginOwnership::kOWNED, mLogger);
    ASSERT_FALSE(b.isOk());
    EXPECT_THAT(b.status().message(), HasSubstr("IPluginV2DynamicExt): getPluginType() returned nullptr"));
    EXPECT_EQ(mB->liveObjects.load(), before);
}

//! An IPluginV3 whose capabilities live in another object; only the runtime capability has the CPU mix-in.
class SplitPlugin : public IPluginV3
{
public:
    explicit SplitPlugin(V3Plugin* inner)
        : mInner(inner)
    {
    }
    ~SplitPlugin() override { delete mInner; }
    IPluginCapability* getCapabilityInterface(PluginCapabilityType type) noexcept override
    {
        return mInner->getCapabilityInterface(type);
    }
    IPluginV3* clone() noexcept override { return new SplitPlugin(static_cast<V3Plugin*>(mInner->clone())); }

private:
    V3Plugin* mInner;
};

TEST_F(PluginDeserializeTest, SupportsCpuLooksAtTheRuntimeCapability)
{
    SplitPlugin split(new V3Plugin(mB, 1.0F, false));
    auto a = PluginAdapter::wrapV3(&split, PluginOwnership::kBORROWED, TensorRTPhase::kBUILD, mLogger);
    ASSERT_TRUE(a.isOk()) << a.status().message();
    EXPECT_TRUE(a.value()->supportsCpu());
    mB->cpu = false;
    EXPECT_FALSE(a.value()->supportsCpu());
    // A throwing supportsCpu counts as "no", with an error in the log.
    mB->cpu = true;
    class Throwing : public V3Plugin
    {
    public:
        using V3Plugin::V3Plugin;
        bool supportsCpu() const noexcept override
        {
            return [] () -> bool { throw std::runtime_error("cpu check failed"); }();
        }
    };
    Throwing throwing(mB, 1.0F, false);
    auto t = PluginAdapter::wrapV3(&throwing, PluginOwnership::kBORROWED, TensorRTPhase::kBUILD, mLogger);
    ASSERT_TRUE(t.isOk());
    EXPECT_FALSE(t.value()->supportsCpu());
    EXPECT_TRUE(mLog.hasError("cpu check failed"));
}

} // namespace

KILN_IGNORE_DEPRECATED_END
