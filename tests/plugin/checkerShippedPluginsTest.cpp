// The plugin contract checker run over every plugin Kiln ships: the standard plugin library (initLibNvInferPlugins:
// LReLU_TRT, ROIAlign_TRT, ModulatedDeformConv2d) and the seeds' sample plugins (samples/plugins: BarPlugin, PoolPlugin, NonZeroPlugin,
// TileToShapePlugin, ScaleTacticsPlugin). Each must pass every rule, with its execution rules run on the CPU.
#include "NvInferPlugin.h"
#include "kiln/KilnPluginChecker.h"
#include "samplePlugins.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace
{

using namespace nvinfer1;

struct ShippedCase
{
    std::string label;
    char const* name;
    char const* pluginNamespace;
    std::vector<PluginField> fields;
    std::vector<Dims> shapes;
    std::vector<Dims> altShapes{};
    std::vector<DataType> types{};
    std::vector<Dims> shapeValues{};
    char const* version{"1"};
};

// Field storage referenced by the cases (PluginField only points at data).
float const kNEG_SLOPE = 0.125F;
float const kALPHA = 1.5F;
int32_t const kMAX_MODE = 0;
int32_t const kAVERAGE_MODE = 1;
int32_t const kKERNEL = 2;
int32_t const kONE = 1;
int32_t const kROI_OUT[2] = {3, 2};
int32_t const kSTRIDE_PAD[2] = {1, 1};

std::vector<ShippedCase> shippedCases()
{
    return {
        {"LeakyRelu", "LReLU_TRT", "", {PluginField("negSlope", &kNEG_SLOPE, PluginFieldType::kFLOAT32, 1)},
            {Dims{4, {2, 3, 4, 5}}}},
        {"BarPlugin", "BarPlugin", "kilnSamples", {}, {Dims{3, {2, 3, 4}}, Dims{3, {3, 3, 4}}},
            {Dims{3, {1, 3, 5}}, Dims{3, {4, 3, 5}}}},
        {"BarPluginInt32", "BarPlugin", "kilnSamples", {}, {Dims{2, {2, 3}}, Dims{2, {1, 3}}}, {},
            {DataType::kINT32, DataType::kINT32}},
        {"PoolPluginMax", "PoolPlugin", "kilnSamples",
            {PluginField("mode", &kMAX_MODE, PluginFieldType::kINT32, 1),
                PluginField("kernel", &kKERNEL, PluginFieldType::kINT32, 1)},
            {Dims{4, {1, 2, 4, 6}}}},
        {"PoolPluginAverageInt8", "PoolPlugin", "kilnSamples",
            {PluginField("mode", &kAVERAGE_MODE, PluginFieldType::kINT32, 1),
                PluginField("kernel", &kKERNEL, PluginFieldType::kINT32, 1),
                PluginField("int8Only", &kONE, PluginFieldType::kINT32, 1)},
            {Dims{4, {1, 3, 4, 4}}}},
        {"NonZeroPlugin", "NonZeroPlugin", "kilnSamples", {}, {Dims{2, {4, 6}}}, {Dims{2, {3, 7}}}},
        {"TileToShapePlugin", "TileToShapePlugin", "kilnSamples", {}, {Dims{2, {1, 3}}}, {}, {},
            {Dims{2, {4, 3}}}},
        {"ScaleTacticsPlugin", "ScaleTacticsPlugin", "kilnSamples",
            {PluginField("alpha", &kALPHA, PluginFieldType::kFLOAT32, 1)}, {Dims{2, {3, 5}}}, {Dims{2, {2, 7}}}},
        // Batch 4: the checker's random INT32 batch indices lie in [0, 3].
        {"RoiAlign", "ROIAlign_TRT", "",
            {PluginField("output_height", &kROI_OUT[0], PluginFieldType::kINT32, 1),
                PluginField("output_width", &kROI_OUT[1], PluginFieldType::kINT32, 1)},
            {Dims{4, {4, 2, 5, 6}}, Dims{2, {3, 4}}, Dims{1, {3}}},
            {Dims{4, {4, 2, 5, 6}}, Dims{2, {5, 4}}, Dims{1, {5}}}, {}, {}, "2"},
        {"ModulatedDeformConv2d", "ModulatedDeformConv2d", "",
            {PluginField("padding", kSTRIDE_PAD, PluginFieldType::kINT32, 2)},
            {Dims{4, {1, 2, 4, 5}}, Dims{4, {1, 18, 4, 5}}, Dims{4, {1, 9, 4, 5}}, Dims{4, {3, 2, 3, 3}},
                Dims{1, {3}}},
            {}, {}, {}, "2"},
    };
}

class ShippedPlugin : public ::testing::TestWithParam<ShippedCase>
{
protected:
    static void SetUpTestSuite()
    {
        ASSERT_TRUE(initLibNvInferPlugins(nullptr, ""));
        ASSERT_TRUE(samples::registerSamplePlugins());
    }
};

TEST_P(ShippedPlugin, passesEveryRule)
{
    ShippedCase const& c = GetParam();
    PluginFieldCollection fields{static_cast<int32_t>(c.fields.size()), c.fields.data()};
    kiln::PluginCheckRequest request;
    request.pluginName = c.name;
    request.pluginVersion = c.version;
    request.pluginNamespace = c.pluginNamespace;
    request.fields = &fields;
    request.nbInputs = static_cast<int32_t>(c.shapes.size());
    request.inputShapes = c.shapes.data();
    request.alternativeInputShapes = c.altShapes.empty() ? nullptr : c.altShapes.data();
    request.inputTypes = c.types.empty() ? nullptr : c.types.data();
    request.nbShapeInputs = static_cast<int32_t>(c.shapeValues.size());
    request.shapeInputValues = c.shapeValues.data();
    request.nbRuns = 3;
    std::unique_ptr<kiln::IPluginCheckReport> report(kiln::checkPlugin(*getPluginRegistry(), request, nullptr));
    ASSERT_NE(report, nullptr);
    EXPECT_TRUE(report->passed()) << report->toText();
    EXPECT_TRUE(report->executionChecked()) << report->toText();
    for (int32_t i = 0; i < report->getNbRules(); ++i)
    {
        EXPECT_EQ(report->getRule(i).outcome, kiln::PluginCheckOutcome::kPASSED)
            << report->getRule(i).rule << "\n" << report->toText();
    }
}

INSTANTIATE_TEST_SUITE_P(PluginChecker, ShippedPlugin, ::testing::ValuesIn(shippedCases()),
    [](::testing::TestParamInfo<ShippedCase> const& info) { return info.param.label; });

} // namespace
