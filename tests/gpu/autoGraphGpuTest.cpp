// autoGraphGpuTest.cpp — automatic CUDA graphs (include/kiln/KilnExecution.h): a context that runs again with the
// same shapes and addresses replays a captured graph; new addresses update it; new shapes run plainly once and are
// captured on the next run; runs that cannot be captured say why and still compute the right results. Every run's
// outputs are poisoned first and compared with the CPU backend's.
#include "gpuTestUtils.h"
#include "kiln/KilnExecution.h"

#include <random>

namespace kiln::test::gpu
{
namespace
{
using namespace nvinfer1;

//! x[-1, 48] -> matmul W[48, 24] -> + bias -> gelu-ish chain (tanh, mul) -> softmax -> y.
void chainBody(NetworkRunner& r)
{
    static std::vector<float> const weights = [] {
        std::mt19937 rng(3);
        std::uniform_real_distribution<float> u(-0.3F, 0.3F);
        std::vector<float> v(48 * 24 + 24);
        for (float& x : v)
        {
            x = u(rng);
        }
        return v;
    }();
    INetworkDefinition& net = r.network();
    ITensor* x = r.addInput("x", DataType::kFLOAT, {-1, 48});
    auto* w = net.addConstant(makeDims({48, 24}), Weights{DataType::kFLOAT, weights.data(), 48 * 24});
    auto* b = net.addConstant(makeDims({1, 24}), Weights{DataType::kFLOAT, weights.data() + 48 * 24, 24});
    auto* mm = net.addMatrixMultiply(*x, MatrixOperation::kNONE, *w->getOutput(0), MatrixOperation::kNONE);
    auto* add = net.addElementWise(*mm->getOutput(0), *b->getOutput(0), ElementWiseOperation::kSUM);
    auto* t = net.addActivation(*add->getOutput(0), ActivationType::kTANH);
    auto* mul = net.addElementWise(*t->getOutput(0), *add->getOutput(0), ElementWiseOperation::kPROD);
    auto* sm = net.addSoftMax(*mul->getOutput(0));
    sm->setAxes(1U << 1);
    r.markOutput(sm->getOutput(0), "y");
    r.setProfileDims("x", {1, 48}, {8, 48}, {16, 48});
}

std::map<std::string, HostTensor> inputsFor(int64_t batch, uint32_t seed)
{
    std::mt19937 rng(seed);
    return {{"x", HostTensor::random(DataType::kFLOAT, makeDims({batch, 48}), rng)}};
}

HostTensor cpuOutput(std::map<std::string, HostTensor> const& inputs)
{
    auto cpu = buildFor(kiln::BackendKind::kCPU, chainBody);
    std::map<std::string, HostTensor> outputs;
    std::string error;
    EXPECT_NE(cpu, nullptr);
    if (cpu != nullptr)
    {
        EXPECT_TRUE(runEngine(cpu->engine(), kiln::BackendKind::kCPU, inputs, outputs, error)) << error;
    }
    return outputs["y"];
}

struct Fixture
{
    std::unique_ptr<NetworkRunner> gpu;
    std::unique_ptr<IExecutionContext> ctx;
    DeviceBuffer x{16 * 48 * sizeof(float)};
    DeviceBuffer y{16 * 24 * sizeof(float)};
    DeviceBuffer y2{16 * 24 * sizeof(float)};
    Stream stream;

    bool init()
    {
        gpu = buildFor(kiln::BackendKind::kCUDA, chainBody);
        if (gpu == nullptr)
        {
            return false;
        }
        gpu->logger().clear();
        ctx.reset(gpu->engine().createExecutionContext());
        return ctx != nullptr && ctx->setTensorAddress("x", x.get()) && ctx->setTensorAddress("y", y.get());
    }
    //! One run on fresh random data with the output poisoned; checks the result against the CPU backend.
    void runAndCheck(int64_t batch, uint32_t seed, DeviceBuffer& out)
    {
        auto const inputs = inputsFor(batch, seed);
        ASSERT_TRUE(ctx->setInputShape("x", makeDims({batch, 48})));
        x.upload(inputs.at("x").data(), inputs.at("x").bytes.size());
        out.fill(0xA5);
        ASSERT_TRUE(ctx->enqueueV3(stream.get())) << gpu->logger().allErrors();
        ASSERT_TRUE(stream.synchronize());
        EXPECT_TRUE(allClose(fromDevice(out.get(), DataType::kFLOAT, makeDims({batch, 24})), cpuOutput(inputs), 1e-4, 1e-4))
            << "batch " << batch << ", seed " << seed;
    }
    int32_t count(char const* text) const { return gpu->logger().countMessages(text); }
};

TEST(AutoGraph, ReplaysUpdatesAndRecapturesForNewShapes)
{
    KILN_REQUIRE_CUDA_BACKEND();
    Fixture f;
    ASSERT_TRUE(f.init());
    EXPECT_TRUE(kiln::getAutoCudaGraphs(f.ctx.get()));
    f.runAndCheck(8, 1, f.y); // plain: the kernels take the shapes
    EXPECT_EQ(f.count("captured this run into a graph"), 0);
    f.runAndCheck(8, 2, f.y); // captured and launched
    EXPECT_EQ(f.count("captured this run into a graph"), 1);
    f.runAndCheck(8, 3, f.y); // replayed, on new input data
    f.runAndCheck(8, 4, f.y);
    EXPECT_EQ(f.count("replaying the graph"), 1) << "one log line per change of reason";

    ASSERT_TRUE(f.ctx->setTensorAddress("y", f.y2.get())); // new address: captured again, graph updated in place
    f.runAndCheck(8, 5, f.y2);
    EXPECT_EQ(f.count("captured this run again and updated the graph"), 1);
    f.runAndCheck(8, 6, f.y2);

    f.runAndCheck(3, 7, f.y2); // new shapes: plain once, then captured (updated), then replayed
    f.runAndCheck(3, 8, f.y2);
    f.runAndCheck(3, 9, f.y2);
    EXPECT_EQ(f.count("captured this run again and updated the graph") + f.count("captured this run into a graph"), 3);
    f.runAndCheck(8, 10, f.y2); // back to the first shapes: correct again
    f.runAndCheck(8, 11, f.y2);
}

TEST(AutoGraph, TurnedOffPerContext)
{
    KILN_REQUIRE_CUDA_BACKEND();
    Fixture f;
    ASSERT_TRUE(f.init());
    ASSERT_TRUE(kiln::setAutoCudaGraphs(f.ctx.get(), false));
    EXPECT_FALSE(kiln::getAutoCudaGraphs(f.ctx.get()));
    for (uint32_t seed = 1; seed <= 4; ++seed)
    {
        f.runAndCheck(5, seed, f.y);
    }
    EXPECT_EQ(f.count("automatic CUDA graph"), 0);
    EXPECT_FALSE(kiln::setAutoCudaGraphs(nullptr, true));
}

TEST(AutoGraph, BlockedRunsSayWhyAndStayCorrect)
{
    KILN_REQUIRE_CUDA_BACKEND();
    Fixture f;
    ASSERT_TRUE(f.init());
    // The legacy default stream cannot be captured.
    auto const inputs = inputsFor(4, 21);
    ASSERT_TRUE(f.ctx->setInputShape("x", makeDims({4, 48})));
    f.x.upload(inputs.at("x").data(), inputs.at("x").bytes.size());
    for (int32_t i = 0; i < 3; ++i)
    {
        f.y.fill(0xA5);
        ASSERT_TRUE(f.ctx->enqueueV3(nullptr)) << f.gpu->logger().allErrors();
        ASSERT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
        EXPECT_TRUE(allClose(fromDevice(f.y.get(), DataType::kFLOAT, makeDims({4, 24})), cpuOutput(inputs), 1e-4, 1e-4));
    }
    EXPECT_EQ(f.count("legacy default stream"), 1);
    EXPECT_EQ(f.count("captured this run"), 0);

    // The application's own capture records plain launches, and its graph replays correctly.
    f.runAndCheck(4, 22, f.y);
    cudaGraph_t graph = nullptr;
    ASSERT_EQ(cudaStreamBeginCapture(f.stream.get(), cudaStreamCaptureModeThreadLocal), cudaSuccess);
    bool const captured = f.ctx->enqueueV3(f.stream.get());
    ASSERT_EQ(cudaStreamEndCapture(f.stream.get(), &graph), cudaSuccess);
    ASSERT_TRUE(captured) << f.gpu->logger().allErrors();
    EXPECT_GE(f.count("already being captured"), 1);
    cudaGraphExec_t exec = nullptr;
    ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
    auto const next = inputsFor(4, 23);
    f.x.upload(next.at("x").data(), next.at("x").bytes.size());
    f.y.fill(0xA5);
    ASSERT_EQ(cudaGraphLaunch(exec, f.stream.get()), cudaSuccess);
    ASSERT_TRUE(f.stream.synchronize());
    EXPECT_TRUE(allClose(fromDevice(f.y.get(), DataType::kFLOAT, makeDims({4, 24})), cpuOutput(next), 1e-4, 1e-4));
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
}

} // namespace
} // namespace kiln::test::gpu
