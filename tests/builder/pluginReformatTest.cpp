// The reformat nodes the builder inserts around plugins (kIDENTITY with "reformat" = 1), run directly through the
// CPU identity kernel: layouts of the vectorized and channel-last formats against index formulas written here,
// zero padding, round trips, type conversion and INT8 quantize/dequantize with the tensors' scales.
#include "backends/cpu/cpuKernel.h"
#include "common/networkRunner.h"
#include "core/dataType.h"
#include "common/kernelRun.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <random>

namespace kiln::test
{
namespace
{
using namespace nvinfer1;

int32_t vectorOf(TensorFormat f)
{
    switch (f)
    {
    case TensorFormat::kCHW2: return 2;
    case TensorFormat::kCHW4: return 4;
    case TensorFormat::kHWC8:
    case TensorFormat::kDHWC8: return 8;
    case TensorFormat::kCHW16:
    case TensorFormat::kHWC16: return 16;
    case TensorFormat::kCHW32:
    case TensorFormat::kCDHW32: return 32;
    default: return 1;
    }
}

bool channelLast(TensorFormat f)
{
    return f == TensorFormat::kHWC || f == TensorFormat::kHWC8 || f == TensorFormat::kHWC16 || f == TensorFormat::kDHWC
        || f == TensorFormat::kDHWC8;
}

//! Storage index of logical element idx (NCHW or NCDHW) in format f, from TensorRT's format descriptions.
int64_t storageIndex(TensorFormat f, std::vector<int64_t> const& d, std::vector<int64_t> const& i)
{
    int64_t const v = vectorOf(f);
    int64_t const c = i[1];
    int64_t const channels = d[1];
    int64_t const padded = (channels + v - 1) / v * v;
    int64_t spatialIndex = 0; // row-major index over the spatial dims
    int64_t spatial = 1;
    for (size_t k = 2; k < d.size(); ++k)
    {
        spatialIndex = spatialIndex * d[k] + i[k];
        spatial *= d[k];
    }
    if (f == TensorFormat::kLINEAR)
    {
        return (i[0] * channels + c) * spatial + spatialIndex;
    }
    if (channelLast(f))
    {
        return (i[0] * spatial + spatialIndex) * padded + c;
    }
    int64_t const groups = padded / v;
    return ((i[0] * groups + c / v) * spatial + spatialIndex) * v + c % v;
}

int64_t paddedElements(TensorFormat f, std::vector<int64_t> const& d)
{
    int64_t const v = vectorOf(f);
    int64_t n = (d[1] + v - 1) / v * v;
    for (size_t k = 0; k < d.size(); ++k)
    {
        n *= k == 1 ? 1 : d[k];
    }
    return n;
}

class ReformatKernel
{
public:
    ReformatKernel(DataType inType, TensorFormat inFormat, float inScale, DataType outType, TensorFormat outFormat,
        float outScale, int32_t rank)
    {
        mNode.kind = LayerType::kIDENTITY;
        mNode.name = "reformat under test";
        mNode.attrs.setInt("reformat", 1);
        mNode.attrs.setInt("inFormat", static_cast<int64_t>(inFormat));
        mNode.attrs.setInt("outFormat", static_cast<int64_t>(outFormat));
        mNode.attrs.setFloat("inScale", inScale);
        mNode.attrs.setFloat("outScale", outScale);
        mSetup.node = &mNode;
        mSetup.inputTypes = {inType};
        mSetup.inputPresent = {true};
        mSetup.inputRanks = {rank};
        mSetup.outputTypes = {outType};
        mSetup.outputRanks = {rank};
        auto kernel = cpuKernelFactory(LayerType::kIDENTITY)(mSetup);
        if (kernel.isOk())
        {
            mKernel = std::move(kernel).value();
        }
        else
        {
            mError = kernel.status().message();
        }
    }
    Kernel* kernel() { return mKernel.get(); }
    std::string const& error() const { return mError; }

private:
    PlanNode mNode;
    KernelSetup mSetup;
    std::unique_ptr<Kernel> mKernel;
    std::string mError;
};

TensorView view(void* data, DataType type, std::vector<int64_t> const& dims)
{
    TensorView v;
    v.data = data;
    v.type = type;
    v.dims = makeDims(dims);
    return v;
}

void forEachIndex(std::vector<int64_t> const& d, std::function<void(std::vector<int64_t> const&, int64_t)> const& f)
{
    std::vector<int64_t> i(d.size(), 0);
    int64_t n = 1;
    for (int64_t e : d)
    {
        n *= e;
    }
    for (int64_t linear = 0; linear < n; ++linear)
    {
        f(i, linear);
        for (size_t k = d.size(); k-- > 0;)
        {
            if (++i[k] < d[k])
            {
                break;
            }
            i[k] = 0;
        }
    }
}

class ReformatLayoutTest : public ::testing::TestWithParam<TensorFormat>
{
};

TEST_P(ReformatLayoutTest, LinearToFormatAndBack)
{
    TensorFormat const f = GetParam();
    bool const threeD = f == TensorFormat::kDHWC8 || f == TensorFormat::kCDHW32 || f == TensorFormat::kDHWC;
    std::vector<int64_t> const dims = threeD ? std::vector<int64_t>{2, 5, 2, 3, 2} : std::vector<int64_t>{2, 5, 3, 4};
    int32_t const rank = static_cast<int32_t>(dims.size());
    std::mt19937 rng(static_cast<uint32_t>(f) + 17U);
    HostTensor in = HostTensor::random(DataType::kFLOAT, makeDims(dims), rng);
    int64_t const stored = paddedElements(f, dims);
    std::vector<float> formatted(static_cast<size_t>(stored), std::nanf(""));

    ReformatKernel toFormat(DataType::kFLOAT, TensorFormat::kLINEAR, -1.F, DataType::kFLOAT, f, -1.F, rank);
    ASSERT_NE(toFormat.kernel(), nullptr) << toFormat.error();
    ASSERT_TRUE(kiln::test::reshapeAndRun(*toFormat.kernel(), {view(in.data(), DataType::kFLOAT, dims)},
        {view(formatted.data(), DataType::kFLOAT, dims)}).isOk());
    std::vector<bool> written(static_cast<size_t>(stored), false);
    forEachIndex(dims, [&](std::vector<int64_t> const& i, int64_t linear) {
        int64_t const s = storageIndex(f, dims, i);
        ASSERT_LT(s, stored);
        EXPECT_EQ(formatted[static_cast<size_t>(s)], static_cast<float>(in.at(linear))) << "element " << linear;
        written[static_cast<size_t>(s)] = true;
    });
    for (int64_t s = 0; s < stored; ++s)
    {
        if (!written[static_cast<size_t>(s)])
        {
            EXPECT_EQ(formatted[static_cast<size_t>(s)], 0.0F) << "padding at " << s << " must be zero";
        }
    }

    HostTensor back(DataType::kFLOAT, makeDims(dims));
    std::fill(back.bytes.begin(), back.bytes.end(), uint8_t{0xFF});
    ReformatKernel toLinear(DataType::kFLOAT, f, -1.F, DataType::kFLOAT, TensorFormat::kLINEAR, -1.F, rank);
    ASSERT_NE(toLinear.kernel(), nullptr) << toLinear.error();
    ASSERT_TRUE(kiln::test::reshapeAndRun(*toLinear.kernel(), {view(formatted.data(), DataType::kFLOAT, dims)},
        {view(back.data(), DataType::kFLOAT, dims)}).isOk());
    EXPECT_TRUE(sameBits(back, in));
}

INSTANTIATE_TEST_SUITE_P(Formats, ReformatLayoutTest,
    ::testing::Values(TensorFormat::kCHW2, TensorFormat::kCHW4, TensorFormat::kCHW16, TensorFormat::kCHW32,
        TensorFormat::kHWC, TensorFormat::kHWC8, TensorFormat::kHWC16, TensorFormat::kDHWC8, TensorFormat::kCDHW32,
        TensorFormat::kDHWC));

TEST(ReformatKernelTest, TypeAndFormatTogether)
{
    std::vector<int64_t> const dims{1, 3, 2, 5};
    std::mt19937 rng(7);
    HostTensor in = HostTensor::random(DataType::kFLOAT, makeDims(dims), rng);
    std::vector<uint16_t> half(static_cast<size_t>(paddedElements(TensorFormat::kCHW4, dims)), 0x7E00);
    ReformatKernel to(DataType::kFLOAT, TensorFormat::kLINEAR, -1.F, DataType::kHALF, TensorFormat::kCHW4, -1.F, 4);
    ASSERT_NE(to.kernel(), nullptr) << to.error();
    ASSERT_TRUE(kiln::test::reshapeAndRun(*to.kernel(), {view(in.data(), DataType::kFLOAT, dims)},
        {view(half.data(), DataType::kHALF, dims)})
                    .isOk());
    HostTensor back(DataType::kFLOAT, makeDims(dims));
    ReformatKernel from(DataType::kHALF, TensorFormat::kCHW4, -1.F, DataType::kFLOAT, TensorFormat::kLINEAR, -1.F, 4);
    ASSERT_NE(from.kernel(), nullptr) << from.error();
    ASSERT_TRUE(kiln::test::reshapeAndRun(*from.kernel(), {view(half.data(), DataType::kHALF, dims)},
        {view(back.data(), DataType::kFLOAT, dims)})
                    .isOk());
    EXPECT_TRUE(allClose(back, in, 1e-3, 1e-3));
}

TEST(ReformatKernelTest, Int8QuantizeAndDequantizeUseTheScales)
{
    std::vector<int64_t> const dims{40};
    std::mt19937 rng(11);
    HostTensor in = HostTensor::random(DataType::kFLOAT, makeDims(dims), rng, -3.0, 3.0);
    float const scale = 2.5F / 127.F; // values beyond 2.5 saturate
    std::vector<int8_t> q(40, 99);
    ReformatKernel quantize(DataType::kFLOAT, TensorFormat::kLINEAR, -1.F, DataType::kINT8, TensorFormat::kLINEAR, scale, 1);
    ASSERT_NE(quantize.kernel(), nullptr) << quantize.error();
    ASSERT_TRUE(kiln::test::reshapeAndRun(*quantize.kernel(), {view(in.data(), DataType::kFLOAT, dims)},
        {view(q.data(), DataType::kINT8, dims)})
                    .isOk());
    bool saturated = false;
    for (int64_t i = 0; i < 40; ++i)
    {
        float const expected = std::fmax(-128.F, std::fmin(127.F, std::nearbyint(static_cast<float>(in.at(i)) / scale)));
        EXPECT_EQ(static_cast<float>(q[static_cast<size_t>(i)]), expected) << "element " << i;
        saturated = saturated || std::fabs(in.at(i)) > 2.6;
    }
    EXPECT_TRUE(saturated) << "the data should exercise saturation";
    HostTensor back(DataType::kFLOAT, makeDims(dims));
    ReformatKernel dequantize(DataType::kINT8, TensorFormat::kLINEAR, scale, DataType::kFLOAT, TensorFormat::kLINEAR, -1.F, 1);
    ASSERT_NE(dequantize.kernel(), nullptr) << dequantize.error();
    ASSERT_TRUE(kiln::test::reshapeAndRun(*dequantize.kernel(), {view(q.data(), DataType::kINT8, dims)},
        {view(back.data(), DataType::kFLOAT, dims)})
                    .isOk());
    for (int64_t i = 0; i < 40; ++i)
    {
        EXPECT_EQ(static_cast<float>(back.at(i)), static_cast<float>(q[static_cast<size_t>(i)]) * scale);
    }
}

TEST(ReformatKernelTest, FormatTooSmallForTheRankIsRejected)
{
    ReformatKernel k(DataType::kFLOAT, TensorFormat::kLINEAR, -1.F, DataType::kFLOAT, TensorFormat::kCHW4, -1.F, 2);
    EXPECT_EQ(k.kernel(), nullptr);
    EXPECT_NE(k.error().find("kCHW4"), std::string::npos) << k.error();
    EXPECT_NE(k.error().find("rank 2"), std::string::npos) << k.error();
}

} // namespace
} // namespace kiln::test
