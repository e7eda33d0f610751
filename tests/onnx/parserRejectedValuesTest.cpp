// parserRejectedValuesTest.cpp — issue 17, finding 1: a value that a network-API setter rejects (it reports the
// error through the network's IErrorRecorder and keeps its previous value, as TensorRT's void setters do) must fail
// the import with an error naming the node and the attribute, never give a network that computes something else.
// Also the capture itself (onnx/networkErrorCapture.h): it sees the setter's error, forwards it to the application's
// recorder and puts that recorder back.
#include "onnxTestModels.h"

#include "common/networkRunner.h"
#include "onnx/networkErrorCapture.h"
#include "onnx/onnxConstant.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace kiln::test
{
namespace
{

using nvinfer1::DataType;

constexpr int64_t kHUGE = 200000; // above the layers' limit of 100000

//! A window op on x [1, 2, 8, 8] with the given attributes (W and B random initializers for the convolutions).
OnnxModelBuilder windowModel(std::string const& op, std::vector<::onnx::AttributeProto> const& attrs)
{
    std::mt19937 rng(1717);
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {1, 2, 8, 8});
    std::vector<std::string> inputs{"x"};
    if (op == "Conv" || op == "ConvTranspose")
    {
        std::vector<int64_t> const wDims = op == "Conv" ? std::vector<int64_t>{3, 2, 3, 3} : std::vector<int64_t>{2, 3, 3, 3};
        model.addInitializer("w", toConstant(HostTensor::random(DataType::kFLOAT, makeDims(wDims), rng)));
        inputs.push_back("w");
    }
    model.addNode(op, inputs, {"y"}, attrs).set_name("win");
    model.addOutput("y", DataType::kFLOAT);
    return model;
}

struct RejectedCase
{
    std::string op;
    std::vector<::onnx::AttributeProto> attrs;
    std::string attribute;
};

TEST(ParserRejectedValues, WindowAttributesAboveTheLayerLimitFailTheNode)
{
    std::vector<RejectedCase> const cases = {
        {"Conv", {intsAttr("strides", {kHUGE, 1})}, "strides"},
        {"Conv", {intsAttr("dilations", {1, kHUGE})}, "dilations"},
        {"Conv", {intsAttr("pads", {kHUGE, 0, 0, 0})}, "pads"},
        {"ConvTranspose", {intsAttr("strides", {kHUGE, 2})}, "strides"},
        {"MaxPool", {intsAttr("kernel_shape", {2, 2}), intsAttr("strides", {1, kHUGE})}, "strides"},
        {"AveragePool", {intsAttr("kernel_shape", {2, 2}), intsAttr("strides", {kHUGE, kHUGE})}, "strides"},
    };
    for (RejectedCase const& c : cases)
    {
        ParseOutcome const outcome = parseOnly(windowModel(c.op, c.attrs));
        EXPECT_FALSE(outcome.ok) << c.op << " " << c.attribute;
        std::string const expected = "node 'win' (" + c.op + "): attribute '" + c.attribute + "'";
        EXPECT_TRUE(outcome.hasError(expected)) << expected << "\n" << outcome.allErrors();
    }
}

TEST(ParserRejectedValues, ValuesWithinTheLimitStillParse)
{
    // The same ops with ordinary values: the checks must not reject what the layers accept.
    EXPECT_TRUE(parseOnly(windowModel("Conv", {intsAttr("strides", {2, 1}), intsAttr("pads", {1, 0, 1, 0})})).ok);
    EXPECT_TRUE(parseOnly(windowModel("ConvTranspose", {intsAttr("strides", {2, 2})})).ok);
    EXPECT_TRUE(parseOnly(windowModel("MaxPool", {intsAttr("kernel_shape", {2, 2}), intsAttr("strides", {2, 2})})).ok);
}

TEST(ParserRejectedValues, CaptureSeesForwardsAndRestores)
{
    NetworkRunner runner;
    RecordingErrorRecorder recorder;
    runner.network().setErrorRecorder(&recorder);
    nvinfer1::ITensor* x = runner.addInput("x", DataType::kFLOAT, {1, 1, 4, 4});
    nvinfer1::IPoolingLayer* pool
        = runner.network().addPoolingNd(*x, nvinfer1::PoolingType::kMAX, makeDims({2, 2}));
    ASSERT_NE(pool, nullptr);
    int32_t const before = recorder.getNbErrors();
    {
        NetworkErrorCapture capture(runner.network());
        EXPECT_EQ(runner.network().getErrorRecorder(), &capture);
        pool->setStrideNd(makeDims({2, 2}));
        EXPECT_EQ(capture.reported(), 0);
        pool->setStrideNd(makeDims({kHUGE, 2}));
        EXPECT_EQ(capture.reported(), 1);
        ASSERT_EQ(capture.errors().size(), 1U);
        EXPECT_NE(capture.errors()[0].find("100000"), std::string::npos) << capture.errors()[0];
    }
    EXPECT_EQ(runner.network().getErrorRecorder(), &recorder);
    EXPECT_EQ(recorder.getNbErrors(), before + 1) << "the application's recorder must still see the error";
    EXPECT_EQ(pool->getStrideNd().d[0], 2) << "the setter keeps the previous value";
}

} // namespace
} // namespace kiln::test
