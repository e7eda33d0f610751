// Tactic timing in the builder (builder/tacticTiming.h) on a null backend that claims timing and offers two no-op
// tactics: a node is timed once per configuration; later nodes with the same configuration (kind, attributes,
// candidates, tensor types, formats and extents; the weights' values do not count) take the recorded choice and say
// where it came from, and a node of another configuration is timed on its own.
#include "NvInfer.h"
#include "backends/null/nullBackend.h"
#include "builder/builder.h"
#include "builder/builderConfig.h"
#include "common/networkRunner.h"
#include "engine/engineReader.h"
#include "network/networkDefinition.h"

#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

namespace
{
using namespace nvinfer1;

std::vector<float> randomWeights(std::mt19937& rng, size_t n)
{
    std::uniform_real_distribution<float> dist(-1.F, 1.F);
    std::vector<float> w(n);
    for (float& v : w)
    {
        v = dist(rng);
    }
    return w;
}

kiln::PlanNode const* nodeNamed(kiln::Plan const& plan, std::string const& name)
{
    for (kiln::PlanNode const& n : plan.nodes)
    {
        if (n.name == name)
        {
            return &n;
        }
    }
    return nullptr;
}

TEST(TacticTiming, IdenticalLayersAreTimedOnce)
{
    kiln::test::CapturingLogger logger;
    std::unique_ptr<IBuilder> builder(createInferBuilder(logger));
    std::unique_ptr<INetworkDefinition> network(builder->createNetworkV2(0));
    std::mt19937 rng(17);
    std::vector<std::vector<float>> weights;
    ITensor* x = network->addInput("x", DataType::kFLOAT, Dims4{2, 8, 12, 12});
    // a1, a2, a3: the same configuration with different weights; b: 16 maps instead of 8.
    for (char const* name : {"a1", "a2", "a3", "b"})
    {
        int32_t const maps = std::string(name) == "b" ? 16 : 8;
        weights.push_back(randomWeights(rng, static_cast<size_t>(maps * 8 * 9)));
        auto* conv = network->addConvolutionNd(*x, maps, Dims2{3, 3},
            Weights{DataType::kFLOAT, weights.back().data(), static_cast<int64_t>(weights.back().size())},
            Weights{DataType::kFLOAT, nullptr, 0});
        ASSERT_NE(conv, nullptr);
        conv->setPaddingNd(Dims2{1, 1});
        conv->setName(name);
        x = conv->getOutput(0);
    }
    x->setName("y");
    network->markOutput(*x);

    kiln::BackendCapabilities caps;
    caps.timesTactics = true;
    std::unique_ptr<kiln::Backend> backend = kiln::createNullBackend(caps, "null-timing");
    std::unique_ptr<IBuilderConfig> config(builder->createBuilderConfig());
    int64_t const runsBefore = kiln::nullKernelRuns();
    auto bytes = static_cast<kiln::Builder&>(*builder).buildEngineBytes(
        static_cast<kiln::NetworkDefinition&>(*network), static_cast<kiln::BuilderConfig&>(*config), *backend);
    ASSERT_TRUE(bytes.isOk()) << bytes.status().message() << logger.allErrors();
    int64_t const runs = kiln::nullKernelRuns() - runsBefore;
    auto plan = kiln::readEngine(bytes.value().data(), bytes.value().size());
    ASSERT_TRUE(plan.isOk()) << plan.status().message();

    kiln::PlanNode const* a1 = nodeNamed(*plan, "a1");
    kiln::PlanNode const* b = nodeNamed(*plan, "b");
    ASSERT_NE(a1, nullptr);
    ASSERT_NE(b, nullptr);
    for (kiln::PlanNode const* timed : {a1, b})
    {
        std::string const report = timed->attrs.getString("tactic.timing");
        EXPECT_NE(report.find("null-b"), std::string::npos) << timed->name << ": " << report;
        EXPECT_EQ(report.find("timed at layer"), std::string::npos) << timed->name << ": " << report;
        EXPECT_TRUE(timed->tactic == "null" || timed->tactic == "null-b") << timed->tactic;
    }
    for (char const* name : {"a2", "a3"})
    {
        kiln::PlanNode const* same = nodeNamed(*plan, name);
        ASSERT_NE(same, nullptr);
        EXPECT_EQ(same->tactic, a1->tactic) << name;
        EXPECT_NE(same->attrs.getString("tactic.timing").find("timed at layer 'a1'"), std::string::npos)
            << name << ": " << same->attrs.getString("tactic.timing");
    }
    // Two nodes timed: at most 2 tactics x (1 warm-up + 5 timed runs) each; four timed nodes would take up to 48.
    EXPECT_GT(runs, 0);
    EXPECT_LE(runs, 2 * 2 * 6);
}

} // namespace
