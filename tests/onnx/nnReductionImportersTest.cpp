// Importers of the softmax, reduction and resize families beyond the ONNX node tests: Softmax/LogSoftmax opset-11
// 2-D coercion against opset 13's single axis, Reduce with axes as an input (constant and run-time) and
// noop_with_empty_axes, TopK with a run-time K, ArgMin's select_last_index, Resize with sizes from a run-time shape
// tensor, and the error paths of the nn importer families (messages naming node, op and input/attribute).
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

class NnReductionImportersTest : public ::testing::Test
{
protected:
    std::mt19937 mRng{31338};

    HostTensor random(std::vector<int64_t> const& dims, double lo = -2.0, double hi = 2.0)
    {
        return HostTensor::random(DataType::kFLOAT, makeDims(dims), mRng, lo, hi);
    }
};

//! Softmax of `x` over consecutive rows of `rowLength` elements.
HostTensor referenceSoftmaxRows(HostTensor const& x, int64_t rowLength)
{
    HostTensor y(DataType::kFLOAT, x.dims);
    for (int64_t row = 0; row < x.volume() / rowLength; ++row)
    {
        double m = -INFINITY;
        for (int64_t i = 0; i < rowLength; ++i)
        {
            m = std::max(m, x.at(row * rowLength + i));
        }
        double sum = 0.0;
        for (int64_t i = 0; i < rowLength; ++i)
        {
            sum += std::exp(x.at(row * rowLength + i) - m);
        }
        for (int64_t i = 0; i < rowLength; ++i)
        {
            y.set(row * rowLength + i, std::exp(x.at(row * rowLength + i) - m) / sum);
        }
    }
    return y;
}

TEST_F(NnReductionImportersTest, SoftmaxOpset11CoercesTo2DButOpset13UsesOneAxis)
{
    HostTensor const x = random({2, 3, 4}, -3.0, 3.0);
    for (int64_t opset : {11, 13})
    {
        OnnxModelBuilder model(opset);
        model.addInput("x", DataType::kFLOAT, {2, 3, 4});
        model.addNode("Softmax", {"x"}, {"y"}, {intAttr("axis", 1)});
        model.addOutput("y", DataType::kFLOAT);
        auto outputs = runOnnxModel(model, {{"x", x}});
        ASSERT_EQ(outputs.count("y"), 1U);
        HostTensor expected(DataType::kFLOAT, x.dims);
        if (opset == 11)
        {
            expected = referenceSoftmaxRows(x, 12); // [2, 12]: one softmax over axes 1 and 2
        }
        else
        {
            for (int64_t a = 0; a < 2; ++a)
            {
                for (int64_t c = 0; c < 4; ++c)
                {
                    double sum = 0.0;
                    for (int64_t b = 0; b < 3; ++b)
                    {
                        sum += std::exp(x.at((a * 3 + b) * 4 + c));
                    }
                    for (int64_t b = 0; b < 3; ++b)
                    {
                        expected.set((a * 3 + b) * 4 + c, std::exp(x.at((a * 3 + b) * 4 + c)) / sum);
                    }
                }
            }
        }
        EXPECT_TRUE(allClose(outputs["y"], expected, 1e-6, 1e-5)) << "opset " << opset;
    }
}

TEST_F(NnReductionImportersTest, LogSoftmaxOpset11OnMiddleAxis)
{
    HostTensor const x = random({2, 3, 4}, -3.0, 3.0);
    OnnxModelBuilder model(11);
    model.addInput("x", DataType::kFLOAT, {2, 3, 4});
    model.addNode("LogSoftmax", {"x"}, {"y"}, {intAttr("axis", 1)});
    model.addOutput("y", DataType::kFLOAT);
    auto outputs = runOnnxModel(model, {{"x", x}});
    ASSERT_EQ(outputs.count("y"), 1U);
    HostTensor expected = referenceSoftmaxRows(x, 12);
    for (int64_t i = 0; i < expected.volume(); ++i)
    {
        expected.set(i, std::log(expected.at(i)));
    }
    EXPECT_TRUE(allClose(outputs["y"], expected, 1e-5, 1e-5));
}

TEST_F(NnReductionImportersTest, ReduceMeanOpset18TakesAxesAsAnInput)
{
    HostTensor const x = random({3, 4, 5});
    OnnxModelBuilder model(18);
    model.addInput("x", DataType::kFLOAT, {3, 4, 5});
    model.addInitializer("axes", OnnxConstant::fromInt64({-1, 0}, {2}));
    model.addNode("ReduceMean", {"x", "axes"}, {"y"}, {intAttr("keepdims", 0)});
    model.addOutput("y", DataType::kFLOAT);
    auto outputs = runOnnxModel(model, {{"x", x}});
    ASSERT_EQ(outputs.count("y"), 1U);
    HostTensor expected(DataType::kFLOAT, makeDims({4}));
    for (int64_t j = 0; j < 4; ++j)
    {
        double sum = 0.0;
        for (int64_t i = 0; i < 3; ++i)
        {
            for (int64_t k = 0; k < 5; ++k)
            {
                sum += x.at((i * 4 + j) * 5 + k);
            }
        }
        expected.set(j, sum / 15.0);
    }
    EXPECT_TRUE(allClose(outputs["y"], expected, 1e-6, 1e-5));
}

TEST_F(NnReductionImportersTest, ReduceEmptyAxesReducesAllUnlessNoop)
{
    HostTensor const x = random({2, 3, 2});
    for (int64_t noop : {0, 1})
    {
        OnnxModelBuilder model(18);
        model.addInput("x", DataType::kFLOAT, {2, 3, 2});
        model.addInitializer("axes", OnnxConstant::fromInt64({}, {0}));
        model.addNode("ReduceMax", {"x", "axes"}, {"y"}, {intAttr("noop_with_empty_axes", noop)});
        model.addOutput("y", DataType::kFLOAT);
        auto outputs = runOnnxModel(model, {{"x", x}});
        ASSERT_EQ(outputs.count("y"), 1U);
        if (noop == 1)
        {
            EXPECT_TRUE(allClose(outputs["y"], x, 0.0, 0.0));
            continue;
        }
        double m = -INFINITY;
        for (int64_t i = 0; i < x.volume(); ++i)
        {
            m = std::max(m, x.at(i));
        }
        HostTensor const expected = HostTensor::fromValues(DataType::kFLOAT, makeDims({1, 1, 1}), {m});
        EXPECT_TRUE(allClose(outputs["y"], expected, 0.0, 0.0));
    }
}

TEST_F(NnReductionImportersTest, ReduceSumWithRunTimeAxesWithoutKeepdims)
{
    // 'axes' is a graph input (a shape tensor): one engine serves different axes, and the output rank is
    // rank - len(axes).
    HostTensor const x = random({2, 3, 4, 5});
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {2, 3, 4, 5});
    model.addInput("axes", DataType::kINT64, {2});
    model.addNode("ReduceSum", {"x", "axes"}, {"y"}, {intAttr("keepdims", 0)});
    model.addOutput("y", DataType::kFLOAT);
    OnnxRunner runner;
    ASSERT_TRUE(runner.parse(model));
    // Every profile point names 2 distinct axes.
    runner.runner().setProfileValues("axes", {-1, 1}, {-1, 1}, {0, 2});
    ASSERT_TRUE(runner.build());
    int64_t const extents[4] = {2, 3, 4, 5};
    for (auto const& axes : std::vector<std::vector<int64_t>>{{-1, 1}, {0, 2}})
    {
        bool reduced[4] = {false, false, false, false};
        for (int64_t a : axes)
        {
            reduced[a < 0 ? a + 4 : a] = true;
        }
        std::vector<int64_t> outDims;
        for (int32_t d = 0; d < 4; ++d)
        {
            if (!reduced[d])
            {
                outDims.push_back(extents[d]);
            }
        }
        HostTensor expected(DataType::kFLOAT, makeDims(outDims));
        std::vector<double> acc(static_cast<size_t>(expected.volume()), 0.0);
        for (int64_t i = 0; i < x.volume(); ++i)
        {
            int64_t rest = i;
            int64_t coord[4];
            for (int32_t d = 3; d >= 0; --d)
            {
                coord[d] = rest % extents[d];
                rest /= extents[d];
            }
            int64_t flat = 0;
            for (int32_t d = 0; d < 4; ++d)
            {
                if (!reduced[d])
                {
                    flat = flat * extents[d] + coord[d];
                }
            }
            acc[static_cast<size_t>(flat)] += x.at(i);
        }
        for (size_t i = 0; i < acc.size(); ++i)
        {
            expected.set(static_cast<int64_t>(i), acc[i]);
        }
        HostTensor const axesValue = HostTensor::fromValues(
            DataType::kINT64, makeDims({2}), {static_cast<double>(axes[0]), static_cast<double>(axes[1])});
        auto outputs = runner.run({{"x", x}, {"axes", axesValue}});
        ASSERT_EQ(outputs.count("y"), 1U);
        EXPECT_TRUE(allClose(outputs["y"], expected, 1e-5, 1e-5)) << "axes " << axes[0] << ", " << axes[1];
    }
}

TEST_F(NnReductionImportersTest, ReduceSumOpset13WithoutAxesInputAndNoopCopies)
{
    HostTensor const x = random({4, 3});
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {4, 3});
    model.addNode("ReduceSum", {"x"}, {"y"}, {intAttr("noop_with_empty_axes", 1), intAttr("keepdims", 0)});
    model.addOutput("y", DataType::kFLOAT);
    auto outputs = runOnnxModel(model, {{"x", x}});
    ASSERT_EQ(outputs.count("y"), 1U);
    EXPECT_TRUE(allClose(outputs["y"], x, 0.0, 0.0));
}

TEST_F(NnReductionImportersTest, ResizeWithSizesFromARunTimeShapeTensor)
{
    // Nearest, asymmetric, floor: out[i] = in[floor(i * inLen / outLen)] per resized axis.
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {1, 2, 4, 5});
    model.addInput("sizes", DataType::kINT64, {4});
    model.addNode("Resize", {"x", "", "", "sizes"}, {"y"},
        {stringAttr("mode", "nearest"), stringAttr("coordinate_transformation_mode", "asymmetric"),
            stringAttr("nearest_mode", "floor")});
    model.addOutput("y", DataType::kFLOAT);
    OnnxRunner runner;
    ASSERT_TRUE(runner.parse(model));
    runner.runner().setProfileValues("sizes", {1, 2, 1, 1}, {1, 2, 6, 7}, {1, 2, 9, 9});
    ASSERT_TRUE(runner.build());
    HostTensor const x = random({1, 2, 4, 5});
    for (auto const& size : std::vector<std::vector<int64_t>>{{1, 2, 6, 7}, {1, 2, 3, 9}})
    {
        HostTensor const sizes = HostTensor::fromValues(
            DataType::kINT64, makeDims({4}), {1.0, 2.0, static_cast<double>(size[2]), static_cast<double>(size[3])});
        auto outputs = runner.run({{"x", x}, {"sizes", sizes}});
        ASSERT_EQ(outputs.count("y"), 1U);
        HostTensor expected(DataType::kFLOAT, makeDims(size));
        for (int64_t c = 0; c < 2; ++c)
        {
            for (int64_t i = 0; i < size[2]; ++i)
            {
                for (int64_t j = 0; j < size[3]; ++j)
                {
                    int64_t const si = i * 4 / size[2];
                    int64_t const sj = j * 5 / size[3];
                    expected.set((c * size[2] + i) * size[3] + j, x.at((c * 4 + si) * 5 + sj));
                }
            }
        }
        EXPECT_TRUE(allClose(outputs["y"], expected, 0.0, 0.0)) << size[2] << "x" << size[3];
    }
}

TEST_F(NnReductionImportersTest, TopKWithRunTimeKAndArgMinLastIndex)
{
    // TopK's K from a graph input (a shape tensor) and ArgMin with select_last_index on repeated values.
    HostTensor const x = HostTensor::fromValues(DataType::kFLOAT, makeDims({2, 5}),
        {3.0, -1.0, 4.0, -1.0, 2.5, 0.5, 0.25, 0.25, 7.0, 0.25});
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {2, 5});
    model.addInput("k", DataType::kINT64, {1});
    model.addNode("TopK", {"x", "k"}, {"values", "indices"}, {intAttr("largest", 1)});
    model.addNode("ArgMin", {"x"}, {"amin"},
        {intAttr("axis", 1), intAttr("keepdims", 0), intAttr("select_last_index", 1)});
    model.addOutput("values", DataType::kFLOAT);
    model.addOutput("indices", DataType::kINT64);
    model.addOutput("amin", DataType::kINT64);
    OnnxRunner runner;
    ASSERT_TRUE(runner.parse(model));
    runner.runner().setProfileValues("k", {1}, {2}, {5});
    ASSERT_TRUE(runner.build());
    auto outputs = runner.run({{"x", x}, {"k", HostTensor::fromValues(DataType::kINT64, makeDims({1}), {2.0})}});
    ASSERT_EQ(outputs.size(), 3U);
    EXPECT_TRUE(allClose(outputs["values"],
        HostTensor::fromValues(DataType::kFLOAT, makeDims({2, 2}), {4.0, 3.0, 7.0, 0.5}), 0.0, 0.0));
    HostTensor const indices = HostTensor::fromValues(DataType::kINT64, makeDims({2, 2}), {2.0, 0.0, 3.0, 0.0});
    EXPECT_TRUE(allClose(outputs["indices"], indices, 0.0, 0.0));
    HostTensor const argmin = HostTensor::fromValues(DataType::kINT64, makeDims({2}), {3.0, 4.0});
    EXPECT_TRUE(allClose(outputs["amin"], argmin, 0.0, 0.0));
}

TEST_F(NnReductionImportersTest, ConvWithWeightsOfTheWrongRankIsRefused)
{
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {1, 3, 5, 5});
    model.addInitializer("w", toConstant(random({4, 3, 3})));
    model.addNode("Conv", {"x", "w"}, {"y"}).set_name("badconv");
    model.addOutput("y", DataType::kFLOAT);
    expectParseError(model, "node 'badconv' (Conv): input 'W' has rank 3, expected rank 4");
}

TEST_F(NnReductionImportersTest, AveragePoolWithDilationsIsRefused)
{
    OnnxModelBuilder model(19);
    model.addInput("x", DataType::kFLOAT, {1, 1, 6, 6});
    model.addNode("AveragePool", {"x"}, {"y"}, {intsAttr("kernel_shape", {2, 2}), intsAttr("dilations", {2, 2})})
        .set_name("pool");
    model.addOutput("y", DataType::kFLOAT);
    expectParseError(model, "node 'pool' (AveragePool): attribute 'dilations' other than 1 is supported only for "
                            "MaxPool");
}

// A dilated MaxPool is built tap by tap; a kernel of more than 4096 taps (onnxStructureFuzz's 100000 x 100000 took
// minutes building layers) is refused with the reason.
TEST_F(NnReductionImportersTest, DilatedMaxPoolWithTooManyTapsIsRefused)
{
    OnnxModelBuilder model(19);
    model.addInput("x", DataType::kFLOAT, {1, 1, 300000, 300000});
    model.addNode("MaxPool", {"x"}, {"y"}, {intsAttr("kernel_shape", {100000, 100000}), intsAttr("dilations", {2, 2})})
        .set_name("pool");
    model.addOutput("y", DataType::kFLOAT);
    expectParseError(model, "node 'pool' (MaxPool): a dilated MaxPool (or one with 'Indices') is built tap by tap, and "
                            "its kernel has more than 4096 taps");
}

TEST_F(NnReductionImportersTest, ResizeWithRunTimeScalesOnSomeAxesIsRefused)
{
    // Run-time scales work (tests/onnx/resizeRuntimeScalesTest.cpp) when they cover every axis in order.
    OnnxModelBuilder model(18);
    model.addInput("x", DataType::kFLOAT, {1, 1, 2, 2});
    model.addInput("scales", DataType::kFLOAT, {2});
    model.addNode("Resize", {"x", "", "scales"}, {"y"}, {intsAttr("axes", {3, 2})}).set_name("rs");
    model.addOutput("y", DataType::kFLOAT);
    expectParseError(model, "node 'rs' (Resize): with run-time 'scales', 'axes' must be [0, 1, ..., 3]");
}

TEST_F(NnReductionImportersTest, BatchNormalizationLegacyTrainingOutputsAreRefused)
{
    // Before opset 14, extra outputs mean the old training form (mean, var, saved_mean, saved_var).
    OnnxModelBuilder model(9);
    model.addInput("x", DataType::kFLOAT, {2, 3, 4});
    for (char const* name : {"s", "b", "m", "v"})
    {
        model.addInitializer(name, toConstant(random({3}, 0.5, 1.5)));
    }
    model.addNode("BatchNormalization", {"x", "s", "b", "m", "v"}, {"y", "rm"}).set_name("bn");
    model.addOutput("y", DataType::kFLOAT);
    model.addOutput("rm", DataType::kFLOAT);
    expectParseError(model, "node 'bn' (BatchNormalization): outputs 'running_mean' / 'running_var' need "
                            "training_mode = 1");
}

} // namespace
} // namespace kiln::test
