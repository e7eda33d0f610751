// Tests of IActivationLayer: every ActivationType with random alpha/beta against a double-precision oracle that
// follows TensorRT's documented formulas, half/bfloat16 storage, integer ReLU, dynamic shapes and error paths.
#include "common/backendTest.h"
#include "common/networkRunner.h"

#include <cmath>
#include <limits>

namespace
{
using namespace nvinfer1;
using kiln::test::HostTensor;
using kiln::test::makeDims;
using kiln::test::NetworkRunner;
using Act = ActivationType;

double reference(Act type, double x, double alpha, double beta)
{
    switch (type)
    {
    case Act::kRELU: return std::max(x, 0.0);
    case Act::kSIGMOID: return 1.0 / (1.0 + std::exp(-x));
    case Act::kTANH: return std::tanh(x);
    case Act::kLEAKY_RELU: return x >= 0 ? x : alpha * x;
    case Act::kELU: return x >= 0 ? x : alpha * (std::exp(x) - 1.0);
    case Act::kSELU: return x > 0 ? beta * x : beta * (alpha * std::exp(x) - alpha);
    case Act::kSOFTSIGN: return x / (1.0 + std::fabs(x));
    case Act::kSOFTPLUS: return alpha * std::log(std::exp(beta * x) + 1.0);
    case Act::kCLIP: return std::max(alpha, std::min(beta, x));
    case Act::kHARD_SIGMOID: return std::max(0.0, std::min(1.0, alpha * x + beta));
    case Act::kSCALED_TANH: return alpha * std::tanh(beta * x);
    case Act::kTHRESHOLDED_RELU: return x > alpha ? x : 0.0;
    case Act::kGELU_ERF: return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
    case Act::kGELU_TANH:
        return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (0.044715 * x * x * x + x)));
    }
    return 0;
}

HostTensor referenceOutput(Act type, HostTensor const& x, double alpha, double beta)
{
    HostTensor out(x.type, x.dims);
    for (int64_t i = 0; i < x.volume(); ++i)
    {
        out.set(i, reference(type, x.at(i), alpha, beta));
    }
    return out;
}

struct Params
{
    float alpha;
    float beta;
};

Params randomParams(Act type, std::mt19937& rng)
{
    std::uniform_real_distribution<float> u(0.1F, 2.0F);
    Params p{u(rng), u(rng)};
    if (type == Act::kCLIP)
    {
        p = {-u(rng), u(rng)}; // alpha = lower bound, beta = upper bound
    }
    if (type == Act::kHARD_SIGMOID)
    {
        p.beta = 0.5F;
    }
    if (type == Act::kTHRESHOLDED_RELU)
    {
        p.alpha = u(rng) - 1.0F;
    }
    return p;
}

HostTensor runActivation(Act type, HostTensor const& x, Params p, bool setParams = true)
{
    NetworkRunner r;
    std::vector<int64_t> dims(x.dims.d, x.dims.d + x.dims.nbDims);
    ITensor* in = r.addInput("x", x.type, dims);
    IActivationLayer* layer = r.network().addActivation(*in, type);
    EXPECT_NE(layer, nullptr) << r.logger().allErrors();
    if (layer == nullptr)
    {
        return {};
    }
    if (setParams)
    {
        layer->setAlpha(p.alpha);
        layer->setBeta(p.beta);
        EXPECT_EQ(layer->getAlpha(), p.alpha);
        EXPECT_EQ(layer->getBeta(), p.beta);
    }
    EXPECT_EQ(layer->getActivationType(), type);
    r.markOutput(layer->getOutput(0), "out");
    EXPECT_TRUE(r.build()) << r.logger().allErrors();
    return r.run({{"x", x}})["out"];
}

std::vector<int64_t> randomShape(std::mt19937& rng)
{
    int32_t const rank = std::uniform_int_distribution<int32_t>(1, 4)(rng);
    std::vector<int64_t> d;
    for (int32_t i = 0; i < rank; ++i)
    {
        d.push_back(std::uniform_int_distribution<int64_t>(1, 7)(rng));
    }
    return d;
}

class ActivationLayerTest : public kiln::test::BackendTest
{
};
KILN_INSTANTIATE_BACKEND_TESTS(ActivationLayerTest);

TEST_P(ActivationLayerTest, EveryTypeFp32)
{
    std::mt19937 rng(2718);
    for (int32_t t = 0; t < EnumMax<Act>(); ++t)
    {
        auto const type = static_cast<Act>(t);
        for (int32_t rep = 0; rep < 3; ++rep)
        {
            Params const p = randomParams(type, rng);
            SCOPED_TRACE("type " + std::to_string(t) + " alpha " + std::to_string(p.alpha) + " beta "
                + std::to_string(p.beta));
            HostTensor x = HostTensor::random(DataType::kFLOAT, makeDims(randomShape(rng)), rng, -4.0, 4.0);
            HostTensor out = runActivation(type, x, p);
            EXPECT_TRUE(kiln::test::allClose(out, referenceOutput(type, x, p.alpha, p.beta), 1e-5, 1e-5));
        }
    }
}

TEST_P(ActivationLayerTest, DefaultParametersAreZero)
{
    NetworkRunner r;
    ITensor* in = r.addInput("x", DataType::kFLOAT, {4});
    IActivationLayer* layer = r.network().addActivation(*in, Act::kLEAKY_RELU);
    ASSERT_NE(layer, nullptr);
    EXPECT_EQ(layer->getAlpha(), 0.F);
    EXPECT_EQ(layer->getBeta(), 0.F);
    r.markOutput(layer->getOutput(0), "out");
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    HostTensor x = HostTensor::fromValues(DataType::kFLOAT, makeDims({4}), {-2, -0.5, 0.5, 3});
    EXPECT_TRUE(kiln::test::allClose(
        r.run({{"x", x}})["out"], HostTensor::fromValues(DataType::kFLOAT, makeDims({4}), {0, 0, 0.5, 3}), 0, 0));
}

TEST_P(ActivationLayerTest, SoftplusIsStableForLargeInputs)
{
    HostTensor x = HostTensor::fromValues(DataType::kFLOAT, makeDims({4}), {-100, -30, 30, 100});
    HostTensor out = runActivation(Act::kSOFTPLUS, x, {1.5F, 2.0F});
    HostTensor expected = HostTensor::fromValues(DataType::kFLOAT, makeDims({4}), {0, 1.5 * std::log1p(std::exp(-60.0)), 90, 300});
    EXPECT_TRUE(kiln::test::allClose(out, expected, 1e-6, 1e-6));
}

TEST_P(ActivationLayerTest, HalfAndBFloat16)
{
    std::mt19937 rng(31);
    for (DataType type : {DataType::kHALF, DataType::kBF16})
    {
        double const tol = type == DataType::kHALF ? 3e-3 : 2e-2;
        for (int32_t t = 0; t < EnumMax<Act>(); ++t)
        {
            auto const type2 = static_cast<Act>(t);
            Params const p = randomParams(type2, rng);
            SCOPED_TRACE("dtype " + std::to_string(static_cast<int>(type)) + " type " + std::to_string(t));
            HostTensor x = HostTensor::random(type, makeDims({3, 5}), rng, -3.0, 3.0);
            HostTensor out = runActivation(type2, x, p);
            EXPECT_TRUE(kiln::test::allClose(out, referenceOutput(type2, x, p.alpha, p.beta), tol, tol));
        }
    }
}

TEST_P(ActivationLayerTest, IntegerRelu)
{
    std::mt19937 rng(12);
    for (DataType type : {DataType::kINT32, DataType::kINT64})
    {
        HostTensor x = HostTensor::random(type, makeDims({4, 6}), rng, -1000, 1000);
        HostTensor out = runActivation(Act::kRELU, x, {}, false);
        EXPECT_EQ(out.type, type);
        EXPECT_TRUE(kiln::test::allClose(out, referenceOutput(Act::kRELU, x, 0, 0), 0, 0));
    }
}

TEST_P(ActivationLayerTest, DynamicShapes)
{
    NetworkRunner r;
    ITensor* in = r.addInput("x", DataType::kFLOAT, {2, -1, -1});
    IActivationLayer* layer = r.network().addActivation(*in, Act::kRELU);
    ASSERT_NE(layer, nullptr);
    layer->setActivationType(Act::kELU);
    layer->setAlpha(0.7F);
    EXPECT_EQ(layer->getActivationType(), Act::kELU);
    r.markOutput(layer->getOutput(0), "out");
    r.setProfileDims("x", {2, 1, 1}, {2, 4, 4}, {2, 8, 8});
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    std::mt19937 rng(21);
    for (auto const& shape : {std::vector<int64_t>{2, 3, 8}, std::vector<int64_t>{2, 8, 1}})
    {
        HostTensor x = HostTensor::random(DataType::kFLOAT, makeDims(shape), rng, -3, 3);
        EXPECT_TRUE(kiln::test::allClose(r.run({{"x", x}})["out"], referenceOutput(Act::kELU, x, 0.7F, 0), 1e-6, 1e-6));
    }
}

TEST_P(ActivationLayerTest, Errors)
{
    {
        NetworkRunner r;
        ITensor* in = r.addInput("x", DataType::kFLOAT, {2});
        EXPECT_EQ(r.network().addActivation(*in, static_cast<Act>(14)), nullptr);
        EXPECT_TRUE(r.logger().hasError("addActivation")) << r.logger().allErrors();
        IActivationLayer* layer = r.network().addActivation(*in, Act::kCLIP);
        ASSERT_NE(layer, nullptr);
        layer->setName("clipper");
        layer->setAlpha(-1.F);
        r.logger().clear();
        layer->setAlpha(std::numeric_limits<float>::infinity());
        EXPECT_TRUE(r.logger().hasError("clipper")) << r.logger().allErrors();
        EXPECT_EQ(layer->getAlpha(), -1.F);
        r.logger().clear();
        layer->setBeta(std::numeric_limits<float>::quiet_NaN());
        EXPECT_TRUE(r.logger().hasError("finite")) << r.logger().allErrors();
        layer->setActivationType(static_cast<Act>(-1));
        EXPECT_EQ(layer->getActivationType(), Act::kCLIP);
    }
    {
        // Integer inputs are only valid for kRELU.
        NetworkRunner r;
        ITensor* in = r.addInput("x", DataType::kINT32, {2});
        IActivationLayer* layer = r.network().addActivation(*in, Act::kSIGMOID);
        layer->setName("intSigmoid");
        r.markOutput(layer->getOutput(0), "out");
        EXPECT_FALSE(r.build());
        EXPECT_TRUE(r.logger().hasError("intSigmoid")) << r.logger().allErrors();
        EXPECT_TRUE(r.logger().hasError("INT32")) << r.logger().allErrors();
    }
    {
        NetworkRunner r;
        ITensor* in = r.addInput("x", DataType::kBOOL, {2});
        r.markOutput(r.network().addActivation(*in, Act::kRELU)->getOutput(0), "out");
        EXPECT_FALSE(r.build());
        EXPECT_TRUE(r.logger().hasError("BOOL")) << r.logger().allErrors();
    }
}

} // namespace
