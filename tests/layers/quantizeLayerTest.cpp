// Tests of IQuantizeLayer and IDequantizeLayer (INT8 explicit quantization) on every backend: per-tensor and per-axis
// scales along each axis, FP32/FP16/BF16 data and scales, values on the rounding ties (half to even) and beyond the
// saturation limits, NaN, dynamic shapes, Q -> DQ chains, the getters/setters and the forms the kernels refuse
// (FP8/INT4 types, block quantization, non-zero zero points) with their messages. The reference is written here.
#include "common/backendTest.h"
#include "common/networkRunner.h"

#include <cmath>
#include <deque>
#include <limits>
#include <random>

namespace
{
using namespace nvinfer1;
using kiln::test::HostTensor;
using kiln::test::NetworkRunner;

//! Keeps constant data alive until the build.
struct ConstantStore
{
    std::deque<HostTensor> tensors;

    ITensor* add(INetworkDefinition& net, HostTensor t)
    {
        tensors.push_back(std::move(t));
        HostTensor const& h = tensors.back();
        IConstantLayer* c = net.addConstant(h.dims, Weights{h.type, h.data(), h.volume()});
        return c != nullptr ? c->getOutput(0) : nullptr;
    }
};

//! The reference quantization of one value (float division, NaN to 0, saturation, round half to even).
double quantizeRef(double x, double scale)
{
    float v = static_cast<float>(x) / static_cast<float>(scale);
    if (std::isnan(v))
    {
        return 0.0;
    }
    v = std::min(std::max(v, -128.0F), 127.0F);
    double const r = std::nearbyint(static_cast<double>(v)); // the default rounding mode: half to even
    return r;
}

//! Scale index of element e for a per-axis scale along `axis` (-1: per-tensor).
int64_t scaleIndex(Dims const& d, int32_t axis, int64_t e)
{
    if (axis < 0)
    {
        return 0;
    }
    int64_t inner = 1;
    for (int32_t i = axis + 1; i < d.nbDims; ++i)
    {
        inner *= d.d[i];
    }
    return (e / inner) % d.d[axis];
}

//! Data whose quotients by the scales hit ties (k + 0.5), exact integers, and values beyond [-128, 127].
HostTensor tricky(DataType type, Dims const& d, int32_t axis, HostTensor const& scale, std::mt19937& rng)
{
    HostTensor x = HostTensor::random(type, d, rng, -3.0, 3.0);
    std::uniform_int_distribution<int32_t> kind(0, 5);
    std::uniform_int_distribution<int32_t> k(-140, 140);
    for (int64_t e = 0; e < x.volume(); ++e)
    {
        double const s = scale.at(scaleIndex(d, axis, e));
        switch (kind(rng))
        {
        case 0: x.set(e, (k(rng) + 0.5) * s); break;  // a tie (exact when s is a power of two)
        case 1: x.set(e, k(rng) * s); break;          // an integer
        case 2: x.set(e, (k(rng) * 4 + 0.3) * s); break; // mostly saturating
        default: x.set(e, x.at(e) * s * 60.0); break;
        }
    }
    return x;
}

//! Per-tensor (n == 0) or per-axis scales: powers of two when `exact`, else random in [0.01, 0.1].
HostTensor makeScales(DataType type, int64_t n, bool exact, std::mt19937& rng)
{
    HostTensor s = n == 0 ? HostTensor(type, Dims{0, {}}) : HostTensor(type, kiln::test::makeDims({n}));
    std::uniform_int_distribution<int32_t> e(-6, -2);
    std::uniform_real_distribution<double> u(0.01, 0.1);
    for (int64_t i = 0; i < s.volume(); ++i)
    {
        s.set(i, exact ? std::ldexp(1.0, e(rng)) : u(rng));
    }
    return s;
}

class QuantizeLayerTest : public kiln::test::BackendTest
{
};
KILN_INSTANTIATE_BACKEND_TESTS(QuantizeLayerTest);

//! Q of `x` with `scale` along `axis`, compared exactly with the reference.
void checkQuantize(DataType type, DataType scaleType, std::vector<int64_t> const& shape, int32_t axis, bool exact,
    std::mt19937& rng)
{
    Dims const d = kiln::test::makeDims(shape);
    HostTensor const scale = makeScales(scaleType, axis < 0 ? 0 : shape[static_cast<size_t>(axis)], exact, rng);
    NetworkRunner r;
    ConstantStore store;
    ITensor* in = r.addInput("x", type, shape);
    IQuantizeLayer* q = r.network().addQuantize(*in, *store.add(r.network(), scale), DataType::kINT8);
    ASSERT_NE(q, nullptr) << r.logger().allErrors();
    EXPECT_EQ(q->getAxis(), -1);
    EXPECT_EQ(q->getToType(), DataType::kINT8);
    q->setAxis(axis);
    EXPECT_EQ(q->getAxis(), axis);
    r.markOutput(q->getOutput(0), "q");
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    HostTensor const x = tricky(type, d, axis, scale, rng);
    auto out = r.run({{"x", x}});
    ASSERT_EQ(out["q"].type, DataType::kINT8);
    HostTensor want(DataType::kINT8, d);
    for (int64_t e = 0; e < x.volume(); ++e)
    {
        want.set(e, quantizeRef(x.at(e), scale.at(scaleIndex(d, axis, e))));
    }
    EXPECT_TRUE(kiln::test::allClose(out["q"], want, 0, 0))
        << "axis " << axis << " shape " << kiln::test::dimsString(d) << " type " << static_cast<int32_t>(type);
}

TEST_P(QuantizeLayerTest, QuantizePerTensorEveryFloatType)
{
    std::mt19937 rng(401);
    for (DataType t : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16})
    {
        checkQuantize(t, DataType::kFLOAT, {3, 5, 7}, -1, true, rng);
        checkQuantize(t, DataType::kFLOAT, {2, 3, 11}, -1, false, rng);
        checkQuantize(t, t, {40000}, -1, true, rng); // several pieces on the thread pool; scale in the data's type
    }
}

TEST_P(QuantizeLayerTest, QuantizePerAxisAlongEachAxis)
{
    std::mt19937 rng(409);
    for (int32_t rank = 1; rank <= 4; ++rank)
    {
        for (int32_t axis = 0; axis < rank; ++axis)
        {
            std::vector<int64_t> shape;
            for (int32_t i = 0; i < rank; ++i)
            {
                shape.push_back(std::uniform_int_distribution<int64_t>(2, 7)(rng));
            }
            checkQuantize(DataType::kFLOAT, DataType::kFLOAT, shape, axis, axis % 2 == 0, rng);
        }
    }
    checkQuantize(DataType::kHALF, DataType::kHALF, {64, 3, 33, 17}, 0, false, rng);
}

TEST_P(QuantizeLayerTest, QuantizeNaNGivesZero)
{
    NetworkRunner r;
    ConstantStore store;
    ITensor* in = r.addInput("x", DataType::kFLOAT, {4});
    HostTensor const scale = HostTensor::fromValues(DataType::kFLOAT, Dims{0, {}}, {0.5});
    IQuantizeLayer* q = r.network().addQuantize(*in, *store.add(r.network(), scale), DataType::kINT8);
    ASSERT_NE(q, nullptr);
    r.markOutput(q->getOutput(0), "q");
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    double const inf = std::numeric_limits<double>::infinity();
    HostTensor const x = HostTensor::fromValues(
        DataType::kFLOAT, kiln::test::makeDims({4}), {std::numeric_limits<double>::quiet_NaN(), inf, -inf, -1.25});
    auto out = r.run({{"x", x}});
    EXPECT_TRUE(kiln::test::allClose(
        out["q"], HostTensor::fromValues(DataType::kINT8, kiln::test::makeDims({4}), {0, 127, -128, -2}), 0, 0));
}

//! DQ of random INT8 data to `outType`, compared with q * scale rounded to the output type.
void checkDequantize(DataType outType, std::vector<int64_t> const& shape, int32_t axis, std::mt19937& rng)
{
    Dims const d = kiln::test::makeDims(shape);
    HostTensor const scale = makeScales(outType, axis < 0 ? 0 : shape[static_cast<size_t>(axis)], false, rng);
    NetworkRunner r;
    ConstantStore store;
    ITensor* in = r.addInput("q", DataType::kINT8, shape);
    IDequantizeLayer* dq = r.network().addDequantize(*in, *store.add(r.network(), scale), outType);
    ASSERT_NE(dq, nullptr) << r.logger().allErrors();
    EXPECT_EQ(dq->getToType(), outType);
    dq->setAxis(axis);
    r.markOutput(dq->getOutput(0), "y");
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    HostTensor const q = HostTensor::random(DataType::kINT8, d, rng, -128, 127);
    auto out = r.run({{"q", q}});
    ASSERT_EQ(out["y"].type, outType);
    HostTensor want(outType, d);
    for (int64_t e = 0; e < q.volume(); ++e)
    {
        want.set(e, static_cast<double>(static_cast<float>(q.at(e)) * static_cast<float>(scale.at(scaleIndex(d, axis, e)))));
    }
    double const rtol = outType == DataType::kFLOAT ? 1e-7 : (outType == DataType::kHALF ? 1e-3 : 8e-3);
    EXPECT_TRUE(kiln::test::allClose(out["y"], want, 0, rtol)) << "axis " << axis << " shape " << kiln::test::dimsString(d);
}

TEST_P(QuantizeLayerTest, DequantizePerTensorAndPerAxis)
{
    std::mt19937 rng(419);
    for (DataType t : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16})
    {
        checkDequantize(t, {3, 4, 5}, -1, rng);
        checkDequantize(t, {3, 4, 5}, 0, rng);
        checkDequantize(t, {3, 4, 5}, 1, rng);
        checkDequantize(t, {3, 4, 5}, 2, rng);
    }
    checkDequantize(DataType::kFLOAT, {16, 40, 50}, 1, rng);
}

TEST_P(QuantizeLayerTest, QuantizeDequantizeChainWithDynamicShapes)
{
    std::mt19937 rng(421);
    NetworkRunner r;
    ConstantStore store;
    ITensor* in = r.addInput("x", DataType::kFLOAT, {-1, 3, -1});
    HostTensor const scale = makeScales(DataType::kFLOAT, 3, false, rng);
    ITensor* s = store.add(r.network(), scale);
    IQuantizeLayer* q = r.network().addQuantize(*in, *s, DataType::kINT8);
    ASSERT_NE(q, nullptr);
    q->setAxis(1);
    IDequantizeLayer* dq = r.network().addDequantize(*q->getOutput(0), *s, DataType::kFLOAT);
    ASSERT_NE(dq, nullptr);
    dq->setAxis(1);
    r.markOutput(dq->getOutput(0), "y");
    r.setProfileDims("x", {1, 3, 1}, {2, 3, 8}, {6, 3, 64});
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    for (std::vector<int64_t> const& shape : {std::vector<int64_t>{2, 3, 8}, {6, 3, 64}, {1, 3, 1}, {5, 3, 17}})
    {
        Dims const d = kiln::test::makeDims(shape);
        HostTensor const x = tricky(DataType::kFLOAT, d, 1, scale, rng);
        auto out = r.run({{"x", x}});
        HostTensor want(DataType::kFLOAT, d);
        for (int64_t e = 0; e < x.volume(); ++e)
        {
            float const sc = static_cast<float>(scale.at(scaleIndex(d, 1, e)));
            want.set(e, static_cast<float>(quantizeRef(x.at(e), sc)) * sc);
        }
        EXPECT_TRUE(kiln::test::allClose(out["y"], want, 0, 1e-7)) << kiln::test::dimsString(d);
    }
}

TEST_P(QuantizeLayerTest, SettersAndNetworkErrors)
{
    NetworkRunner r;
    ConstantStore store;
    ITensor* in = r.addInput("x", DataType::kFLOAT, {2, 3});
    ITensor* s = store.add(r.network(), HostTensor::fromValues(DataType::kFLOAT, kiln::test::makeDims({3}), {1, 2, 3}));
    EXPECT_EQ(r.network().addQuantize(*in, *s, DataType::kFLOAT), nullptr);
    EXPECT_TRUE(r.logger().hasError("addQuantize: output type")) << r.logger().allErrors();
    EXPECT_EQ(r.network().addDequantize(*in, *s, DataType::kINT8), nullptr);
    EXPECT_TRUE(r.logger().hasError("addDequantize: output type")) << r.logger().allErrors();
    IQuantizeLayer* q = r.network().addQuantize(*in, *s);
    ASSERT_NE(q, nullptr);
    q->setName("q");
    q->setToType(DataType::kHALF);
    EXPECT_EQ(q->getToType(), DataType::kINT8);
    EXPECT_TRUE(r.logger().hasError("IQuantizeLayer::setToType on layer 'q'")) << r.logger().allErrors();
    Dims bad{1, {0}};
    EXPECT_FALSE(q->setBlockShape(bad));
    EXPECT_EQ(q->getBlockShape().nbDims, 0);
    r.markOutput(q->getOutput(0), "q");
    // A per-axis scale with the default axis (-1, per-tensor) fails the build.
    EXPECT_FALSE(r.build());
    EXPECT_TRUE(r.logger().hasError("layer 'q' (Quantize)")) << r.logger().allErrors();
    EXPECT_TRUE(r.logger().hasError("is 1-D (per-axis) but the axis -1")) << r.logger().allErrors();
}

//! A network with one Q (or DQ) node named "n" that the kernels refuse; the build fails with `message`.
void expectRefused(bool quantize, DataType quantizedType, bool block, double zeroPoint, std::string const& message)
{
    NetworkRunner r;
    ConstantStore store;
    std::vector<int64_t> const shape{2, 4};
    ITensor* in = r.addInput("x", quantize ? DataType::kFLOAT : quantizedType, shape);
    ITensor* s = store.add(r.network(), HostTensor::fromValues(DataType::kFLOAT, kiln::test::makeDims({4}), {1, 2, 3, 4}));
    ILayer* layer = nullptr;
    if (quantize)
    {
        IQuantizeLayer* q = r.network().addQuantize(*in, *s, quantizedType);
        ASSERT_NE(q, nullptr) << r.logger().allErrors();
        q->setAxis(1);
        if (block)
        {
            ASSERT_TRUE(q->setBlockShape(Dims{2, {1, 4}}));
        }
        layer = q;
    }
    else
    {
        IDequantizeLayer* dq = r.network().addDequantize(*in, *s, DataType::kFLOAT);
        ASSERT_NE(dq, nullptr) << r.logger().allErrors();
        dq->setAxis(1);
        layer = dq;
    }
    if (zeroPoint >= 0)
    {
        HostTensor zp(quantizedType, kiln::test::makeDims({4}));
        for (int64_t i = 0; i < 4; ++i)
        {
            zp.set(i, i == 2 ? zeroPoint : 0.0);
        }
        layer->setInput(2, *store.add(r.network(), zp));
    }
    layer->setName("n");
    r.markOutput(layer->getOutput(0), "y");
    EXPECT_FALSE(r.build());
    EXPECT_TRUE(r.logger().hasError(message)) << r.logger().allErrors();
}

TEST_P(QuantizeLayerTest, UnsupportedFormsAreRefused)
{
    expectRefused(true, DataType::kFP8, false, -1, "quantized type FP8 is not supported");
    expectRefused(true, DataType::kINT4, false, -1, "quantized type INT4 is not supported");
    expectRefused(true, DataType::kINT8, true, -1, "block quantization");
    expectRefused(true, DataType::kINT8, false, 3, "non-zero zero points are not supported");
    expectRefused(false, DataType::kINT8, false, 5, "non-zero zero points are not supported");
}

TEST_P(QuantizeLayerTest, ZeroZeroPointIsAccepted)
{
    std::mt19937 rng(431);
    NetworkRunner r;
    ConstantStore store;
    ITensor* in = r.addInput("x", DataType::kFLOAT, {5, 6});
    HostTensor const scale = makeScales(DataType::kFLOAT, 6, true, rng);
    IQuantizeLayer* q = r.network().addQuantize(*in, *store.add(r.network(), scale), DataType::kINT8);
    ASSERT_NE(q, nullptr);
    q->setAxis(1);
    HostTensor zp(DataType::kINT8, kiln::test::makeDims({6}));
    for (int64_t i = 0; i < 6; ++i)
    {
        zp.set(i, 0.0);
    }
    q->setInput(2, *store.add(r.network(), zp));
    r.markOutput(q->getOutput(0), "q");
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    Dims const d = kiln::test::makeDims({5, 6});
    HostTensor const x = tricky(DataType::kFLOAT, d, 1, scale, rng);
    auto out = r.run({{"x", x}});
    HostTensor want(DataType::kINT8, d);
    for (int64_t e = 0; e < x.volume(); ++e)
    {
        want.set(e, quantizeRef(x.at(e), scale.at(scaleIndex(d, 1, e))));
    }
    EXPECT_TRUE(kiln::test::allClose(out["q"], want, 0, 0));
}

TEST_P(QuantizeLayerTest, RunTimeZeroPointIsCheckedAtEachRun)
{
    KILN_CPU_BACKEND_ONLY("the CUDA kernels need a constant zero point (refused at creation)");
    std::mt19937 rng(433);
    NetworkRunner r;
    ConstantStore store;
    ITensor* in = r.addInput("q", DataType::kINT8, {3, 4});
    ITensor* zp = r.addInput("zp", DataType::kINT8, {4});
    HostTensor const scale = makeScales(DataType::kFLOAT, 4, false, rng);
    IDequantizeLayer* dq = r.network().addDequantize(*in, *store.add(r.network(), scale), DataType::kFLOAT);
    ASSERT_NE(dq, nullptr);
    dq->setAxis(1);
    dq->setInput(2, *zp);
    r.markOutput(dq->getOutput(0), "y");
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    Dims const d = kiln::test::makeDims({3, 4});
    HostTensor const q = HostTensor::random(DataType::kINT8, d, rng, -128, 127);
    HostTensor zeros(DataType::kINT8, kiln::test::makeDims({4}));
    for (int64_t i = 0; i < 4; ++i)
    {
        zeros.set(i, 0.0);
    }
    auto out = r.run({{"q", q}, {"zp", zeros}});
    HostTensor want(DataType::kFLOAT, d);
    for (int64_t e = 0; e < q.volume(); ++e)
    {
        want.set(e, static_cast<double>(static_cast<float>(q.at(e)) * static_cast<float>(scale.at(e % 4))));
    }
    EXPECT_TRUE(kiln::test::allClose(out["y"], want, 0, 1e-7));
    HostTensor nonZero = zeros;
    nonZero.set(3, -2.0);
    EXPECT_TRUE(r.runFails({{"q", q}, {"zp", nonZero}}));
    EXPECT_TRUE(r.logger().hasError("non-zero zero points are not supported")) << r.logger().allErrors();
}

} // namespace
