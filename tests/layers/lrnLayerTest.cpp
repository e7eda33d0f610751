// Tests of ILRNLayer: every odd window on random 3-D/4-D/5-D shapes (normalised axis rank - 3), FP16/BF16, dynamic
// shapes, TensorRT's documented example, the getters/setters and every argument error path.
#include "common/backendTest.h"
#include "common/networkRunner.h"

#include <cmath>
#include <random>

namespace
{
using namespace nvinfer1;
using kiln::test::HostTensor;
using kiln::test::NetworkRunner;

//! Reference from the definition, written independently of the kernel (coordinate walk, double precision).
HostTensor lrnOracle(HostTensor const& x, int64_t window, double alpha, double beta, double k)
{
    HostTensor y(x.type, x.dims);
    int32_t const rank = x.dims.nbDims;
    int32_t const axis = rank - 3;
    int64_t stride = 1;
    for (int32_t d = rank - 1; d > axis; --d)
    {
        stride *= x.dims.d[d];
    }
    int64_t const channels = x.dims.d[axis];
    int64_t const half = (window - 1) / 2;
    for (int64_t e = 0; e < x.volume(); ++e)
    {
        int64_t const c = (e / stride) % channels;
        double sum = 0;
        for (int64_t j = std::max<int64_t>(0, c - half); j <= std::min(channels - 1, c + half); ++j)
        {
            double const v = x.at(e + (j - c) * stride);
            sum += v * v;
        }
        y.set(e, x.at(e) / std::pow(k + alpha / static_cast<double>(window) * sum, beta));
    }
    return y;
}

void runCase(std::mt19937& rng, DataType type, std::vector<int64_t> const& shape, int64_t window, float alpha,
    float beta, float k, double tol)
{
    NetworkRunner r;
    ITensor* in = r.addInput("x", type, shape);
    ILRNLayer* layer = r.network().addLRN(*in, window, alpha, beta, k);
    ASSERT_NE(layer, nullptr) << r.logger().allErrors();
    EXPECT_EQ(layer->getWindowSize(), window);
    EXPECT_EQ(layer->getAlpha(), alpha);
    EXPECT_EQ(layer->getBeta(), beta);
    EXPECT_EQ(layer->getK(), k);
    r.markOutput(layer->getOutput(0), "y");
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    HostTensor x = HostTensor::random(type, kiln::test::makeDims(shape), rng, -3, 3);
    auto out = r.run({{"x", x}});
    EXPECT_TRUE(kiln::test::allClose(out["y"], lrnOracle(x, window, alpha, beta, k), tol, tol))
        << "window " << window << " shape " << kiln::test::dimsString(x.dims);
}

class LRNLayerTest : public kiln::test::BackendTest
{
};
KILN_INSTANTIATE_BACKEND_TESTS(LRNLayerTest);

TEST_P(LRNLayerTest, EveryWindowAndRank)
{
    std::mt19937 rng(307);
    std::uniform_int_distribution<int64_t> extent(1, 5);
    for (int64_t window = 1; window <= 15; window += 2)
    {
        for (int32_t rank = 3; rank <= 5; ++rank)
        {
            std::vector<int64_t> shape;
            for (int32_t d = 0; d < rank; ++d)
            {
                shape.push_back(d == rank - 3 ? std::uniform_int_distribution<int64_t>(1, 18)(rng) : extent(rng));
            }
            float const alpha = std::uniform_real_distribution<float>(-0.5F, 2.0F)(rng);
            float const beta = std::uniform_real_distribution<float>(0.1F, 1.5F)(rng);
            float const k = std::uniform_real_distribution<float>(1.0F, 3.0F)(rng);
            runCase(rng, DataType::kFLOAT, shape, window, alpha, beta, k, 1e-5);
        }
    }
}

TEST_P(LRNLayerTest, HalfAndBFloat)
{
    std::mt19937 rng(311);
    runCase(rng, DataType::kHALF, {2, 7, 3, 3}, 5, 1e-3F, 0.75F, 2.0F, 2e-3);
    runCase(rng, DataType::kBF16, {2, 7, 3, 3}, 3, 0.5F, 0.5F, 1.0F, 1.6e-2);
}

TEST_P(LRNLayerTest, TensorRTDocumentedExample)
{
    // TensorRT's operator documentation: window 3, alpha 1, beta 1, k 0.1 over channels holding 0..4.
    NetworkRunner r;
    ITensor* in = r.addInput("x", DataType::kFLOAT, {1, 5, 2, 2});
    ILRNLayer* layer = r.network().addLRN(*in, 3, 1.0F, 1.0F, 0.1F);
    ASSERT_NE(layer, nullptr);
    r.markOutput(layer->getOutput(0), "y");
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    HostTensor x(DataType::kFLOAT, kiln::test::makeDims({1, 5, 2, 2}));
    for (int64_t i = 0; i < 20; ++i)
    {
        x.set(i, static_cast<double>(i / 4));
    }
    auto out = r.run({{"x", x}});
    std::vector<double> const perChannel{0.0, 0.56603765, 0.4195804, 0.3071672, 0.47430828};
    for (int64_t i = 0; i < 20; ++i)
    {
        EXPECT_NEAR(out["y"].at(i), perChannel[static_cast<size_t>(i / 4)], 1e-6) << i;
    }
}

TEST_P(LRNLayerTest, DynamicShapes)
{
    std::mt19937 rng(313);
    NetworkRunner r;
    ITensor* in = r.addInput("x", DataType::kFLOAT, {-1, -1, 4, -1});
    ILRNLayer* layer = r.network().addLRN(*in, 5, 0.25F, 0.6F, 1.5F);
    ASSERT_NE(layer, nullptr);
    r.markOutput(layer->getOutput(0), "y");
    r.setProfileDims("x", {1, 1, 4, 1}, {2, 6, 4, 3}, {3, 12, 4, 5});
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    for (auto const& shape : std::vector<std::vector<int64_t>>{{2, 6, 4, 3}, {3, 12, 4, 5}, {1, 1, 4, 1}})
    {
        HostTensor x = HostTensor::random(DataType::kFLOAT, kiln::test::makeDims(shape), rng, -2, 2);
        auto out = r.run({{"x", x}});
        EXPECT_TRUE(kiln::test::allClose(out["y"], lrnOracle(x, 5, 0.25, 0.6, 1.5), 1e-5, 1e-5));
    }
}

TEST_P(LRNLayerTest, InvalidArgumentsAreRejected)
{
    NetworkRunner r;
    ITensor* in = r.addInput("x", DataType::kFLOAT, {1, 4, 2, 2});
    EXPECT_EQ(r.network().addLRN(*in, 4, 1.0F, 0.5F, 1.0F), nullptr);
    EXPECT_TRUE(r.logger().hasError("addLRN: window size 4 must be odd and in [1, 15]")) << r.logger().allErrors();
    EXPECT_EQ(r.network().addLRN(*in, 17, 1.0F, 0.5F, 1.0F), nullptr);
    EXPECT_EQ(r.network().addLRN(*in, 3, 2e20F, 0.5F, 1.0F), nullptr);
    EXPECT_TRUE(r.logger().hasError("addLRN: alpha")) << r.logger().allErrors();
    EXPECT_EQ(r.network().addLRN(*in, 3, 1.0F, 0.001F, 1.0F), nullptr);
    EXPECT_TRUE(r.logger().hasError("addLRN: beta")) << r.logger().allErrors();
    EXPECT_EQ(r.network().addLRN(*in, 3, 1.0F, 0.5F, 0.0F), nullptr);
    EXPECT_TRUE(r.logger().hasError("addLRN: k")) << r.logger().allErrors();
    EXPECT_EQ(r.network().addLRN(*in, 3, 1.0F, 0.5F, NAN), nullptr);
    ILRNLayer* layer = r.network().addLRN(*in, 3, 1.0F, 0.5F, 1.0F);
    ASSERT_NE(layer, nullptr);
    layer->setName("lrn");
    r.logger().clear();
    layer->setWindowSize(0);
    EXPECT_TRUE(r.logger().hasError("ILRNLayer::setWindowSize on layer 'lrn'")) << r.logger().allErrors();
    layer->setAlpha(-1e21F);
    EXPECT_TRUE(r.logger().hasError("ILRNLayer::setAlpha on layer 'lrn'")) << r.logger().allErrors();
    layer->setBeta(1e6F);
    EXPECT_TRUE(r.logger().hasError("ILRNLayer::setBeta on layer 'lrn'")) << r.logger().allErrors();
    layer->setK(1e11F);
    EXPECT_TRUE(r.logger().hasError("ILRNLayer::setK on layer 'lrn'")) << r.logger().allErrors();
    EXPECT_EQ(layer->getWindowSize(), 3);
    EXPECT_EQ(layer->getAlpha(), 1.0F);
    EXPECT_EQ(layer->getBeta(), 0.5F);
    EXPECT_EQ(layer->getK(), 1.0F);
    layer->setWindowSize(7);
    layer->setAlpha(-2.0F);
    layer->setBeta(2.0F);
    layer->setK(3.0F);
    EXPECT_EQ(layer->getWindowSize(), 7);
    EXPECT_EQ(layer->getAlpha(), -2.0F);
    EXPECT_EQ(layer->getBeta(), 2.0F);
    EXPECT_EQ(layer->getK(), 3.0F);
}

TEST_P(LRNLayerTest, BadInputsFailTheBuild)
{
    for (auto const& [type, shape, message] : std::vector<std::tuple<DataType, std::vector<int64_t>, std::string>>{
             {DataType::kFLOAT, {4, 4}, "input 0"}, {DataType::kINT32, {1, 4, 2, 2}, "LRN supports FP32, FP16 and BF16"}})
    {
        NetworkRunner r;
        ITensor* in = r.addInput("x", type, shape);
        ILRNLayer* layer = r.network().addLRN(*in, 3, 1.0F, 0.5F, 1.0F);
        ASSERT_NE(layer, nullptr);
        layer->setName("lrn");
        r.markOutput(layer->getOutput(0), "y");
        EXPECT_FALSE(r.build());
        EXPECT_TRUE(r.logger().hasError("layer 'lrn' (LRN)")) << r.logger().allErrors();
        EXPECT_TRUE(r.logger().hasError(message)) << r.logger().allErrors();
    }
}

} // namespace
