// Importers of the pluginBacked family (src/onnx/importers/pluginBackedImporters.cpp): RoiAlign through
// ROIAlign_TRT, DeformConv through ModulatedDeformConv2d (with and without mask and bias) and ImageScaler, run on
// the CPU against references written here, plus every error path, including the missing plugin creator.
#include "onnxTestModels.h"

#include "NvInferPlugin.h"
#include "onnx/onnxConstant.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;

class PluginBackedImportersTest : public ::testing::Test
{
protected:
    static void SetUpTestSuite()
    {
        ASSERT_TRUE(initLibNvInferPlugins(nullptr, ""));
    }
    std::mt19937 mRng{6061};
};

//! ONNX RoiAlign (output_half_pixel, sampling_ratio 2) from its definition; `maxMode` takes the largest sample.
HostTensor roiReference(HostTensor const& x, HostTensor const& rois, HostTensor const& batch, int64_t outH,
    int64_t outW, bool maxMode)
{
    int64_t const c = x.dims.d[1];
    int64_t const h = x.dims.d[2];
    int64_t const w = x.dims.d[3];
    int64_t const r = rois.dims.d[0];
    HostTensor y(DataType::kFLOAT, makeDims({r, c, outH, outW}));
    auto sample = [&](int64_t n, int64_t ch, double sy, double sx) {
        if (sy < -1 || sy > h || sx < -1 || sx > w)
        {
            return 0.0;
        }
        sy = std::clamp(sy, 0.0, double(h - 1));
        sx = std::clamp(sx, 0.0, double(w - 1));
        int64_t const y0 = int64_t(sy);
        int64_t const x0 = int64_t(sx);
        int64_t const y1 = std::min(y0 + 1, h - 1);
        int64_t const x1 = std::min(x0 + 1, w - 1);
        double const ly = sy - y0;
        double const lx = sx - x0;
        auto v = [&](int64_t yy, int64_t xx) { return x.at(((n * c + ch) * h + yy) * w + xx); };
        return (1 - ly) * (1 - lx) * v(y0, x0) + (1 - ly) * lx * v(y0, x1) + ly * (1 - lx) * v(y1, x0)
            + ly * lx * v(y1, x1);
    };
    for (int64_t i = 0; i < r; ++i)
    {
        double const x0 = rois.at(4 * i);
        double const y0 = rois.at(4 * i + 1);
        double const rw = std::max(rois.at(4 * i + 2) - x0, 1.0);
        double const rh = std::max(rois.at(4 * i + 3) - y0, 1.0);
        for (int64_t ch = 0; ch < c; ++ch)
            for (int64_t ph = 0; ph < outH; ++ph)
                for (int64_t pw = 0; pw < outW; ++pw)
                {
                    double acc = maxMode ? -1e30 : 0.0;
                    for (int iy = 0; iy < 2; ++iy)
                        for (int ix = 0; ix < 2; ++ix)
                        {
                            double const v = sample(int64_t(batch.at(i)), ch, y0 + (ph + (iy + 0.5) / 2) * rh / outH,
                                x0 + (pw + (ix + 0.5) / 2) * rw / outW);
                            acc = maxMode ? std::max(acc, v) : acc + v / 4;
                        }
                    y.set(((i * c + ch) * outH + ph) * outW + pw, acc);
                }
    }
    return y;
}

OnnxModelBuilder roiModel(int64_t opset, std::vector<::onnx::AttributeProto> const& attrs)
{
    OnnxModelBuilder model(opset);
    model.addInput("x", DataType::kFLOAT, {2, 3, 6, 7});
    model.addInput("rois", DataType::kFLOAT, {4, 4});
    model.addInput("batch", DataType::kINT64, {4});
    model.addNode("RoiAlign", {"x", "rois", "batch"}, {"y"}, attrs);
    model.addOutput("y", DataType::kFLOAT);
    return model;
}

TEST_F(PluginBackedImportersTest, RoiAlignMaxAndAvgOutputHalfPixelMatchTheDefinition)
{
    HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({2, 3, 6, 7}), mRng, -3, 3);
    HostTensor const rois = HostTensor::fromValues(DataType::kFLOAT, makeDims({4, 4}),
        {0.5, 1.0, 4.0, 5.5, -1.5, -0.5, 2.0, 2.0, 3.0, 3.0, 3.2, 3.1, 1.0, 0.0, 8.5, 7.0});
    HostTensor const batch = HostTensor::fromValues(DataType::kINT64, makeDims({4}), {1, 0, 1, 0});
    for (bool maxMode : {false, true})
    {
        // Opset 10 has no coordinate_transformation_mode and means output_half_pixel.
        for (int64_t opset : {10, 16})
        {
            std::vector<::onnx::AttributeProto> attrs{intAttr("output_height", 2), intAttr("output_width", 3),
                intAttr("sampling_ratio", 2), stringAttr("mode", maxMode ? "max" : "avg")};
            if (opset == 16)
            {
                attrs.push_back(stringAttr("coordinate_transformation_mode", "output_half_pixel"));
            }
            OnnxRunner runner;
            ASSERT_TRUE(runner.parse(roiModel(opset, attrs))) << runner.parserErrors();
            ASSERT_TRUE(runner.build());
            auto out = runner.run({{"x", x}, {"rois", rois}, {"batch", batch}});
            EXPECT_TRUE(allClose(out["y"], roiReference(x, rois, batch, 2, 3, maxMode), 1e-4, 1e-4))
                << "max " << maxMode << " opset " << opset;
        }
    }
}

TEST_F(PluginBackedImportersTest, RoiAlignErrors)
{
    expectParseError(roiModel(16, {stringAttr("mode", "median")}), "attribute 'mode' is 'median'; expected avg or max");
    expectParseError(roiModel(16, {stringAttr("coordinate_transformation_mode", "align_corners")}),
        "attribute 'coordinate_transformation_mode' is 'align_corners'");
    expectParseError(roiModel(16, {intAttr("output_height", 0)}), "'output_height' and 'output_width' must be >= 1");
    expectParseError(roiModel(16, {intAttr("sampling_ratio", -1)}), "'sampling_ratio' must be >= 0");
    expectParseError(roiModel(16, {floatAttr("spatial_scale", 0.0F)}), "'spatial_scale' must be positive");
    OnnxModelBuilder rank3(16);
    rank3.addInput("x", DataType::kFLOAT, {3, 6, 7});
    rank3.addInput("rois", DataType::kFLOAT, {4, 4});
    rank3.addInput("batch", DataType::kINT64, {4});
    rank3.addNode("RoiAlign", {"x", "rois", "batch"}, {"y"});
    rank3.addOutput("y", DataType::kFLOAT);
    expectParseError(rank3, "input X must be 4-D [N, C, H, W]; it has rank 3");
}

//! Takes a standard creator out of the global registry for the scope, and puts it back.
class CreatorRemoved
{
public:
    CreatorRemoved(char const* name)
        : mCreator(getPluginRegistry()->getCreator(name, "2", ""))
    {
        EXPECT_NE(mCreator, nullptr);
        if (mCreator != nullptr)
        {
            EXPECT_TRUE(getPluginRegistry()->deregisterCreator(*mCreator));
        }
    }
    ~CreatorRemoved()
    {
        if (mCreator != nullptr)
        {
            EXPECT_TRUE(getPluginRegistry()->registerCreator(*mCreator, ""));
        }
    }

private:
    nvinfer1::IPluginCreatorInterface* mCreator;
};

OnnxModelBuilder deformModel(std::vector<int64_t> const& xDims, std::vector<int64_t> const& wDims,
    std::vector<int64_t> const& offDims, bool bias, bool mask, std::vector<::onnx::AttributeProto> const& attrs)
{
    OnnxModelBuilder model(19);
    model.addInput("x", DataType::kFLOAT, xDims);
    model.addInput("w", DataType::kFLOAT, wDims);
    model.addInput("offset", DataType::kFLOAT, offDims);
    std::vector<std::string> inputs{"x", "w", "offset"};
    if (bias)
    {
        model.addInput("b", DataType::kFLOAT, {wDims[0]});
        inputs.push_back("b");
    }
    if (mask)
    {
        model.addInput("mask", DataType::kFLOAT, {offDims[0], offDims[1] / 2, offDims[2], offDims[3]});
        if (!bias)
        {
            inputs.push_back("");
        }
        inputs.push_back("mask");
    }
    model.addNode("DeformConv", inputs, {"y"}, attrs);
    model.addOutput("y", DataType::kFLOAT);
    return model;
}

TEST_F(PluginBackedImportersTest, RoiAlignWithoutTheCreatorSaysToCallInitLibNvInferPlugins)
{
    CreatorRemoved removed("ROIAlign_TRT");
    expectParseError(roiModel(16, {}),
        "plugin 'ROIAlign_TRT' version '2' is not registered; call initLibNvInferPlugins(&logger, \"\") "
        "before parsing");
}

TEST_F(PluginBackedImportersTest, DeformConvWithoutTheCreatorSaysToCallInitLibNvInferPlugins)
{
    CreatorRemoved removed("ModulatedDeformConv2d");
    expectParseError(deformModel({1, 2, 4, 4}, {2, 2, 3, 3}, {1, 18, 2, 2}, false, false, {}),
        "plugin 'ModulatedDeformConv2d' version '2' is not registered; call initLibNvInferPlugins");
}

//! DeformConv from the ONNX definition (zero outside the image per bilinear corner).
HostTensor deformReference(HostTensor const& x, HostTensor const& w, HostTensor const& off, HostTensor const* b,
    HostTensor const* mask, int64_t group, int64_t og, int64_t stride, int64_t pad, int64_t oh, int64_t ow)
{
    int64_t const n = x.dims.d[0], c = x.dims.d[1], h = x.dims.d[2], wd = x.dims.d[3];
    int64_t const m = w.dims.d[0], kh = w.dims.d[2], kw = w.dims.d[3];
    HostTensor y(DataType::kFLOAT, makeDims({n, m, oh, ow}));
    auto pixel = [&](int64_t in, int64_t ic, int64_t yy, int64_t xx) {
        return (yy < 0 || yy >= h || xx < 0 || xx >= wd) ? 0.0 : x.at(((in * c + ic) * h + yy) * wd + xx);
    };
    for (int64_t in = 0; in < n; ++in)
        for (int64_t o = 0; o < m; ++o)
            for (int64_t py = 0; py < oh; ++py)
                for (int64_t px = 0; px < ow; ++px)
                {
                    double acc = b != nullptr ? b->at(o) : 0.0;
                    int64_t const g = o / (m / group);
                    for (int64_t cl = 0; cl < c / group; ++cl)
                    {
                        int64_t const ic = g * (c / group) + cl;
                        int64_t const ogi = ic / (c / og);
                        for (int64_t i = 0; i < kh; ++i)
                            for (int64_t j = 0; j < kw; ++j)
                            {
                                int64_t const k = i * kw + j;
                                int64_t const base = ((in * og + ogi) * kh * kw + k);
                                double const dy = off.at(((2 * base) * oh + py) * ow + px);
                                double const dx = off.at(((2 * base + 1) * oh + py) * ow + px);
                                double const mv = mask != nullptr ? mask->at((base * oh + py) * ow + px) : 1.0;
                                double const sy = py * stride - pad + i + dy;
                                double const sx = px * stride - pad + j + dx;
                                double const fy = std::floor(sy), fx = std::floor(sx);
                                double const ly = sy - fy, lx = sx - fx;
                                auto const y0 = int64_t(fy), x0 = int64_t(fx);
                                double const v = (1 - ly) * (1 - lx) * pixel(in, ic, y0, x0)
                                    + (1 - ly) * lx * pixel(in, ic, y0, x0 + 1)
                                    + ly * (1 - lx) * pixel(in, ic, y0 + 1, x0)
                                    + ly * lx * pixel(in, ic, y0 + 1, x0 + 1);
                                acc += w.at(((o * (c / group) + cl) * kh + i) * kw + j) * mv * v;
                            }
                    }
                    y.set(((in * m + o) * oh + py) * ow + px, acc);
                }
    return y;
}

TEST_F(PluginBackedImportersTest, DeformConvWithoutMaskUsesOnes)
{
    // x [1, 2, 5, 6], W [3, 2, 2, 2], stride 1, pad 0 -> [1, 3, 4, 5]; no bias, no mask.
    OnnxRunner runner;
    ASSERT_TRUE(runner.parse(deformModel({1, 2, 5, 6}, {3, 2, 2, 2}, {1, 8, 4, 5}, false, false,
        {intsAttr("kernel_shape", {2, 2})}))) << runner.parserErrors();
    ASSERT_TRUE(runner.build());
    HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({1, 2, 5, 6}), mRng, -2, 2);
    HostTensor const w = HostTensor::random(DataType::kFLOAT, makeDims({3, 2, 2, 2}), mRng, -1, 1);
    HostTensor const off = HostTensor::random(DataType::kFLOAT, makeDims({1, 8, 4, 5}), mRng, -2, 2);
    auto out = runner.run({{"x", x}, {"w", w}, {"offset", off}});
    EXPECT_TRUE(allClose(out["y"], deformReference(x, w, off, nullptr, nullptr, 1, 1, 1, 0, 4, 5), 1e-4, 1e-4));
}

TEST_F(PluginBackedImportersTest, DeformConvWithBiasMaskGroupsStrideAndPads)
{
    // x [2, 4, 6, 6], W [4, 2, 3, 3], group 2, offset_group 2, stride 2, pads 1 -> [2, 4, 3, 3].
    OnnxRunner runner;
    ASSERT_TRUE(runner.parse(deformModel({2, 4, 6, 6}, {4, 2, 3, 3}, {2, 36, 3, 3}, true, true,
        {intAttr("group", 2), intAttr("offset_group", 2), intsAttr("strides", {2, 2}),
            intsAttr("pads", {1, 1, 1, 1})}))) << runner.parserErrors();
    ASSERT_TRUE(runner.build());
    HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({2, 4, 6, 6}), mRng, -2, 2);
    HostTensor const w = HostTensor::random(DataType::kFLOAT, makeDims({4, 2, 3, 3}), mRng, -1, 1);
    HostTensor const off = HostTensor::random(DataType::kFLOAT, makeDims({2, 36, 3, 3}), mRng, -3, 3);
    HostTensor const b = HostTensor::random(DataType::kFLOAT, makeDims({4}), mRng, -1, 1);
    HostTensor const mask = HostTensor::random(DataType::kFLOAT, makeDims({2, 18, 3, 3}), mRng, 0, 1);
    auto out = runner.run({{"x", x}, {"w", w}, {"offset", off}, {"b", b}, {"mask", mask}});
    EXPECT_TRUE(allClose(out["y"], deformReference(x, w, off, &b, &mask, 2, 2, 2, 1, 3, 3), 1e-4, 1e-4));
}

TEST_F(PluginBackedImportersTest, DeformConvErrors)
{
    auto model = [](std::vector<::onnx::AttributeProto> const& attrs) {
        return deformModel({1, 2, 5, 5}, {2, 2, 3, 3}, {1, 18, 3, 3}, false, false, attrs);
    };
    expectParseError(model({intsAttr("pads", {0, 0, 1, 1})}),
        "asymmetric 'pads' are not supported by ModulatedDeformConv2d");
    expectParseError(model({intsAttr("kernel_shape", {2, 2})}),
        "attribute 'kernel_shape' must be the 2 spatial extents of W");
    expectParseError(model({intAttr("group", 0)}),
        "'group', 'offset_group', 'strides' and 'dilations' must be >= 1 and 'pads' >= 0");
    expectParseError(model({intsAttr("strides", {1})}),
        "attributes 'strides' and 'dilations' need 2 values and 'pads' 4");
    OnnxModelBuilder conv1d(19);
    conv1d.addInput("x", DataType::kFLOAT, {1, 2, 5});
    conv1d.addInput("w", DataType::kFLOAT, {2, 2, 3});
    conv1d.addInput("offset", DataType::kFLOAT, {1, 6, 3});
    conv1d.addNode("DeformConv", {"x", "w", "offset"}, {"y"});
    conv1d.addOutput("y", DataType::kFLOAT);
    expectParseError(conv1d, "only 2-D DeformConv (X, W and offset of rank 4) is supported");
}

OnnxModelBuilder scalerModel(std::vector<int64_t> const& dims, std::vector<::onnx::AttributeProto> const& attrs)
{
    OnnxModelBuilder model(9);
    model.addInput("x", DataType::kFLOAT, dims);
    model.addNode("ImageScaler", {"x"}, {"y"}, attrs);
    model.addOutput("y", DataType::kFLOAT);
    return model;
}

TEST_F(PluginBackedImportersTest, ImageScalerScalesAndAddsBiasPerChannel)
{
    std::vector<float> const bias{0.5F, -1.25F, 3.0F};
    for (bool withBias : {true, false})
    {
        std::vector<::onnx::AttributeProto> attrs{floatAttr("scale", 1.75F)};
        if (withBias)
        {
            attrs.push_back(floatsAttr("bias", bias));
        }
        OnnxRunner runner;
        ASSERT_TRUE(runner.parse(scalerModel({2, 3, 4, 5}, attrs))) << runner.parserErrors();
        ASSERT_TRUE(runner.build());
        HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({2, 3, 4, 5}), mRng, -4, 4);
        HostTensor expected(DataType::kFLOAT, x.dims);
        for (int64_t i = 0; i < x.volume(); ++i)
        {
            int64_t const c = (i / 20) % 3;
            expected.set(i, 1.75F * static_cast<float>(x.at(i)) + (withBias ? bias[c] : 0.0F));
        }
        auto out = runner.run({{"x", x}});
        EXPECT_TRUE(allClose(out["y"], expected, 1e-6, 1e-6)) << "bias " << withBias;
    }
}

TEST_F(PluginBackedImportersTest, ImageScalerErrors)
{
    expectParseError(scalerModel({1, 3, 4, 4}, {floatsAttr("bias", {1.0F, 2.0F})}),
        "attribute 'bias' has 2 values but the input has 3 channels");
    expectParseError(scalerModel({3, 4, 4}, {}), "input must be 4-D [N, C, H, W]; it has rank 3");
}

} // namespace
} // namespace kiln::test
