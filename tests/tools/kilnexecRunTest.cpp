// kilnexec inference-side flag groups and the report: timing flags and --exportTimes, the performance summary's
// sections and figures, per-layer profiles (--dumpProfile/--exportProfile/--separateProfileRun), layer information
// (--dumpLayerInfo/--exportLayerInfo), --dumpOutput, the GPU-only flags, --loadEngine of an engine built through the
// network API, and plugin flags with a model whose custom op is served by a plugin library.
#include "kilnexecTestUtils.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <regex>
#include <sstream>

namespace kilnexectest
{
namespace
{

// These tests check the CPU backend's report (H2D/D2H are empty, "Compute Time"): --backend=cpu keeps them on it
// on a GPU machine too (kilnexecGpuTest.cpp covers the CUDA backend).
std::vector<std::string> const kQUICK = {"--warmUp=0", "--duration=0", "--backend=cpu"};

std::vector<std::string> with(std::vector<std::string> args, std::vector<std::string> const& more = kQUICK)
{
    args.insert(args.end(), more.begin(), more.end());
    return args;
}

class KilnexecRunTest : public ::testing::Test
{
protected:
    void SetUp() override
    {
        if (!fs::exists(kilnexecPath()))
        {
            GTEST_SKIP() << "kilnexec is not built (KILN_BUILD_TOOLS=OFF): " << kilnexecPath();
        }
        mW = randomFloats(4, 31);
        saveModel(addReluModel(mW), mDir.file("addRelu.onnx"));
    }
    std::string model() const { return "--onnx=" + mDir.file("addRelu.onnx"); }

    ScratchDir mDir;
    std::vector<float> mW;
};

TEST_F(KilnexecRunTest, TimingFlagsAndExportTimes)
{
    RunOutput const out = runKilnexec(with({model(), "--shapes=x:2x4", "--iterations=7", "--avgRuns=3",
        "--percentile=50,99", "--exportTimes=" + mDir.file("times.json")}));
    ASSERT_EQ(out.exitCode, 0) << out.output;
    Json const times = readJson(mDir.file("times.json"));
    ASSERT_EQ(times.kind, Json::Kind::kARRAY);
    ASSERT_EQ(times.items.size(), 7U);
    double previousEnd = 0.0;
    for (Json const& t : times.items)
    {
        for (char const* key : {"startEnqMs", "endEnqMs", "startH2dMs", "endH2dMs", "startComputeMs", "endComputeMs",
                 "startD2hMs", "endD2hMs", "h2dMs", "computeMs", "d2hMs", "latencyMs"})
        {
            ASSERT_TRUE(t.has(key)) << key;
            EXPECT_EQ(t[key].kind, Json::Kind::kNUMBER) << key;
        }
        EXPECT_GE(t["startEnqMs"].number, previousEnd);
        EXPECT_GE(t["endEnqMs"].number, t["startEnqMs"].number);
        EXPECT_NEAR(t["computeMs"].number, t["endComputeMs"].number - t["startComputeMs"].number, 1e-6);
        EXPECT_EQ(t["h2dMs"].number, 0.0);
        EXPECT_EQ(t["d2hMs"].number, 0.0);
        EXPECT_GE(t["latencyMs"].number, t["computeMs"].number - 1e-9);
        previousEnd = t["endEnqMs"].number;
    }
    std::regex const average("Average on 3 runs - Compute latency: [0-9.e+-]+ ms");
    EXPECT_EQ(std::distance(std::sregex_iterator(out.output.begin(), out.output.end(), average), std::sregex_iterator()),
        2)
        << out.output;
    EXPECT_NE(out.output.find("percentile(50%) = "), std::string::npos);
    EXPECT_NE(out.output.find("percentile(99%) = "), std::string::npos);
    EXPECT_EQ(out.output.find("percentile(90%)"), std::string::npos);
    EXPECT_NE(out.output.find("Timing trace has 7 queries"), std::string::npos);
}

TEST_F(KilnexecRunTest, DurationAndWarmUpAreHonoured)
{
    RunOutput const out
        = runKilnexec({model(), "--shapes=x:2x4", "--iterations=1", "--warmUp=50", "--duration=0.3", "--backend=cpu"});
    ASSERT_EQ(out.exitCode, 0) << out.output;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(out.output, m, std::regex("Total Host Walltime: ([0-9.e+-]+) s"))) << out.output;
    EXPECT_GE(std::stod(m[1]), 0.3);
    ASSERT_TRUE(std::regex_search(out.output, m, std::regex("Warm up: ([0-9]+) runs in ([0-9.e+-]+) ms")));
    EXPECT_GE(std::stoi(m[1]), 1);
    EXPECT_GE(std::stod(m[2]), 50.0);
}

TEST_F(KilnexecRunTest, ReportHasTrtexecSectionsAndNumericFigures)
{
    RunOutput const out = runKilnexec(with({model(), "--shapes=x:3x4", "--iterations=5"}));
    ASSERT_EQ(out.exitCode, 0) << out.output;
    EXPECT_EQ(out.output.rfind("&&&& RUNNING Kiln.kilnexec", 0), 0U) << out.output;
    size_t position = 0;
    for (char const* section : {"=== Model Options ===", "=== Build Options ===", "=== System Options ===",
             "=== Inference Options ===", "=== Reporting Options ===", "=== Device Information ===",
             "=== Trace details ===", "=== Performance summary ==="})
    {
        size_t const at = out.output.find(section, position);
        ASSERT_NE(at, std::string::npos) << section << " missing or out of order\n" << out.output;
        position = at;
    }
    std::string const number = "[0-9]+(\\.[0-9]+)?(e[+-]?[0-9]+)?";
    EXPECT_TRUE(std::regex_search(out.output, std::regex("\\[I\\] Throughput: " + number + " qps")));
    for (char const* metric : {"Latency", "Enqueue Time", "H2D Latency", "Compute Time", "D2H Latency"})
    {
        std::regex const line(std::string("\\[I\\] ") + metric + ": min = " + number + " ms, max = " + number
            + " ms, mean = " + number + " ms, median = " + number + " ms, percentile\\(90%\\) = " + number
            + " ms, percentile\\(95%\\) = " + number + " ms, percentile\\(99%\\) = " + number + " ms");
        EXPECT_TRUE(std::regex_search(out.output, line)) << metric << "\n" << out.output;
    }
    EXPECT_NE(out.output.find("H2D Latency: min = 0 ms, max = 0 ms"), std::string::npos);
    EXPECT_NE(out.output.find("(CPU backend: device memory is host memory, no copy)"), std::string::npos);
    EXPECT_TRUE(std::regex_search(out.output, std::regex("Total Host Walltime: " + number + " s")));
    EXPECT_TRUE(std::regex_search(out.output, std::regex("Total Compute Time: " + number + " s")));
    std::string const trailer = "&&&& PASSED Kiln.kilnexec";
    size_t const last = out.output.rfind(trailer);
    ASSERT_NE(last, std::string::npos);
    EXPECT_EQ(out.output.find('\n', last), out.output.size() - 1) << "the PASSED line ends the output";

    RunOutput const verbose = runKilnexec(with({model(), "--shapes=x:3x4", "--iterations=2", "--verbose"}));
    ASSERT_EQ(verbose.exitCode, 0) << verbose.output;
    EXPECT_NE(verbose.output.find("=== Explanations of the performance metrics ==="), std::string::npos);
}

TEST_F(KilnexecRunTest, ProfileDumpAndExport)
{
    for (bool separate : {false, true})
    {
        std::vector<std::string> args = with({model(), "--shapes=x:2x4", "--iterations=4", "--dumpProfile",
            "--exportProfile=" + mDir.file("profile.json")});
        if (separate)
        {
            args.push_back("--separateProfileRun");
        }
        RunOutput const out = runKilnexec(args);
        ASSERT_EQ(out.exitCode, 0) << out.output;
        EXPECT_NE(out.output.find("=== Profile (4 iterations ) ==="), std::string::npos) << out.output;
        EXPECT_NE(out.output.find("Time(ms)     Avg.(ms)   Median(ms)   Time(%)   Layer"), std::string::npos);
        Json const profile = readJson(mDir.file("profile.json"));
        ASSERT_EQ(profile.kind, Json::Kind::kARRAY);
        ASSERT_GE(profile.items.size(), 2U);
        EXPECT_EQ(profile.items[0]["count"].number, 4.0);
        double percent = 0.0;
        bool sawRelu = false;
        for (size_t i = 1; i < profile.items.size(); ++i)
        {
            Json const& layer = profile.items[i];
            for (char const* key : {"timeMs", "averageMs", "medianMs", "percentage"})
            {
                EXPECT_EQ(layer[key].kind, Json::Kind::kNUMBER) << key;
                EXPECT_GE(layer[key].number, 0.0) << key;
            }
            EXPECT_NEAR(layer["averageMs"].number, layer["timeMs"].number / 4.0, 1e-6);
            percent += layer["percentage"].number;
            sawRelu = sawRelu || layer["name"].text.find("relu0") != std::string::npos;
        }
        EXPECT_NEAR(percent, 100.0, 0.01);
        EXPECT_TRUE(sawRelu) << readText(mDir.file("profile.json"));
    }
}

TEST_F(KilnexecRunTest, LayerInfoDumpAndExport)
{
    RunOutput const out = runKilnexec(with({model(), "--shapes=x:3x4", "--iterations=1", "--dumpLayerInfo",
        "--exportLayerInfo=" + mDir.file("layers.json")}));
    ASSERT_EQ(out.exitCode, 0) << out.output;
    EXPECT_NE(out.output.find("Layer Information:"), std::string::npos);
    Json const info = readJson(mDir.file("layers.json"));
    ASSERT_EQ(info.kind, Json::Kind::kOBJECT) << readText(mDir.file("layers.json"));
    ASSERT_EQ(info["Layers"].kind, Json::Kind::kARRAY);
    ASSERT_FALSE(info["Layers"].items.empty());
    bool sawRelu = false;
    for (Json const& layer : info["Layers"].items)
    {
        EXPECT_EQ(layer["Name"].kind, Json::Kind::kSTRING);
        sawRelu = sawRelu || layer["Name"].text.find("relu0") != std::string::npos;
    }
    EXPECT_TRUE(sawRelu);
    std::vector<std::string> bindings;
    for (Json const& b : info["Bindings"].items)
    {
        bindings.push_back(b.text);
    }
    EXPECT_EQ(bindings, (std::vector<std::string>{"x", "y"}));
    // The context is bound, so the dynamic batch prints as the inference shape.
    EXPECT_NE(readText(mDir.file("layers.json")).find("[3,4]"), std::string::npos) << readText(mDir.file("layers.json"));
}

TEST_F(KilnexecRunTest, DumpOutputAndGpuOnlyFlags)
{
    std::vector<float> const x = randomFloats(4, 32);
    writeBytes(mDir.file("x.bin"), x.data(), x.size() * sizeof(float));
    RunOutput const out = runKilnexec(with({model(), "--shapes=x:1x4", "--iterations=1", "--dumpOutput",
        "--loadInputs=x:" + mDir.file("x.bin"), "--useCudaGraph", "--noDataTransfers"}));
    ASSERT_EQ(out.exitCode, 0) << out.output;
    EXPECT_NE(out.output.find("--useCudaGraph: CUDA graphs do not apply to the CPU backend"), std::string::npos);
    EXPECT_NE(out.output.find("--noDataTransfers: the CPU backend makes no host/device transfers"), std::string::npos);
    size_t const at = out.output.find("[I] y: (1x4)\n[I]");
    ASSERT_NE(at, std::string::npos) << out.output;
    std::istringstream values(out.output.substr(at + std::strlen("[I] y: (1x4)\n[I]")));
    for (size_t i = 0; i < 4; ++i)
    {
        double v = 0.0;
        values >> v;
        EXPECT_NEAR(v, std::max(0.0F, x[i] + mW[i]), 1e-6) << i;
    }
}

TEST_F(KilnexecRunTest, LoadEngineBuiltThroughTheNetworkApi)
{
    writeScaleReluEngine(mDir.file("scale.plan"));
    std::vector<float> const x = randomFloats(15, 33);
    writeBytes(mDir.file("x.bin"), x.data(), x.size() * sizeof(float));
    RunOutput const out = runKilnexec(with({"--loadEngine=" + mDir.file("scale.plan"), "--shapes=x:5x3",
        "--iterations=3", "--loadInputs=x:" + mDir.file("x.bin"), "--exportOutput=" + mDir.file("out.json"),
        "--exportProfile=" + mDir.file("p.json")}));
    ASSERT_EQ(out.exitCode, 0) << out.output;
    std::string dims;
    std::vector<double> const y = exportedValues(readJson(mDir.file("out.json")), "y", &dims);
    EXPECT_EQ(dims, "5x3");
    ASSERT_EQ(y.size(), x.size());
    for (size_t i = 0; i < x.size(); ++i)
    {
        EXPECT_NEAR(y[i], std::max(0.0, 1.5 * x[i]), 1e-6) << i;
    }
    std::string const profile = readText(mDir.file("p.json"));
    EXPECT_NE(profile.find("scale0"), std::string::npos) << profile;

    RunOutput const outside = runKilnexec(with({"--loadEngine=" + mDir.file("scale.plan"), "--shapes=x:9x3"}));
    EXPECT_EQ(outside.exitCode, 1);
    EXPECT_NE(outside.output.find("min 1x3, max 8x3"), std::string::npos) << outside.output;
}

//! out = Relu(CheckerToy(a, b)) = relu(alpha * a + b): a custom op served by the toy plugin library.
kiln::test::OnnxModelBuilder pluginModel(float alpha)
{
    kiln::test::OnnxModelBuilder model(13, "pluginModel");
    model.addInput("a", nvinfer1::DataType::kFLOAT, {2, 3});
    model.addInput("b", nvinfer1::DataType::kFLOAT, {2, 3});
    model.addNode("CheckerToy", {"a", "b"}, {"t"}, {kiln::test::floatAttr("alpha", alpha)}).set_name("toy");
    model.addNode("Relu", {"t"}, {"y"});
    model.addOutput("y", nvinfer1::DataType::kFLOAT);
    return model;
}

TEST_F(KilnexecRunTest, CustomOpServedByDynamicPluginLibrary)
{
    float const alpha = 2.5F;
    saveModel(pluginModel(alpha), mDir.file("plugin.onnx"));
    std::vector<float> const a = randomFloats(6, 34);
    std::vector<float> const b = randomFloats(6, 35);
    writeBytes(mDir.file("a.bin"), a.data(), a.size() * sizeof(float));
    writeBytes(mDir.file("b.bin"), b.data(), b.size() * sizeof(float));
    std::string const inputs = "--loadInputs=a:" + mDir.file("a.bin") + ",b:" + mDir.file("b.bin");
    auto check = [&](std::string const& path) {
        std::vector<double> const y = exportedValues(readJson(path), "y");
        ASSERT_EQ(y.size(), 6U);
        for (size_t i = 0; i < 6; ++i)
        {
            EXPECT_NEAR(y[i], std::max(0.0F, alpha * a[i] + b[i]), 1e-5) << i;
        }
    };

    RunOutput const missing = runKilnexec(with({"--onnx=" + mDir.file("plugin.onnx")}));
    EXPECT_EQ(missing.exitCode, 1) << missing.output;
    EXPECT_NE(missing.output.find("op CheckerToy"), std::string::npos) << missing.output;

    for (char const* flag : {"--dynamicPlugins=", "--staticPlugins="})
    {
        RunOutput const out = runKilnexec(with({"--onnx=" + mDir.file("plugin.onnx"), flag + toyPluginLibrary(),
            inputs, "--exportOutput=" + mDir.file("out.json"), "--iterations=2"}));
        ASSERT_EQ(out.exitCode, 0) << flag << "\n" << out.output;
        check(mDir.file("out.json"));
    }

    // The library embedded in the engine: loading it needs no plugin flag.
    RunOutput const embedded = runKilnexec({"--onnx=" + mDir.file("plugin.onnx"),
        "--dynamicPlugins=" + toyPluginLibrary(), "--setPluginsToSerialize=" + toyPluginLibrary(),
        "--saveEngine=" + mDir.file("plugin.plan"), "--skipInference"});
    ASSERT_EQ(embedded.exitCode, 0) << embedded.output;
    RunOutput const loaded = runKilnexec(with({"--loadEngine=" + mDir.file("plugin.plan"), inputs,
        "--exportOutput=" + mDir.file("loaded.json"), "--iterations=2"}));
    ASSERT_EQ(loaded.exitCode, 0) << loaded.output;
    check(mDir.file("loaded.json"));

    RunOutput const badLibrary = runKilnexec({"--onnx=" + mDir.file("plugin.onnx"),
        "--dynamicPlugins=" + mDir.file("libnothing.so")});
    EXPECT_EQ(badLibrary.exitCode, 1);
    EXPECT_NE(badLibrary.output.find("could not load --dynamicPlugins library"), std::string::npos)
        << badLibrary.output;
    RunOutput const badSerialize = runKilnexec({"--onnx=" + mDir.file("plugin.onnx"),
        "--dynamicPlugins=" + toyPluginLibrary(), "--setPluginsToSerialize=" + mDir.file("libnothing.so")});
    EXPECT_EQ(badSerialize.exitCode, 2);
    EXPECT_NE(badSerialize.output.find("--setPluginsToSerialize: cannot read"), std::string::npos)
        << badSerialize.output;
}

TEST_F(KilnexecRunTest, DataDependentOutputFromAPluginGoesThroughTheOutputAllocator)
{
    // CheckerToyV3 lists (row, column) of each element above the threshold: output 0 is INT32 [2, K].
    kiln::test::OnnxModelBuilder model(13, "nonZeroPlugin");
    model.addInput("x", nvinfer1::DataType::kFLOAT, {3, 4});
    model.addNode("CheckerToyV3", {"x"}, {"idx", "count"}, {kiln::test::floatAttr("threshold", 0.25F)});
    model.addOutput("idx", onnx::TensorProto::INT32);
    saveModel(model, mDir.file("nz.onnx"));
    std::vector<float> const x = randomFloats(12, 36, -1.0F, 1.0F);
    writeBytes(mDir.file("x.bin"), x.data(), x.size() * sizeof(float));
    RunOutput const out = runKilnexec(with({"--onnx=" + mDir.file("nz.onnx"), "--dynamicPlugins=" + toyPluginLibrary(),
        "--loadInputs=x:" + mDir.file("x.bin"), "--exportOutput=" + mDir.file("out.json"), "--iterations=2"}));
    ASSERT_EQ(out.exitCode, 0) << out.output;
    std::vector<double> rows;
    std::vector<double> cols;
    for (int32_t i = 0; i < 12; ++i)
    {
        if (x[static_cast<size_t>(i)] > 0.25F)
        {
            rows.push_back(i / 4);
            cols.push_back(i % 4);
        }
    }
    ASSERT_FALSE(rows.empty());
    std::string dims;
    std::vector<double> const idx = exportedValues(readJson(mDir.file("out.json")), "idx", &dims);
    EXPECT_EQ(dims, "2x" + std::to_string(rows.size()));
    std::vector<double> expected = rows;
    expected.insert(expected.end(), cols.begin(), cols.end());
    EXPECT_EQ(idx, expected);
}

} // namespace
} // namespace kilnexectest
