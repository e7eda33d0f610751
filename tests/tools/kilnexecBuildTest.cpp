// kilnexec build-side flag groups, run as a user runs the tool: --onnx/--saveEngine/--loadEngine round trips,
// shapes and multiple profiles (and a shape outside the profile), precision and memory flags, --device, and bad
// flags/files/shapes (one clear line, the documented exit code, never a crash).
#include "kilnexecTestUtils.h"

#include <algorithm>
#include <cmath>

namespace kilnexectest
{
namespace
{

//! relu(x + w) with x [rows, 4] and w [4] broadcast over rows.
std::vector<double> addReluReference(std::vector<float> const& x, std::vector<float> const& w)
{
    std::vector<double> y(x.size());
    for (size_t i = 0; i < x.size(); ++i)
    {
        y[i] = std::max(0.0F, x[i] + w[i % 4]);
    }
    return y;
}

void expectClose(std::vector<double> const& actual, std::vector<double> const& expected, double tolerance = 1e-6)
{
    ASSERT_EQ(actual.size(), expected.size());
    for (size_t i = 0; i < actual.size(); ++i)
    {
        EXPECT_NEAR(actual[i], expected[i], tolerance) << "element " << i;
    }
}

//! Lines of the output that contain `text`.
int countLines(std::string const& output, std::string const& text)
{
    int n = 0;
    for (size_t at = output.find(text); at != std::string::npos; at = output.find(text, at + 1))
    {
        ++n;
    }
    return n;
}

class KilnexecBuildTest : public ::testing::Test
{
protected:
    void SetUp() override
    {
        if (!fs::exists(kilnexecPath()))
        {
            GTEST_SKIP() << "kilnexec is not built (KILN_BUILD_TOOLS=OFF): " << kilnexecPath();
        }
        mW = randomFloats(4, 11);
        saveModel(addReluModel(mW), mDir.file("addRelu.onnx"));
    }

    //! Writes `rows` x 4 random inputs to x.bin; returns them.
    std::vector<float> writeInput(int rows, uint32_t seed)
    {
        std::vector<float> x = randomFloats(static_cast<size_t>(rows) * 4, seed);
        writeBytes(mDir.file("x.bin"), x.data(), x.size() * sizeof(float));
        return x;
    }

    std::vector<std::string> quick() const
    {
        return {"--iterations=2", "--warmUp=0", "--duration=0"};
    }

    RunOutput run(std::vector<std::string> args, bool quickRun = true) const
    {
        if (quickRun)
        {
            for (std::string const& flag : quick())
            {
                args.push_back(flag);
            }
        }
        return runKilnexec(args);
    }

    ScratchDir mDir;
    std::vector<float> mW;
};

TEST_F(KilnexecBuildTest, BuildSaveThenLoadGivesTheReferenceOutput)
{
    RunOutput const built = run({"--onnx=" + mDir.file("addRelu.onnx"), "--shapes=x:3x4",
        "--saveEngine=" + mDir.file("e.plan"), "--skipInference"}, false);
    ASSERT_EQ(built.exitCode, 0) << built.output;
    EXPECT_NE(built.output.find("&&&& PASSED Kiln.kilnexec"), std::string::npos) << built.output;
    EXPECT_NE(built.output.find("Engine saved to"), std::string::npos);
    EXPECT_NE(built.output.find("Skipped inference"), std::string::npos);
    // Off a terminal the build's progress comes as plain lines.
    EXPECT_NE(built.output.find("[I] [build] Building engine: started ("), std::string::npos) << built.output;
    EXPECT_NE(built.output.find("[I] [build] Building engine: finished in "), std::string::npos);
    ASSERT_GT(fs::file_size(mDir.file("e.plan")), 0U);

    std::vector<float> const x = writeInput(3, 21);
    RunOutput const loaded = run({"--loadEngine=" + mDir.file("e.plan"), "--shapes=x:3x4",
        "--loadInputs=x:" + mDir.file("x.bin"), "--exportOutput=" + mDir.file("out.json")});
    ASSERT_EQ(loaded.exitCode, 0) << loaded.output;
    std::string dims;
    std::vector<double> const y = exportedValues(readJson(mDir.file("out.json")), "y", &dims);
    EXPECT_EQ(dims, "3x4");
    expectClose(y, addReluReference(x, mW));
}

TEST_F(KilnexecBuildTest, ShapesAloneSetMinOptMaxAndInferenceShape)
{
    std::vector<float> const x = writeInput(5, 22);
    RunOutput const out = run({"--onnx=" + mDir.file("addRelu.onnx"), "--shapes=x:5x4",
        "--loadInputs=x:" + mDir.file("x.bin"), "--exportOutput=" + mDir.file("out.json")});
    ASSERT_EQ(out.exitCode, 0) << out.output;
    EXPECT_NE(out.output.find("min=opt=max from --shapes: x=5x4"), std::string::npos) << out.output;
    expectClose(exportedValues(readJson(mDir.file("out.json")), "y"), addReluReference(x, mW));
}

TEST_F(KilnexecBuildTest, TwoProfilesAndProfileSelection)
{
    std::vector<std::string> const profiles = {"--profile=0", "--minShapes=x:1x4", "--optShapes=x:2x4",
        "--maxShapes=x:4x4", "--profile=1", "--minShapes=x:5x4", "--optShapes=x:6x4", "--maxShapes=x:8x4"};
    std::vector<std::string> args = {"--onnx=" + mDir.file("addRelu.onnx"), "--saveEngine=" + mDir.file("e.plan"),
        "--shapes=x:7x4", "--exportOutput=" + mDir.file("out.json")};
    args.insert(args.end(), profiles.begin(), profiles.end());
    std::vector<float> const x = writeInput(7, 23);
    args.push_back("--loadInputs=x:" + mDir.file("x.bin"));
    RunOutput const out = run(args);
    ASSERT_EQ(out.exitCode, 0) << out.output;
    EXPECT_NE(out.output.find("2 optimization profile(s)"), std::string::npos) << out.output;
    EXPECT_NE(out.output.find("Input build shapes (profile 1): min x=5x4; opt x=6x4; max x=8x4"), std::string::npos);
    std::string dims;
    expectClose(exportedValues(readJson(mDir.file("out.json")), "y", &dims), addReluReference(x, mW));
    EXPECT_EQ(dims, "7x4");

    // Profile 0 (batch 1..4) cannot take 7 rows: one clear line, exit 1.
    RunOutput const outside = run({"--loadEngine=" + mDir.file("e.plan"), "--profile=0", "--shapes=x:7x4"});
    EXPECT_EQ(outside.exitCode, 1) << outside.output;
    EXPECT_NE(outside.output.find("kilnexec: --shapes gives input 'x' the shape 7x4, outside what the engine accepts: "
                                  "-1x4 with profile 0 min 1x4, max 4x4"),
        std::string::npos)
        << outside.output;
    EXPECT_NE(outside.output.find("&&&& FAILED"), std::string::npos);

    // Without --shapes, profile 1's opt shape (6x4) is used.
    RunOutput const opt = run({"--loadEngine=" + mDir.file("e.plan"), "--profile=1",
        "--exportOutput=" + mDir.file("opt.json")});
    ASSERT_EQ(opt.exitCode, 0) << opt.output;
    std::string optDims;
    exportedValues(readJson(mDir.file("opt.json")), "y", &optDims);
    EXPECT_EQ(optDims, "6x4");

    RunOutput const missing = run({"--loadEngine=" + mDir.file("e.plan"), "--profile=2"});
    EXPECT_EQ(missing.exitCode, 1);
    EXPECT_NE(missing.output.find("--profile=2 selects a profile the engine does not have (it has 2)"),
        std::string::npos)
        << missing.output;
}

TEST_F(KilnexecBuildTest, RepeatedShapeFlagsStartANewProfile)
{
    RunOutput const out = run({"--onnx=" + mDir.file("addRelu.onnx"), "--minShapes=x:1x4", "--maxShapes=x:2x4",
                                  "--minShapes=x:3x4", "--maxShapes=x:9x4", "--skipInference"},
        false);
    ASSERT_EQ(out.exitCode, 0) << out.output;
    EXPECT_NE(out.output.find("2 optimization profile(s)"), std::string::npos) << out.output;
    // Missing opt follows max.
    EXPECT_NE(out.output.find("Input build shapes (profile 1): min x=3x4; opt -; max x=9x4"), std::string::npos);
}

TEST_F(KilnexecBuildTest, ShapeOutsideTheBuiltProfileIsOneClearLine)
{
    RunOutput const out = run({"--onnx=" + mDir.file("addRelu.onnx"), "--minShapes=x:1x4", "--optShapes=x:2x4",
        "--maxShapes=x:4x4", "--shapes=x:9x4"});
    EXPECT_EQ(out.exitCode, 1) << out.output;
    EXPECT_EQ(countLines(out.output, "outside what the engine accepts"), 1) << out.output;
    EXPECT_NE(out.output.find("min 1x4, max 4x4"), std::string::npos) << out.output;
}

TEST_F(KilnexecBuildTest, MalformedAndMismatchedShapes)
{
    RunOutput const syntax = run({"--onnx=" + mDir.file("addRelu.onnx"), "--shapes=x:3xq"});
    EXPECT_EQ(syntax.exitCode, 2);
    EXPECT_NE(syntax.output.find("kilnexec: --shapes=x:3xq: 'x:3xq' is not name:shape"), std::string::npos)
        << syntax.output;

    RunOutput const unknown = run({"--onnx=" + mDir.file("addRelu.onnx"), "--shapes=nope:1x4"});
    EXPECT_EQ(unknown.exitCode, 2);
    EXPECT_NE(unknown.output.find("--shapes names 'nope', which is not an input of the network (inputs: x)"),
        std::string::npos)
        << unknown.output;

    RunOutput const rank = run({"--onnx=" + mDir.file("addRelu.onnx"), "--minShapes=x:1x4x2"});
    EXPECT_EQ(rank.exitCode, 1);
    EXPECT_NE(rank.output.find("the shape 1x4x2 does not fit input 'x', declared as -1x4"), std::string::npos)
        << rank.output;

    RunOutput const order = run({"--onnx=" + mDir.file("addRelu.onnx"), "--minShapes=x:4x4", "--maxShapes=x:2x4"});
    EXPECT_EQ(order.exitCode, 1);
    EXPECT_NE(order.output.find("are not ordered min <= opt <= max"), std::string::npos) << order.output;

    RunOutput const twice = run({"--onnx=" + mDir.file("addRelu.onnx"), "--shapes=x:1x4,x:2x4"});
    EXPECT_EQ(twice.exitCode, 2);
    EXPECT_NE(twice.output.find("input 'x' is given twice"), std::string::npos) << twice.output;
}

TEST_F(KilnexecBuildTest, QuotedNamesWithColonsAndCommas)
{
    kiln::test::OnnxModelBuilder model(13, "quoted");
    model.addInput("in:0,a", nvinfer1::DataType::kFLOAT, {-1, 4});
    model.addNode("Relu", {"in:0,a"}, {"y"});
    model.addOutput("y", nvinfer1::DataType::kFLOAT);
    saveModel(model, mDir.file("quoted.onnx"));
    std::vector<float> const x = randomFloats(8, 24);
    writeBytes(mDir.file("q.bin"), x.data(), x.size() * sizeof(float));
    RunOutput const out = run({"--onnx=" + mDir.file("quoted.onnx"), "--shapes='in:0,a':2x4",
        "--loadInputs='in:0,a':" + mDir.file("q.bin"), "--exportOutput=" + mDir.file("out.json")});
    ASSERT_EQ(out.exitCode, 0) << out.output;
    std::vector<double> expected;
    for (float v : x)
    {
        expected.push_back(std::max(0.0F, v));
    }
    expectClose(exportedValues(readJson(mDir.file("out.json")), "y"), expected);
}

TEST_F(KilnexecBuildTest, PrecisionAndMemoryFlagsBuildAndRun)
{
    std::vector<float> const x = writeInput(2, 25);
    std::vector<double> const reference = addReluReference(x, mW);
    struct Case
    {
        std::vector<std::string> flags;
        char const* precision;
    };
    std::vector<Case> const cases = {{{"--fp16"}, "Precision: FP32+FP16"}, {{"--bf16"}, "Precision: FP32+BF16"},
        {{"--int8"}, "Precision: FP32+INT8"}, {{"--best"}, "Precision: FP32+FP16+BF16+INT8"},
        {{"--noTF32", "--memPoolSize=workspace:64M"}, "Precision: FP32 (TF32 disabled)"},
        {{"--stronglyTyped"}, "Precision: Strongly typed"}};
    for (Case const& c : cases)
    {
        std::vector<std::string> args = {"--onnx=" + mDir.file("addRelu.onnx"), "--shapes=x:2x4",
            "--loadInputs=x:" + mDir.file("x.bin"), "--exportOutput=" + mDir.file("out.json")};
        args.insert(args.end(), c.flags.begin(), c.flags.end());
        RunOutput const out = run(args);
        ASSERT_EQ(out.exitCode, 0) << c.flags[0] << "\n" << out.output;
        EXPECT_NE(out.output.find(c.precision), std::string::npos) << c.flags[0] << "\n" << out.output;
        // The CPU backend computes in FP32; the network's I/O stays FP32.
        expectClose(exportedValues(readJson(mDir.file("out.json")), "y"), reference);
        if (c.flags[0] == "--int8")
        {
            EXPECT_NE(out.output.find("--int8 without calibration"), std::string::npos) << out.output;
        }
    }
    RunOutput const memory = run({"--onnx=" + mDir.file("addRelu.onnx"), "--memPoolSize=workspace:1.5G,tacticSharedMem:1K",
        "--skipInference"}, false);
    EXPECT_EQ(memory.exitCode, 0) << memory.output;
    EXPECT_NE(memory.output.find("Memory Pools: workspace: 1536 MiB, tacticSharedMem: 0.000976562 MiB"),
        std::string::npos)
        << memory.output;
}

TEST_F(KilnexecBuildTest, PrecisionFlagErrors)
{
    RunOutput const strong = run({"--onnx=" + mDir.file("addRelu.onnx"), "--stronglyTyped", "--fp16"});
    EXPECT_EQ(strong.exitCode, 2);
    EXPECT_NE(strong.output.find("--stronglyTyped takes its types from the network"), std::string::npos)
        << strong.output;
    RunOutput const pool = run({"--onnx=" + mDir.file("addRelu.onnx"), "--memPoolSize=cache:12M"});
    EXPECT_EQ(pool.exitCode, 2);
    EXPECT_NE(pool.output.find("'cache:12M' is not pool:size"), std::string::npos) << pool.output;
    RunOutput const flagValue = run({"--onnx=" + mDir.file("addRelu.onnx"), "--fp16=yes"});
    EXPECT_EQ(flagValue.exitCode, 2);
    EXPECT_NE(flagValue.output.find("kilnexec: --fp16 takes no value"), std::string::npos) << flagValue.output;
}

TEST_F(KilnexecBuildTest, BackendAndDeviceFlags)
{
    std::string const model = "--onnx=" + mDir.file("addRelu.onnx");
    RunOutput const gpu = run({model, "--device=gpu", "--shapes=x:1x4"});
    if (gpu.exitCode == 3)
    {
        // No usable CUDA backend here (no GPU, or a build without CUDA): exit 3 with one line saying why.
        EXPECT_EQ(countLines(gpu.output, "kilnexec: --device=gpu: the CUDA backend is not available: "), 1) << gpu.output;
        EXPECT_NE(gpu.output.find("&&&& FAILED"), std::string::npos);
        RunOutput const index = run({model, "--device=0"});
        EXPECT_EQ(index.exitCode, 3) << index.output;
        EXPECT_EQ(countLines(index.output, "kilnexec: --device=0: the CUDA backend is not available: "), 1)
            << index.output;
        RunOutput const cuda = run({model, "--backend=cuda"});
        EXPECT_EQ(cuda.exitCode, 3) << cuda.output;
        EXPECT_EQ(countLines(cuda.output, "kilnexec: --backend=cuda: the CUDA backend is not available: "), 1)
            << cuda.output;
        // The default backend falls back to the CPU.
        RunOutput const fallback = run({model, "--backend=default", "--shapes=x:1x4"});
        EXPECT_EQ(fallback.exitCode, 0) << fallback.output;
        EXPECT_NE(fallback.output.find("[I] Engine backend: CPU"), std::string::npos) << fallback.output;
    }
    else
    {
        EXPECT_EQ(gpu.exitCode, 0) << gpu.output;
        EXPECT_NE(gpu.output.find("[I] Engine backend: CUDA"), std::string::npos) << gpu.output;
    }
    for (char const* flag : {"--device=cpu", "--backend=cpu"})
    {
        RunOutput const cpu = run({model, flag, "--shapes=x:1x4"});
        EXPECT_EQ(cpu.exitCode, 0) << cpu.output;
        EXPECT_NE(cpu.output.find("[I] Engine backend: CPU"), std::string::npos) << cpu.output;
    }
    RunOutput const bad = run({model, "--device=tpu"});
    EXPECT_EQ(bad.exitCode, 2);
    EXPECT_NE(bad.output.find("--device=tpu: expected cpu, gpu or a GPU index"), std::string::npos) << bad.output;
    RunOutput const badBackend = run({model, "--backend=tpu"});
    EXPECT_EQ(badBackend.exitCode, 2);
    EXPECT_NE(badBackend.output.find("--backend=tpu: expected default, cpu or cuda"), std::string::npos)
        << badBackend.output;
    RunOutput const contradiction = run({model, "--backend=cpu", "--device=1"});
    EXPECT_EQ(contradiction.exitCode, 2);
    EXPECT_NE(contradiction.output.find("--device=1 contradicts --backend=cpu"), std::string::npos)
        << contradiction.output;
}

TEST_F(KilnexecBuildTest, BadFilesGiveOneLineAndExitOne)
{
    RunOutput const missing = run({"--onnx=" + mDir.file("nope.onnx")});
    EXPECT_EQ(missing.exitCode, 1);
    EXPECT_EQ(countLines(missing.output, "kilnexec: cannot open --onnx model"), 1) << missing.output;

    std::string const garbage = "this is not a protobuf \x01\x02\xff";
    writeBytes(mDir.file("garbage.onnx"), garbage.data(), garbage.size());
    RunOutput const notOnnx = run({"--onnx=" + mDir.file("garbage.onnx")});
    EXPECT_EQ(notOnnx.exitCode, 1) << notOnnx.output;
    EXPECT_NE(notOnnx.output.find("kilnexec: failed to parse ONNX model"), std::string::npos) << notOnnx.output;

    writeBytes(mDir.file("garbage.plan"), garbage.data(), garbage.size());
    RunOutput const notEngine = run({"--loadEngine=" + mDir.file("garbage.plan")});
    EXPECT_EQ(notEngine.exitCode, 1) << notEngine.output;
    EXPECT_NE(notEngine.output.find("kilnexec: could not load the engine"), std::string::npos) << notEngine.output;

    RunOutput const noEngine = run({"--loadEngine=" + mDir.file("nope.plan")});
    EXPECT_EQ(noEngine.exitCode, 1);
    EXPECT_NE(noEngine.output.find("kilnexec: cannot open --loadEngine file"), std::string::npos) << noEngine.output;

    writeBytes(mDir.file("short.bin"), garbage.data(), 5);
    RunOutput const shortInput = run({"--onnx=" + mDir.file("addRelu.onnx"), "--shapes=x:2x4",
        "--loadInputs=x:" + mDir.file("short.bin")});
    EXPECT_EQ(shortInput.exitCode, 1);
    EXPECT_NE(shortInput.output.find("holds 5 bytes, but input 'x' (FP32, 2x4) needs 32 bytes"), std::string::npos)
        << shortInput.output;

    RunOutput const wrongName = run({"--onnx=" + mDir.file("addRelu.onnx"), "--shapes=x:2x4",
        "--loadInputs=z:" + mDir.file("short.bin")});
    EXPECT_EQ(wrongName.exitCode, 1);
    EXPECT_NE(wrongName.output.find("--loadInputs names 'z', which is not an input of the engine (inputs: x)"),
        std::string::npos)
        << wrongName.output;

    RunOutput const unwritable = run({"--onnx=" + mDir.file("addRelu.onnx"), "--shapes=x:2x4",
        "--exportOutput=" + mDir.file("no/such/dir/out.json")});
    EXPECT_EQ(unwritable.exitCode, 1);
    EXPECT_NE(unwritable.output.find("kilnexec: --exportOutput: cannot write"), std::string::npos)
        << unwritable.output;
}

TEST_F(KilnexecBuildTest, ParserErrorsNameNodeAndOp)
{
    kiln::test::OnnxModelBuilder model(13, "unknownOp");
    model.addInput("x", nvinfer1::DataType::kFLOAT, {2, 4});
    model.addNode("Relu", {"x"}, {"r"}).set_name("first");
    model.addNode("NoSuchKilnOp", {"r"}, {"y"}).set_name("mystery");
    model.addOutput("y", nvinfer1::DataType::kFLOAT);
    saveModel(model, mDir.file("unknown.onnx"));
    RunOutput const out = run({"--onnx=" + mDir.file("unknown.onnx")});
    EXPECT_EQ(out.exitCode, 1) << out.output;
    EXPECT_NE(out.output.find("[E] [parser] node 1 (mystery) op NoSuchKilnOp: "), std::string::npos) << out.output;
    EXPECT_NE(out.output.find("kilnexec: failed to parse ONNX model"), std::string::npos);
}

TEST_F(KilnexecBuildTest, TimingCacheFileIsCreatedLoadedAndChecked)
{
    std::string const cache = mDir.file("timing.cache");
    RunOutput const first = run({"--onnx=" + mDir.file("addRelu.onnx"), "--shapes=x:3x4", "--skipInference",
        "--timingCacheFile=" + cache}, false);
    ASSERT_EQ(first.exitCode, 0) << first.output;
    EXPECT_NE(first.output.find("[I] Timing cache: " + cache), std::string::npos) << first.output;
    EXPECT_NE(first.output.find("[I] Timing cache created: 0 entries"), std::string::npos) << first.output;
    EXPECT_NE(first.output.find("[I] Timing cache saved to " + cache), std::string::npos) << first.output;
    ASSERT_TRUE(fs::exists(cache));
    RunOutput const second = run({"--onnx=" + mDir.file("addRelu.onnx"), "--shapes=x:3x4", "--skipInference",
        "--timingCacheFile=" + cache}, false);
    ASSERT_EQ(second.exitCode, 0) << second.output;
    EXPECT_NE(second.output.find("[I] Timing cache loaded"), std::string::npos) << second.output;
    // Not a cache: the build stops with a message naming the file.
    std::string const junk = "not a timing cache";
    writeBytes(cache, junk.data(), junk.size());
    RunOutput const bad = run({"--onnx=" + mDir.file("addRelu.onnx"), "--shapes=x:3x4", "--skipInference",
        "--timingCacheFile=" + cache}, false);
    EXPECT_NE(bad.exitCode, 0) << bad.output;
    EXPECT_NE(bad.output.find("--timingCacheFile: '" + cache + "' is not a timing cache"), std::string::npos)
        << bad.output;
    RunOutput const disabled = run({"--onnx=" + mDir.file("addRelu.onnx"), "--shapes=x:3x4", "--skipInference",
        "--noBuilderCache"}, false);
    ASSERT_EQ(disabled.exitCode, 0) << disabled.output;
    EXPECT_NE(disabled.output.find("[I] Timing cache: disabled (--noBuilderCache)"), std::string::npos)
        << disabled.output;
}

TEST_F(KilnexecBuildTest, UsageErrorsExitTwo)
{
    struct Case
    {
        std::vector<std::string> args;
        char const* message;
    };
    std::vector<Case> const cases = {{{"--frobnicate"}, "kilnexec: unknown option --frobnicate (see --help)"},
        {{"--onnx=a.onnx", "--loadEngine=b.plan"}, "--onnx and --loadEngine exclude each other"},
        {{"--onnx=a.onnx", "--iterations=0"}, "--iterations=0: expected a positive integer"},
        {{"--onnx=a.onnx", "--warmUp=-1"}, "--warmUp=-1: expected a non-negative number (milliseconds)"},
        {{"--onnx=a.onnx", "--percentile=90,101"}, "'101' is not a percentile in [0, 100]"},
        {{"--onnx"}, "kilnexec: --onnx needs a value (--onnx=...)"},
        {{"--loadEngine=e.plan", "--fp16"}, "build flags"},
        {{"--exportOutput=o.json"}, "--exportOutput needs an engine"},
        {{"--fp16"}, "nothing to do"},
        {{"--onnx=a.onnx", "--calib=c"}, "--calib is a trtexec flag that is not supported"},
        {{"--loadEngine=e.plan", "--timingCacheFile=c"}, "build flags"},
        {{"--onnx=a.onnx", "--loadInputs=x"}, "'x' is not name:file"},
        {{"--onnx=a.onnx", "--profilingVerbosity=max"}, "expected layer_names_only, detailed or none"},
        {{"model.onnx"}, "unexpected argument 'model.onnx'"}};
    for (Case const& c : cases)
    {
        RunOutput const out = runKilnexec(c.args);
        EXPECT_EQ(out.exitCode, 2) << c.args[0] << "\n" << out.output;
        EXPECT_NE(out.output.find(c.message), std::string::npos) << c.args[0] << "\n" << out.output;
        EXPECT_EQ(std::count(out.output.begin(), out.output.end(), '\n'), 1) << "one line: " << out.output;
    }
}

} // namespace
} // namespace kilnexectest
