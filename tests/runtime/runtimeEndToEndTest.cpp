// End-to-end runtime tests on engines built by Kiln's builder from networks defined through the public API:
// built and serialized engines round-trip byte for byte, every node reports to the profiler and appears in
// the inspector with its tactic, shape-tensor inputs drive dynamic reshapes, buildEngineWithConfig engines
// run, and many contexts on many threads give correct results.
#include "runtimeTestPlans.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <random>
#include <thread>

namespace kiln::test
{
namespace
{

using namespace nvinfer1;

//! y = relu(x) + relu(x) with x [-1, 8], profile N in [1, 16].
void defineReluSum(NetworkRunner& r)
{
    ITensor* x = r.addInput("x", DataType::kFLOAT, {-1, 8});
    auto* relu = r.network().addActivation(*x, ActivationType::kRELU);
    relu->setName("relu");
    auto* sum = r.network().addElementWise(*relu->getOutput(0), *relu->getOutput(0), ElementWiseOperation::kSUM);
    sum->setName("sum");
    r.markOutput(sum->getOutput(0), "y");
    r.setProfileDims("x", {1, 8}, {4, 8}, {16, 8});
}

std::vector<float> reluSumOracle(std::vector<float> const& x)
{
    std::vector<float> y(x.size());
    for (size_t i = 0; i < x.size(); ++i)
    {
        double const r = x[i] > 0.0F ? x[i] : 0.0;
        y[i] = static_cast<float>(r + r);
    }
    return y;
}

std::vector<float> randomInput(size_t n, std::mt19937& rng)
{
    std::uniform_real_distribution<float> dist(-4.0F, 4.0F);
    std::vector<float> v(n);
    for (auto& f : v)
    {
        f = dist(rng);
    }
    return v;
}

TEST(RuntimeTest, EndToEndBuiltEngineRoundTripsAndRuns)
{
    NetworkRunner r;
    defineReluSum(r);
    r.config().setProfilingVerbosity(ProfilingVerbosity::kDETAILED);
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    ICudaEngine& engine = r.engine();
    std::unique_ptr<IHostMemory> blob(engine.serialize());
    ASSERT_NE(blob, nullptr);
    ASSERT_EQ(blob->size(), r.engineBytes().size());
    EXPECT_EQ(std::memcmp(blob->data(), r.engineBytes().data(), blob->size()), 0);

    std::unique_ptr<IExecutionContext> ctx(engine.createExecutionContext());
    ASSERT_NE(ctx, nullptr) << r.logger().allErrors();
    CountingProfiler profiler;
    ctx->setProfiler(&profiler);
    std::mt19937 rng(11);
    for (int64_t n : {1, 7, 16})
    {
        std::vector<float> x = randomInput(static_cast<size_t>(n * 8), rng);
        std::vector<float> y(x.size(), -1.0F);
        ASSERT_TRUE(ctx->setInputShape("x", dimsOf({n, 8})));
        ASSERT_TRUE(ctx->setTensorAddress("x", x.data()));
        ASSERT_TRUE(ctx->setTensorAddress("y", y.data()));
        ASSERT_TRUE(ctx->enqueueV3(nullptr)) << r.logger().allErrors();
        EXPECT_EQ(y, reluSumOracle(x));
        std::vector<float> y2(x.size(), -2.0F);
        void* bindings[2] = {x.data(), y2.data()};
        ASSERT_TRUE(ctx->executeV2(bindings));
        EXPECT_EQ(y2, y);
    }
    EXPECT_EQ(profiler.names.size(), 6U * static_cast<size_t>(engine.getNbLayers()));

    std::unique_ptr<IEngineInspector> inspector(engine.createEngineInspector());
    std::string const info = inspector->getEngineInformation(LayerInformationFormat::kJSON);
    EXPECT_NE(info.find("\"Name\": \"relu\""), std::string::npos) << info;
    EXPECT_NE(info.find("\"Name\": \"sum\""), std::string::npos) << info;
    EXPECT_NE(info.find("\"TacticName\""), std::string::npos) << info;
    EXPECT_TRUE(r.logger().errors().empty()) << r.logger().allErrors();
}

TEST(ExecutionContextTest, EndToEndShapeTensorInputDrivesReshape)
{
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {-1, 6});
    ITensor* dims = r.addInput("dims", DataType::kINT32, {2});
    auto* shuffle = r.network().addShuffle(*x);
    ASSERT_NE(shuffle, nullptr);
    shuffle->setInput(1, *dims);
    shuffle->setName("reshape");
    r.markOutput(shuffle->getOutput(0), "y");
    r.setProfileDims("x", {1, 6}, {2, 6}, {4, 6});
    // Reshape [n, 6] into [2n, 3]; the profiles must be consistent at kMIN, kOPT and kMAX.
    r.setProfileValues("dims", {2, 3}, {4, 3}, {8, 3});
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    ICudaEngine& engine = r.engine();
    EXPECT_TRUE(engine.isShapeInferenceIO("dims"));
    EXPECT_EQ(engine.getTensorLocation("dims"), TensorLocation::kHOST);
    EXPECT_EQ(engine.getProfileTensorValuesV2("dims", 0, OptProfileSelector::kMAX)[0], 8);

    std::unique_ptr<IExecutionContext> ctx(engine.createExecutionContext());
    ASSERT_NE(ctx, nullptr) << r.logger().allErrors();
    std::mt19937 rng(12);
    struct Case
    {
        int64_t n;
        int32_t d0, d1;
    };
    for (Case c : {Case{2, 4, 3}, Case{1, 2, 3}, Case{4, 8, 3}})
    {
        std::vector<float> xs = randomInput(static_cast<size_t>(c.n * 6), rng);
        int32_t shape[2] = {c.d0, c.d1};
        std::vector<float> y(xs.size(), -1.0F);
        ASSERT_TRUE(ctx->setInputShape("x", dimsOf({c.n, 6})));
        ASSERT_TRUE(ctx->setTensorAddress("dims", shape));
        char const* missing[2];
        ASSERT_EQ(ctx->inferShapes(2, missing), 0) << r.logger().allErrors();
        Dims const out = ctx->getTensorShape("y");
        ASSERT_EQ(out.nbDims, 2);
        EXPECT_EQ(out.d[0], c.d0);
        EXPECT_EQ(out.d[1], c.d1);
        ASSERT_TRUE(ctx->setTensorAddress("x", xs.data()));
        ASSERT_TRUE(ctx->setTensorAddress("y", y.data()));
        ASSERT_TRUE(ctx->enqueueV3(nullptr)) << r.logger().allErrors();
        EXPECT_EQ(y, xs);
    }
    // A reshape that does not preserve the volume is reported, naming the layer. The values are inside the
    // profile; only the volume is wrong.
    int32_t bad[2] = {6, 3}; // 18 elements, but x has 4 * 6

    ASSERT_TRUE(ctx->setTensorAddress("dims", bad));
    r.logger().clear();
    EXPECT_FALSE(ctx->enqueueV3(nullptr));
    EXPECT_TRUE(r.logger().hasError("reshape")) << r.logger().allErrors();
}

TEST(RuntimeTest, EndToEndBuildEngineWithConfig)
{
    NetworkRunner r;
    defineReluSum(r);
    IOptimizationProfile* profile = r.builder().createOptimizationProfile();
    profile->setDimensions("x", OptProfileSelector::kMIN, dimsOf({1, 8}));
    profile->setDimensions("x", OptProfileSelector::kOPT, dimsOf({2, 8}));
    profile->setDimensions("x", OptProfileSelector::kMAX, dimsOf({3, 8}));
    IBuilderConfig& config = r.config();
    std::unique_ptr<ICudaEngine> engine(r.builder().buildEngineWithConfig(r.network(), config));
    if (engine == nullptr)
    {
        // The runner's profile has not been added to the config yet; add it and retry.
        ASSERT_GE(config.addOptimizationProfile(profile), 0);
        engine.reset(r.builder().buildEngineWithConfig(r.network(), config));
    }
    ASSERT_NE(engine, nullptr) << r.logger().allErrors();
    std::unique_ptr<IExecutionContext> ctx(engine->createExecutionContext());
    ASSERT_NE(ctx, nullptr);
    std::mt19937 rng(13);
    std::vector<float> x = randomInput(16, rng);
    std::vector<float> y(16);
    ASSERT_TRUE(ctx->setInputShape("x", dimsOf({2, 8})));
    void* bindings[2] = {x.data(), y.data()};
    ASSERT_TRUE(ctx->executeV2(bindings)) << r.logger().allErrors();
    EXPECT_EQ(y, reluSumOracle(x));
}

TEST(ExecutionContextTest, EndToEndManyThreadsManyContexts)
{
    NetworkRunner r;
    defineReluSum(r);
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    ICudaEngine& engine = r.engine();
    std::atomic<int> failures{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t)
    {
        threads.emplace_back([&, t] {
            std::mt19937 rng(200 + t);
            std::vector<std::unique_ptr<IExecutionContext>> contexts;
            for (int c = 0; c < 8; ++c)
            {
                contexts.emplace_back(engine.createExecutionContext(
                    c % 2 == 0 ? ExecutionContextAllocationStrategy::kSTATIC : ExecutionContextAllocationStrategy::kON_PROFILE_CHANGE));
                if (contexts.back() == nullptr)
                {
                    ++failures;
                    return;
                }
            }
            for (int iter = 0; iter < 10; ++iter)
            {
                for (auto& ctx : contexts)
                {
                    int64_t const n = 1 + static_cast<int64_t>(rng() % 16);
                    std::vector<float> x = randomInput(static_cast<size_t>(n * 8), rng);
                    std::vector<float> y(x.size(), -1.0F);
                    bool const ok = ctx->setInputShape("x", dimsOf({n, 8})) && ctx->setTensorAddress("x", x.data())
                        && ctx->setTensorAddress("y", y.data()) && ctx->enqueueV3(nullptr);
                    if (!ok || y != reluSumOracle(x))
                    {
                        ++failures;
                    }
                }
            }
        });
    }
    for (auto& th : threads)
    {
        th.join();
    }
    EXPECT_EQ(failures.load(), 0) << r.logger().allErrors();
}

} // namespace
} // namespace kiln::test
