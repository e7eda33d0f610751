// Importers of LRN, CumSum, OneHot and ReverseSequence beyond the ONNX node tests: dynamic shapes through a profile,
// initializer vs runtime inputs, non-4-D LRN (reshaped around the layer), float indices/depth for OneHot, and every
// error path with its message.
#include "onnxTestModels.h"

#include "onnx/onnxConstant.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;

//! Reference prefix sums along `axis` of a row-major tensor, from the definition.
HostTensor cumSumReference(HostTensor const& x, int32_t axis, bool exclusive, bool reverse)
{
    HostTensor y(x.type, x.dims);
    int64_t stride = 1;
    for (int32_t d = x.dims.nbDims - 1; d > axis; --d)
    {
        stride *= x.dims.d[d];
    }
    int64_t const n = x.dims.d[axis];
    for (int64_t e = 0; e < x.volume(); ++e)
    {
        int64_t const j = (e / stride) % n;
        double sum = 0;
        for (int64_t k = 0; k < n; ++k)
        {
            if (reverse ? (exclusive ? k > j : k >= j) : (exclusive ? k < j : k <= j))
            {
                sum += x.at(e + (k - j) * stride);
            }
        }
        y.set(e, sum);
    }
    return y;
}

class LayerBackedImportersTest : public ::testing::Test
{
protected:
    std::mt19937 mRng{5051};
};

TEST_F(LayerBackedImportersTest, CumSumInitializerAxisWithDynamicBatch)
{
    OnnxModelBuilder model(14);
    model.addInput("x", DataType::kFLOAT, {-1, 5});
    model.addInitializer("axis", OnnxConstant::fromInt64({-2}, {}));
    model.addNode("CumSum", {"x", "axis"}, {"y"}, {intAttr("exclusive", 1), intAttr("reverse", 1)});
    model.addOutput("y", DataType::kFLOAT);
    OnnxRunner runner;
    ASSERT_TRUE(runner.parse(model));
    runner.runner().setProfileDims("x", {1, 5}, {3, 5}, {7, 5});
    ASSERT_TRUE(runner.build());
    for (int64_t n : {1, 3, 7})
    {
        HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({n, 5}), mRng, -4.0, 4.0);
        auto out = runner.run({{"x", x}});
        EXPECT_TRUE(allClose(out["y"], cumSumReference(x, 0, true, true), 1e-5, 1e-5)) << "N = " << n;
    }
}

TEST_F(LayerBackedImportersTest, CumSumRuntimeAxisAndOpset11)
{
    OnnxModelBuilder model(11);
    model.addInput("x", DataType::kINT32, {3, 4});
    model.addInput("axis", DataType::kINT32, {});
    model.addNode("CumSum", {"x", "axis"}, {"y"});
    model.addOutput("y", DataType::kINT32);
    OnnxRunner runner;
    ASSERT_TRUE(runner.parse(model));
    ASSERT_TRUE(runner.build());
    HostTensor const x = HostTensor::random(DataType::kINT32, makeDims({3, 4}), mRng, -100.0, 100.0);
    for (int32_t axis : {0, 1, -1})
    {
        HostTensor const a = HostTensor::fromValues(DataType::kINT32, nvinfer1::Dims{0, {}}, {double(axis)});
        auto out = runner.run({{"x", x}, {"axis", a}});
        EXPECT_TRUE(allClose(out["y"], cumSumReference(x, axis < 0 ? axis + 2 : axis, false, false), 0, 0)) << axis;
    }
}

TEST_F(LayerBackedImportersTest, CumSumErrors)
{
    OnnxModelBuilder outOfRange(14);
    outOfRange.addInput("x", DataType::kFLOAT, {3, 4});
    outOfRange.addInitializer("axis", OnnxConstant::fromInt64({2}, {}));
    outOfRange.addNode("CumSum", {"x", "axis"}, {"y"});
    outOfRange.addOutput("y", DataType::kFLOAT);
    ParseOutcome const a = parseOnly(outOfRange);
    EXPECT_FALSE(a.ok);
    EXPECT_TRUE(a.hasError("(CumSum): input 'axis' = 2 is out of range [-2, 1]")) << a.allErrors();

    OnnxModelBuilder boolInput(14);
    boolInput.addInput("x", DataType::kBOOL, {3});
    boolInput.addInitializer("axis", OnnxConstant::fromInt64({0}, {}));
    boolInput.addNode("CumSum", {"x", "axis"}, {"y"});
    boolInput.addOutput("y", DataType::kBOOL);
    ParseOutcome const b = parseOnly(boolInput);
    EXPECT_FALSE(b.ok);
    EXPECT_TRUE(b.hasError("input 'x' has a type ICumulativeLayer does not support")) << b.allErrors();
}

//! One-hot reference for axis -1: [.., depth].
HostTensor oneHotLastAxis(HostTensor const& indices, int64_t depth, double off, double on)
{
    nvinfer1::Dims d = indices.dims;
    d.d[d.nbDims++] = depth;
    HostTensor y(DataType::kFLOAT, d);
    for (int64_t i = 0; i < indices.volume(); ++i)
    {
        auto idx = static_cast<int64_t>(std::trunc(indices.at(i)));
        idx = idx < 0 ? idx + depth : idx;
        for (int64_t j = 0; j < depth; ++j)
        {
            y.set(i * depth + j, j == idx ? on : off);
        }
    }
    return y;
}

TEST_F(LayerBackedImportersTest, OneHotFloatIndicesFloatDepthDynamicShape)
{
    OnnxModelBuilder model(11);
    model.addInput("indices", DataType::kFLOAT, {-1, 3});
    model.addInitializer("depth", OnnxConstant::fromFloat({5.0F}, {1}));
    model.addInitializer("values", OnnxConstant::fromFloat({-1.5F, 2.5F}, {2}));
    model.addNode("OneHot", {"indices", "depth", "values"}, {"y"});
    model.addOutput("y", DataType::kFLOAT);
    OnnxRunner runner;
    ASSERT_TRUE(runner.parse(model));
    runner.runner().setProfileDims("indices", {1, 3}, {2, 3}, {4, 3});
    ASSERT_TRUE(runner.build());
    for (int64_t n : {1, 4})
    {
        HostTensor x = HostTensor::random(DataType::kINT32, makeDims({n, 3}), mRng, -5.0, 4.0);
        HostTensor xf(DataType::kFLOAT, x.dims);
        for (int64_t i = 0; i < x.volume(); ++i)
        {
            xf.set(i, x.at(i));
        }
        auto out = runner.run({{"indices", xf}});
        EXPECT_TRUE(allClose(out["y"], oneHotLastAxis(xf, 5, -1.5, 2.5), 0, 0)) << "N = " << n;
    }
}

TEST_F(LayerBackedImportersTest, OneHotErrors)
{
    OnnxModelBuilder runtimeDepth(11);
    runtimeDepth.addInput("indices", DataType::kINT64, {3});
    runtimeDepth.addInput("depth", DataType::kFLOAT, {});
    runtimeDepth.addInitializer("values", OnnxConstant::fromFloat({0.0F, 1.0F}, {2}));
    runtimeDepth.addNode("OneHot", {"indices", "depth", "values"}, {"y"});
    runtimeDepth.addOutput("y", DataType::kFLOAT);
    ParseOutcome const a = parseOnly(runtimeDepth);
    EXPECT_FALSE(a.ok);
    EXPECT_TRUE(a.hasError("(OneHot): input 'depth' must be an initializer")) << a.allErrors();

    OnnxModelBuilder badAxis(11);
    badAxis.addInput("indices", DataType::kINT64, {3});
    badAxis.addInitializer("depth", OnnxConstant::fromInt64({4}, {}));
    badAxis.addInitializer("values", OnnxConstant::fromFloat({0.0F, 1.0F}, {2}));
    badAxis.addNode("OneHot", {"indices", "depth", "values"}, {"y"}, {intAttr("axis", 2)});
    badAxis.addOutput("y", DataType::kFLOAT);
    ParseOutcome const b = parseOnly(badAxis);
    EXPECT_FALSE(b.ok);
    EXPECT_TRUE(b.hasError("attribute 'axis' = 2 is out of range [-2, 1]")) << b.allErrors();

    OnnxModelBuilder zeroDepth(11);
    zeroDepth.addInput("indices", DataType::kINT64, {3});
    zeroDepth.addInitializer("depth", OnnxConstant::fromInt64({0}, {}));
    zeroDepth.addInitializer("values", OnnxConstant::fromFloat({0.0F, 1.0F}, {2}));
    zeroDepth.addNode("OneHot", {"indices", "depth", "values"}, {"y"});
    zeroDepth.addOutput("y", DataType::kFLOAT);
    ParseOutcome const c = parseOnly(zeroDepth);
    EXPECT_FALSE(c.ok);
    EXPECT_TRUE(c.hasError("input 'depth' = 0")) << c.allErrors();
}

//! ONNX LRN reference (channel axis 1, any rank >= 3).
HostTensor lrnReference(HostTensor const& x, int64_t size, double alpha, double beta, double bias)
{
    HostTensor y(x.type, x.dims);
    int64_t stride = 1;
    for (int32_t d = 2; d < x.dims.nbDims; ++d)
    {
        stride *= x.dims.d[d];
    }
    int64_t const channels = x.dims.d[1];
    for (int64_t e = 0; e < x.volume(); ++e)
    {
        int64_t const c = (e / stride) % channels;
        double sum = 0;
        for (int64_t i = c - (size - 1) / 2; i <= c + size / 2; ++i)
        {
            if (i >= 0 && i < channels)
            {
                double const v = x.at(e + (i - c) * stride);
                sum += v * v;
            }
        }
        y.set(e, x.at(e) / std::pow(bias + alpha / static_cast<double>(size) * sum, beta));
    }
    return y;
}

TEST_F(LayerBackedImportersTest, LRNOnThreeAndFiveDimensionalInputs)
{
    for (std::vector<int64_t> const& shape : {std::vector<int64_t>{2, 6, 5}, std::vector<int64_t>{2, 7, 2, 3, 2}})
    {
        OnnxModelBuilder model(13);
        model.addInput("x", DataType::kFLOAT, shape);
        model.addNode("LRN", {"x"}, {"y"},
            {intAttr("size", 5), floatAttr("alpha", 0.3F), floatAttr("beta", 0.6F), floatAttr("bias", 1.5F)});
        model.addOutput("y", DataType::kFLOAT);
        HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims(shape), mRng, -3.0, 3.0);
        auto out = runOnnxModel(model, {{"x", x}});
        EXPECT_TRUE(allClose(out["y"], lrnReference(x, 5, 0.3, 0.6, 1.5), 1e-5, 1e-5)) << dimsString(x.dims);
    }
}

TEST_F(LayerBackedImportersTest, LRNErrors)
{
    OnnxModelBuilder even(13);
    even.addInput("x", DataType::kFLOAT, {1, 4, 2, 2});
    even.addNode("LRN", {"x"}, {"y"}, {intAttr("size", 4)});
    even.addOutput("y", DataType::kFLOAT);
    ParseOutcome const a = parseOnly(even);
    EXPECT_FALSE(a.ok);
    EXPECT_TRUE(a.hasError("(LRN): attribute 'size' = 4 is not supported")) << a.allErrors();

    OnnxModelBuilder noSize(13);
    noSize.addInput("x", DataType::kFLOAT, {1, 4, 2, 2});
    noSize.addNode("LRN", {"x"}, {"y"});
    noSize.addOutput("y", DataType::kFLOAT);
    ParseOutcome const b = parseOnly(noSize);
    EXPECT_FALSE(b.ok);
    EXPECT_TRUE(b.hasError("size")) << b.allErrors();

    OnnxModelBuilder rank2(13);
    rank2.addInput("x", DataType::kFLOAT, {4, 2});
    rank2.addNode("LRN", {"x"}, {"y"}, {intAttr("size", 3)});
    rank2.addOutput("y", DataType::kFLOAT);
    ParseOutcome const c = parseOnly(rank2);
    EXPECT_FALSE(c.ok);
    EXPECT_TRUE(c.hasError("input 'X' must have rank >= 3")) << c.allErrors();
}

TEST_F(LayerBackedImportersTest, ReverseSequenceDynamicBatch)
{
    OnnxModelBuilder model(10);
    model.addInput("x", DataType::kFLOAT, {-1, 4, 2});
    model.addInput("lens", DataType::kINT64, {-1});
    model.addNode("ReverseSequence", {"x", "lens"}, {"y"}, {intAttr("batch_axis", 0), intAttr("time_axis", 1)});
    model.addOutput("y", DataType::kFLOAT);
    OnnxRunner runner;
    ASSERT_TRUE(runner.parse(model));
    runner.runner().setProfileDims("x", {1, 4, 2}, {2, 4, 2}, {5, 4, 2});
    runner.runner().setProfileDims("lens", {1}, {2}, {5});
    ASSERT_TRUE(runner.build());
    for (int64_t n : {1, 5})
    {
        HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({n, 4, 2}), mRng, -3.0, 3.0);
        HostTensor const lens = HostTensor::random(DataType::kINT64, makeDims({n}), mRng, 0.0, 4.0);
        auto out = runner.run({{"x", x}, {"lens", lens}});
        HostTensor want(DataType::kFLOAT, x.dims);
        for (int64_t b = 0; b < n; ++b)
        {
            auto const len = static_cast<int64_t>(lens.at(b));
            for (int64_t t = 0; t < 4; ++t)
            {
                int64_t const from = t < len ? len - 1 - t : t;
                for (int64_t c = 0; c < 2; ++c)
                {
                    want.set((b * 4 + t) * 2 + c, x.at((b * 4 + from) * 2 + c));
                }
            }
        }
        EXPECT_TRUE(allClose(out["y"], want, 0, 0)) << "N = " << n;
    }
}

TEST_F(LayerBackedImportersTest, ReverseSequenceErrors)
{
    OnnxModelBuilder model(10);
    model.addInput("x", DataType::kFLOAT, {3, 4});
    model.addInput("lens", DataType::kINT64, {3});
    model.addNode("ReverseSequence", {"x", "lens"}, {"y"}, {intAttr("batch_axis", 1), intAttr("time_axis", 1)});
    model.addOutput("y", DataType::kFLOAT);
    ParseOutcome const a = parseOnly(model);
    EXPECT_FALSE(a.ok);
    EXPECT_TRUE(a.hasError("(ReverseSequence): attributes 'batch_axis' = 1 and 'time_axis' = 1 must be 0 and 1"))
        << a.allErrors();
}

} // namespace
} // namespace kiln::test
