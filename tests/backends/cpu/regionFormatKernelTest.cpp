// CPU kernels in the builder's region formats (channelLastPass; backends/cpu/kernels/oneDnnFormats.h): convolution
// (strides, padding, groups, channel counts that are not a multiple of 16, fused residual + ReLU), pooling and the
// global-average-pool reduction reading kHWC and kCHW16 storage, compared on random data with the linear reference
// kernels; the reformat kernel's round trip linear -> format -> linear against an index formula written here (padding
// channels zero); and the kernels' refusals.
#include "backends/backend.h"
#include "backends/cpu/kernels/oneDnnFormats.h"
#include "common/kernelRun.h"
#include "common/networkRunner.h"
#include "core/tensorFormat.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

namespace kiln::test
{
namespace
{
using nvinfer1::DataType;
using nvinfer1::LayerType;
using nvinfer1::TensorFormat;

//! Storage offset of element (n, c, h, w) of an [N, C, H, W] tensor in `f` (TensorRT's layouts, written out).
int64_t storageOffset(TensorFormat f, nvinfer1::Dims const& d, int64_t n, int64_t c, int64_t h, int64_t w)
{
    int64_t const C = d.d[1];
    int64_t const H = d.d[2];
    int64_t const W = d.d[3];
    switch (f)
    {
    case TensorFormat::kHWC: return ((n * H + h) * W + w) * C + c;
    case TensorFormat::kCHW16:
    {
        int64_t const groups = (C + 15) / 16;
        return (((n * groups + c / 16) * H + h) * W + w) * 16 + c % 16;
    }
    default: return ((n * C + c) * H + h) * W + w;
    }
}

int64_t storageVolume(TensorFormat f, nvinfer1::Dims const& d)
{
    int64_t const c = f == TensorFormat::kCHW16 ? (d.d[1] + 15) / 16 * 16 : d.d[1];
    return d.d[0] * c * d.d[2] * d.d[3];
}

//! FP32 storage of a linear FP32 tensor in `f`; padding channels hold `pad`.
std::vector<float> toStorage(HostTensor const& linear, TensorFormat f, float pad = 0.F)
{
    nvinfer1::Dims const& d = linear.dims;
    std::vector<float> s(static_cast<size_t>(storageVolume(f, d)), pad);
    int64_t i = 0;
    for (int64_t n = 0; n < d.d[0]; ++n)
        for (int64_t c = 0; c < d.d[1]; ++c)
            for (int64_t h = 0; h < d.d[2]; ++h)
                for (int64_t w = 0; w < d.d[3]; ++w)
                    s[static_cast<size_t>(storageOffset(f, d, n, c, h, w))] = static_cast<float>(linear.at(i++));
    return s;
}

//! Expects storage `s` in `f` to hold `expected` (linear) within `tol`, and zeros in its padding channels.
void expectStorage(std::vector<float> const& s, TensorFormat f, HostTensor const& expected, double tol)
{
    std::vector<bool> logical(s.size(), false);
    nvinfer1::Dims const& d = expected.dims;
    int64_t i = 0;
    for (int64_t n = 0; n < d.d[0]; ++n)
        for (int64_t c = 0; c < d.d[1]; ++c)
            for (int64_t h = 0; h < d.d[2]; ++h)
                for (int64_t w = 0; w < d.d[3]; ++w)
                {
                    size_t const o = static_cast<size_t>(storageOffset(f, d, n, c, h, w));
                    logical[o] = true;
                    double const e = expected.at(i++);
                    ASSERT_NEAR(s[o], e, tol * (1.0 + std::fabs(e))) << "n " << n << " c " << c << " h " << h << " w " << w;
                }
    for (size_t o = 0; o < s.size(); ++o)
    {
        if (!logical[o])
        {
            ASSERT_EQ(s[o], 0.F) << "padding channel at storage offset " << o;
        }
    }
}

TensorView view(void* data, nvinfer1::Dims const& dims)
{
    TensorView v;
    v.data = data;
    v.type = DataType::kFLOAT;
    v.dims = dims;
    return v;
}

//! A kernel for `node` (inputs' formats `in`, output's `out`) from the CPU backend's session, as contexts create it
//! (format check included).
StatusOr<std::unique_ptr<Kernel>> cpuKernel(PlanNode const& node, std::vector<TensorFormat> const& in, TensorFormat out,
    std::vector<WeightsView> const& weights = {})
{
    KernelSetup setup;
    setup.node = &node;
    for (TensorFormat f : in)
    {
        setup.inputTypes.push_back(DataType::kFLOAT);
        setup.inputPresent.push_back(true);
        setup.inputRanks.push_back(4);
        setup.inputFormats.push_back(f);
    }
    setup.outputTypes = {DataType::kFLOAT};
    setup.outputRanks = {4};
    setup.outputFormats = {out};
    setup.weights = weights;
    static std::unique_ptr<BackendSession> session = std::move(cpuBackend().createSession()).value();
    return session->createKernel(setup);
}

void markRegion(PlanNode& node, TensorFormat f)
{
    node.attrs.setInt(kCHANNEL_LAST_ATTRIBUTE, 1);
    node.attrs.setInt(kREGION_FORMAT_ATTRIBUTE, static_cast<int64_t>(f));
}

PlanNode poolNode(nvinfer1::PoolingType type, int64_t window, int64_t stride, int64_t pad)
{
    PlanNode node;
    node.kind = LayerType::kPOOLING;
    node.name = "pool";
    node.attrs.setInt("poolingType", static_cast<int64_t>(type));
    node.attrs.setFloat("blendFactor", 0.5);
    node.attrs.setInts("windowSize", {window, window});
    node.attrs.setInts("stride", {stride, stride});
    node.attrs.setInts("prePadding", {pad, pad});
    node.attrs.setInts("postPadding", {pad, pad});
    node.attrs.setInt("paddingMode", 0);
    node.attrs.setInt("averageCountExcludesPadding", 1);
    node.inputs = {0};
    node.outputs = {1};
    return node;
}

bool haveOneDnn()
{
    return oneDnnHasFormat(TensorFormat::kHWC);
}

struct ConvCase
{
    int64_t n, c, k, h, w, kernel, stride, pad, groups;
    bool residual;
};

void checkConvolution(ConvCase const& cc, TensorFormat f, uint32_t seed)
{
    SCOPED_TRACE(std::string(formatName(f)) + " c " + std::to_string(cc.c) + " k " + std::to_string(cc.k) + " kernel "
        + std::to_string(cc.kernel) + " stride " + std::to_string(cc.stride) + " groups " + std::to_string(cc.groups));
    std::mt19937 rng(seed);
    PlanNode node;
    node.kind = LayerType::kCONVOLUTION;
    node.name = "conv";
    node.attrs.setInt("nbOutputMaps", cc.k);
    node.attrs.setInt("nbGroups", cc.groups);
    node.attrs.setInts("kernelSize", {cc.kernel, cc.kernel});
    node.attrs.setInts("stride", {cc.stride, cc.stride});
    node.attrs.setInts("dilation", {1, 1});
    node.attrs.setInts("prePadding", {cc.pad, cc.pad});
    node.attrs.setInts("postPadding", {cc.pad, cc.pad});
    node.attrs.setInt("paddingMode", 0);
    node.inputs = {0};
    node.outputs = {1};
    if (cc.residual)
    {
        node.attrs.setInt("fuse.add", 1);
        node.attrs.setInt("fuse.act", static_cast<int64_t>(nvinfer1::ActivationType::kRELU) + 1);
        node.inputs = {0, 2};
    }
    int64_t const oh = (cc.h + 2 * cc.pad - cc.kernel) / cc.stride + 1;
    int64_t const ow = (cc.w + 2 * cc.pad - cc.kernel) / cc.stride + 1;
    HostTensor x = HostTensor::random(DataType::kFLOAT, makeDims({cc.n, cc.c, cc.h, cc.w}), rng, -1.0, 1.0);
    HostTensor wts = HostTensor::random(
        DataType::kFLOAT, makeDims({cc.k, cc.c / cc.groups, cc.kernel, cc.kernel}), rng, -0.5, 0.5);
    HostTensor bias = HostTensor::random(DataType::kFLOAT, makeDims({cc.k}), rng, -0.5, 0.5);
    nvinfer1::Dims const outDims = makeDims({cc.n, cc.k, oh, ow});
    HostTensor add = HostTensor::random(DataType::kFLOAT, outDims, rng, -1.0, 1.0);
    std::vector<WeightsView> weights(2);
    weights[0].data = wts.data();
    weights[0].type = DataType::kFLOAT;
    weights[0].count = wts.volume();
    weights[1].data = bias.data();
    weights[1].type = DataType::kFLOAT;
    weights[1].count = bias.volume();

    // The linear reference kernel.
    PlanNode reference = node;
    reference.tactic = "reference";
    std::vector<TensorFormat> linearIns(cc.residual ? 2 : 1, TensorFormat::kLINEAR);
    auto ref = cpuKernel(reference, linearIns, TensorFormat::kLINEAR, weights);
    ASSERT_TRUE(ref.isOk()) << ref.status().message();
    HostTensor expected(DataType::kFLOAT, outDims);
    std::vector<TensorView> refIns{view(x.data(), x.dims)};
    if (cc.residual)
    {
        refIns.push_back(view(add.data(), outDims));
    }
    ASSERT_TRUE(reshapeAndRun(**ref, refIns, {view(expected.data(), outDims)}).isOk());

    // The region kernel on storage in `f`, output poisoned (padding channels included).
    PlanNode region = node;
    region.tactic = "onednn";
    markRegion(region, f);
    auto kernel = cpuKernel(region, std::vector<TensorFormat>(cc.residual ? 2 : 1, f), f, weights);
    ASSERT_TRUE(kernel.isOk()) << kernel.status().message();
    std::vector<float> xs = toStorage(x, f);
    std::vector<float> adds = toStorage(add, f);
    std::vector<float> ys(static_cast<size_t>(storageVolume(f, outDims)), std::nanf(""));
    std::vector<TensorView> ins{view(xs.data(), x.dims)};
    if (cc.residual)
    {
        ins.push_back(view(adds.data(), outDims));
    }
    uint64_t const runs = oneDnnRunCount(LayerType::kCONVOLUTION);
    Status const st = reshapeAndRun(**kernel, ins, {view(ys.data(), outDims)});
    ASSERT_TRUE(st.isOk()) << st.message();
    EXPECT_EQ(oneDnnRunCount(LayerType::kCONVOLUTION), runs + 1) << "the oneDNN path ran";
    expectStorage(ys, f, expected, 1e-5);
}

class RegionFormatKernel : public ::testing::TestWithParam<TensorFormat>
{
protected:
    void SetUp() override
    {
        if (!haveOneDnn())
        {
            GTEST_SKIP() << "built without oneDNN: no region formats on the CPU";
        }
    }
};

TEST_P(RegionFormatKernel, ConvolutionMatchesTheLinearReference)
{
    TensorFormat const f = GetParam();
    uint32_t seed = 100;
    for (ConvCase const& cc : std::vector<ConvCase>{
             {2, 20, 24, 9, 11, 3, 2, 1, 1, false}, // strided, channels not a multiple of 16
             {1, 3, 17, 12, 12, 7, 2, 3, 1, false}, // the stem: 3 input channels
             {3, 32, 16, 6, 5, 1, 1, 0, 1, true},   // 1x1 with the fused residual + ReLU
             {2, 24, 40, 7, 7, 3, 1, 1, 1, true},   // 3x3 with the residual, padded blocks
             {2, 24, 24, 8, 8, 3, 1, 1, 24, false}, // depthwise
         })
    {
        checkConvolution(cc, f, ++seed);
    }
}

TEST_P(RegionFormatKernel, PoolingAndGlobalAveragePoolMatchTheLinearReference)
{
    TensorFormat const f = GetParam();
    std::mt19937 rng(7);
    nvinfer1::Dims const inDims = makeDims({2, 20, 9, 10});
    HostTensor x = HostTensor::random(DataType::kFLOAT, inDims, rng, -2.0, 2.0);
    std::vector<float> const xs = toStorage(x, f);
    for (auto type : {nvinfer1::PoolingType::kMAX, nvinfer1::PoolingType::kAVERAGE})
    {
        SCOPED_TRACE(type == nvinfer1::PoolingType::kMAX ? "max" : "average");
        PlanNode const node = poolNode(type, 3, 2, 1);
        nvinfer1::Dims const outDims = makeDims({2, 20, 5, 5});
        PlanNode reference = node;
        reference.tactic = "reference";
        auto ref = cpuKernel(reference, {TensorFormat::kLINEAR}, TensorFormat::kLINEAR);
        ASSERT_TRUE(ref.isOk()) << ref.status().message();
        HostTensor expected(DataType::kFLOAT, outDims);
        ASSERT_TRUE(reshapeAndRun(**ref, {view(x.data(), inDims)}, {view(expected.data(), outDims)}).isOk());
        PlanNode region = node;
        region.tactic = "onednn";
        markRegion(region, f);
        auto kernel = cpuKernel(region, {f}, f);
        ASSERT_TRUE(kernel.isOk()) << kernel.status().message();
        std::vector<float> in = xs;
        std::vector<float> ys(static_cast<size_t>(storageVolume(f, outDims)), std::nanf(""));
        Status const st = reshapeAndRun(**kernel, {view(in.data(), inDims)}, {view(ys.data(), outDims)});
        ASSERT_TRUE(st.isOk()) << st.message();
        expectStorage(ys, f, expected, 1e-6);
    }

    // Global average pool: a reduction over axes 2 and 3 reading the format, writing linear [N, C, 1, 1].
    for (auto op : {nvinfer1::ReduceOperation::kAVG, nvinfer1::ReduceOperation::kMAX})
    {
        PlanNode node;
        node.kind = LayerType::kREDUCE;
        node.name = "gap";
        node.attrs.setInt("operation", static_cast<int64_t>(op));
        node.attrs.setInt("axes", 0b1100);
        node.attrs.setInt("keepDims", 1);
        node.inputs = {0};
        node.outputs = {1};
        nvinfer1::Dims const outDims = makeDims({2, 20, 1, 1});
        auto ref = cpuKernel(node, {TensorFormat::kLINEAR}, TensorFormat::kLINEAR);
        ASSERT_TRUE(ref.isOk()) << ref.status().message();
        HostTensor expected(DataType::kFLOAT, outDims);
        ASSERT_TRUE(reshapeAndRun(**ref, {view(x.data(), inDims)}, {view(expected.data(), outDims)}).isOk());
        PlanNode region = node;
        markRegion(region, f);
        auto kernel = cpuKernel(region, {f}, TensorFormat::kLINEAR);
        ASSERT_TRUE(kernel.isOk()) << kernel.status().message();
        std::vector<float> in = xs;
        HostTensor actual(DataType::kFLOAT, outDims);
        ASSERT_TRUE(reshapeAndRun(**kernel, {view(in.data(), inDims)}, {view(actual.data(), outDims)}).isOk());
        for (int64_t i = 0; i < expected.volume(); ++i)
        {
            ASSERT_NEAR(actual.at(i), expected.at(i), 1e-6 * (1.0 + std::fabs(expected.at(i)))) << "channel " << i;
        }
    }
}

TEST_P(RegionFormatKernel, ReformatRoundTrip)
{
    TensorFormat const f = GetParam();
    std::mt19937 rng(11);
    for (auto dims : {makeDims({2, 20, 5, 7}), makeDims({1, 3, 4, 4}), makeDims({3, 32, 2, 3})})
    {
        SCOPED_TRACE("channels " + std::to_string(dims.d[1]));
        HostTensor x = HostTensor::random(DataType::kFLOAT, dims, rng, -1.0, 1.0);
        auto reformat = [&](TensorFormat from, TensorFormat to) {
            PlanNode node;
            node.kind = LayerType::kIDENTITY;
            node.name = "reformat";
            node.attrs.setInt("reformat", 1);
            node.attrs.setInt("inFormat", static_cast<int64_t>(from));
            node.attrs.setInt("outFormat", static_cast<int64_t>(to));
            node.attrs.setFloat("inScale", -1.0);
            node.attrs.setFloat("outScale", -1.0);
            node.inputs = {0};
            node.outputs = {1};
            return node;
        };
        PlanNode const there = reformat(TensorFormat::kLINEAR, f);
        auto to = cpuKernel(there, {TensorFormat::kLINEAR}, f);
        ASSERT_TRUE(to.isOk()) << to.status().message();
        std::vector<float> stored(static_cast<size_t>(storageVolume(f, dims)), std::nanf(""));
        ASSERT_TRUE(reshapeAndRun(**to, {view(x.data(), dims)}, {view(stored.data(), dims)}).isOk());
        expectStorage(stored, f, x, 0.0);
        PlanNode const back = reformat(f, TensorFormat::kLINEAR);
        auto from = cpuKernel(back, {f}, TensorFormat::kLINEAR);
        ASSERT_TRUE(from.isOk()) << from.status().message();
        HostTensor y(DataType::kFLOAT, dims);
        ASSERT_TRUE(reshapeAndRun(**from, {view(stored.data(), dims)}, {view(y.data(), dims)}).isOk());
        EXPECT_EQ(std::memcmp(y.data(), x.data(), x.bytes.size()), 0);
    }
}

TEST_P(RegionFormatKernel, KernelsRefuseWhatTheyCannotRunInTheFormat)
{
    TensorFormat const f = GetParam();
    PlanNode pool = poolNode(nvinfer1::PoolingType::kMAX_AVERAGE_BLEND, 2, 2, 0);
    markRegion(pool, f);
    auto blend = cpuKernel(pool, {f}, f);
    ASSERT_FALSE(blend.isOk());
    EXPECT_NE(blend.status().message().find("only as 2-D max or average pooling"), std::string::npos)
        << blend.status().message();

    PlanNode reduce;
    reduce.kind = LayerType::kREDUCE;
    reduce.name = "channels";
    reduce.attrs.setInt("operation", static_cast<int64_t>(nvinfer1::ReduceOperation::kSUM));
    reduce.attrs.setInt("axes", 0b0010);
    reduce.attrs.setInt("keepDims", 1);
    reduce.inputs = {0};
    reduce.outputs = {1};
    markRegion(reduce, f);
    auto channels = cpuKernel(reduce, {f}, TensorFormat::kLINEAR);
    ASSERT_FALSE(channels.isOk());
    EXPECT_NE(channels.status().message().find("over axes 2 and 3"), std::string::npos) << channels.status().message();

    // The format check: a region node's activations must all be in its region format.
    PlanNode relu;
    relu.kind = LayerType::kACTIVATION;
    relu.name = "relu";
    relu.inputs = {0};
    relu.outputs = {1};
    markRegion(relu, f);
    auto mixed = cpuKernel(relu, {f}, TensorFormat::kLINEAR);
    ASSERT_FALSE(mixed.isOk());
    EXPECT_NE(mixed.status().message().find("output 0 has format kLINEAR"), std::string::npos) << mixed.status().message();
}

INSTANTIATE_TEST_SUITE_P(Formats, RegionFormatKernel, ::testing::Values(TensorFormat::kHWC, TensorFormat::kCHW16),
    [](::testing::TestParamInfo<TensorFormat> const& info) { return std::string(formatName(info.param)).substr(1); });

} // namespace
} // namespace kiln::test
