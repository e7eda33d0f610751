// Tests of IParametricReLULayer: slopes broadcast in every pattern, FP16/BF16, dynamic shapes and error paths.
#include "common/backendTest.h"
#include "common/networkRunner.h"

#include <functional>

namespace
{
using namespace nvinfer1;
using kiln::test::HostTensor;
using kiln::test::makeDims;
using kiln::test::NetworkRunner;

//! y = x >= 0 ? x : slope * x with the slope broadcast to x.
HostTensor reference(HostTensor const& x, HostTensor const& slope)
{
    HostTensor out(x.type, x.dims);
    for (int64_t i = 0; i < x.volume(); ++i)
    {
        int64_t rest = i;
        int64_t offset = 0;
        int64_t stride = 1;
        for (int32_t d = x.dims.nbDims - 1; d >= 0; --d)
        {
            int64_t const coord = rest % x.dims.d[d];
            rest /= x.dims.d[d];
            if (slope.dims.d[d] != 1)
            {
                offset += coord * stride;
            }
            stride *= slope.dims.d[d];
        }
        double const v = x.at(i);
        out.set(i, v >= 0 ? v : slope.at(offset) * v);
    }
    return out;
}

HostTensor runPrelu(HostTensor const& x, HostTensor const& slope)
{
    NetworkRunner r;
    ITensor* in = r.addInput("x", x.type, std::vector<int64_t>(x.dims.d, x.dims.d + x.dims.nbDims));
    ITensor* s = r.addInput("slope", slope.type, std::vector<int64_t>(slope.dims.d, slope.dims.d + slope.dims.nbDims));
    IParametricReLULayer* layer = r.network().addParametricReLU(*in, *s);
    EXPECT_NE(layer, nullptr) << r.logger().allErrors();
    if (layer == nullptr)
    {
        return {};
    }
    EXPECT_EQ(layer->getType(), LayerType::kPARAMETRIC_RELU);
    r.markOutput(layer->getOutput(0), "out");
    EXPECT_TRUE(r.build()) << r.logger().allErrors();
    return r.run({{"x", x}, {"slope", slope}})["out"];
}

class ParametricReLULayerTest : public kiln::test::BackendTest
{
};
KILN_INSTANTIATE_BACKEND_TESTS(ParametricReLULayerTest);

TEST_P(ParametricReLULayerTest, SlopeBroadcastPatterns)
{
    std::mt19937 rng(100);
    for (int32_t rep = 0; rep < 12; ++rep)
    {
        int32_t const rank = std::uniform_int_distribution<int32_t>(1, 4)(rng);
        std::vector<int64_t> xd;
        std::vector<int64_t> sd;
        for (int32_t d = 0; d < rank; ++d)
        {
            int64_t const n = std::uniform_int_distribution<int64_t>(1, 5)(rng);
            xd.push_back(n);
            sd.push_back(std::uniform_int_distribution<int32_t>(0, 1)(rng) ? n : 1);
        }
        SCOPED_TRACE(kiln::test::dimsString(makeDims(xd)) + " slope " + kiln::test::dimsString(makeDims(sd)));
        HostTensor x = HostTensor::random(DataType::kFLOAT, makeDims(xd), rng, -2, 2);
        HostTensor s = HostTensor::random(DataType::kFLOAT, makeDims(sd), rng, -1, 1);
        EXPECT_TRUE(kiln::test::allClose(runPrelu(x, s), reference(x, s), 1e-6, 1e-6));
    }
}

TEST_P(ParametricReLULayerTest, HalfAndBFloat16)
{
    std::mt19937 rng(101);
    for (DataType type : {DataType::kHALF, DataType::kBF16})
    {
        double const tol = type == DataType::kHALF ? 2e-3 : 1.6e-2;
        HostTensor x = HostTensor::random(type, makeDims({2, 3, 4}), rng, -2, 2);
        HostTensor s = HostTensor::random(type, makeDims({1, 3, 1}), rng, -1, 1);
        EXPECT_TRUE(kiln::test::allClose(runPrelu(x, s), reference(x, s), tol, tol));
    }
}

TEST_P(ParametricReLULayerTest, DynamicShapes)
{
    NetworkRunner r;
    ITensor* in = r.addInput("x", DataType::kFLOAT, {-1, 3, -1});
    ITensor* s = r.addInput("slope", DataType::kFLOAT, {1, 3, 1});
    r.markOutput(r.network().addParametricReLU(*in, *s)->getOutput(0), "out");
    r.setProfileDims("x", {1, 3, 1}, {2, 3, 4}, {5, 3, 9});
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    std::mt19937 rng(3);
    HostTensor ts = HostTensor::random(DataType::kFLOAT, makeDims({1, 3, 1}), rng, -1, 1);
    for (auto const& shape : {std::vector<int64_t>{1, 3, 9}, std::vector<int64_t>{5, 3, 2}})
    {
        HostTensor tx = HostTensor::random(DataType::kFLOAT, makeDims(shape), rng, -2, 2);
        EXPECT_TRUE(kiln::test::allClose(r.run({{"x", tx}, {"slope", ts}})["out"], reference(tx, ts), 1e-6, 1e-6));
    }
}

void expectBuildFailure(std::function<void(NetworkRunner&)> const& define, std::string const& text)
{
    NetworkRunner r;
    define(r);
    EXPECT_FALSE(r.build());
    EXPECT_TRUE(r.logger().hasError(text)) << "expected '" << text << "' in:\n" << r.logger().allErrors();
}

TEST_P(ParametricReLULayerTest, Errors)
{
    expectBuildFailure(
        [](NetworkRunner& r) {
            ITensor* x = r.addInput("x", DataType::kFLOAT, {2, 3});
            ITensor* s = r.addInput("s", DataType::kFLOAT, {3});
            IParametricReLULayer* l = r.network().addParametricReLU(*x, *s);
            l->setName("prelu");
            r.markOutput(l->getOutput(0), "out");
        },
        "prelu");
    expectBuildFailure(
        [](NetworkRunner& r) {
            ITensor* x = r.addInput("x", DataType::kFLOAT, {2, 4});
            ITensor* s = r.addInput("s", DataType::kFLOAT, {1, 3});
            r.markOutput(r.network().addParametricReLU(*x, *s)->getOutput(0), "out");
        },
        "cannot be broadcast");
    expectBuildFailure(
        [](NetworkRunner& r) {
            // The slope broadcasts to the input, never the other way round.
            ITensor* x = r.addInput("x", DataType::kFLOAT, {1, 4});
            ITensor* s = r.addInput("s", DataType::kFLOAT, {3, 4});
            r.markOutput(r.network().addParametricReLU(*x, *s)->getOutput(0), "out");
        },
        "cannot be broadcast");
    expectBuildFailure(
        [](NetworkRunner& r) {
            ITensor* x = r.addInput("x", DataType::kINT32, {2});
            ITensor* s = r.addInput("s", DataType::kINT32, {2});
            r.markOutput(r.network().addParametricReLU(*x, *s)->getOutput(0), "out");
        },
        "INT32");
    {
        NetworkRunner r(1U << static_cast<uint32_t>(NetworkDefinitionCreationFlag::kSTRONGLY_TYPED));
        ITensor* x = r.addInput("x", DataType::kFLOAT, {2});
        ITensor* s = r.addInput("s", DataType::kHALF, {2});
        r.markOutput(r.network().addParametricReLU(*x, *s)->getOutput(0), "out");
        EXPECT_FALSE(r.build());
        EXPECT_TRUE(r.logger().hasError("types must match")) << r.logger().allErrors();
    }
}

} // namespace
