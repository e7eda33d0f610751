// kilnexec against the findings of issue 17 ("Reliability"), run as users run it: a model whose custom op is served
// by a plugin library compiled with -fno-rtti (it used to die with SIGSEGV while the engine was built), and
// --exportOutput with a tensor name that needs escaping and holds bytes that are not UTF-8 (the JSON must stay
// valid).
#include "kilnexecTestUtils.h"

#include <algorithm>

namespace kilnexectest
{
namespace
{

std::vector<std::string> const kQUICK = {"--warmUp=0", "--duration=0", "--iterations=2", "--backend=cpu"};

std::vector<std::string> with(std::vector<std::string> args)
{
    args.insert(args.end(), kQUICK.begin(), kQUICK.end());
    return args;
}

class KilnexecReliabilityTest : public ::testing::Test
{
protected:
    void SetUp() override
    {
        if (!fs::exists(kilnexecPath()))
        {
            GTEST_SKIP() << "kilnexec is not built (KILN_BUILD_TOOLS=OFF): " << kilnexecPath();
        }
    }
    ScratchDir mDir;
};

//! y = Relu(<op>(a, b)) = relu(alpha * a + b), the op served by a toy plugin library (checkerBrokenPlugins.h).
kiln::test::OnnxModelBuilder toyModel(char const* op, float alpha)
{
    kiln::test::OnnxModelBuilder model(13, "toyModel");
    model.addInput("a", nvinfer1::DataType::kFLOAT, {2, 3});
    model.addInput("b", nvinfer1::DataType::kFLOAT, {2, 3});
    model.addNode(op, {"a", "b"}, {"t"}, {kiln::test::floatAttr("alpha", alpha)}).set_name("toy");
    model.addNode("Relu", {"t"}, {"y"});
    model.addOutput("y", nvinfer1::DataType::kFLOAT);
    return model;
}

TEST_F(KilnexecReliabilityTest, PluginLibraryWithoutRttiBuildsAndRunsOnTheCpu)
{
    float const alpha = 1.5F;
    saveModel(toyModel("NoRttiToy", alpha), mDir.file("toy.onnx"));
    std::vector<float> const a = randomFloats(6, 171);
    std::vector<float> const b = randomFloats(6, 172);
    writeBytes(mDir.file("a.bin"), a.data(), a.size() * sizeof(float));
    writeBytes(mDir.file("b.bin"), b.data(), b.size() * sizeof(float));
    RunOutput const out = runKilnexec(with({"--onnx=" + mDir.file("toy.onnx"),
        "--dynamicPlugins=" + std::string(KILN_LIBRARY_DIR) + "/libkilnNoRttiToyPlugins.so",
        "--loadInputs=a:" + mDir.file("a.bin") + ",b:" + mDir.file("b.bin"), "--exportOutput=" + mDir.file("y.json")}));
    ASSERT_EQ(out.exitCode, 0) << out.output;
    std::vector<double> const y = exportedValues(readJson(mDir.file("y.json")), "y");
    ASSERT_EQ(y.size(), 6U);
    for (size_t i = 0; i < 6; ++i)
    {
        EXPECT_NEAR(y[i], std::max(0.0F, alpha * a[i] + b[i]), 1e-5) << i;
    }
}

TEST_F(KilnexecReliabilityTest, PluginLibraryWithoutRttiThatDidNotOptInGetsAClearError)
{
    saveModel(toyModel("NoRttiBareToy", 2.0F), mDir.file("bare.onnx"));
    RunOutput const out = runKilnexec(with({"--onnx=" + mDir.file("bare.onnx"),
        "--dynamicPlugins=" + std::string(KILN_LIBRARY_DIR) + "/libkilnNoRttiBareToyPlugins.so"}));
    EXPECT_EQ(out.exitCode, 1) << out.output;
    EXPECT_NE(out.output.find("plugin 'NoRttiBareToy'"), std::string::npos) << out.output;
    EXPECT_NE(out.output.find("does not support the CPU backend"), std::string::npos) << out.output;
    EXPECT_NE(out.output.find("kiln::kPLUGIN_CPU_SUPPORT_FIELD"), std::string::npos) << out.output;
}

//! True when every byte sequence of `text` is well-formed UTF-8 and no raw control character other than JSON
//! whitespace occurs (JSON strings cannot hold one).
bool validUtf8WithoutControls(std::string const& text)
{
    for (size_t pos = 0; pos < text.size();)
    {
        auto const c = static_cast<unsigned char>(text[pos]);
        if (c < 0x20 && c != '\n' && c != '\r' && c != '\t')
        {
            return false;
        }
        size_t const n = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
        if (n == 0 || pos + n > text.size() || (n == 2 && c < 0xC2))
        {
            return false;
        }
        for (size_t i = 1; i < n; ++i)
        {
            if ((static_cast<unsigned char>(text[pos + i]) & 0xC0) != 0x80)
            {
                return false;
            }
        }
        pos += n;
    }
    return true;
}

TEST_F(KilnexecReliabilityTest, ExportOutputStaysValidJsonForAnUnusualTensorName)
{
    // A quote, a backslash, a newline, a tab, a byte that is not UTF-8, a truncated two-byte sequence, and "é".
    std::string const name = std::string("y \"q\" \\b\nl\tt ") + "\xff" + " \xc3" + " \xc3\xa9";
    kiln::test::OnnxModelBuilder model(13, "oddName");
    model.addInput("x", nvinfer1::DataType::kFLOAT, {2, 2});
    model.addNode("Relu", {"x"}, {name});
    model.addOutput(name, nvinfer1::DataType::kFLOAT);
    saveModel(model, mDir.file("odd.onnx"));
    RunOutput const out = runKilnexec(with({"--onnx=" + mDir.file("odd.onnx"), "--exportOutput=" + mDir.file("o.json"),
        "--exportLayerInfo=" + mDir.file("l.json"), "--exportProfile=" + mDir.file("p.json")}));
    ASSERT_EQ(out.exitCode, 0) << out.output;
    for (char const* file : {"o.json", "l.json", "p.json"})
    {
        std::string const text = readText(mDir.file(file));
        EXPECT_TRUE(validUtf8WithoutControls(text)) << file << ":\n" << text;
        Json parsed;
        std::string error;
        EXPECT_TRUE(JsonReader(text).parse(parsed, error)) << file << ": " << error << "\n" << text;
    }
    std::string const exported = readText(mDir.file("o.json"));
    std::string const escaped = "\"y \\\"q\\\" \\\\b\\u000al\\u0009t \\ufffd \\ufffd \xc3\xa9\"";
    EXPECT_NE(exported.find(escaped), std::string::npos) << exported;
}

} // namespace
} // namespace kilnexectest
