// Tests of the layer tests' backend harness (common/backendTest.h, common/testMemory.h, NetworkRunner's backend):
// the runner builds for the running instance's backend and leaves the config alone outside one, test buffers
// poison and copy, and this executable's CUDA instances are where the build puts them.
#include "common/backendTest.h"
#include "common/networkRunner.h"
#include "common/testMemory.h"

#include <algorithm>
#include <random>

namespace
{
using namespace nvinfer1;
using kiln::BackendKind;
using kiln::test::HostTensor;
using kiln::test::NetworkRunner;
using kiln::test::TestBuffer;

class BackendHarnessTest : public kiln::test::BackendTest
{
};
KILN_INSTANTIATE_BACKEND_TESTS(BackendHarnessTest);

TEST_P(BackendHarnessTest, RunnerBuildsAndRunsOnTheInstanceBackend)
{
    EXPECT_EQ(kiln::test::currentTestBackend(), GetParam());
    NetworkRunner r;
    EXPECT_EQ(r.backend(), GetParam());
    EXPECT_EQ(kiln::getBuilderBackend(&r.config()), GetParam());
    std::mt19937 rng(5);
    std::vector<int64_t> const shape{std::uniform_int_distribution<int64_t>(1, 9)(rng), 3};
    ITensor* x = r.addInput("x", DataType::kFLOAT, {-1, 3});
    r.markOutput(r.network().addUnary(*x, UnaryOperation::kNEG)->getOutput(0), "y");
    r.setProfileDims("x", {1, 3}, {4, 3}, {9, 3});
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    EXPECT_EQ(kiln::getEngineBackend(&r.engine()), GetParam());
    HostTensor const in = HostTensor::random(DataType::kFLOAT, kiln::test::makeDims(shape), rng, 0.5, 2.0);
    HostTensor expected(DataType::kFLOAT, in.dims);
    for (int64_t i = 0; i < in.volume(); ++i)
    {
        expected.set(i, -in.at(i));
    }
    EXPECT_TRUE(kiln::test::allClose(r.run({{"x", in}})["y"], expected, 0, 0));
}

TEST(BackendHarness, RunnerOutsideABackendTestLeavesTheConfigAlone)
{
    EXPECT_EQ(kiln::test::currentTestBackend(), BackendKind::kDEFAULT);
    NetworkRunner r;
    EXPECT_EQ(r.backend(), BackendKind::kDEFAULT);
    EXPECT_EQ(kiln::getBuilderBackend(&r.config()), BackendKind::kDEFAULT);
    NetworkRunner cpu(BackendKind::kCPU, 0);
    EXPECT_EQ(kiln::getBuilderBackend(&cpu.config()), BackendKind::kCPU);
}

TEST(BackendHarness, HostBufferIsPoisonedAndCopies)
{
    std::mt19937 rng(9);
    size_t const bytes = std::uniform_int_distribution<size_t>(1, 64)(rng);
    TestBuffer b(false, bytes, 0x5C);
    ASSERT_NE(b.data(), nullptr);
    EXPECT_EQ(b.bytes(), bytes);
    auto const* p = static_cast<uint8_t const*>(b.data());
    EXPECT_TRUE(std::all_of(p, p + bytes, [](uint8_t v) { return v == 0x5C; }));
    std::vector<uint8_t> in(bytes);
    for (uint8_t& v : in)
    {
        v = static_cast<uint8_t>(std::uniform_int_distribution<int>(0, 255)(rng));
    }
    ASSERT_TRUE(b.upload(in.data(), bytes));
    std::vector<uint8_t> out(bytes, 0);
    ASSERT_TRUE(b.download(out.data(), bytes));
    EXPECT_EQ(out, in);
    TestBuffer moved = std::move(b);
    EXPECT_EQ(b.data(), nullptr);
    std::vector<uint8_t> again(bytes, 0);
    ASSERT_TRUE(moved.download(again.data(), bytes));
    EXPECT_EQ(again, in);
}

TEST(BackendHarness, CudaInstancesLiveWhereTheBuildPutsThem)
{
    std::vector<BackendKind> const backends = kiln::test::layerTestBackends();
    ASSERT_FALSE(backends.empty());
    EXPECT_EQ(backends.front(), BackendKind::kCPU); // kilnTests always runs the CPU instances
    std::string why;
    // kilnTests never links the CUDA runtime: its CUDA instances (if any) skip, and device memory is refused.
    EXPECT_FALSE(kiln::test::deviceMemoryAvailable(why));
    EXPECT_FALSE(why.empty());
    EXPECT_FALSE(kiln::test::backendRunnable(BackendKind::kCUDA, why));
    EXPECT_TRUE(kiln::test::backendRunnable(BackendKind::kCPU, why));
}

} // namespace
