// Tests of IPaddingLayer: zero padding and cropping (negative padding) of the innermost dimensions against a
// naive oracle, for every storage type, static and runtime shapes, and the error paths.
#include "common/backendTest.h"
#include "common/networkRunner.h"

#include <gtest/gtest.h>

#include <random>

namespace
{
using namespace nvinfer1;
using kiln::test::HostTensor;
using kiln::test::makeDims;
using kiln::test::NetworkRunner;

HostTensor padOracle(HostTensor const& in, std::vector<int64_t> const& pre, std::vector<int64_t> const& post)
{
    int32_t const rank = in.dims.nbDims;
    size_t const k = pre.size();
    std::vector<int64_t> outDims(in.dims.d, in.dims.d + rank);
    std::vector<int64_t> shift(static_cast<size_t>(rank), 0);
    for (size_t i = 0; i < k; ++i)
    {
        size_t const d = static_cast<size_t>(rank) - k + i;
        outDims[d] += pre[i] + post[i];
        shift[d] = pre[i];
    }
    HostTensor out(in.type, makeDims(outDims));
    for (int64_t o = 0; o < out.volume(); ++o)
    {
        int64_t rest = o;
        int64_t src = 0;
        int64_t mul = 1;
        bool inside = true;
        for (int32_t d = rank; d-- > 0;)
        {
            int64_t const c = rest % outDims[static_cast<size_t>(d)] - shift[static_cast<size_t>(d)];
            rest /= outDims[static_cast<size_t>(d)];
            inside = inside && c >= 0 && c < in.dims.d[d];
            src += c * mul;
            mul *= in.dims.d[d];
        }
        out.set(o, inside ? in.at(src) : 0.0);
    }
    return out;
}

class PaddingLayerTest : public kiln::test::BackendTest
{
};
KILN_INSTANTIATE_BACKEND_TESTS(PaddingLayerTest);

TEST_P(PaddingLayerTest, PadAndCropMatchOracle)
{
    std::mt19937 rng(77);
    for (int32_t iter = 0; iter < 12; ++iter)
    {
        int32_t const rank = std::uniform_int_distribution<int32_t>(2, 4)(rng);
        size_t const k = iter < 8 ? 2 : static_cast<size_t>(std::uniform_int_distribution<int32_t>(1, rank)(rng));
        std::vector<int64_t> shape(static_cast<size_t>(rank));
        for (auto& d : shape)
        {
            d = std::uniform_int_distribution<int64_t>(2, 6)(rng);
        }
        std::vector<int64_t> pre(k), post(k);
        for (size_t i = 0; i < k; ++i)
        {
            int64_t const extent = shape[static_cast<size_t>(rank) - k + i];
            pre[i] = std::uniform_int_distribution<int64_t>(-1, 3)(rng);
            post[i] = std::uniform_int_distribution<int64_t>(std::max<int64_t>(-2, 1 - extent - pre[i]), 3)(rng);
        }
        NetworkRunner r;
        ITensor* x = r.addInput("x", DataType::kFLOAT, shape);
        IPaddingLayer* p = r.network().addPaddingNd(*x, makeDims(pre), makeDims(post));
        ASSERT_NE(p, nullptr);
        EXPECT_EQ(kiln::test::dimsString(p->getPrePaddingNd()), kiln::test::dimsString(makeDims(pre)));
        EXPECT_EQ(kiln::test::dimsString(p->getPostPaddingNd()), kiln::test::dimsString(makeDims(post)));
        r.markOutput(p->getOutput(0), "y");
        ASSERT_TRUE(r.build()) << r.logger().allErrors();
        HostTensor const in = HostTensor::random(DataType::kFLOAT, makeDims(shape), rng);
        auto out = r.run({{"x", in}});
        EXPECT_TRUE(kiln::test::sameBits(out["y"], padOracle(in, pre, post))) << "iteration " << iter;
    }
}

TEST_P(PaddingLayerTest, EveryStorageType)
{
    std::mt19937 rng(3);
    for (DataType t : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16, DataType::kINT8, DataType::kUINT8,
             DataType::kINT32, DataType::kINT64, DataType::kBOOL})
    {
        NetworkRunner r;
        ITensor* x = r.addInput("x", t, {2, 3, 4});
        IPaddingLayer* p = r.network().addPaddingNd(*x, makeDims({1, -1}), makeDims({2, 1}));
        r.markOutput(p->getOutput(0), "y");
        ASSERT_TRUE(r.build()) << r.logger().allErrors();
        double const lo = t == DataType::kUINT8 ? 1.0 : -50.0;
        HostTensor const in = HostTensor::random(t, makeDims({2, 3, 4}), rng, lo, 50.0);
        auto out = r.run({{"x", in}});
        EXPECT_EQ(out["y"].type, t);
        EXPECT_TRUE(kiln::test::sameBits(out["y"], padOracle(in, {1, -1}, {2, 1}))) << static_cast<int>(t);
    }
}

TEST_P(PaddingLayerTest, RuntimeShapes)
{
    std::mt19937 rng(12);
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {-1, 2, -1, -1});
    IPaddingLayer* p = r.network().addPaddingNd(*x, makeDims({2, -1}), makeDims({0, 3}));
    Dims const d = p->getOutput(0)->getDimensions();
    ASSERT_EQ(d.nbDims, 4);
    EXPECT_EQ(d.d[1], 2);
    EXPECT_EQ(d.d[2], -1);
    r.markOutput(p->getOutput(0), "y");
    r.setProfileDims("x", {1, 2, 1, 1}, {2, 2, 4, 4}, {3, 2, 8, 8});
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    for (auto const& shape : {std::vector<int64_t>{1, 2, 1, 1}, std::vector<int64_t>{3, 2, 5, 8}})
    {
        HostTensor const in = HostTensor::random(DataType::kFLOAT, makeDims(shape), rng);
        auto out = r.run({{"x", in}});
        EXPECT_TRUE(kiln::test::sameBits(out["y"], padOracle(in, {2, -1}, {0, 3})));
    }
}

TEST_P(PaddingLayerTest, Errors)
{
    {
        NetworkRunner r;
        ITensor* x = r.addInput("x", DataType::kFLOAT, {2, 3, 4});
        EXPECT_EQ(r.network().addPaddingNd(*x, makeDims({1, 1}), makeDims({1})), nullptr);
        EXPECT_TRUE(r.logger().hasError("addPaddingNd")) << r.logger().allErrors();
    }
    {
        NetworkRunner r;
        ITensor* x = r.addInput("x", DataType::kFLOAT, {2, 3, 4});
        IPaddingLayer* p = r.network().addPaddingNd(*x, makeDims({0, -3}), makeDims({0, -2}));
        p->setName("crop");
        r.markOutput(p->getOutput(0), "y");
        EXPECT_FALSE(r.build());
        EXPECT_TRUE(r.logger().hasError("cropping dimension 2")) << r.logger().allErrors();
        EXPECT_TRUE(r.logger().hasError("crop"));
    }
    {
        NetworkRunner r;
        ITensor* x = r.addInput("x", DataType::kFLOAT, {4});
        IPaddingLayer* p = r.network().addPaddingNd(*x, makeDims({1, 1}), makeDims({1, 1}));
        r.markOutput(p->getOutput(0), "y");
        EXPECT_FALSE(r.build());
        EXPECT_TRUE(r.logger().hasError("has rank 1")) << r.logger().allErrors();
    }
    {
        // A profile whose kMIN shape crops below zero fails the build.
        NetworkRunner r;
        ITensor* x = r.addInput("x", DataType::kFLOAT, {2, -1});
        IPaddingLayer* p = r.network().addPaddingNd(*x, makeDims({0, -2}), makeDims({0, -1}));
        r.markOutput(p->getOutput(0), "y");
        r.setProfileDims("x", {2, 2}, {2, 5}, {2, 8});
        EXPECT_FALSE(r.build());
        EXPECT_TRUE(r.logger().hasError("cropping dimension 1")) << r.logger().allErrors();
    }
}

} // namespace
