// kilnexec's GPU-side decisions tested in-process, without a GPU: --backend/--device parsing and resolution (every
// combination, the contradictions, bad values), the --useCudaGraph decisions (CPU backend, a build without CUDA,
// data-dependent output shapes at random positions, failed captures, where the profile comes from), and the report's
// GPU figures (H2D/D2H/compute intervals from random run times, against an independent computation).
#include "cudaGraphPolicy.h"
#include "options.h"
#include "report.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <regex>
#include <string>
#include <vector>

namespace kilnexec
{
namespace
{

bool parse(std::vector<std::string> args, Options& options, std::string& error)
{
    args.insert(args.begin(), "kilnexec");
    args.emplace_back("--onnx=model.onnx");
    std::vector<char const*> argv;
    for (std::string const& arg : args)
    {
        argv.push_back(arg.c_str());
    }
    return parseOptions(static_cast<int>(argv.size()), argv.data(), options, error);
}

std::string captured(std::FILE* file)
{
    std::fflush(file);
    std::rewind(file);
    std::string text;
    char buffer[4096];
    size_t n = 0;
    while ((n = std::fread(buffer, 1, sizeof(buffer), file)) > 0)
    {
        text.append(buffer, n);
    }
    return text;
}

nvinfer1::Dims makeDims(std::vector<int64_t> const& extents)
{
    nvinfer1::Dims dims{};
    dims.nbDims = static_cast<int32_t>(extents.size());
    for (size_t i = 0; i < extents.size(); ++i)
    {
        dims.d[i] = extents[i];
    }
    return dims;
}

TEST(KilnexecBackendTest, BackendAndDeviceFlagsResolve)
{
    using kiln::BackendKind;
    struct Case
    {
        std::vector<std::string> args;
        BackendKind backend;
        std::string flag;
        int32_t device;
    };
    std::vector<Case> const cases = {{{}, BackendKind::kDEFAULT, "", -1},
        {{"--backend=default"}, BackendKind::kDEFAULT, "", -1},
        {{"--backend=cpu"}, BackendKind::kCPU, "--backend=cpu", -1},
        {{"--backend=cuda"}, BackendKind::kCUDA, "--backend=cuda", -1},
        {{"--backend=cpu", "--backend=cuda"}, BackendKind::kCUDA, "--backend=cuda", -1},
        {{"--device=cpu"}, BackendKind::kCPU, "--device=cpu", -1},
        {{"--device=gpu"}, BackendKind::kCUDA, "--device=gpu", -1},
        {{"--device=3"}, BackendKind::kCUDA, "--device=3", 3},
        {{"--backend=cuda", "--device=2"}, BackendKind::kCUDA, "--backend=cuda", 2},
        {{"--device=2", "--backend=cuda"}, BackendKind::kCUDA, "--backend=cuda", 2},
        {{"--backend=cuda", "--device=gpu"}, BackendKind::kCUDA, "--backend=cuda", -1},
        {{"--backend=cpu", "--device=cpu"}, BackendKind::kCPU, "--backend=cpu", -1},
        {{"--backend=default", "--device=1"}, BackendKind::kDEFAULT, "", 1},
        {{"--backend=default", "--device=cpu"}, BackendKind::kCPU, "--device=cpu", -1},
        {{"--backend=default", "--device=gpu"}, BackendKind::kCUDA, "--device=gpu", -1}};
    for (Case const& c : cases)
    {
        Options o;
        std::string error;
        std::string const label = ::testing::PrintToString(c.args);
        ASSERT_TRUE(parse(c.args, o, error)) << label << ": " << error;
        EXPECT_EQ(o.backend, c.backend) << label;
        EXPECT_EQ(o.backendFlag, c.flag) << label;
        EXPECT_EQ(o.cudaDevice, c.device) << label;
    }
    for (kiln::BackendKind kind : {BackendKind::kDEFAULT, BackendKind::kCPU, BackendKind::kCUDA})
    {
        kiln::BackendKind parsed = kind == BackendKind::kCPU ? BackendKind::kCUDA : BackendKind::kCPU;
        EXPECT_TRUE(parseBackendName(backendName(kind), parsed)) << backendName(kind);
        EXPECT_EQ(parsed, kind);
    }
    kiln::BackendKind untouched = BackendKind::kCPU;
    EXPECT_FALSE(parseBackendName("CUDA", untouched));
    EXPECT_FALSE(parseBackendName("gpu", untouched));
    EXPECT_EQ(untouched, BackendKind::kCPU);
}

TEST(KilnexecBackendTest, BadAndContradictoryBackendFlags)
{
    struct Case
    {
        std::vector<std::string> args;
        char const* message;
    };
    std::vector<Case> const cases = {{{"--backend=tpu"}, "--backend=tpu: expected default, cpu or cuda"},
        {{"--backend=GPU"}, "--backend=GPU: expected default, cpu or cuda"},
        {{"--backend"}, "--backend needs a value"},
        {{"--backend="}, "--backend needs a value"},
        {{"--backend=cpu", "--device=gpu"}, "--device=gpu contradicts --backend=cpu"},
        {{"--device=0", "--backend=cpu"}, "--device=0 contradicts --backend=cpu"},
        {{"--backend=cuda", "--device=cpu"}, "--device=cpu contradicts --backend=cuda"},
        {{"--device=-1"}, "--device=-1: expected cpu, gpu or a GPU index"},
        {{"--device=1x"}, "--device=1x: expected cpu, gpu or a GPU index"}};
    for (Case const& c : cases)
    {
        Options o;
        std::string error;
        EXPECT_FALSE(parse(c.args, o, error)) << ::testing::PrintToString(c.args);
        EXPECT_NE(error.find(c.message), std::string::npos) << error;
        EXPECT_EQ(error.rfind("kilnexec: ", 0), 0U) << error;
    }
}

TEST(KilnexecBackendTest, CudaGraphPlanFollowsBackendBuildAndShapes)
{
    GraphQuery query;
    query.engineBackend = kiln::BackendKind::kCUDA;
    query.cudaBuilt = true;
    query.outputShapes = {{"y", makeDims({2, 3})}};
    // Not requested: never a capture, never a message, whatever the engine.
    GraphDecision off = planCudaGraph(query);
    EXPECT_EQ(off.mode, GraphMode::kOFF);
    EXPECT_TRUE(off.message.empty());

    query.requested = true;
    EXPECT_EQ(planCudaGraph(query).mode, GraphMode::kCAPTURE);
    EXPECT_TRUE(planCudaGraph(query).message.empty());

    GraphQuery cpu = query;
    cpu.engineBackend = kiln::BackendKind::kCPU;
    GraphDecision const onCpu = planCudaGraph(cpu);
    EXPECT_EQ(onCpu.mode, GraphMode::kFALLBACK);
    EXPECT_NE(onCpu.message.find("--useCudaGraph: CUDA graphs do not apply to the CPU backend"), std::string::npos)
        << onCpu.message;

    GraphQuery noCuda = query;
    noCuda.cudaBuilt = false;
    GraphDecision const unbuilt = planCudaGraph(noCuda);
    EXPECT_EQ(unbuilt.mode, GraphMode::kFALLBACK);
    EXPECT_NE(unbuilt.message.find("built without CUDA"), std::string::npos) << unbuilt.message;

    GraphQuery unknownRank = query;
    unknownRank.outputShapes.emplace_back("z", makeDims({}));
    unknownRank.outputShapes.back().second.nbDims = -1;
    EXPECT_EQ(planCudaGraph(unknownRank).mode, GraphMode::kFALLBACK);

    // A data-dependent extent anywhere in any output stops the capture and names that output.
    std::mt19937 rng(20261121U);
    for (int32_t trial = 0; trial < 50; ++trial)
    {
        GraphQuery q = query;
        q.outputShapes.clear();
        int32_t const nbOutputs = std::uniform_int_distribution<int32_t>(1, 4)(rng);
        for (int32_t o = 0; o < nbOutputs; ++o)
        {
            std::vector<int64_t> extents(static_cast<size_t>(std::uniform_int_distribution<int32_t>(0, 5)(rng)));
            for (int64_t& e : extents)
            {
                e = std::uniform_int_distribution<int64_t>(0, 9)(rng);
            }
            q.outputShapes.emplace_back("out" + std::to_string(o), makeDims(extents));
        }
        bool const dynamic = trial % 2 == 1;
        size_t victim = 0;
        if (dynamic)
        {
            // A rank-0 output cannot hold a -1: give the victim at least one dimension.
            victim = std::uniform_int_distribution<size_t>(0, q.outputShapes.size() - 1)(rng);
            nvinfer1::Dims& dims = q.outputShapes[victim].second;
            dims.nbDims = std::max<int32_t>(dims.nbDims, 1);
            dims.d[std::uniform_int_distribution<int32_t>(0, dims.nbDims - 1)(rng)] = -1;
        }
        GraphDecision const d = planCudaGraph(q);
        if (!dynamic)
        {
            EXPECT_EQ(d.mode, GraphMode::kCAPTURE) << trial;
            continue;
        }
        ASSERT_EQ(d.mode, GraphMode::kFALLBACK) << trial;
        EXPECT_NE(d.message.find("data-dependent shapes"), std::string::npos) << d.message;
        EXPECT_NE(d.message.find("CUDA graphs are not used"), std::string::npos) << d.message;
        // The random extents are never negative, so the victim is the only output with a -1, and it is named.
        EXPECT_NE(d.message.find("'" + q.outputShapes[victim].first + "'"), std::string::npos) << d.message;
    }
}

TEST(KilnexecBackendTest, CaptureOutcomeAndProfileRuns)
{
    GraphDecision const ok = captureOutcome(true, "");
    EXPECT_EQ(ok.mode, GraphMode::kCAPTURE);
    EXPECT_TRUE(ok.message.empty());

    GraphDecision const refused = captureOutcome(false, "");
    EXPECT_EQ(refused.mode, GraphMode::kFALLBACK);
    EXPECT_NE(refused.message.find("The CUDA graph capture on the stream has failed"), std::string::npos);
    EXPECT_NE(refused.message.find("enqueueV3 returned false during the capture"), std::string::npos);

    std::string const cudaError = "cudaStreamEndCapture failed: cudaErrorStreamCaptureInvalidated (invalidated)";
    GraphDecision const invalidated = captureOutcome(true, cudaError);
    EXPECT_EQ(invalidated.mode, GraphMode::kFALLBACK);
    EXPECT_NE(invalidated.message.find("The CUDA graph capture on the stream has failed"), std::string::npos);
    EXPECT_NE(invalidated.message.find(cudaError), std::string::npos) << invalidated.message;
    EXPECT_EQ(invalidated.message.find("enqueueV3 returned false"), std::string::npos) << invalidated.message;

    GraphDecision const both = captureOutcome(false, cudaError);
    EXPECT_EQ(both.mode, GraphMode::kFALLBACK);
    EXPECT_NE(both.message.find("enqueueV3 returned false"), std::string::npos);
    EXPECT_NE(both.message.find(cudaError), std::string::npos);

    // profileInSeparateRuns(want, --separateProfileRun, graph used): every combination.
    for (int32_t bits = 0; bits < 8; ++bits)
    {
        bool const want = (bits & 1) != 0;
        bool const separate = (bits & 2) != 0;
        bool const graph = (bits & 4) != 0;
        EXPECT_EQ(profileInSeparateRuns(want, separate, graph), want && (separate || graph)) << bits;
    }
}

//! The number after "<metric>: min = " in the report.
double reportedMin(std::string const& text, std::string const& metric)
{
    std::smatch m;
    std::string const pattern = "\\[I\\] " + metric + ": min = ([0-9.e+-]+) ms";
    if (!std::regex_search(text, m, std::regex(pattern)))
    {
        ADD_FAILURE() << metric << " missing in\n" << text;
        return -1.0;
    }
    return std::stod(m[1]);
}

TEST(KilnexecBackendTest, ReportFillsGpuIntervals)
{
    std::mt19937 rng(77U);
    std::uniform_real_distribution<double> span(0.01, 2.0);
    InferenceResult result;
    result.onDevice = true;
    result.dataTransfers = true;
    double t = 0.0;
    double minH2d = 1e30;
    double minD2h = 1e30;
    double minCompute = 1e30;
    double minLatency = 1e30;
    for (int32_t i = 0; i < 17; ++i)
    {
        RunTimes run;
        run.startEnqMs = t;
        run.endEnqMs = t + span(rng) * 0.1;
        run.startH2dMs = t + span(rng) * 0.01;
        run.endH2dMs = run.startH2dMs + span(rng);
        run.startComputeMs = run.endH2dMs;
        run.endComputeMs = run.startComputeMs + span(rng);
        run.startD2hMs = run.endComputeMs;
        run.endD2hMs = run.startD2hMs + span(rng);
        minH2d = std::min(minH2d, run.endH2dMs - run.startH2dMs);
        minD2h = std::min(minD2h, run.endD2hMs - run.startD2hMs);
        minCompute = std::min(minCompute, run.endComputeMs - run.startComputeMs);
        minLatency = std::min(minLatency, run.endD2hMs - run.startH2dMs);
        t = run.endD2hMs;
        result.runs.push_back(run);
    }
    result.walltimeMs = t;
    Options options;
    std::FILE* file = std::tmpfile();
    ASSERT_NE(file, nullptr);
    printPerformance(file, result, options);
    std::string const text = captured(file);
    std::fclose(file);
    EXPECT_NEAR(reportedMin(text, "H2D Latency"), minH2d, 1e-5 * minH2d);
    EXPECT_NEAR(reportedMin(text, "D2H Latency"), minD2h, 1e-5 * minD2h);
    EXPECT_NEAR(reportedMin(text, "GPU Compute Time"), minCompute, 1e-5 * minCompute);
    EXPECT_NEAR(reportedMin(text, "Latency"), minLatency, 1e-5 * minLatency);
    EXPECT_NE(text.find("[I] Total GPU Compute Time: "), std::string::npos) << text;
    EXPECT_EQ(text.find("CPU backend"), std::string::npos) << text;

    // The same runs without transfers say so; on the CPU backend the labels are the CPU ones.
    result.dataTransfers = false;
    std::FILE* noCopies = std::tmpfile();
    ASSERT_NE(noCopies, nullptr);
    printPerformance(noCopies, result, options);
    EXPECT_NE(captured(noCopies).find("(--noDataTransfers: no copies in the timed runs)"), std::string::npos);
    std::fclose(noCopies);
    result.onDevice = false;
    std::FILE* cpu = std::tmpfile();
    ASSERT_NE(cpu, nullptr);
    printPerformance(cpu, result, options);
    std::string const cpuText = captured(cpu);
    std::fclose(cpu);
    EXPECT_EQ(cpuText.find("GPU Compute Time"), std::string::npos) << cpuText;
    EXPECT_NE(cpuText.find("[I] Total Compute Time: "), std::string::npos) << cpuText;
}

} // namespace
} // namespace kilnexec
