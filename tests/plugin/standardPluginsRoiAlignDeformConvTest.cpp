// standardPluginsRoiAlignDeformConvTest.cpp — the IPluginV3 standard plugins ROIAlign_TRT and ModulatedDeformConv2d
// (plugins/roiAlign/, plugins/modulatedDeformConv/), registered by initLibNvInferPlugins: their creators and fields,
// field errors through the logger, CPU runs against references written here (random data, poisoned outputs),
// an out-of-range batch index, and a serialization round trip in a fresh runtime.
#include "NvInferPlugin.h"
#include "samplePluginsTestUtils.h"

#include <cmath>
#include <numeric>

namespace kiln::test
{
namespace
{
using namespace nvinfer1;

class KeepAllLogger : public ILogger
{
public:
    void log(Severity severity, char const* msg) noexcept override
    {
        std::lock_guard<std::mutex> lock(mMutex);
        mMessages.emplace_back(severity, msg);
    }
    bool has(Severity severity, std::string const& text) const
    {
        std::lock_guard<std::mutex> lock(mMutex);
        return std::any_of(mMessages.begin(), mMessages.end(),
            [&](auto const& m) { return m.first == severity && m.second.find(text) != std::string::npos; });
    }

private:
    mutable std::mutex mMutex;
    std::vector<std::pair<Severity, std::string>> mMessages;
};

KeepAllLogger& stdLogger()
{
    static KeepAllLogger* logger = new KeepAllLogger(); // initLibNvInferPlugins keeps it for the process
    return *logger;
}

IPluginCreatorV3One* v3Creator(char const* name)
{
    EXPECT_TRUE(initLibNvInferPlugins(&stdLogger(), ""));
    return dynamic_cast<IPluginCreatorV3One*>(getPluginRegistry()->getCreator(name, "2", ""));
}

std::unique_ptr<IPluginV3> createV3(char const* name, std::vector<PluginField> const& fields)
{
    IPluginCreatorV3One* creator = v3Creator(name);
    EXPECT_NE(creator, nullptr) << name;
    if (creator == nullptr)
    {
        return nullptr;
    }
    PluginFieldCollection const fc{static_cast<int32_t>(fields.size()), fields.data()};
    return std::unique_ptr<IPluginV3>(creator->createPlugin(name, &fc, TensorRTPhase::kBUILD));
}

std::vector<std::string> fieldNames(IPluginCreatorV3One* creator)
{
    std::vector<std::string> names;
    PluginFieldCollection const* fc = creator->getFieldNames();
    for (int32_t i = 0; fc != nullptr && i < fc->nbFields; ++i)
    {
        names.emplace_back(fc->fields[i].name);
    }
    return names;
}

TEST(StandardPluginsV3, CreatorsAreRegisteredAsVersion2WithTensorRTsFields)
{
    IPluginCreatorV3One* roi = v3Creator("ROIAlign_TRT");
    IPluginCreatorV3One* dcn = v3Creator("ModulatedDeformConv2d");
    ASSERT_NE(roi, nullptr);
    ASSERT_NE(dcn, nullptr);
    EXPECT_STREQ(roi->getPluginVersion(), "2");
    EXPECT_STREQ(dcn->getPluginVersion(), "2");
    EXPECT_EQ(fieldNames(roi), (std::vector<std::string>{"coordinate_transformation_mode", "mode", "output_height",
                                   "output_width", "sampling_ratio", "spatial_scale"}));
    EXPECT_EQ(fieldNames(dcn),
        (std::vector<std::string>{"stride", "padding", "dilation", "group", "deformable_group"}));
    ASSERT_TRUE(initLibNvInferPlugins(&stdLogger(), "kilnV3Space"));
    auto* spaced
        = dynamic_cast<IPluginCreatorV3One*>(getPluginRegistry()->getCreator("ROIAlign_TRT", "2", "kilnV3Space"));
    ASSERT_NE(spaced, nullptr);
    EXPECT_NE(spaced, roi);
    EXPECT_STREQ(spaced->getPluginNamespace(), "kilnV3Space");
}

TEST(StandardPluginsV3, BadFieldsFailWithAnErrorAndUnknownFieldsWarn)
{
    int32_t const badMode = 7;
    EXPECT_EQ(createV3("ROIAlign_TRT", {samplesupport::int32Field("mode", badMode)}), nullptr);
    EXPECT_TRUE(stdLogger().has(ILogger::Severity::kERROR, "mode must be 0 (max) or 1 (avg)"));
    float const scale = 0.5F;
    EXPECT_EQ(createV3("ROIAlign_TRT", {samplesupport::floatField("output_height", scale)}), nullptr);
    EXPECT_TRUE(stdLogger().has(ILogger::Severity::kERROR, "field 'output_height' must be 1 kINT32 value(s)"));
    int32_t const zero = 0;
    EXPECT_EQ(createV3("ROIAlign_TRT", {samplesupport::int32Field("output_width", zero)}), nullptr);
    EXPECT_TRUE(stdLogger().has(ILogger::Severity::kERROR, "output_height and output_width must be at least 1"));
    float const negative = -1.0F;
    EXPECT_EQ(createV3("ROIAlign_TRT", {samplesupport::floatField("spatial_scale", negative)}), nullptr);
    EXPECT_TRUE(stdLogger().has(ILogger::Severity::kERROR, "spatial_scale must be a positive finite number"));
    EXPECT_NE(createV3("ROIAlign_TRT", {samplesupport::int32Field("pooled", zero)}), nullptr);
    EXPECT_TRUE(stdLogger().has(ILogger::Severity::kWARNING, "ignoring unknown field 'pooled'"));

    int32_t const threeStrides[3] = {1, 1, 1};
    EXPECT_EQ(createV3("ModulatedDeformConv2d", {PluginField{"stride", threeStrides, PluginFieldType::kINT32, 3}}),
        nullptr);
    EXPECT_TRUE(stdLogger().has(ILogger::Severity::kERROR, "field 'stride' must be 2 kINT32 value(s)"));
    EXPECT_EQ(createV3("ModulatedDeformConv2d", {samplesupport::int32Field("group", zero)}), nullptr);
    EXPECT_TRUE(stdLogger().has(ILogger::Severity::kERROR, "group and deformable_group must be at least 1"));
    EXPECT_EQ(createV3("ModulatedDeformConv2d", {samplesupport::int32Field("dilation", zero)}), nullptr);
    EXPECT_TRUE(stdLogger().has(ILogger::Severity::kERROR, "stride and dilation must be at least 1"));
}

// ---- ROIAlign_TRT ----------------------------------------------------------------------------------------------

struct RoiCase
{
    int32_t halfPixel;
    int32_t mode; // 0 max, 1 avg
    int32_t samplingRatio;
    float spatialScale;
};

//! ONNX RoiAlign from its definition, in double.
double roiSample(HostTensor const& x, int64_t n, int64_t c, double y, double xx)
{
    int64_t const h = x.dims.d[2];
    int64_t const w = x.dims.d[3];
    if (y < -1.0 || y > static_cast<double>(h) || xx < -1.0 || xx > static_cast<double>(w))
    {
        return 0.0;
    }
    y = std::clamp(y, 0.0, static_cast<double>(h - 1));
    xx = std::clamp(xx, 0.0, static_cast<double>(w - 1));
    auto const y0 = static_cast<int64_t>(std::floor(y));
    auto const x0 = static_cast<int64_t>(std::floor(xx));
    int64_t const y1 = std::min(y0 + 1, h - 1);
    int64_t const x1 = std::min(x0 + 1, w - 1);
    double const fy = y - static_cast<double>(y0);
    double const fx = xx - static_cast<double>(x0);
    auto v = [&](int64_t yy, int64_t xi) { return x.at(((n * x.dims.d[1] + c) * h + yy) * w + xi); };
    return (1 - fy) * ((1 - fx) * v(y0, x0) + fx * v(y0, x1)) + fy * ((1 - fx) * v(y1, x0) + fx * v(y1, x1));
}

HostTensor roiAlignReference(HostTensor const& x, HostTensor const& rois, HostTensor const& batch, RoiCase const& rc,
    int64_t outH, int64_t outW)
{
    int64_t const nbRois = rois.dims.d[0];
    int64_t const channels = x.dims.d[1];
    HostTensor y(DataType::kFLOAT, makeDims({nbRois, channels, outH, outW}));
    double const shift = rc.halfPixel != 0 ? 0.5 : 0.0;
    for (int64_t r = 0; r < nbRois; ++r)
    {
        double const x1 = rois.at(r * 4) * rc.spatialScale - shift;
        double const y1 = rois.at(r * 4 + 1) * rc.spatialScale - shift;
        double roiW = rois.at(r * 4 + 2) * rc.spatialScale - shift - x1;
        double roiH = rois.at(r * 4 + 3) * rc.spatialScale - shift - y1;
        if (rc.halfPixel == 0)
        {
            roiW = std::max(roiW, 1.0);
            roiH = std::max(roiH, 1.0);
        }
        auto const gh = static_cast<int64_t>(rc.samplingRatio > 0 ? rc.samplingRatio : std::ceil(roiH / outH));
        auto const gw = static_cast<int64_t>(rc.samplingRatio > 0 ? rc.samplingRatio : std::ceil(roiW / outW));
        auto const n = static_cast<int64_t>(batch.at(r));
        for (int64_t c = 0; c < channels; ++c)
        {
            for (int64_t ph = 0; ph < outH; ++ph)
            {
                for (int64_t pw = 0; pw < outW; ++pw)
                {
                    std::vector<double> samples;
                    for (int64_t iy = 0; iy < gh; ++iy)
                    {
                        for (int64_t ix = 0; ix < gw; ++ix)
                        {
                            double const sy = y1 + (ph + (iy + 0.5) / gh) * roiH / outH;
                            double const sx = x1 + (pw + (ix + 0.5) / gw) * roiW / outW;
                            samples.push_back(roiSample(x, n, c, sy, sx));
                        }
                    }
                    double value = 0.0;
                    if (!samples.empty())
                    {
                        value = rc.mode == 0 ? *std::max_element(samples.begin(), samples.end())
                                             : std::accumulate(samples.begin(), samples.end(), 0.0) / samples.size();
                    }
                    y.set(((r * channels + c) * outH + ph) * outW + pw, value);
                }
            }
        }
    }
    return y;
}

std::unique_ptr<IPluginV3> roiAlignPlugin(RoiCase const& rc, int32_t const& outH, int32_t const& outW)
{
    return createV3("ROIAlign_TRT",
        {PluginField{"coordinate_transformation_mode", &rc.halfPixel, PluginFieldType::kINT32, 1},
            PluginField{"mode", &rc.mode, PluginFieldType::kINT32, 1},
            PluginField{"output_height", &outH, PluginFieldType::kINT32, 1},
            PluginField{"output_width", &outW, PluginFieldType::kINT32, 1},
            PluginField{"sampling_ratio", &rc.samplingRatio, PluginFieldType::kINT32, 1},
            PluginField{"spatial_scale", &rc.spatialScale, PluginFieldType::kFLOAT32, 1}});
}

//! Random ROIs, some reaching outside the 8x9 image (scaled by 1/scale), some degenerate.
HostTensor randomRois(int64_t count, float scale, std::mt19937& rng)
{
    std::uniform_real_distribution<double> coord(-2.0, 11.0);
    std::vector<double> values;
    for (int64_t r = 0; r < count; ++r)
    {
        double a = coord(rng);
        double b = coord(rng);
        double c = coord(rng);
        double d = coord(rng);
        if (r == 0)
        {
            c = a + 0.3; // smaller than one pixel
            d = b + 0.2;
        }
        values.insert(values.end(), {std::min(a, c) / scale, std::min(b, d) / scale, std::max(a, c) / scale,
                                        std::max(b, d) / scale});
    }
    return HostTensor::fromValues(DataType::kFLOAT, makeDims({count, 4}), values);
}

class RoiAlignCases : public ::testing::TestWithParam<RoiCase>
{
};

TEST_P(RoiAlignCases, MatchesTheOnnxDefinition)
{
    RoiCase const rc = GetParam();
    int32_t const outH = 3;
    int32_t const outW = 2;
    auto plugin = roiAlignPlugin(rc, outH, outW);
    ASSERT_NE(plugin, nullptr);
    NetworkRunner runner;
    ITensor* inputs[] = {runner.addInput("x", DataType::kFLOAT, {2, 3, 8, 9}),
        runner.addInput("rois", DataType::kFLOAT, {-1, 4}), runner.addInput("batch", DataType::kINT32, {-1})};
    runner.setProfileDims("rois", {1, 4}, {5, 4}, {9, 4});
    runner.setProfileDims("batch", {1}, {5}, {9});
    IPluginV3Layer* layer = runner.network().addPluginV3(inputs, 3, nullptr, 0, *plugin);
    ASSERT_NE(layer, nullptr) << runner.logger().allErrors();
    runner.markOutput(layer->getOutput(0), "y");
    ASSERT_TRUE(runner.build()) << runner.logger().allErrors();
    std::mt19937 rng(2024 + rc.mode * 7 + rc.halfPixel * 3 + rc.samplingRatio);
    for (int64_t count : {5, 9})
    {
        HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({2, 3, 8, 9}), rng, -3, 3);
        HostTensor const rois = randomRois(count, rc.spatialScale, rng);
        std::vector<double> b;
        for (int64_t i = 0; i < count; ++i)
        {
            b.push_back(static_cast<double>(i % 2));
        }
        HostTensor const batch = HostTensor::fromValues(DataType::kINT32, makeDims({count}), b);
        auto out = runner.run({{"x", x}, {"rois", rois}, {"batch", batch}});
        EXPECT_TRUE(allClose(out["y"], roiAlignReference(x, rois, batch, rc, outH, outW), 1e-4, 1e-4))
            << "R = " << count;
    }
}

INSTANTIATE_TEST_SUITE_P(StandardPluginsV3, RoiAlignCases,
    ::testing::Values(RoiCase{1, 1, 0, 1.0F}, RoiCase{0, 1, 0, 1.0F}, RoiCase{1, 0, 2, 1.0F}, RoiCase{0, 0, 0, 0.5F},
        RoiCase{1, 1, 3, 0.25F}),
    [](::testing::TestParamInfo<RoiCase> const& info) {
        RoiCase const& c = info.param;
        return std::string(c.halfPixel != 0 ? "HalfPixel" : "OutputHalfPixel") + (c.mode == 0 ? "Max" : "Avg")
            + "Sampling" + std::to_string(c.samplingRatio) + "Scale"
            + std::to_string(static_cast<int>(c.spatialScale * 100));
    });

TEST(StandardPluginsV3, RoiAlignBatchIndexOutOfRangeFailsTheRun)
{
    int32_t const outH = 2;
    int32_t const outW = 2;
    auto plugin = roiAlignPlugin(RoiCase{1, 1, 0, 1.0F}, outH, outW);
    ASSERT_NE(plugin, nullptr);
    NetworkRunner runner;
    ITensor* inputs[] = {runner.addInput("x", DataType::kFLOAT, {2, 1, 4, 4}),
        runner.addInput("rois", DataType::kFLOAT, {2, 4}), runner.addInput("batch", DataType::kINT32, {2})};
    IPluginV3Layer* layer = runner.network().addPluginV3(inputs, 3, nullptr, 0, *plugin);
    ASSERT_NE(layer, nullptr);
    runner.markOutput(layer->getOutput(0), "y");
    ASSERT_TRUE(runner.build()) << runner.logger().allErrors();
    std::mt19937 rng(5);
    HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({2, 1, 4, 4}), rng);
    HostTensor const rois = HostTensor::fromValues(DataType::kFLOAT, makeDims({2, 4}), {0, 0, 2, 2, 1, 1, 3, 3});
    HostTensor const bad = HostTensor::fromValues(DataType::kINT32, makeDims({2}), {1, 2});
    EXPECT_TRUE(runner.runFails({{"x", x}, {"rois", rois}, {"batch", bad}}));
    EXPECT_TRUE(stdLogger().has(ILogger::Severity::kERROR, "batch index 2 of ROI 1 is outside [0, 2)"));
}

// ---- ModulatedDeformConv2d -------------------------------------------------------------------------------------

struct DcnCase
{
    int64_t n, c, h, w, m, kh, kw;
    int32_t stride[2], padding[2], dilation[2], group, dg;
    bool bias;
    double offsetRange;
};

double cornerSample(HostTensor const& x, int64_t n, int64_t c, double y, double xx)
{
    int64_t const h = x.dims.d[2];
    int64_t const w = x.dims.d[3];
    double const fy = std::floor(y);
    double const fx = std::floor(xx);
    double sum = 0.0;
    for (int64_t dy = 0; dy < 2; ++dy)
    {
        for (int64_t dx = 0; dx < 2; ++dx)
        {
            auto const yy = static_cast<int64_t>(fy) + dy;
            auto const xi = static_cast<int64_t>(fx) + dx;
            double const weight = (dy == 0 ? 1.0 - (y - fy) : y - fy) * (dx == 0 ? 1.0 - (xx - fx) : xx - fx);
            if (yy >= 0 && yy < h && xi >= 0 && xi < w)
            {
                sum += weight * x.at(((n * x.dims.d[1] + c) * h + yy) * w + xi);
            }
        }
    }
    return sum;
}

HostTensor deformConvReference(DcnCase const& d, HostTensor const& x, HostTensor const& offset, HostTensor const& mask,
    HostTensor const& weight, HostTensor const* bias, int64_t oh, int64_t ow)
{
    HostTensor y(DataType::kFLOAT, makeDims({d.n, d.m, oh, ow}));
    int64_t const cPerGroup = d.c / d.group;
    int64_t const mPerGroup = d.m / d.group;
    int64_t const cPerDg = d.c / d.dg;
    int64_t const taps = d.kh * d.kw;
    for (int64_t n = 0; n < d.n; ++n)
        for (int64_t o = 0; o < d.m; ++o)
            for (int64_t py = 0; py < oh; ++py)
                for (int64_t px = 0; px < ow; ++px)
                {
                    double acc = bias != nullptr ? bias->at(o) : 0.0;
                    int64_t const g = o / mPerGroup;
                    for (int64_t cl = 0; cl < cPerGroup; ++cl)
                    {
                        int64_t const c = g * cPerGroup + cl;
                        int64_t const og = c / cPerDg;
                        for (int64_t i = 0; i < d.kh; ++i)
                            for (int64_t j = 0; j < d.kw; ++j)
                            {
                                int64_t const k = i * d.kw + j;
                                auto at4 = [&](HostTensor const& t, int64_t ch) {
                                    return t.at(((n * t.dims.d[1] + ch) * oh + py) * ow + px);
                                };
                                double const offY = at4(offset, og * 2 * taps + 2 * k);
                                double const offX = at4(offset, og * 2 * taps + 2 * k + 1);
                                double const m = at4(mask, og * taps + k);
                                double const sy = py * d.stride[0] - d.padding[0] + i * d.dilation[0] + offY;
                                double const sx = px * d.stride[1] - d.padding[1] + j * d.dilation[1] + offX;
                                acc += weight.at(((o * cPerGroup + cl) * d.kh + i) * d.kw + j) * m
                                    * cornerSample(x, n, c, sy, sx);
                            }
                    }
                    y.set(((n * d.m + o) * oh + py) * ow + px, acc);
                }
    return y;
}

std::unique_ptr<IPluginV3> deformConvPlugin(DcnCase const& d)
{
    return createV3("ModulatedDeformConv2d",
        {PluginField{"stride", d.stride, PluginFieldType::kINT32, 2},
            PluginField{"padding", d.padding, PluginFieldType::kINT32, 2},
            PluginField{"dilation", d.dilation, PluginFieldType::kINT32, 2},
            PluginField{"group", &d.group, PluginFieldType::kINT32, 1},
            PluginField{"deformable_group", &d.dg, PluginFieldType::kINT32, 1}});
}

//! Builds x, offset, mask, weight[, bias] → y; returns the output extents.
std::pair<int64_t, int64_t> buildDeformConv(NetworkRunner& runner, DcnCase const& d)
{
    int64_t const oh = (d.h + 2 * d.padding[0] - d.dilation[0] * (d.kh - 1) - 1) / d.stride[0] + 1;
    int64_t const ow = (d.w + 2 * d.padding[1] - d.dilation[1] * (d.kw - 1) - 1) / d.stride[1] + 1;
    auto plugin = deformConvPlugin(d);
    EXPECT_NE(plugin, nullptr);
    if (plugin == nullptr)
    {
        return {0, 0};
    }
    std::vector<ITensor*> inputs{runner.addInput("x", DataType::kFLOAT, {d.n, d.c, d.h, d.w}),
        runner.addInput("offset", DataType::kFLOAT, {d.n, 2 * d.dg * d.kh * d.kw, oh, ow}),
        runner.addInput("mask", DataType::kFLOAT, {d.n, d.dg * d.kh * d.kw, oh, ow}),
        runner.addInput("weight", DataType::kFLOAT, {d.m, d.c / d.group, d.kh, d.kw})};
    if (d.bias)
    {
        inputs.push_back(runner.addInput("bias", DataType::kFLOAT, {d.m}));
    }
    IPluginV3Layer* layer = runner.network().addPluginV3(
        inputs.data(), static_cast<int32_t>(inputs.size()), nullptr, 0, *plugin);
    EXPECT_NE(layer, nullptr) << runner.logger().allErrors();
    if (layer != nullptr)
    {
        runner.markOutput(layer->getOutput(0), "y");
    }
    return {oh, ow};
}

std::map<std::string, HostTensor> deformConvInputs(DcnCase const& d, int64_t oh, int64_t ow, std::mt19937& rng)
{
    std::map<std::string, HostTensor> in;
    in.emplace("x", HostTensor::random(DataType::kFLOAT, makeDims({d.n, d.c, d.h, d.w}), rng, -2, 2));
    in.emplace("offset", HostTensor::random(DataType::kFLOAT, makeDims({d.n, 2 * d.dg * d.kh * d.kw, oh, ow}), rng,
                             -d.offsetRange, d.offsetRange));
    in.emplace("mask", HostTensor::random(DataType::kFLOAT, makeDims({d.n, d.dg * d.kh * d.kw, oh, ow}), rng, 0, 1));
    in.emplace("weight", HostTensor::random(DataType::kFLOAT, makeDims({d.m, d.c / d.group, d.kh, d.kw}), rng, -1, 1));
    if (d.bias)
    {
        in.emplace("bias", HostTensor::random(DataType::kFLOAT, makeDims({d.m}), rng, -1, 1));
    }
    return in;
}

class DeformConvCases : public ::testing::TestWithParam<DcnCase>
{
};

TEST_P(DeformConvCases, MatchesTheDefinition)
{
    DcnCase const d = GetParam();
    NetworkRunner runner;
    auto const [oh, ow] = buildDeformConv(runner, d);
    ASSERT_GT(oh, 0);
    ASSERT_TRUE(runner.build()) << runner.logger().allErrors();
    std::mt19937 rng(static_cast<uint32_t>(77 + d.group * 5 + d.dg));
    auto const in = deformConvInputs(d, oh, ow, rng);
    auto out = runner.run(in);
    HostTensor const expected = deformConvReference(d, in.at("x"), in.at("offset"), in.at("mask"), in.at("weight"),
        d.bias ? &in.at("bias") : nullptr, oh, ow);
    EXPECT_TRUE(allClose(out["y"], expected, 1e-4, 1e-4));
}

INSTANTIATE_TEST_SUITE_P(StandardPluginsV3, DeformConvCases,
    ::testing::Values(DcnCase{1, 2, 5, 6, 3, 3, 3, {1, 1}, {0, 0}, {1, 1}, 1, 1, false, 1.0},
        DcnCase{2, 4, 7, 6, 6, 3, 2, {2, 1}, {1, 1}, {2, 1}, 2, 2, true, 2.5},
        DcnCase{1, 4, 5, 5, 4, 1, 1, {1, 1}, {0, 0}, {1, 1}, 4, 4, true, 6.0}),
    [](::testing::TestParamInfo<DcnCase> const& info) { return "Case" + std::to_string(info.index); });

TEST(StandardPluginsV3, DeformConvSerializedEngineRunsInAFreshRuntime)
{
    DcnCase const d{1, 2, 6, 6, 2, 3, 3, {1, 2}, {1, 0}, {1, 1}, 1, 2, true, 1.5};
    NetworkRunner runner;
    auto const [oh, ow] = buildDeformConv(runner, d);
    ASSERT_GT(oh, 0);
    ASSERT_TRUE(runner.build()) << runner.logger().allErrors();
    CapturingLogger logger;
    std::unique_ptr<IRuntime> runtime;
    auto engine = samplesupport::loadInFreshRuntime(runner.engineBytes(), logger, runtime);
    ASSERT_NE(engine, nullptr) << logger.allErrors();
    std::mt19937 rng(99);
    auto const in = deformConvInputs(d, oh, ow, rng);
    std::map<std::string, HostTensor> outputs;
    ASSERT_TRUE(samplesupport::runEngine(*engine, in, outputs)) << logger.allErrors();
    HostTensor const expected = deformConvReference(
        d, in.at("x"), in.at("offset"), in.at("mask"), in.at("weight"), &in.at("bias"), oh, ow);
    EXPECT_TRUE(allClose(outputs["y"], expected, 1e-4, 1e-4));
}

} // namespace
} // namespace kiln::test
