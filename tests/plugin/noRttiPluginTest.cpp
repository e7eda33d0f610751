// noRttiPluginTest.cpp — plugin libraries compiled with -fno-rtti (issue 17, finding 4) through the builder and the
// runtime on the CPU backend: libkilnNoRttiToyPlugins.so opts in without RTTI (an IPluginV2DynamicExt whose creator
// lists kiln::kPLUGIN_CPU_SUPPORT_FIELD, an IPluginV3 that answers kiln::kPLUGIN_CAPABILITY_CPU), and
// libkilnNoRttiBareToyPlugins.so carries only the kiln::IPluginCpuSupport mix-in, which Kiln cannot see without type
// information: its plugins must get the usual clear error, never a crash. The plugins are checkerBrokenPlugins.h's
// (tests/tools/CMakeLists.txt builds the libraries); the checker side is in tests/tools (kilnexec.checkPlugin.noRtti*).
#include "NvInfer.h"
#include "common/networkRunner.h"
#include "core/runtimeTypeInfo.h"
#include "kiln/KilnPluginCpu.h"
#include "samplePluginsTestUtils.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <random>
#include <string>

KILN_IGNORE_DEPRECATED_BEGIN

namespace kiln::test
{
namespace
{

using namespace nvinfer1;
using samplesupport::RecordingOutputAllocator;

std::string libraryPath(char const* name)
{
    return std::string(KILN_LIBRARY_DIR) + "/lib" + name + ".so";
}

//! Loads a plugin library into the global registry for the test's duration.
class LoadedLibrary
{
public:
    explicit LoadedLibrary(char const* name)
        : mHandle(getPluginRegistry()->loadLibrary(libraryPath(name).c_str()))
    {
    }
    ~LoadedLibrary()
    {
        if (mHandle != nullptr)
        {
            getPluginRegistry()->deregisterLibrary(mHandle);
        }
    }
    LoadedLibrary(LoadedLibrary const&) = delete;
    LoadedLibrary& operator=(LoadedLibrary const&) = delete;
    bool loaded() const { return mHandle != nullptr; }

private:
    IPluginRegistry::PluginLibraryHandle mHandle;
};

IPluginCreator* creatorV1(char const* name)
{
    IPluginCreatorInterface* c = getPluginRegistry()->getCreator(name, "1", "");
    if (c == nullptr || std::strcmp(c->getInterfaceInfo().kind, "PLUGIN CREATOR_V1") != 0)
    {
        return nullptr;
    }
    return static_cast<IPluginCreator*>(c); // no dynamic_cast: the creator has no type information
}

IPluginCreatorV3One* creatorV3(char const* name)
{
    IPluginCreatorInterface* c = getPluginRegistry()->getCreator(name, "1", "");
    if (c == nullptr || std::strcmp(c->getInterfaceInfo().kind, "PLUGIN CREATOR_V3ONE") != 0)
    {
        return nullptr;
    }
    return static_cast<IPluginCreatorV3One*>(c);
}

//! out = alpha * in0 + in1 through the V2DynamicExt plugin `name`, on dynamic [-1, -1] inputs.
void buildV2Network(NetworkRunner& runner, char const* name, float const& alpha,
    std::unique_ptr<IPluginV2, void (*)(IPluginV2*)>& plugin)
{
    IPluginCreator* creator = creatorV1(name);
    ASSERT_NE(creator, nullptr) << name;
    PluginField const field("alpha", &alpha, PluginFieldType::kFLOAT32, 1);
    PluginFieldCollection const fc{1, &field};
    plugin.reset(creator->createPlugin("toy", &fc));
    ASSERT_NE(plugin, nullptr);
    ITensor* a = runner.addInput("a", DataType::kFLOAT, {-1, -1});
    ITensor* b = runner.addInput("b", DataType::kFLOAT, {-1, -1});
    ITensor* inputs[] = {a, b};
    IPluginV2Layer* layer = runner.network().addPluginV2(inputs, 2, *plugin);
    ASSERT_NE(layer, nullptr) << runner.logger().allErrors();
    layer->setName("toy");
    runner.markOutput(layer->getOutput(0), "out");
    runner.setProfileDims("a", {1, 1}, {3, 5}, {6, 8});
    runner.setProfileDims("b", {1, 1}, {3, 5}, {6, 8});
}

//! NonZero-like V3 plugin `name`: indices [2, K] of the elements above `threshold`, and the size tensor K.
void buildV3Network(NetworkRunner& runner, char const* name, float const& threshold, std::unique_ptr<IPluginV3>& plugin)
{
    IPluginCreatorV3One* creator = creatorV3(name);
    ASSERT_NE(creator, nullptr) << name;
    PluginField const field("threshold", &threshold, PluginFieldType::kFLOAT32, 1);
    PluginFieldCollection const fc{1, &field};
    plugin.reset(creator->createPlugin("toyV3", &fc, TensorRTPhase::kBUILD));
    ASSERT_NE(plugin, nullptr);
    ITensor* x = runner.addInput("x", DataType::kFLOAT, {-1, -1});
    ITensor* inputs[] = {x};
    IPluginV3Layer* layer = runner.network().addPluginV3(inputs, 1, nullptr, 0, *plugin);
    ASSERT_NE(layer, nullptr) << runner.logger().allErrors();
    layer->setName("toyV3");
    runner.markOutput(layer->getOutput(0), "indices");
    runner.markOutput(layer->getOutput(1), "count");
    runner.setProfileDims("x", {1, 1}, {4, 6}, {8, 10});
}

TEST(NoRttiPlugins, LibrariesReallyLackTypeInformation)
{
    LoadedLibrary lib("kilnNoRttiToyPlugins");
    ASSERT_TRUE(lib.loaded());
    IPluginCreator* creator = creatorV1("NoRttiToy");
    ASSERT_NE(creator, nullptr);
    EXPECT_FALSE(hasRuntimeTypeInfo(creator)) << "the library was not compiled with -fno-rtti";
    float const alpha = 1.0F;
    PluginField const field("alpha", &alpha, PluginFieldType::kFLOAT32, 1);
    PluginFieldCollection const fc{1, &field};
    std::unique_ptr<IPluginV2, void (*)(IPluginV2*)> plugin(
        creator->createPlugin("p", &fc), [](IPluginV2* p) { p->destroy(); });
    ASSERT_NE(plugin, nullptr);
    EXPECT_FALSE(hasRuntimeTypeInfo(plugin.get()));
    EXPECT_EQ(safeDynamicCast<IPluginV2DynamicExt>(plugin.get()), nullptr);
    // Kiln's own objects keep theirs, so the casts on objects of the API still work.
    EXPECT_TRUE(hasRuntimeTypeInfo(getPluginRegistry()));
}

TEST(NoRttiPlugins, V2DynamicExtDeclaredByItsCreatorBuildsAndRuns)
{
    LoadedLibrary lib("kilnNoRttiToyPlugins");
    ASSERT_TRUE(lib.loaded());
    NetworkRunner runner;
    float const alpha = 2.5F;
    std::unique_ptr<IPluginV2, void (*)(IPluginV2*)> plugin(nullptr, [](IPluginV2* p) { p->destroy(); });
    buildV2Network(runner, "NoRttiToy", alpha, plugin);
    ASSERT_TRUE(runner.build()) << runner.logger().allErrors();
    std::mt19937 rng(1701);
    for (auto const& shape : {std::vector<int64_t>{3, 5}, std::vector<int64_t>{6, 2}})
    {
        HostTensor const a = HostTensor::random(DataType::kFLOAT, makeDims(shape), rng);
        HostTensor const b = HostTensor::random(DataType::kFLOAT, makeDims(shape), rng);
        auto outputs = runner.run({{"a", a}, {"b", b}});
        HostTensor expected(DataType::kFLOAT, a.dims);
        for (int64_t i = 0; i < a.volume(); ++i)
        {
            expected.set(i, static_cast<double>(alpha * static_cast<float>(a.at(i)) + static_cast<float>(b.at(i))));
        }
        EXPECT_TRUE(allClose(outputs["out"], expected, 1e-6, 1e-6)) << dimsString(a.dims);
    }
}

TEST(NoRttiPlugins, V3AnsweringTheKilnCapabilityBuildsAndRuns)
{
    LoadedLibrary lib("kilnNoRttiToyPlugins");
    ASSERT_TRUE(lib.loaded());
    NetworkRunner runner;
    float const threshold = 0.25F;
    std::unique_ptr<IPluginV3> plugin;
    buildV3Network(runner, "NoRttiToyV3", threshold, plugin);
    ASSERT_TRUE(runner.build()) << runner.logger().allErrors();
    std::mt19937 rng(1702);
    HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({5, 7}), rng);
    std::vector<double> rows;
    std::vector<double> cols;
    for (int64_t i = 0; i < x.volume(); ++i)
    {
        if (static_cast<float>(x.at(i)) > threshold)
        {
            rows.push_back(static_cast<double>(i / 7));
            cols.push_back(static_cast<double>(i % 7));
        }
    }
    ASSERT_FALSE(rows.empty());
    std::vector<double> values = rows;
    values.insert(values.end(), cols.begin(), cols.end());
    HostTensor const expected = HostTensor::fromValues(
        DataType::kINT32, makeDims({2, static_cast<int64_t>(rows.size())}), values);
    RecordingOutputAllocator allocator;
    std::map<std::string, HostTensor> outputs;
    ASSERT_TRUE(samplesupport::runEngine(runner.engine(), {{"x", x}}, outputs, 0, {{"indices", &allocator}}))
        << runner.logger().allErrors();
    EXPECT_TRUE(sameBits(outputs["indices"], expected));
    EXPECT_EQ(outputs["count"].at(0), static_cast<double>(rows.size()));
}

TEST(NoRttiPlugins, V2WithOnlyTheMixInGetsTheUsualError)
{
    LoadedLibrary lib("kilnNoRttiBareToyPlugins");
    ASSERT_TRUE(lib.loaded());
    NetworkRunner runner;
    float const alpha = 2.0F;
    std::unique_ptr<IPluginV2, void (*)(IPluginV2*)> plugin(nullptr, [](IPluginV2* p) { p->destroy(); });
    buildV2Network(runner, "NoRttiBareToy", alpha, plugin);
    EXPECT_FALSE(runner.build());
    EXPECT_TRUE(runner.logger().hasError("plugin 'NoRttiBareToy'")) << runner.logger().allErrors();
    EXPECT_TRUE(runner.logger().hasError("kiln::kPLUGIN_CPU_SUPPORT_FIELD")) << runner.logger().allErrors();
}

TEST(NoRttiPlugins, V3WithOnlyTheMixInGetsTheUsualError)
{
    LoadedLibrary lib("kilnNoRttiBareToyPlugins");
    ASSERT_TRUE(lib.loaded());
    NetworkRunner runner;
    float const threshold = 0.0F;
    std::unique_ptr<IPluginV3> plugin;
    // Its getCapabilityInterface answers kiln::kPLUGIN_CAPABILITY_CPU with its core interface: Kiln must see the
    // wrong interface kind and refuse, not use it as the CPU capability.
    buildV3Network(runner, "NoRttiBareToyV3", threshold, plugin);
    EXPECT_FALSE(runner.build());
    EXPECT_TRUE(runner.logger().hasError("plugin 'NoRttiBareToyV3'")) << runner.logger().allErrors();
    EXPECT_TRUE(runner.logger().hasError("kiln::kPLUGIN_CAPABILITY_CPU")) << runner.logger().allErrors();
}

} // namespace
} // namespace kiln::test

KILN_IGNORE_DEPRECATED_END
