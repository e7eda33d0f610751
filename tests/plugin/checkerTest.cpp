// Tests of the plugin contract checker (kiln::checkPlugin, include/kiln/KilnPluginChecker.h): a correct plugin of
// each of two generations passes with zero findings, and a deliberately broken plugin for every rule
// (checkerBrokenPlugins.h) is caught with that rule's id and a message that names the cause.
#include "checkerBrokenPlugins.h"
#include "impl/NvInferPythonPlugin.h"
#include "kiln/KilnPluginChecker.h"
#include "plugin/pluginRegistry.h"

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>
#include <vector>

namespace
{

using namespace nvinfer1;
using checkertest::Defect;
using checkertest::DefectV3;
namespace rules = kiln::PluginCheckRules;

using ReportPtr = std::unique_ptr<kiln::IPluginCheckReport>;

//! A registry (no parent) holding the two toy creators.
class ToyRegistry
{
public:
    ToyRegistry()
    {
        registry->registerCreator(static_cast<IPluginCreatorInterface&>(v2), "");
        registry->registerCreator(static_cast<IPluginCreatorInterface&>(v3), "");
    }

    checkertest::CheckerToyCreator v2;
    checkertest::CheckerToyV3Creator v3;
    std::unique_ptr<kiln::PluginRegistry> registry = kiln::createLocalRegistry(nullptr, nullptr, "checker tests");
};

std::set<std::string> rulesOf(kiln::IPluginCheckReport const& report)
{
    std::set<std::string> result;
    for (int32_t i = 0; i < report.getNbFindings(); ++i)
    {
        result.insert(report.getFinding(i).rule);
    }
    return result;
}

std::string messagesOf(kiln::IPluginCheckReport const& report, std::string const& rule)
{
    std::string text;
    for (int32_t i = 0; i < report.getNbFindings(); ++i)
    {
        if (rule == report.getFinding(i).rule)
        {
            text += std::string(report.getFinding(i).message) + "\n";
        }
    }
    return text;
}

kiln::PluginCheckOutcome outcomeOf(kiln::IPluginCheckReport const& report, std::string const& rule)
{
    for (int32_t i = 0; i < report.getNbRules(); ++i)
    {
        if (rule == report.getRule(i).rule)
        {
            return report.getRule(i).outcome;
        }
    }
    ADD_FAILURE() << "no rule " << rule;
    return kiln::PluginCheckOutcome::kSKIPPED;
}

//! Checks CheckerToy (out = alpha * gain * in0 + in1) with 2 inputs [3, 5] (alternative shapes [4, 6]).
ReportPtr checkToy(ToyRegistry& toys, Defect defect, bool alternative = true, ILogger* logger = nullptr)
{
    int32_t defectValue = static_cast<int32_t>(defect);
    float alpha = 2.5F;
    PluginField fields[] = {PluginField("defect", &defectValue, PluginFieldType::kINT32, 1),
        PluginField("alpha", &alpha, PluginFieldType::kFLOAT32, 1)};
    PluginFieldCollection collection{2, fields};
    Dims shapes[] = {Dims{2, {3, 5}}, Dims{2, {3, 5}}};
    Dims alternatives[] = {Dims{2, {4, 6}}, Dims{2, {4, 6}}};
    kiln::PluginCheckRequest request;
    request.pluginName = "CheckerToy";
    request.pluginVersion = "1";
    request.fields = &collection;
    request.nbInputs = 2;
    request.inputShapes = shapes;
    request.alternativeInputShapes = alternative ? alternatives : nullptr;
    request.nbRuns = 3;
    return ReportPtr(kiln::checkPlugin(*toys.registry, request, logger));
}

//! Checks CheckerToyV3 (NonZero-like, threshold 0.25, two tactics) on one input [4, 6].
ReportPtr checkToyV3(ToyRegistry& toys, DefectV3 defect)
{
    int32_t defectValue = static_cast<int32_t>(defect);
    float threshold = 0.25F;
    PluginField fields[] = {PluginField("threshold", &threshold, PluginFieldType::kFLOAT32, 1),
        PluginField("defect", &defectValue, PluginFieldType::kINT32, 1)};
    PluginFieldCollection collection{2, fields};
    Dims shape{2, {4, 6}};
    kiln::PluginCheckRequest request;
    request.pluginName = "CheckerToyV3";
    request.pluginVersion = "1";
    request.fields = &collection;
    request.nbInputs = 1;
    request.inputShapes = &shape;
    return ReportPtr(kiln::checkPlugin(*toys.registry, request, nullptr));
}

TEST(PluginChecker, correctV2DynamicExtPluginPassesEveryRule)
{
    ToyRegistry toys;
    ReportPtr report = checkToy(toys, Defect::kNONE, true);
    ASSERT_NE(report, nullptr);
    EXPECT_TRUE(report->passed()) << report->toText();
    EXPECT_EQ(report->getNbFindings(), 0);
    EXPECT_TRUE(report->executionChecked());
    for (int32_t i = 0; i < report->getNbRules(); ++i)
    {
        EXPECT_EQ(report->getRule(i).outcome, kiln::PluginCheckOutcome::kPASSED)
            << report->getRule(i).rule << ": " << report->getRule(i).detail << "\n"
            << report->toText();
    }
    std::string const text = report->toText();
    EXPECT_NE(text.find("RESULT: PASSED"), std::string::npos) << text;
    EXPECT_NE(text.find("IPluginV2DynamicExt"), std::string::npos) << text;
    EXPECT_NE(text.find("workspace: 96 bytes"), std::string::npos) << text; // 4x6 floats: the profile's max
}

TEST(PluginChecker, correctV3PluginWithSizeTensorAndTacticsPasses)
{
    ToyRegistry toys;
    ReportPtr report = checkToyV3(toys, DefectV3::kNONE);
    ASSERT_NE(report, nullptr);
    EXPECT_TRUE(report->passed()) << report->toText();
    EXPECT_TRUE(report->executionChecked());
    for (int32_t i = 0; i < report->getNbRules(); ++i)
    {
        EXPECT_EQ(report->getRule(i).outcome, kiln::PluginCheckOutcome::kPASSED)
            << report->getRule(i).rule << "\n" << report->toText();
    }
    EXPECT_NE(std::string(report->toText()).find("tactics: 1, 2"), std::string::npos) << report->toText();
}

struct BrokenCase
{
    Defect defect;
    std::set<std::string> rules; //!< exactly the rules that must be reported
    std::string cause;           //!< text every message of the first rule must contain
};

class BrokenV2Plugin : public ::testing::TestWithParam<BrokenCase>
{
};

TEST_P(BrokenV2Plugin, isCaughtWithItsRule)
{
    BrokenCase const& c = GetParam();
    ToyRegistry toys;
    ReportPtr report = checkToy(toys, c.defect);
    ASSERT_NE(report, nullptr);
    EXPECT_FALSE(report->passed());
    EXPECT_EQ(rulesOf(*report), c.rules) << report->toText();
    std::string const first = *c.rules.begin();
    EXPECT_GE(report->countFindings(first.c_str()), 1);
    EXPECT_EQ(outcomeOf(*report, first), kiln::PluginCheckOutcome::kFAILED);
    std::string const messages = messagesOf(*report, first);
    EXPECT_NE(messages.find(c.cause), std::string::npos) << messages;
    EXPECT_NE(messages.find("CheckerToy"), std::string::npos) << "messages name the plugin\n" << messages;
}

INSTANTIATE_TEST_SUITE_P(PluginChecker, BrokenV2Plugin,
    ::testing::Values(
        BrokenCase{Defect::kCLONE_DROPS_ALPHA, {rules::kCLONE_DIFFERS}, "clone() must copy every member"},
        BrokenCase{Defect::kDESERIALIZE_DROPS_ALPHA, {rules::kSERIALIZE_ROUNDTRIP}, "deserializePlugin"},
        BrokenCase{Defect::kREADS_AHEAD, {rules::kFORMAT_READS_AHEAD}, "supportsFormatCombination(pos=0)"},
        BrokenCase{Defect::kWRITES_PAST_END, {rules::kOUTPUT_DIMS_MISMATCH}, "12 bytes past the end of output 0"},
        BrokenCase{Defect::kWRITES_PREFIX, {rules::kOUTPUT_DIMS_MISMATCH}, "wrote only the first 13 of the 15"},
        BrokenCase{Defect::kLEAVES_HOLES, {rules::kOUTPUT_UNWRITTEN}, "2 of the 15 elements of output 0"},
        BrokenCase{Defect::kWORKSPACE_OVERRUN, {rules::kWORKSPACE_OVERRUN}, "past the end of its workspace of 96 bytes"},
        BrokenCase{Defect::kWORKSPACE_WITHOUT_SIZE, {rules::kWORKSPACE_OVERRUN}, "getWorkspaceSize returned 0"},
        BrokenCase{Defect::kMODIFIES_INPUT, {rules::kINPUT_MODIFIED}, "changed input 0"},
        BrokenCase{Defect::kNONDETERMINISTIC, {rules::kNONDETERMINISTIC}, "two runs with the same inputs"},
        BrokenCase{Defect::kCONFIGURE_ACCUMULATES, {rules::kREPEATED_CONFIGURE}, "called again with the same shapes"},
        BrokenCase{Defect::kKEEPS_LARGEST_ROWS, {rules::kREPEATED_CONFIGURE},
            "at the alternative shapes and back at the first shapes, enqueue gave different outputs"},
        BrokenCase{Defect::kCLONE_NULL, {rules::kCALL_FAILED}, "clone"},
        BrokenCase{Defect::kENQUEUE_FAILS, {rules::kCALL_FAILED}, "error code 3"},
        BrokenCase{Defect::kBAD_OUTPUT_RANK, {rules::kCALL_FAILED}, "output shapes of the plugin returned by createPlugin"},
        BrokenCase{Defect::kBAD_OUTPUT_TYPE, {rules::kCALL_FAILED}, "format negotiation"},
        BrokenCase{Defect::kENQUEUE_THROWS, {rules::kCALL_FAILED}, "CheckerToy enqueue exploded"},
        BrokenCase{Defect::kWRONG_VERSION, {rules::kIDENTITY_MISMATCH}, "version '2'"},
        BrokenCase{Defect::kREJECTS_ALL, {rules::kNO_FORMAT_COMBINATION}, "accepted nothing at position 0"}),
    [](::testing::TestParamInfo<BrokenCase> const& info) {
        return "defect" + std::to_string(static_cast<int32_t>(info.param.defect));
    });

struct BrokenV3Case
{
    DefectV3 defect;
    std::set<std::string> rules;
    std::string rule; //!< the rule whose message is checked
    std::string cause;
    std::string where{}; //!< also in that message, when not empty
};

class BrokenV3Plugin : public ::testing::TestWithParam<BrokenV3Case>
{
};

TEST_P(BrokenV3Plugin, isCaughtWithItsRule)
{
    BrokenV3Case const& c = GetParam();
    ToyRegistry toys;
    ReportPtr report = checkToyV3(toys, c.defect);
    ASSERT_NE(report, nullptr);
    EXPECT_FALSE(report->passed());
    EXPECT_EQ(rulesOf(*report), c.rules) << report->toText();
    std::string const messages = messagesOf(*report, c.rule);
    EXPECT_NE(messages.find(c.cause), std::string::npos) << messages;
    EXPECT_NE(messages.find(c.where), std::string::npos) << messages;
    EXPECT_NE(messages.find("CheckerToyV3"), std::string::npos) << messages;
}

INSTANTIATE_TEST_SUITE_P(PluginChecker, BrokenV3Plugin,
    ::testing::Values(
        BrokenV3Case{DefectV3::kDROPS_THRESHOLD, {rules::kSERIALIZE_ROUNDTRIP}, rules::kSERIALIZE_ROUNDTRIP,
            "recreated from the serialized fields computes other outputs"},
        BrokenV3Case{DefectV3::kSIZE_PAST_UPPER, {rules::kOUTPUT_DIMS_MISMATCH}, rules::kOUTPUT_DIMS_MISMATCH,
            "holds 25, outside [0, 24]"},
        BrokenV3Case{DefectV3::kTACTIC2_HOLE, {rules::kOUTPUT_UNWRITTEN}, rules::kOUTPUT_UNWRITTEN,
            "were never written (first at [0, ", "[execution context's plugin with tactic 2, runs 1 and 2]"},
        BrokenV3Case{DefectV3::kSIZE_UNWRITTEN, {rules::kOUTPUT_UNWRITTEN, rules::kOUTPUT_DIMS_MISMATCH},
            rules::kOUTPUT_UNWRITTEN, "output 1"}),
    [](::testing::TestParamInfo<BrokenV3Case> const& info) {
        return "defect" + std::to_string(static_cast<int32_t>(info.param.defect));
    });

TEST(PluginChecker, pluginWithoutCpuOptInGetsStaticRulesOnly)
{
    ToyRegistry toys;
    ReportPtr report = checkToy(toys, Defect::kNO_CPU);
    ASSERT_NE(report, nullptr);
    EXPECT_TRUE(report->passed()) << report->toText();
    EXPECT_EQ(report->getNbFindings(), 0);
    EXPECT_FALSE(report->executionChecked());
    ASSERT_GE(report->getNbNotes(), 1);
    EXPECT_NE(std::string(report->getNote(0)).find("does not opt into the CPU backend"), std::string::npos);
    EXPECT_EQ(outcomeOf(*report, rules::kOUTPUT_UNWRITTEN), kiln::PluginCheckOutcome::kSKIPPED);
    EXPECT_EQ(outcomeOf(*report, rules::kREPEATED_CONFIGURE), kiln::PluginCheckOutcome::kSKIPPED);
    EXPECT_EQ(outcomeOf(*report, rules::kSERIALIZE_ROUNDTRIP), kiln::PluginCheckOutcome::kPASSED);
    EXPECT_EQ(outcomeOf(*report, rules::kFORMAT_READS_AHEAD), kiln::PluginCheckOutcome::kPASSED);
}

TEST(PluginChecker, readingAheadIsReportedOncePerPosition)
{
    ToyRegistry toys;
    ReportPtr report = checkToy(toys, Defect::kREADS_AHEAD, false);
    ASSERT_NE(report, nullptr);
    EXPECT_EQ(report->countFindings(rules::kFORMAT_READS_AHEAD), 1) << report->toText();
    EXPECT_NE(messagesOf(*report, rules::kFORMAT_READS_AHEAD).find("it must only look at inOut[0..pos]"),
        std::string::npos);
}

TEST(PluginChecker, unknownCreatorListsTheRegisteredVersions)
{
    ToyRegistry toys;
    Dims shape{1, {4}};
    kiln::PluginCheckRequest request;
    request.pluginName = "CheckerToy";
    request.pluginVersion = "7";
    request.nbInputs = 1;
    request.inputShapes = &shape;
    ReportPtr report(kiln::checkPlugin(*toys.registry, request, nullptr));
    ASSERT_NE(report, nullptr);
    EXPECT_EQ(rulesOf(*report), std::set<std::string>{rules::kCREATOR_NOT_FOUND});
    std::string const message = messagesOf(*report, rules::kCREATOR_NOT_FOUND);
    EXPECT_NE(message.find("'CheckerToy' version '7'"), std::string::npos) << message;
    EXPECT_NE(message.find("registered as version '1'"), std::string::npos) << message;

    request.pluginName = "CheckerToyV4";
    report.reset(kiln::checkPlugin(*toys.registry, request, nullptr));
    std::string const closest = messagesOf(*report, rules::kCREATOR_NOT_FOUND);
    EXPECT_NE(closest.find("closest registered: 'CheckerToyV3' version '1' namespace '', 'CheckerToy' version '1'"),
        std::string::npos)
        << closest;
}

TEST(PluginChecker, quickPluginCreatorsAreNotCheckable)
{
    class QuickCreator final : public IPluginCreatorV3Quick
    {
    public:
        IPluginV3* createPlugin(char const*, char const*, PluginFieldCollection const*, TensorRTPhase,
            QuickPluginCreationRequest) noexcept override
        {
            return nullptr;
        }
        PluginFieldCollection const* getFieldNames() noexcept override { return &mFields; }
        char const* getPluginName() const noexcept override { return "QuickToy"; }
        char const* getPluginVersion() const noexcept override { return "1"; }
        char const* getPluginNamespace() const noexcept override { return "py"; }

    private:
        PluginFieldCollection mFields{};
    } quick;
    ToyRegistry toys;
    ASSERT_TRUE(toys.registry->registerCreator(static_cast<IPluginCreatorInterface&>(quick), "py"));
    Dims shape{1, {4}};
    kiln::PluginCheckRequest request;
    request.pluginName = "QuickToy";
    request.pluginVersion = "1";
    request.pluginNamespace = "py";
    request.nbInputs = 1;
    request.inputShapes = &shape;
    ReportPtr report(kiln::checkPlugin(*toys.registry, request, nullptr));
    ASSERT_NE(report, nullptr);
    EXPECT_EQ(rulesOf(*report), std::set<std::string>{rules::kNOT_CHECKABLE});
    EXPECT_NE(messagesOf(*report, rules::kNOT_CHECKABLE).find("IPluginCreatorV3Quick"), std::string::npos);
    toys.registry->deregisterCreator(static_cast<IPluginCreatorInterface const&>(quick));
}

TEST(PluginChecker, openVersionResolvesToTheOnlyRegisteredOne)
{
    ToyRegistry toys;
    float threshold = 0.0F;
    PluginField field("threshold", &threshold, PluginFieldType::kFLOAT32, 1);
    PluginFieldCollection collection{1, &field};
    Dims shape{2, {3, 3}};
    kiln::PluginCheckRequest request;
    request.pluginName = "CheckerToyV3";
    request.fields = &collection;
    request.nbInputs = 1;
    request.inputShapes = &shape;
    ReportPtr report(kiln::checkPlugin(*toys.registry, request, nullptr));
    ASSERT_NE(report, nullptr);
    EXPECT_TRUE(report->passed()) << report->toText();
    EXPECT_NE(std::string(report->toText()).find("'CheckerToyV3' version '1'"), std::string::npos);
}

TEST(PluginChecker, badRequestsAreReportedWithTheirCause)
{
    ToyRegistry toys;
    Dims good{2, {3, 5}};
    Dims negative{2, {3, -1}};
    Dims goods[] = {good, good};

    kiln::PluginCheckRequest noName;
    ReportPtr report(kiln::checkPlugin(*toys.registry, noName, nullptr));
    ASSERT_NE(report, nullptr);
    EXPECT_EQ(rulesOf(*report), std::set<std::string>{rules::kBAD_REQUEST});
    EXPECT_NE(messagesOf(*report, rules::kBAD_REQUEST).find("no plugin name"), std::string::npos);

    kiln::PluginCheckRequest unknownExtent;
    unknownExtent.pluginName = "CheckerToy";
    unknownExtent.nbInputs = 1;
    unknownExtent.inputShapes = &negative;
    report.reset(kiln::checkPlugin(*toys.registry, unknownExtent, nullptr));
    EXPECT_NE(messagesOf(*report, rules::kBAD_REQUEST).find("input 0 [3x?] has a negative or unknown extent"),
        std::string::npos)
        << report->toText();

    kiln::PluginCheckRequest oneRun;
    oneRun.pluginName = "CheckerToy";
    oneRun.nbInputs = 2;
    oneRun.inputShapes = goods;
    oneRun.nbRuns = 1;
    report.reset(kiln::checkPlugin(*toys.registry, oneRun, nullptr));
    EXPECT_NE(messagesOf(*report, rules::kBAD_REQUEST).find("nbRuns is 1"), std::string::npos);

    Dims values{1, {4}};
    kiln::PluginCheckRequest shapeInputsForV2;
    shapeInputsForV2.pluginName = "CheckerToy";
    shapeInputsForV2.nbInputs = 2;
    shapeInputsForV2.inputShapes = goods;
    shapeInputsForV2.nbShapeInputs = 1;
    shapeInputsForV2.shapeInputValues = &values;
    report.reset(kiln::checkPlugin(*toys.registry, shapeInputsForV2, nullptr));
    EXPECT_NE(messagesOf(*report, rules::kBAD_REQUEST).find("only IPluginV3 plugins take shape inputs"),
        std::string::npos)
        << report->toText();
}

TEST(PluginChecker, verboseLoggerSeesTheLifecycleTrace)
{
    ToyRegistry toys;
    struct Collect : ILogger
    {
        void log(Severity severity, char const* msg) noexcept override
        {
            if (severity == Severity::kVERBOSE)
            {
                text += std::string(msg) + "\n";
            }
        }
        std::string text;
    } logger;
    ReportPtr report = checkToy(toys, Defect::kNONE, false, &logger);
    ASSERT_NE(report, nullptr);
    for (char const* call : {"clone", "configurePlugin", "getWorkspaceSize", "serialize", "enqueue", "destroy"})
    {
        EXPECT_NE(logger.text.find(std::string(": ") + call), std::string::npos) << call;
    }
    EXPECT_NE(logger.text.find("kiln plugin contract check"), std::string::npos);
}

} // namespace
