// backendSelectionTest.cpp — the Kiln extension that chooses the backend (include/kiln/KilnBackend.h) as seen
// without a GPU: config round trip and bad values, KILN_BACKEND, the CPU backend's engines, an explicit kCUDA build
// and a CUDA engine file failing with a message that names the backend where the CUDA backend is unavailable.
#include "common/networkRunner.h"
#include "common/scopedEnv.h"
#include "engine/engineReader.h"
#include "engine/engineWriter.h"
#include "kiln/KilnBackend.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace kiln::test
{
namespace
{
using namespace nvinfer1;

void reluBody(NetworkRunner& r)
{
    ITensor* x = r.addInput("x", DataType::kFLOAT, {2, 3});
    r.markOutput(r.network().addActivation(*x, ActivationType::kRELU)->getOutput(0), "y");
}

TEST(BackendSelection, ConfigRoundTripAndBadValues)
{
    NetworkRunner r;
    EXPECT_EQ(kiln::getBuilderBackend(&r.config()), kiln::BackendKind::kDEFAULT);
    EXPECT_TRUE(kiln::setBuilderBackend(&r.config(), kiln::BackendKind::kCPU));
    EXPECT_EQ(kiln::getBuilderBackend(&r.config()), kiln::BackendKind::kCPU);
    EXPECT_FALSE(kiln::setBuilderBackend(&r.config(), static_cast<kiln::BackendKind>(7)));
    EXPECT_NE(r.logger().allErrors().find("unknown backend kind 7"), std::string::npos) << r.logger().allErrors();
    EXPECT_EQ(kiln::getBuilderBackend(&r.config()), kiln::BackendKind::kCPU);
    EXPECT_FALSE(kiln::setBuilderBackend(nullptr, kiln::BackendKind::kCPU));
    EXPECT_EQ(kiln::getBuilderBackend(nullptr), kiln::BackendKind::kDEFAULT);
    EXPECT_EQ(kiln::getEngineBackend(nullptr), kiln::BackendKind::kDEFAULT);
    EXPECT_TRUE(kiln::isBackendAvailable(kiln::BackendKind::kCPU));
    EXPECT_TRUE(kiln::isBackendAvailable(kiln::BackendKind::kDEFAULT));
}

TEST(BackendSelection, CpuEnginesSayCpuAndRun)
{
    NetworkRunner r;
    ASSERT_TRUE(kiln::setBuilderBackend(&r.config(), kiln::BackendKind::kCPU));
    reluBody(r);
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    EXPECT_EQ(kiln::getEngineBackend(&r.engine()), kiln::BackendKind::kCPU);
    EXPECT_EQ(r.engine().getTensorLocation("x"), TensorLocation::kDEVICE); // "device" memory is host memory here
    auto const out = r.run({{"x", HostTensor::fromValues(DataType::kFLOAT, makeDims({2, 3}), {-1, 2, -3, 4, -5, 6})}});
    EXPECT_TRUE(allClose(out.at("y"), HostTensor::fromValues(DataType::kFLOAT, makeDims({2, 3}), {0, 2, 0, 4, 0, 6}), 0, 0));
}

TEST(BackendSelection, BadKilnBackendEnvironmentFailsTheBuild)
{
    ScopedEnv env("KILN_BACKEND", "tpu");
    NetworkRunner r;
    reluBody(r);
    EXPECT_FALSE(r.build());
    EXPECT_NE(r.logger().allErrors().find("KILN_BACKEND is 'tpu'"), std::string::npos) << r.logger().allErrors();
}

TEST(BackendSelection, ExplicitCudaWithoutTheBackendFails)
{
    if (kiln::isBackendAvailable(kiln::BackendKind::kCUDA))
    {
        GTEST_SKIP() << "the CUDA backend is available here: tests/gpu covers it";
    }
    NetworkRunner r;
    ASSERT_TRUE(kiln::setBuilderBackend(&r.config(), kiln::BackendKind::kCUDA));
    reluBody(r);
    EXPECT_FALSE(r.build());
    EXPECT_NE(r.logger().allErrors().find("CUDA backend is not available"), std::string::npos) << r.logger().allErrors();
    // The default falls back to the CPU, without an error.
    ScopedEnv env("KILN_BACKEND", nullptr);
    NetworkRunner d;
    reluBody(d);
    ASSERT_TRUE(d.build()) << d.logger().allErrors();
    EXPECT_EQ(kiln::getEngineBackend(&d.engine()), kiln::BackendKind::kCPU);
}

TEST(BackendSelection, EngineFileForAnUnavailableBackendFailsToLoad)
{
    NetworkRunner r;
    ASSERT_TRUE(kiln::setBuilderBackend(&r.config(), kiln::BackendKind::kCPU));
    reluBody(r);
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    auto plan = readEngine(r.engineBytes().data(), r.engineBytes().size());
    ASSERT_TRUE(plan.isOk()) << plan.status().message();
    for (char const* backend : {"cuda", "metal"})
    {
        if (std::string(backend) == "cuda" && kiln::isBackendAvailable(kiln::BackendKind::kCUDA))
        {
            continue;
        }
        Plan p = plan.value();
        p.backend = backend;
        auto bytes = writeEngine(p);
        ASSERT_TRUE(bytes.isOk()) << bytes.status().message();
        CapturingLogger logger;
        std::unique_ptr<IRuntime> runtime(createInferRuntime(logger));
        std::unique_ptr<ICudaEngine> engine(runtime->deserializeCudaEngine(bytes.value().data(), bytes.value().size()));
        EXPECT_EQ(engine, nullptr) << backend;
        EXPECT_NE(logger.allErrors().find(std::string("built for the '") + backend + "' backend"), std::string::npos)
            << logger.allErrors();
    }
}

} // namespace
} // namespace kiln::test
