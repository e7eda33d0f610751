// engineTrustTest.cpp — issue 17, findings 2 and 3: engines whose checksums were recomputed after editing must be
// refused at load with a clear error, never crash or compute something else at run time. A real plugin engine whose
// recorded number of shape inputs is edited from 0 to 1 (the plugin would get no input descriptors), and arenas in
// which two tensors alive at the same time share bytes (an edited offset), at the Plan level and in the file.
#include "engine/engineReader.h"
#include "engine/engineWriter.h"
#include "engine/planValidation.h"
#include "plugin/samplePluginsTestUtils.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace kiln
{
namespace
{

using nvinfer1::DataType;
using Bytes = std::vector<uint8_t>;

//! x -> a -> b -> c -> y (four activations): a lives at steps 0..1, b 1..2, c 2..3. a and c may share bytes (the
//! builder's reuse), b may share with neither. Arena: a and c at 0, b at 256.
Plan chainPlan()
{
    Plan plan;
    plan.name = "chain";
    plan.apiVersion = NV_TENSORRT_VERSION;
    plan.kilnVersion = 100;
    ExprId const four = plan.shapes.constant(4);
    for (char const* name : {"x", "a", "b", "c", "y"})
    {
        PlanTensor t;
        t.name = name;
        t.type = DataType::kFLOAT;
        t.dims = {four};
        plan.tensors.push_back(t);
    }
    plan.tensors.front().ioMode = nvinfer1::TensorIOMode::kINPUT;
    plan.tensors.back().ioMode = nvinfer1::TensorIOMode::kOUTPUT;
    plan.ioTensors = {0, 4};
    for (int32_t i = 0; i < 4; ++i)
    {
        PlanNode n;
        n.kind = nvinfer1::LayerType::kACTIVATION;
        n.name = "act" + std::to_string(i);
        n.inputs = {i};
        n.outputs = {i + 1};
        plan.nodes.push_back(n);
    }
    PlanProfile p;
    p.arenaSize = 512;
    p.tensorOffsets = {-1, 0, 256, 0, -1};
    p.tensorCapacity = {0, 256, 256, 256, 0};
    plan.profiles.push_back(p);
    return plan;
}

void expectRefused(Plan const& plan, std::string const& expected)
{
    Status const st = validatePlan(plan);
    ASSERT_FALSE(st.isOk()) << "expected: " << expected;
    EXPECT_NE(st.message().find(expected), std::string::npos) << st.message();
}

TEST(EngineTrust, ArenaReuseOfDeadTensorsIsAccepted)
{
    Plan const plan = chainPlan();
    EXPECT_TRUE(validatePlan(plan).isOk()) << validatePlan(plan).message();
}

TEST(EngineTrust, TensorsAliveTogetherMustNotShareArenaBytes)
{
    Plan plan = chainPlan();
    plan.profiles[0].tensorOffsets[3] = 256; // c on b: both live at step 2
    expectRefused(plan, "profile 0: tensor 2 ('b') (arena bytes 256 to 512, live at steps 1 to 2) and tensor 3 ('c')");
    plan = chainPlan();
    plan.profiles[0].tensorCapacity[1] = 512; // a reaches into b: both live at step 1
    expectRefused(plan, "are alive at the same time in overlapping arena bytes");
    // A workspace of node 1 on top of a (live at steps 0..1).
    plan = chainPlan();
    plan.profiles[0].workspaceOffsets = {-1, 0, -1, -1};
    plan.profiles[0].workspaceSizes = {0, 16, 0, 0};
    expectRefused(plan, "the workspace of node 1 ('act1')");
    // With a moved away, the workspace lies on c's bytes only, which is fine: c is not alive yet at step 1.
    plan.profiles[0].arenaSize = 768;
    plan.profiles[0].tensorOffsets[1] = 512;
    EXPECT_TRUE(validatePlan(plan).isOk()) << validatePlan(plan).message();
}

TEST(EngineTrust, ArenaLargerThanItsSlotsIsRefused)
{
    // Every context allocates the declared arena: an edited size would make each one reserve memory nothing uses (a
    // fuzzed engine asked for 512 GiB this way; under AddressSanitizer the allocation alone exhausted the host).
    Plan plan = chainPlan();
    plan.profiles[0].arenaSize = 513;
    expectRefused(plan, "profile 0 declares an arena of 513 bytes, but its tensors and workspaces end at byte 512");
    plan.profiles[0].arenaSize = int64_t{1} << 39;
    expectRefused(plan, "but its tensors and workspaces end at byte 512");
    // A workspace's end counts, rounded up to the arena's alignment as the builder packs it.
    plan = chainPlan();
    plan.profiles[0].workspaceOffsets = {-1, -1, -1, 512};
    plan.profiles[0].workspaceSizes = {0, 0, 0, 16};
    plan.profiles[0].arenaSize = 768;
    EXPECT_TRUE(validatePlan(plan).isOk()) << validatePlan(plan).message();
    plan.profiles[0].arenaSize = 1024;
    expectRefused(plan, "end at byte 768");
}

TEST(EngineTrust, ArenaOffsetsKeepTheBuildersAlignment)
{
    // Kernels rely on the 256-byte alignment of arena tensors (a misaligned float load is undefined behaviour).
    Plan plan = chainPlan();
    plan.profiles[0].tensorOffsets[2] = 129;
    expectRefused(plan, "tensor 2 ('b') has arena offset 129, not a multiple of 256 bytes");
    plan = chainPlan();
    plan.profiles[0].workspaceOffsets = {-1, 300, -1, -1};
    plan.profiles[0].workspaceSizes = {0, 16, 0, 0};
    expectRefused(plan, "node 1 ('act1') has workspace offset 300, not a multiple of 256 bytes");
}

TEST(EngineTrust, EditedOffsetInTheFileIsRefusedAtLoad)
{
    // A valid plan with a sentinel offset for c, found in the bytes, then moved onto b's bytes.
    Plan plan = chainPlan();
    int64_t const sentinel = 0x5A5A5A00;
    plan.profiles[0].arenaSize = sentinel + 256;
    plan.profiles[0].tensorOffsets[3] = sentinel;
    auto written = writeEngine(plan);
    ASSERT_TRUE(written.isOk()) << written.status().message();
    Bytes bytes = written.value();
    size_t found = 0;
    size_t at = 0;
    for (size_t i = 0; i + 8 <= bytes.size(); ++i)
    {
        if (engine::loadU64(&bytes[i]) == static_cast<uint64_t>(sentinel))
        {
            ++found;
            at = i;
        }
    }
    ASSERT_EQ(found, 1U) << "the sentinel must occur once";
    engine::storeU64(&bytes[at], 256);
    engine::recomputeChecksums(bytes);
    auto read = readEngine(bytes.data(), bytes.size());
    ASSERT_FALSE(read.isOk()) << "an overlapping arena was accepted";
    EXPECT_NE(read.status().message().find("are alive at the same time in overlapping arena bytes"), std::string::npos)
        << read.status().message();
}

TEST(EngineTrust, PluginShapeInputsMustBeShapeTensors)
{
    Plan plan = chainPlan();
    plan.nodes[1].kind = nvinfer1::LayerType::kPLUGIN_V3;
    plan.nodes[1].attrs.setInt("plugin.nbShapeInputs", 1);
    expectRefused(plan, "node 1 ('act1'): input 0 is one of the plugin's 1 shape inputs, but tensor 1 ('a') is not "
                        "a 1-D INT32 or INT64 shape tensor");
    plan.nodes[1].attrs.setInt("plugin.nbShapeInputs", 2);
    expectRefused(plan, "node 1 ('act1') says its plugin has 2 shape inputs, but it has 1 inputs");
    plan.nodes[1].kind = nvinfer1::LayerType::kPLUGIN_V2;
    plan.nodes[1].attrs.setInt("plugin.nbShapeInputs", 1);
    expectRefused(plan, "only IPluginV3 plugins take shape inputs");
    plan.nodes[1].attrs.setInt("plugin.nbShapeInputs", 0);
    plan.nodes[1].attrs.setInts("plugin.aliases", {1});
    expectRefused(plan, "node 1 ('act1'): output 0 aliases input 1, but the plugin has 1 data inputs");
}

TEST(EngineTrust, CraftedPluginEngineWithAnEditedShapeInputCountIsRefusedAtLoad)
{
    // A real engine: x [R, C] -> NonZeroPlugin (IPluginV3, no shape input) -> indices, count.
    test::NetworkRunner runner;
    nvinfer1::ITensor* x = runner.addInput("x", DataType::kFLOAT, {-1, -1});
    auto plugin = test::samplesupport::createV3("NonZeroPlugin");
    ASSERT_NE(plugin, nullptr);
    nvinfer1::ITensor* inputs[] = {x};
    nvinfer1::IPluginV3Layer* layer = runner.network().addPluginV3(inputs, 1, nullptr, 0, *plugin);
    ASSERT_NE(layer, nullptr) << runner.logger().allErrors();
    runner.markOutput(layer->getOutput(0), "indices");
    runner.markOutput(layer->getOutput(1), "count");
    runner.setProfileDims("x", {1, 1}, {4, 6}, {8, 10});
    ASSERT_TRUE(runner.build()) << runner.logger().allErrors();
    Bytes bytes = runner.engineBytes();

    // The attribute "plugin.nbShapeInputs" is its key, a tag byte and a little-endian int64.
    std::string const key = "plugin.nbShapeInputs";
    auto const it = std::search(bytes.begin(), bytes.end(), key.begin(), key.end());
    ASSERT_NE(it, bytes.end());
    size_t const valueAt = static_cast<size_t>(it - bytes.begin()) + key.size() + 1;
    ASSERT_EQ(engine::loadU64(&bytes[valueAt]), 0U) << "the test's view of the attribute encoding is off";
    engine::storeU64(&bytes[valueAt], 1);
    engine::recomputeChecksums(bytes);

    test::CapturingLogger logger;
    std::unique_ptr<nvinfer1::IRuntime> runtime(nvinfer1::createInferRuntime(logger));
    ASSERT_NE(runtime, nullptr);
    std::unique_ptr<nvinfer1::ICudaEngine> engine(runtime->deserializeCudaEngine(bytes.data(), bytes.size()));
    EXPECT_EQ(engine, nullptr) << "the crafted engine was accepted";
    EXPECT_TRUE(logger.hasError("is one of the plugin's 1 shape inputs")) << logger.allErrors();
    EXPECT_TRUE(logger.hasError("is not a 1-D INT32 or INT64 shape tensor")) << logger.allErrors();
}

} // namespace
} // namespace kiln
