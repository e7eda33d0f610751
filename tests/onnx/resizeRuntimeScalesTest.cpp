// Resize and Upsample whose 'scales' is a graph input (known only at run time): the importer gives IResizeLayer
// the scales as a FLOAT shape tensor. Outputs are checked against nearest-neighbour references written from the
// ONNX definition, for several scale values per engine; axes / keep_aspect_ratio_policy handling and error paths.
#include "onnxTestModels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;

//! Nearest resize of the last two axes of [1, C, H, W]; `source(outIndex, inLen, scale)` gives the input index.
HostTensor nearest2d(HostTensor const& x, std::vector<double> const& scales,
    std::function<double(int64_t, double)> const& original)
{
    int64_t const c = x.dims.d[1];
    int64_t const h = x.dims.d[2];
    int64_t const w = x.dims.d[3];
    int64_t const oh = static_cast<int64_t>(std::floor(double(h) * scales[2]));
    int64_t const ow = static_cast<int64_t>(std::floor(double(w) * scales[3]));
    auto clampIndex = [](double v, int64_t n) { return std::min<int64_t>(std::max<int64_t>(int64_t(v), 0), n - 1); };
    HostTensor y(DataType::kFLOAT, makeDims({1, c, oh, ow}));
    for (int64_t ch = 0; ch < c; ++ch)
    {
        for (int64_t i = 0; i < oh; ++i)
        {
            int64_t const si = clampIndex(original(i, scales[2]), h);
            for (int64_t j = 0; j < ow; ++j)
            {
                int64_t const sj = clampIndex(original(j, scales[3]), w);
                y.set((ch * oh + i) * ow + j, x.at((ch * h + si) * w + sj));
            }
        }
    }
    return y;
}

//! half_pixel coordinates with round_prefer_floor (ONNX Resize's defaults for mode 'nearest').
double halfPixelPreferFloor(int64_t i, double scale)
{
    double const xo = (double(i) + 0.5) / scale - 0.5;
    return std::ceil(xo - 0.5);
}

//! asymmetric coordinates with floor (Upsample, Resize-10).
double asymmetricFloor(int64_t i, double scale)
{
    return std::floor(double(i) / scale);
}

HostTensor scalesTensor(std::vector<double> const& s)
{
    return HostTensor::fromValues(DataType::kFLOAT, makeDims({static_cast<int64_t>(s.size())}), s);
}

class ResizeRuntimeScalesTest : public ::testing::Test
{
protected:
    std::mt19937 mRng{4242};

    void checkRuns(OnnxModelBuilder const& model, std::vector<std::vector<double>> const& runs,
        std::function<double(int64_t, double)> const& original)
    {
        OnnxRunner runner;
        ASSERT_TRUE(runner.parse(model));
        ASSERT_TRUE(runner.network().getInput(1)->isShapeTensor()) << "the scales input is a shape tensor";
        ASSERT_TRUE(runner.build());
        for (auto const& s : runs)
        {
            // Scales are FLOAT: the reference uses the float value, widened to double as the runtime does.
            std::vector<double> asFloat;
            for (double v : s)
            {
                asFloat.push_back(static_cast<double>(static_cast<float>(v)));
            }
            HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({1, 2, 5, 4}), mRng, -3.0, 3.0);
            auto outputs = runner.run({{"x", x}, {"scales", scalesTensor(s)}});
            ASSERT_EQ(outputs.count("y"), 1U);
            EXPECT_TRUE(allClose(outputs["y"], nearest2d(x, asFloat, original), 0.0, 0.0))
                << "scales " << s[2] << ", " << s[3];
        }
    }
};

TEST_F(ResizeRuntimeScalesTest, Resize13NearestHalfPixel)
{
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {1, 2, 5, 4});
    model.addInput("scales", DataType::kFLOAT, {4});
    model.addNode("Resize", {"x", "", "scales"}, {"y"}, {stringAttr("mode", "nearest")});
    model.addOutput("y", DataType::kFLOAT);
    checkRuns(model, {{1.0, 1.0, 0.6, 1.5}, {1.0, 1.0, 2.0, 0.8}, {1.0, 1.0, 1.3, 2.6}}, halfPixelPreferFloor);
}

TEST_F(ResizeRuntimeScalesTest, Upsample9AndResize10Asymmetric)
{
    for (auto const& [op, opset] : {std::pair<std::string, int64_t>{"Upsample", 9}, {"Resize", 10}})
    {
        OnnxModelBuilder model(opset);
        model.addInput("x", DataType::kFLOAT, {1, 2, 5, 4});
        model.addInput("scales", DataType::kFLOAT, {4});
        model.addNode(op, {"x", "scales"}, {"y"}, {stringAttr("mode", "nearest")});
        model.addOutput("y", DataType::kFLOAT);
        SCOPED_TRACE(op);
        checkRuns(model, {{1.0, 1.0, 2.0, 3.0}, {1.0, 1.0, 1.5, 0.5}}, asymmetricFloor);
    }
}

TEST_F(ResizeRuntimeScalesTest, Resize18WithIotaAxesAndAspectPolicyIgnoredForScales)
{
    // keep_aspect_ratio_policy only affects 'sizes'; axes listing every axis in order is accepted.
    OnnxModelBuilder model(18);
    model.addInput("x", DataType::kFLOAT, {1, 2, 5, 4});
    model.addInput("scales", DataType::kFLOAT, {4});
    model.addNode("Resize", {"x", "", "scales"}, {"y"},
        {stringAttr("mode", "nearest"), intsAttr("axes", {0, 1, -2, 3}),
            stringAttr("keep_aspect_ratio_policy", "not_larger")});
    model.addOutput("y", DataType::kFLOAT);
    checkRuns(model, {{1.0, 1.0, 1.8, 0.7}}, halfPixelPreferFloor);
}

TEST_F(ResizeRuntimeScalesTest, ErrorPaths)
{
    {
        OnnxModelBuilder model(18);
        model.addInput("x", DataType::kFLOAT, {1, 2, 5, 4});
        model.addInput("scales", DataType::kFLOAT, {2});
        model.addNode("Resize", {"x", "", "scales"}, {"y"}, {intsAttr("axes", {2, 3})}).set_name("partial");
        model.addOutput("y", DataType::kFLOAT);
        expectParseError(model, "node 'partial' (Resize): with run-time 'scales', 'axes' must be [0, 1, ..., 3]");
    }
    {
        OnnxModelBuilder model(13);
        model.addInput("x", DataType::kFLOAT, {1, 2, 5, 4});
        model.addInput("scales", DataType::kFLOAT, {3});
        model.addNode("Resize", {"x", "", "scales"}, {"y"}).set_name("short");
        model.addOutput("y", DataType::kFLOAT);
        expectParseError(model, "node 'short' (Resize): run-time 'scales' must be a 1-D tensor with one entry per "
                                "input dimension (4)");
    }
    {
        OnnxModelBuilder model(9);
        model.addInput("x", DataType::kFLOAT, {1, 2, 5, 4});
        model.addInput("scales", DataType::kINT64, {4});
        model.addNode("Upsample", {"x", "scales"}, {"y"}).set_name("ints");
        model.addOutput("y", DataType::kFLOAT);
        expectParseError(model, "node 'ints' (Upsample): 'scales' must be a FLOAT tensor");
    }
    {
        OnnxModelBuilder model(18);
        model.addInput("x", DataType::kFLOAT, {1, 2, 5, 4});
        model.addInitializer("sizes", kiln::OnnxConstant::fromInt64({1, 2, 6, 6}, {4}));
        model.addNode("Resize", {"x", "", "", "sizes"}, {"y"}, {stringAttr("keep_aspect_ratio_policy", "not_smaller")})
            .set_name("policy");
        model.addOutput("y", DataType::kFLOAT);
        expectParseError(model, "node 'policy' (Resize): keep_aspect_ratio_policy 'not_smaller' is not supported");
    }
}

} // namespace
} // namespace kiln::test
