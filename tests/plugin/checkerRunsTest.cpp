// Unit tests of the contract checker's evidence: guarded buffers (writes before/after a payload) and the comparison
// of two runs made with different poisons (unwritten elements, a written prefix, differences, and outputs that
// happen to equal a poison value, which must not count as unwritten).
#include "plugin/checker/checkBuffers.h"
#include "plugin/checker/checkRuns.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

namespace
{

using namespace kiln::checker;
namespace rules = kiln::PluginCheckRules;

TEST(PluginCheckerBuffers, guardsReportHowFarAWriteWent)
{
    GuardedBuffer buffer(40);
    buffer.fill(poisonByte(0), guardByte(0));
    EXPECT_EQ(reinterpret_cast<uintptr_t>(buffer.data()) % kCHECK_GUARD_BYTES, 0U);
    EXPECT_EQ(buffer.overrunAfter(guardByte(0)), 0U);
    EXPECT_EQ(buffer.overrunBefore(guardByte(0)), 0U);
    auto* bytes = static_cast<uint8_t*>(buffer.data());
    bytes[39] = 7; // inside
    EXPECT_EQ(buffer.overrunAfter(guardByte(0)), 0U);
    bytes[40 + 5] = 7; // the sixth byte past the end
    EXPECT_EQ(buffer.overrunAfter(guardByte(0)), 6U);
    bytes[-3] = 7;
    EXPECT_EQ(buffer.overrunBefore(guardByte(0)), 3U);
}

TEST(PluginCheckerBuffers, randomInputsAreNeverAllZero)
{
    std::mt19937_64 rng(5);
    for (nvinfer1::DataType type : {nvinfer1::DataType::kFLOAT, nvinfer1::DataType::kINT32, nvinfer1::DataType::kBOOL,
             nvinfer1::DataType::kINT8})
    {
        std::vector<uint8_t> bytes = randomTensorBytes(type, 3, rng, true, 0.0, 0.4);
        bool anyNonZero = false;
        for (uint8_t b : bytes)
        {
            anyNonZero = anyNonZero || b != 0;
        }
        EXPECT_TRUE(anyNonZero) << static_cast<int32_t>(type);
    }
}

//! One FP32 output of 4 elements.
RunSetup setupOf4()
{
    RunSetup setup;
    nvinfer1::PluginTensorDesc desc{};
    desc.dims = nvinfer1::Dims{1, {4}};
    desc.type = nvinfer1::DataType::kFLOAT;
    desc.format = nvinfer1::TensorFormat::kLINEAR;
    desc.scale = -1.0F;
    setup.outDescs.push_back(desc);
    setup.aliases.push_back(-1);
    return setup;
}

RunResult runOf(int32_t poison, std::vector<float> const& values, std::vector<bool> const& written)
{
    RunResult run;
    run.poison = poison;
    std::vector<uint8_t> bytes(values.size() * 4, poisonByte(poison));
    for (size_t i = 0; i < values.size(); ++i)
    {
        if (written[i])
        {
            std::memcpy(bytes.data() + i * 4, &values[i], 4);
        }
    }
    run.outputs.push_back(bytes);
    run.declaredDims.push_back(nvinfer1::Dims{1, {4}});
    run.outputAfter.push_back(0);
    run.outputBefore.push_back(0);
    return run;
}

float poisonAsFloat(int32_t poison)
{
    uint8_t bytes[4];
    std::memset(bytes, poisonByte(poison), 4);
    float value = 0.0F;
    std::memcpy(&value, bytes, 4);
    return value;
}

TEST(PluginCheckerRuns, elementsKeepingBothPoisonsAreUnwritten)
{
    RunSetup setup = setupOf4();
    CheckReport report;
    std::vector<float> values{0.5F, -1.25F, 3.0F, 7.0F};
    bool same = compareRuns(runOf(0, values, {true, false, true, true}), runOf(1, values, {true, false, true, true}),
        setup, "test", report, "plugin 'P'", true);
    EXPECT_TRUE(same);
    EXPECT_EQ(report.countFindings(rules::kOUTPUT_UNWRITTEN), 1);
    EXPECT_EQ(report.countFindings(rules::kNONDETERMINISTIC), 0);
    EXPECT_NE(std::string(report.getFinding(0).message).find("1 of the 4 elements of output 0"), std::string::npos)
        << report.getFinding(0).message;
}

TEST(PluginCheckerRuns, anUnwrittenTailMeansTheDeclaredDimsAreTooLarge)
{
    RunSetup setup = setupOf4();
    CheckReport report;
    std::vector<float> values{0.5F, -1.25F, 3.0F, 7.0F};
    compareRuns(runOf(0, values, {true, true, false, false}), runOf(1, values, {true, true, false, false}), setup,
        "test", report, "plugin 'P'", true);
    EXPECT_EQ(report.countFindings(rules::kOUTPUT_DIMS_MISMATCH), 1);
    EXPECT_EQ(report.countFindings(rules::kOUTPUT_UNWRITTEN), 0);
    EXPECT_NE(std::string(report.getFinding(0).message).find("wrote only the first 2 of the 4 elements"),
        std::string::npos);
}

TEST(PluginCheckerRuns, anOutputEqualToAPoisonIsStillWritten)
{
    // The plugin writes the bit pattern of poison 0 into element 2 in both runs: run 1 shows "its" poison, run 2
    // shows poison 0 instead of poison 1, so the element was written (identically) — no finding.
    RunSetup setup = setupOf4();
    CheckReport report;
    std::vector<float> values{0.5F, -1.25F, poisonAsFloat(0), 7.0F};
    bool same = compareRuns(runOf(0, values, {true, true, true, true}), runOf(1, values, {true, true, true, true}),
        setup, "test", report, "plugin 'P'", true);
    EXPECT_TRUE(same);
    EXPECT_EQ(report.getNbFindings(), 0);
}

TEST(PluginCheckerRuns, differentValuesAreNondeterministic)
{
    RunSetup setup = setupOf4();
    CheckReport report;
    bool same = compareRuns(runOf(0, {0.5F, 1.0F, 2.0F, 3.0F}, {true, true, true, true}),
        runOf(1, {0.5F, 1.0F, 2.5F, 3.0F}, {true, true, true, true}), setup, "test", report, "plugin 'P'", true);
    EXPECT_FALSE(same);
    EXPECT_EQ(report.countFindings(rules::kNONDETERMINISTIC), 1);
    EXPECT_NE(std::string(report.getFinding(0).message).find("first at [2]: 2 vs 2.5"), std::string::npos)
        << report.getFinding(0).message;
    EXPECT_EQ(describeDifference(runOf(0, {1, 2, 3, 4}, {true, true, true, true}),
                  runOf(0, {1, 2, 3, 4}, {true, true, true, true}), setup),
        "");
}

} // namespace
