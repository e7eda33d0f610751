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

struct TimedBuild
{
    kiln::Plan plan;
    int64_t runs{0}; //!< kernel runs of the build (the timing's)
};

//! Builds x[2, 8, 12, 12] -> conv a1 -> a2 -> a3 (the same configuration, different weights) -> conv b (16 maps) for
//! a null backend that times two no-op tactics, with `config`.
TimedBuild buildFourConvolutions(IBuilderConfig& config)
{
    kiln::test::CapturingLogger logger;
    std::unique_ptr<IBuilder> builder(createInferBuilder(logger));
    std::unique_ptr<INetworkDefinition> network(builder->createNetworkV2(0));
    std::mt19937 rng(17);
    std::vector<std::vector<float>> weights;
    ITensor* x = network->addInput("x", DataType::kFLOAT, Dims4{2, 8, 12, 12});
    for (char const* name : {"a1", "a2", "a3", "b"})
    {
        int32_t const maps = std::string(name) == "b" ? 16 : 8;
        weights.push_back(randomWeights(rng, static_cast<size_t>(maps * 8 * 9)));
        auto* conv = network->addConvolutionNd(*x, maps, Dims2{3, 3},
            Weights{DataType::kFLOAT, weights.back().data(), static_cast<int64_t>(weights.back().size())},
            Weights{DataType::kFLOAT, nullptr, 0});
        conv->setPaddingNd(Dims2{1, 1});
        conv->setName(name);
        x = conv->getOutput(0);
    }
    x->setName("y");
    network->markOutput(*x);
    kiln::BackendCapabilities caps;
    caps.timesTactics = true;
    std::unique_ptr<kiln::Backend> backend = kiln::createNullBackend(caps, "null-timing");
    TimedBuild result;
    int64_t const runsBefore = kiln::nullKernelRuns();
    auto bytes = static_cast<kiln::Builder&>(*builder).buildEngineBytes(
        static_cast<kiln::NetworkDefinition&>(*network), static_cast<kiln::BuilderConfig&>(config), *backend);
    result.runs = kiln::nullKernelRuns() - runsBefore;
    EXPECT_TRUE(bytes.isOk()) << bytes.status().message() << logger.allErrors();
    if (!bytes.isOk())
    {
        return result;
    }
    auto plan = kiln::readEngine(bytes.value().data(), bytes.value().size());
    EXPECT_TRUE(plan.isOk()) << plan.status().message();
    if (plan.isOk())
    {
        result.plan = std::move(plan).value();
    }
    return result;
}

std::string timingOf(kiln::Plan const& plan, char const* name)
{
    kiln::PlanNode const* n = nodeNamed(plan, name);
    return n != nullptr ? n->attrs.getString("tactic.timing") : "(no node " + std::string(name) + ")";
}

TEST(TacticTiming, IdenticalLayersAreTimedOnce)
{
    kiln::test::CapturingLogger logger;
    std::unique_ptr<IBuilder> builder(createInferBuilder(logger));
    std::unique_ptr<IBuilderConfig> config(builder->createBuilderConfig());
    TimedBuild const build = buildFourConvolutions(*config);
    kiln::PlanNode const* a1 = nodeNamed(build.plan, "a1");
    ASSERT_NE(a1, nullptr);
    for (char const* name : {"a1", "b"})
    {
        std::string const report = timingOf(build.plan, name);
        EXPECT_NE(report.find("null-b"), std::string::npos) << name << ": " << report;
        EXPECT_EQ(report.find("timed at layer"), std::string::npos) << name << ": " << report;
    }
    for (char const* name : {"a2", "a3"})
    {
        EXPECT_EQ(nodeNamed(build.plan, name)->tactic, a1->tactic) << name;
        EXPECT_NE(timingOf(build.plan, name).find("timed at layer 'a1'"), std::string::npos)
            << name << ": " << timingOf(build.plan, name);
    }
    // Two nodes timed: at most 2 tactics x (1 warm-up + 5 timed runs) each; four timed nodes would take up to 48.
    EXPECT_GT(build.runs, 0);
    EXPECT_LE(build.runs, 2 * 2 * 6);
}

TEST(TacticTiming, DisableTimingCacheTimesEveryNode)
{
    kiln::test::CapturingLogger logger;
    std::unique_ptr<IBuilder> builder(createInferBuilder(logger));
    std::unique_ptr<IBuilderConfig> config(builder->createBuilderConfig());
    std::unique_ptr<ITimingCache> cache(config->createTimingCache(nullptr, 0));
    ASSERT_NE(cache, nullptr);
    ASSERT_TRUE(config->setTimingCache(*cache, false));
    config->setFlag(BuilderFlag::kDISABLE_TIMING_CACHE);
    TimedBuild const build = buildFourConvolutions(*config);
    for (char const* name : {"a1", "a2", "a3", "b"})
    {
        std::string const report = timingOf(build.plan, name);
        EXPECT_NE(report.find("null-b"), std::string::npos) << name << ": " << report;
        EXPECT_EQ(report.find("timed at layer"), std::string::npos) << name << ": " << report;
        EXPECT_EQ(report.find("timing cache"), std::string::npos) << name << ": " << report;
    }
    EXPECT_EQ(cache->queryKeys(nullptr, 0), 0) << "kDISABLE_TIMING_CACHE leaves the cache untouched";
}

TEST(TacticTiming, RebuildFromASavedTimingCacheTimesNothing)
{
    kiln::test::CapturingLogger logger;
    std::unique_ptr<IBuilder> builder(createInferBuilder(logger));
    std::unique_ptr<IBuilderConfig> first(builder->createBuilderConfig());
    std::unique_ptr<ITimingCache> cache(first->createTimingCache(nullptr, 0));
    ASSERT_NE(cache, nullptr);
    ASSERT_TRUE(first->setTimingCache(*cache, false));
    TimedBuild const timed = buildFourConvolutions(*first);
    EXPECT_GT(timed.runs, 0);
    EXPECT_EQ(cache->queryKeys(nullptr, 0), 2) << "one entry per configuration";
    // Saved and loaded again, as trtexec's --timingCacheFile does.
    std::unique_ptr<IHostMemory> blob(cache->serialize());
    ASSERT_NE(blob, nullptr);
    std::unique_ptr<IBuilderConfig> second(builder->createBuilderConfig());
    std::unique_ptr<ITimingCache> loaded(second->createTimingCache(blob->data(), blob->size()));
    ASSERT_NE(loaded, nullptr);
    ASSERT_TRUE(second->setTimingCache(*loaded, false));
    TimedBuild const rebuilt = buildFourConvolutions(*second);
    EXPECT_EQ(rebuilt.runs, 0) << "every choice came from the cache";
    for (char const* name : {"a1", "a2", "a3", "b"})
    {
        ASSERT_NE(nodeNamed(rebuilt.plan, name), nullptr) << name;
        EXPECT_EQ(nodeNamed(rebuilt.plan, name)->tactic, nodeNamed(timed.plan, name)->tactic) << name;
        EXPECT_NE(timingOf(rebuilt.plan, name).find("from the timing cache"), std::string::npos)
            << name << ": " << timingOf(rebuilt.plan, name);
    }
    // A corrupt blob is refused with an error, not half-read.
    std::vector<uint8_t> bytes(static_cast<uint8_t const*>(blob->data()),
        static_cast<uint8_t const*>(blob->data()) + blob->size());
    bytes.pop_back();
    std::unique_ptr<ITimingCache> truncated(second->createTimingCache(bytes.data(), bytes.size()));
    EXPECT_EQ(truncated, nullptr);
}

} // namespace
