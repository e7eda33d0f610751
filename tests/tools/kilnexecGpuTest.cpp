// kilnexec on the CUDA backend, run as users run it: results against an independent reference (with and without
// per-run data transfers, with a CUDA graph), the GPU report (GPU Compute Time, H2D/D2H from CUDA events, enqueue
// time of the graph launch), --exportTimes consistency, the per-layer profile (in the timed runs, in separate runs,
// next to a CUDA graph), and --device beyond the last GPU. Without a usable CUDA backend (no GPU, or Kiln built
// without CUDA) every test skips and says why: kilnexec --backend=cuda then exits with 3.
#include "kilnexecTestUtils.h"

#include <algorithm>
#include <regex>

namespace kilnexectest
{
namespace
{

std::vector<std::string> const kGPU = {"--backend=cuda", "--warmUp=0", "--duration=0"};

class KilnexecGpuTest : public ::testing::Test
{
protected:
    void SetUp() override
    {
        if (!fs::exists(kilnexecPath()))
        {
            GTEST_SKIP() << "kilnexec is not built (KILN_BUILD_TOOLS=OFF): " << kilnexecPath();
        }
        mW = randomFloats(4, 41);
        saveModel(addReluModel(mW), mDir.file("addRelu.onnx"));
        mX = randomFloats(3 * 4, 42);
        writeBytes(mDir.file("x.bin"), mX.data(), mX.size() * sizeof(float));
        RunOutput const probe = run({"--iterations=1", "--skipInference"});
        if (probe.exitCode == 3)
        {
            std::smatch m;
            std::regex_search(probe.output, m, std::regex("the CUDA backend is not available: ([^\n]*?); run with"));
            GTEST_SKIP() << "no usable CUDA backend: " << (m.empty() ? probe.output : m[1].str());
        }
        ASSERT_EQ(probe.exitCode, 0) << probe.output;
    }

    RunOutput run(std::vector<std::string> args) const
    {
        args.insert(args.begin(), "--onnx=" + mDir.file("addRelu.onnx"));
        args.insert(args.begin() + 1, "--shapes=x:3x4");
        args.insert(args.end(), kGPU.begin(), kGPU.end());
        return runKilnexec(args);
    }

    //! The exported y against relu(x + w), computed here.
    void expectReference(std::string const& json) const
    {
        std::string dims;
        std::vector<double> const y = exportedValues(readJson(json), "y", &dims);
        EXPECT_EQ(dims, "3x4");
        ASSERT_EQ(y.size(), mX.size());
        for (size_t i = 0; i < mX.size(); ++i)
        {
            EXPECT_NEAR(y[i], std::max(0.0F, mX[i] + mW[i % 4]), 1e-5) << i;
        }
    }

    ScratchDir mDir;
    std::vector<float> mW;
    std::vector<float> mX;
};

std::string const kNUMBER = "[0-9]+(\\.[0-9]+)?(e[+-]?[0-9]+)?";

TEST_F(KilnexecGpuTest, ResultsAndGpuReport)
{
    RunOutput const out = run({"--iterations=12", "--loadInputs=x:" + mDir.file("x.bin"),
        "--exportOutput=" + mDir.file("y.json"), "--exportTimes=" + mDir.file("times.json")});
    ASSERT_EQ(out.exitCode, 0) << out.output;
    EXPECT_NE(out.output.find("[I] Engine backend: CUDA"), std::string::npos) << out.output;
    expectReference(mDir.file("y.json"));
    for (char const* metric : {"Latency", "Enqueue Time", "H2D Latency", "GPU Compute Time", "D2H Latency"})
    {
        EXPECT_TRUE(std::regex_search(out.output, std::regex(std::string("\\[I\\] ") + metric + ": min = " + kNUMBER)))
            << metric << "\n" << out.output;
    }
    EXPECT_TRUE(std::regex_search(out.output, std::regex("Total GPU Compute Time: " + kNUMBER + " s"))) << out.output;
    EXPECT_EQ(out.output.find("CPU backend: device memory is host memory"), std::string::npos) << out.output;

    // Each run's intervals are ordered on the GPU timeline and the latency is their sum.
    Json const times = readJson(mDir.file("times.json"));
    ASSERT_GE(times.items.size(), 12U);
    double h2d = 0.0;
    double compute = 0.0;
    double d2h = 0.0;
    for (Json const& run : times.items)
    {
        EXPECT_LE(run["startH2dMs"].number, run["endH2dMs"].number);
        EXPECT_LE(run["endH2dMs"].number, run["startComputeMs"].number + 1e-6);
        EXPECT_LE(run["startComputeMs"].number, run["endComputeMs"].number);
        EXPECT_LE(run["endComputeMs"].number, run["startD2hMs"].number + 1e-6);
        EXPECT_LE(run["startD2hMs"].number, run["endD2hMs"].number);
        EXPECT_NEAR(run["latencyMs"].number, run["h2dMs"].number + run["computeMs"].number + run["d2hMs"].number, 1e-3);
        h2d += run["h2dMs"].number;
        compute += run["computeMs"].number;
        d2h += run["d2hMs"].number;
    }
    // Event resolution is about half a microsecond: single runs may read 0, all of them together may not.
    EXPECT_GT(h2d, 0.0) << "the inputs are copied in every run";
    EXPECT_GT(compute, 0.0);
    EXPECT_GT(d2h, 0.0) << "the outputs are copied in every run";
}

TEST_F(KilnexecGpuTest, NoDataTransfersStillReadsBackTheOutputs)
{
    RunOutput const out = run({"--iterations=5", "--noDataTransfers", "--loadInputs=x:" + mDir.file("x.bin"),
        "--exportOutput=" + mDir.file("y.json")});
    ASSERT_EQ(out.exitCode, 0) << out.output;
    EXPECT_NE(out.output.find("H2D Latency: min = 0 ms, max = 0 ms"), std::string::npos) << out.output;
    EXPECT_NE(out.output.find("D2H Latency: min = 0 ms, max = 0 ms"), std::string::npos) << out.output;
    EXPECT_NE(out.output.find("(--noDataTransfers: no copies in the timed runs)"), std::string::npos) << out.output;
    expectReference(mDir.file("y.json"));
}

TEST_F(KilnexecGpuTest, CudaGraphCapturedAndReplayed)
{
    RunOutput const out = run({"--iterations=20", "--useCudaGraph", "--loadInputs=x:" + mDir.file("x.bin"),
        "--exportOutput=" + mDir.file("y.json")});
    ASSERT_EQ(out.exitCode, 0) << out.output;
    EXPECT_NE(out.output.find("[I] Captured one enqueueV3 into a CUDA graph"), std::string::npos) << out.output;
    EXPECT_EQ(out.output.find("The CUDA graph capture on the stream has failed"), std::string::npos) << out.output;
    EXPECT_NE(out.output.find("(cudaGraphLaunch of the captured graph)"), std::string::npos) << out.output;
    expectReference(mDir.file("y.json"));
}

TEST_F(KilnexecGpuTest, PerLayerProfileOnTheGpu)
{
    // In the timed runs, in separate runs, and next to a CUDA graph (whose replays report no layers, so the profile
    // comes from separate plain runs).
    for (std::vector<std::string> const& extra : std::vector<std::vector<std::string>>{
             {}, {"--separateProfileRun"}, {"--useCudaGraph"}})
    {
        std::vector<std::string> args = {"--iterations=4", "--dumpProfile", "--exportProfile=" + mDir.file("p.json")};
        args.insert(args.end(), extra.begin(), extra.end());
        RunOutput const out = run(args);
        ASSERT_EQ(out.exitCode, 0) << out.output;
        bool const graph = !extra.empty() && extra[0] == "--useCudaGraph";
        EXPECT_EQ(out.output.find("collected in separate runs without the CUDA graph") != std::string::npos, graph)
            << out.output;
        EXPECT_NE(out.output.find("=== Profile (4 iterations ) ==="), std::string::npos) << out.output;
        Json const profile = readJson(mDir.file("p.json"));
        ASSERT_GE(profile.items.size(), 2U) << readText(mDir.file("p.json"));
        EXPECT_EQ(profile.items[0]["count"].number, 4.0);
        bool sawRelu = false;
        for (size_t i = 1; i < profile.items.size(); ++i)
        {
            EXPECT_GE(profile.items[i]["timeMs"].number, 0.0);
            sawRelu = sawRelu || profile.items[i]["name"].text.find("relu0") != std::string::npos;
        }
        EXPECT_TRUE(sawRelu) << readText(mDir.file("p.json"));
    }
}

TEST_F(KilnexecGpuTest, DeviceIndexBeyondTheLastGpu)
{
    RunOutput const out = run({"--device=1023"});
    EXPECT_EQ(out.exitCode, 3) << out.output;
    EXPECT_TRUE(std::regex_search(out.output, std::regex("--device=1023: there (is|are) only [0-9]+ CUDA device")))
        << out.output;
}

} // namespace
} // namespace kilnexectest
