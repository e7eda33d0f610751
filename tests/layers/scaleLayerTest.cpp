// Tests of IScaleLayer: the three modes with every combination of empty and given shift/scale/power weights,
// addScale's default channel axis, addScaleNd with other axes and ranks, FP16 weights and data, dynamic shapes
// and the error paths.
#include "common/backendTest.h"
#include "common/networkRunner.h"

#include <cmath>
#include <functional>

namespace
{
using namespace nvinfer1;
using kiln::test::HostTensor;
using kiln::test::makeDims;
using kiln::test::NetworkRunner;

//! Index into a coefficient array for output element `i` of a tensor of `dims`.
int64_t coefficientIndex(ScaleMode mode, Dims const& dims, int32_t axis, int64_t i)
{
    if (mode == ScaleMode::kUNIFORM)
    {
        return 0;
    }
    std::vector<int64_t> coord(static_cast<size_t>(dims.nbDims));
    for (int32_t d = dims.nbDims - 1; d >= 0; --d)
    {
        coord[static_cast<size_t>(d)] = i % dims.d[d];
        i /= dims.d[d];
    }
    if (mode == ScaleMode::kCHANNEL)
    {
        return coord[static_cast<size_t>(axis)];
    }
    int64_t index = 0;
    for (int32_t d = axis; d < dims.nbDims; ++d)
    {
        index = index * dims.d[d] + coord[static_cast<size_t>(d)];
    }
    return index;
}

int64_t coefficientCount(ScaleMode mode, Dims const& dims, int32_t axis)
{
    if (mode == ScaleMode::kUNIFORM)
    {
        return 1;
    }
    if (mode == ScaleMode::kCHANNEL)
    {
        return dims.d[axis];
    }
    int64_t n = 1;
    for (int32_t d = axis; d < dims.nbDims; ++d)
    {
        n *= dims.d[d];
    }
    return n;
}

struct Coefficients
{
    HostTensor shift;
    HostTensor scale;
    HostTensor power;
    Weights weights(HostTensor const& t) const
    {
        return t.volume() == 0 ? Weights{t.type, nullptr, 0} : Weights{t.type, t.data(), t.volume()};
    }
};

HostTensor reference(HostTensor const& x, Coefficients const& c, ScaleMode mode, int32_t axis)
{
    HostTensor out(x.type, x.dims);
    for (int64_t i = 0; i < x.volume(); ++i)
    {
        int64_t const k = coefficientIndex(mode, x.dims, axis, i);
        double const scale = c.scale.volume() ? c.scale.at(k) : 1.0;
        double const shift = c.shift.volume() ? c.shift.at(k) : 0.0;
        double const power = c.power.volume() ? c.power.at(k) : 1.0;
        out.set(i, std::pow(x.at(i) * scale + shift, power));
    }
    return out;
}

//! Coefficients keeping the base positive (x in [0.5, 1.5]) so that any power is defined.
Coefficients randomCoefficients(int32_t present, int64_t count, DataType type, std::mt19937& rng)
{
    Coefficients c;
    c.shift = HostTensor(type, makeDims({(present & 1) ? count : 0}));
    c.scale = HostTensor(type, makeDims({(present & 2) ? count : 0}));
    c.power = HostTensor(type, makeDims({(present & 4) ? count : 0}));
    if (present & 1)
    {
        c.shift = HostTensor::random(type, makeDims({count}), rng, 0.1, 0.5);
    }
    if (present & 2)
    {
        c.scale = HostTensor::random(type, makeDims({count}), rng, 0.5, 1.5);
    }
    if (present & 4)
    {
        c.power = HostTensor::random(type, makeDims({count}), rng, 0.5, 2.0);
    }
    return c;
}

class ScaleLayerTest : public kiln::test::BackendTest
{
};
KILN_INSTANTIATE_BACKEND_TESTS(ScaleLayerTest);

TEST_P(ScaleLayerTest, ModesAndEmptyWeightsWithAddScale)
{
    std::mt19937 rng(900);
    Dims const dims = makeDims({2, 3, 4, 5});
    for (ScaleMode mode : {ScaleMode::kUNIFORM, ScaleMode::kCHANNEL, ScaleMode::kELEMENTWISE})
    {
        for (int32_t present = 0; present < 8; ++present)
        {
            SCOPED_TRACE("mode " + std::to_string(static_cast<int>(mode)) + " weights mask " + std::to_string(present));
            Coefficients c = randomCoefficients(present, coefficientCount(mode, dims, 1), DataType::kFLOAT, rng);
            NetworkRunner r;
            ITensor* x = r.addInput("x", DataType::kFLOAT, {2, 3, 4, 5});
            IScaleLayer* layer = r.network().addScale(*x, mode, c.weights(c.shift), c.weights(c.scale), c.weights(c.power));
            ASSERT_NE(layer, nullptr) << r.logger().allErrors();
            EXPECT_EQ(layer->getChannelAxis(), 1);
            EXPECT_EQ(layer->getMode(), mode);
            EXPECT_EQ(layer->getScale().count, c.scale.volume());
            r.markOutput(layer->getOutput(0), "out");
            ASSERT_TRUE(r.build()) << r.logger().allErrors();
            HostTensor tx = HostTensor::random(DataType::kFLOAT, dims, rng, 0.5, 1.5);
            EXPECT_TRUE(kiln::test::allClose(r.run({{"x", tx}})["out"], reference(tx, c, mode, 1), 1e-5, 1e-5));
        }
    }
}

TEST_P(ScaleLayerTest, AddScaleNdOtherAxesAndRanks)
{
    std::mt19937 rng(901);
    struct Case
    {
        std::vector<int64_t> dims;
        int32_t axis;
    };
    for (Case const& k : {Case{{3, 4}, 0}, Case{{3, 4}, 1}, Case{{2, 3, 4}, 2}, Case{{2, 2, 3, 2, 3}, 1},
             Case{{2, 2, 3, 2, 3}, 3}, Case{{5}, 0}})
    {
        for (ScaleMode mode : {ScaleMode::kUNIFORM, ScaleMode::kCHANNEL, ScaleMode::kELEMENTWISE})
        {
            Dims const dims = makeDims(k.dims);
            SCOPED_TRACE(kiln::test::dimsString(dims) + " axis " + std::to_string(k.axis) + " mode "
                + std::to_string(static_cast<int>(mode)));
            Coefficients c = randomCoefficients(7, coefficientCount(mode, dims, k.axis), DataType::kFLOAT, rng);
            NetworkRunner r;
            ITensor* x = r.addInput("x", DataType::kFLOAT, k.dims);
            IScaleLayer* layer = r.network().addScaleNd(
                *x, mode, c.weights(c.shift), c.weights(c.scale), c.weights(c.power), k.axis);
            ASSERT_NE(layer, nullptr) << r.logger().allErrors();
            EXPECT_EQ(layer->getChannelAxis(), k.axis);
            r.markOutput(layer->getOutput(0), "out");
            ASSERT_TRUE(r.build()) << r.logger().allErrors();
            HostTensor tx = HostTensor::random(DataType::kFLOAT, dims, rng, 0.5, 1.5);
            EXPECT_TRUE(kiln::test::allClose(r.run({{"x", tx}})["out"], reference(tx, c, mode, k.axis), 1e-5, 1e-5));
        }
    }
}

TEST_P(ScaleLayerTest, SettersAfterCreation)
{
    std::mt19937 rng(902);
    Dims const dims = makeDims({2, 3, 2, 2});
    Coefficients first = randomCoefficients(2, 1, DataType::kFLOAT, rng);
    Coefficients c = randomCoefficients(7, 2, DataType::kFLOAT, rng); // per channel along axis 2
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {2, 3, 2, 2});
    IScaleLayer* layer = r.network().addScale(
        *x, ScaleMode::kUNIFORM, first.weights(first.shift), first.weights(first.scale), first.weights(first.power));
    ASSERT_NE(layer, nullptr);
    layer->setMode(ScaleMode::kCHANNEL);
    layer->setChannelAxis(2);
    layer->setShift(c.weights(c.shift));
    layer->setScale(c.weights(c.scale));
    layer->setPower(c.weights(c.power));
    EXPECT_EQ(layer->getShift().values, c.shift.data());
    EXPECT_EQ(layer->getPower().count, 2);
    r.markOutput(layer->getOutput(0), "out");
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    HostTensor tx = HostTensor::random(DataType::kFLOAT, dims, rng, 0.5, 1.5);
    EXPECT_TRUE(kiln::test::allClose(r.run({{"x", tx}})["out"], reference(tx, c, ScaleMode::kCHANNEL, 2), 1e-5, 1e-5));
}

TEST_P(ScaleLayerTest, HalfAndBFloat16Data)
{
    std::mt19937 rng(903);
    Dims const dims = makeDims({1, 4, 3, 3});
    for (DataType dataType : {DataType::kHALF, DataType::kBF16})
    {
        double const tol = dataType == DataType::kHALF ? 3e-3 : 2e-2;
        for (DataType weightsType : {dataType, DataType::kFLOAT})
        {
            SCOPED_TRACE("data " + std::to_string(static_cast<int>(dataType)) + " weights "
                + std::to_string(static_cast<int>(weightsType)));
            Coefficients c = randomCoefficients(7, 4, weightsType, rng);
            NetworkRunner r;
            ITensor* x = r.addInput("x", dataType, {1, 4, 3, 3});
            IScaleLayer* layer = r.network().addScale(
                *x, ScaleMode::kCHANNEL, c.weights(c.shift), c.weights(c.scale), c.weights(c.power));
            ASSERT_NE(layer, nullptr);
            r.markOutput(layer->getOutput(0), "out");
            ASSERT_TRUE(r.build()) << r.logger().allErrors();
            HostTensor tx = HostTensor::random(dataType, dims, rng, 0.5, 1.5);
            HostTensor out = r.run({{"x", tx}})["out"];
            EXPECT_EQ(out.type, dataType);
            EXPECT_TRUE(kiln::test::allClose(out, reference(tx, c, ScaleMode::kCHANNEL, 1), tol, tol));
        }
    }
}

TEST_P(ScaleLayerTest, DynamicBatch)
{
    std::mt19937 rng(904);
    Coefficients c = randomCoefficients(3, 3 * 2 * 2, DataType::kFLOAT, rng);
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {-1, 3, 2, 2});
    IScaleLayer* layer
        = r.network().addScale(*x, ScaleMode::kELEMENTWISE, c.weights(c.shift), c.weights(c.scale), c.weights(c.power));
    ASSERT_NE(layer, nullptr) << r.logger().allErrors();
    r.markOutput(layer->getOutput(0), "out");
    r.setProfileDims("x", {1, 3, 2, 2}, {2, 3, 2, 2}, {5, 3, 2, 2});
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    for (int64_t n : {5, 1})
    {
        HostTensor tx = HostTensor::random(DataType::kFLOAT, makeDims({n, 3, 2, 2}), rng, -2, 2);
        EXPECT_TRUE(kiln::test::allClose(
            r.run({{"x", tx}})["out"], reference(tx, c, ScaleMode::kELEMENTWISE, 1), 1e-5, 1e-5));
    }
}

void expectBuildFailure(std::function<void(NetworkRunner&)> const& define, std::string const& text)
{
    NetworkRunner r;
    define(r);
    EXPECT_FALSE(r.build());
    EXPECT_TRUE(r.logger().hasError(text)) << "expected '" << text << "' in:\n" << r.logger().allErrors();
}

float const kTHREE[3] = {1, 2, 3};

TEST_P(ScaleLayerTest, Errors)
{
    {
        NetworkRunner r;
        ITensor* x3 = r.addInput("x3", DataType::kFLOAT, {2, 3, 4});
        EXPECT_EQ(r.network().addScale(*x3, ScaleMode::kUNIFORM, Weights{}, Weights{}, Weights{}), nullptr);
        EXPECT_TRUE(r.logger().hasError("at least 4 dimensions")) << r.logger().allErrors();
        r.logger().clear();
        EXPECT_EQ(r.network().addScaleNd(*x3, static_cast<ScaleMode>(5), Weights{}, Weights{}, Weights{}, 0), nullptr);
        EXPECT_TRUE(r.logger().hasError("ScaleMode")) << r.logger().allErrors();
        r.logger().clear();
        EXPECT_EQ(r.network().addScaleNd(*x3, ScaleMode::kCHANNEL, Weights{DataType::kFLOAT, nullptr, 3}, Weights{},
                      Weights{}, 1),
            nullptr);
        EXPECT_TRUE(r.logger().hasError("shift")) << r.logger().allErrors();
        IScaleLayer* layer = r.network().addScaleNd(*x3, ScaleMode::kUNIFORM, Weights{}, Weights{}, Weights{}, 0);
        ASSERT_NE(layer, nullptr);
        layer->setName("scaler");
        r.logger().clear();
        layer->setChannelAxis(-1);
        EXPECT_TRUE(r.logger().hasError("scaler")) << r.logger().allErrors();
        EXPECT_EQ(layer->getChannelAxis(), 0);
        layer->setMode(static_cast<ScaleMode>(-1));
        EXPECT_EQ(layer->getMode(), ScaleMode::kUNIFORM);
    }
    // Weight count does not match the channel extent.
    expectBuildFailure(
        [](NetworkRunner& r) {
            ITensor* x = r.addInput("x", DataType::kFLOAT, {1, 4, 2, 2});
            IScaleLayer* l = r.network().addScale(
                *x, ScaleMode::kCHANNEL, Weights{}, Weights{DataType::kFLOAT, kTHREE, 3}, Weights{});
            l->setName("badCount");
            r.markOutput(l->getOutput(0), "out");
        },
        "badCount");
    // Channel axis beyond the rank.
    expectBuildFailure(
        [](NetworkRunner& r) {
            ITensor* x = r.addInput("x", DataType::kFLOAT, {3, 2});
            r.markOutput(r.network()
                             .addScaleNd(*x, ScaleMode::kCHANNEL, Weights{}, Weights{DataType::kFLOAT, kTHREE, 3},
                                 Weights{}, 4)
                             ->getOutput(0),
                "out");
        },
        "channel axis");
    // Integer input.
    expectBuildFailure(
        [](NetworkRunner& r) {
            ITensor* x = r.addInput("x", DataType::kINT32, {1, 3, 1, 1});
            r.markOutput(r.network()
                             .addScale(*x, ScaleMode::kCHANNEL, Weights{}, Weights{DataType::kFLOAT, kTHREE, 3}, Weights{})
                             ->getOutput(0),
                "out");
        },
        "INT32");
    // Integer weights.
    expectBuildFailure(
        [](NetworkRunner& r) {
            static int32_t const ints[3] = {1, 2, 3};
            ITensor* x = r.addInput("x", DataType::kFLOAT, {1, 3, 1, 1});
            r.markOutput(r.network()
                             .addScale(*x, ScaleMode::kCHANNEL, Weights{DataType::kINT32, ints, 3}, Weights{}, Weights{})
                             ->getOutput(0),
                "out");
        },
        "shift weights have type INT32");
}

} // namespace
