// Parity of the CUDA pooling kernel (tactics "cudnn" and "kiln") with the CPU reference: max, average with and
// without counting the padding, the max-average blend, symmetric and asymmetric padding, ROUND_UP windows that run
// past the padding, SAME_UPPER/LOWER, 2-D and 3-D, FP32/FP16/BF16/INT8 and mixed input/output types; plus the
// kernel table's tactics and creation errors (no GPU needed).
#include "cudaParity.h"

#include "backends/cuda/cudaKernel.h"
#include "network/layers/convolutionLayer.h"

#include <gtest/gtest.h>

namespace kiln::test::cuda
{
namespace
{
using nvinfer1::DataType;
using nvinfer1::LayerType;
using nvinfer1::PaddingMode;
using nvinfer1::PoolingType;

struct PoolSpec
{
    PoolingType type{PoolingType::kMAX};
    DataType inType{DataType::kFLOAT};
    DataType outType{DataType::kFLOAT};
    std::vector<int64_t> in{2, 3, 11, 12};
    std::vector<int64_t> window{3, 3};
    std::vector<int64_t> stride{2, 2};
    std::vector<int64_t> pre{0, 0};
    std::vector<int64_t> post{0, 0};
    PaddingMode mode{PaddingMode::kEXPLICIT_ROUND_DOWN};
    double blend{0.5};
    bool excludePadding{true};
};

PlanNode poolNode(PoolSpec const& s, std::string const& tactic)
{
    PlanNode node;
    node.kind = LayerType::kPOOLING;
    node.name = "pool";
    node.tactic = tactic;
    node.attrs.setInts("windowSize", s.window);
    node.attrs.setInts("stride", s.stride);
    node.attrs.setInts("prePadding", s.pre);
    node.attrs.setInts("postPadding", s.post);
    node.attrs.setInt("paddingMode", static_cast<int64_t>(s.mode));
    node.attrs.setInt("poolingType", static_cast<int64_t>(s.type));
    node.attrs.setFloat("blendFactor", s.blend);
    node.attrs.setInt("averageCountExcludesPadding", s.excludePadding ? 1 : 0);
    node.inputs = {0};
    node.outputs = {1};
    return node;
}

void runPool(PoolSpec const& s, uint32_t seed)
{
    for (char const* tactic : {"cudnn", "kiln"})
    {
        SCOPED_TRACE(std::string("pooling type ") + std::to_string(static_cast<int>(s.type)) + " tactic " + tactic
            + " seed " + std::to_string(seed));
        PlanNode const node = poolNode(s, tactic);
        auto params = parseWindowParams(node.attrs, WindowKind::kPOOLING);
        ASSERT_TRUE(params.isOk()) << params.status().message();
        auto ext = computeWindowExtents(WindowKind::kPOOLING, params.value(), std::vector<int64_t>(s.in.begin() + 2, s.in.end()));
        ASSERT_TRUE(ext.isOk()) << ext.status().message();
        std::vector<int64_t> out{s.in[0], s.in[1]};
        for (WindowExtent const& e : ext.value())
        {
            out.push_back(e.out);
        }
        std::mt19937 rng(seed);
        double const range = s.inType == DataType::kINT8 ? 100.0 : 2.0;
        HostTensor const x = HostTensor::random(s.inType, dims(s.in), rng, -range, range);
        checkKernel(node, {x}, {HostTensor(s.outType, dims(out))});
    }
}

PoolSpec typed(PoolSpec s, DataType t)
{
    s.inType = t;
    s.outType = t;
    return s;
}

TEST(CudaParity, PoolingMaxAverage)
{
    for (DataType t : {DataType::kFLOAT, DataType::kHALF, DataType::kBF16})
    {
        for (PoolingType type : {PoolingType::kMAX, PoolingType::kAVERAGE})
        {
            for (bool exclude : {true, false})
            {
                PoolSpec s = typed({}, t);
                s.type = type;
                s.excludePadding = exclude;
                runPool(s, 1); // no padding
                s.pre = {1, 1};
                s.post = {1, 1};
                runPool(s, 2); // symmetric: cuDNN
                s.stride = {1, 1};
                runPool(s, 3);
                s.pre = {1, 0};
                s.post = {0, 2};
                runPool(s, 4); // asymmetric: Kiln's kernel under either tactic
                s.mode = PaddingMode::kEXPLICIT_ROUND_UP;
                s.stride = {2, 3};
                runPool(s, 5); // windows past the post-padding
            }
        }
    }
}

TEST(CudaParity, PoolingBlendSame3d)
{
    for (DataType t : {DataType::kFLOAT, DataType::kHALF})
    {
        PoolSpec b = typed({}, t);
        b.type = PoolingType::kMAX_AVERAGE_BLEND;
        for (double f : {0.0, 0.3, 1.0})
        {
            b.blend = f;
            b.pre = {1, 1};
            b.post = {1, 1};
            runPool(b, 6);
        }
        for (PaddingMode m : {PaddingMode::kSAME_UPPER, PaddingMode::kSAME_LOWER})
        {
            PoolSpec s = typed({}, t);
            s.type = PoolingType::kAVERAGE;
            s.excludePadding = false;
            s.window = {4, 3};
            s.mode = m;
            runPool(s, 7);
            s.type = PoolingType::kMAX;
            runPool(s, 8);
        }
        PoolSpec three = typed({}, t);
        three.in = {1, 4, 6, 7, 8};
        three.window = {2, 3, 3};
        three.stride = {2, 2, 1};
        three.pre = {0, 1, 1};
        three.post = {0, 1, 1};
        for (PoolingType type : {PoolingType::kMAX, PoolingType::kAVERAGE, PoolingType::kMAX_AVERAGE_BLEND})
        {
            three.type = type;
            runPool(three, 9);
        }
    }
}

TEST(CudaParity, PoolingInt8AndMixedTypes)
{
    for (PoolingType type : {PoolingType::kMAX, PoolingType::kAVERAGE, PoolingType::kMAX_AVERAGE_BLEND})
    {
        PoolSpec s = typed({}, DataType::kINT8);
        s.type = type;
        s.pre = {1, 1};
        s.post = {1, 1};
        runPool(s, 10);
        s.excludePadding = false;
        runPool(s, 11);
        PoolSpec mixed = typed({}, DataType::kHALF);
        mixed.type = type;
        mixed.outType = DataType::kFLOAT;
        runPool(mixed, 12);
    }
}

TEST(CudaParity, PoolingNetwork)
{
    checkParity([](nvinfer1::INetworkDefinition& net) {
        auto* x = net.addInput("x", DataType::kFLOAT, dims({2, 4, 13, 10}));
        auto* p = net.addPoolingNd(*x, PoolingType::kMAX, dims({3, 3}));
        p->setStrideNd(dims({2, 2}));
        p->setPaddingNd(dims({1, 1}));
        auto* a = net.addPoolingNd(*p->getOutput(0), PoolingType::kAVERAGE, dims({2, 2}));
        net.markOutput(*a->getOutput(0));
    });
}

KernelSetup poolSetup(PlanNode const& node, DataType in, DataType out)
{
    KernelSetup s;
    s.node = &node;
    s.inputTypes = {in};
    s.inputPresent = {true};
    s.inputRanks = {4};
    s.outputTypes = {out};
    s.outputRanks = {4};
    return s;
}

TEST(CudaKernelTable, PoolingTactics)
{
    auto tactics = ::kiln::cuda::cudaKernelTactics(LayerType::kPOOLING);
    ASSERT_NE(tactics, nullptr);
    PoolSpec spec;
    PlanNode node = poolNode(spec, "");
    std::vector<std::string> const both{"cudnn", "kiln"};
    std::vector<std::string> const kiln{"kiln"};
    EXPECT_EQ(tactics(poolSetup(node, DataType::kFLOAT, DataType::kFLOAT)), both);
    EXPECT_EQ(tactics(poolSetup(node, DataType::kBF16, DataType::kBF16)), both);
    EXPECT_EQ(tactics(poolSetup(node, DataType::kINT8, DataType::kINT8)), kiln);
    EXPECT_EQ(tactics(poolSetup(node, DataType::kHALF, DataType::kFLOAT)), kiln);
    EXPECT_TRUE(tactics(poolSetup(node, DataType::kINT32, DataType::kINT32)).empty());
    spec.type = PoolingType::kMAX_AVERAGE_BLEND;
    spec.blend = 0.25;
    PlanNode blend = poolNode(spec, "");
    EXPECT_EQ(tactics(poolSetup(blend, DataType::kFLOAT, DataType::kFLOAT)), kiln);
    // Creation errors (before anything touches the GPU).
    auto r = ::kiln::cuda::cudaKernelFactory(LayerType::kPOOLING)(poolSetup(node, DataType::kINT32, DataType::kINT32));
    ASSERT_FALSE(r.isOk());
    EXPECT_NE(r.status().message().find("Pooling node 'pool'"), std::string::npos) << r.status().message();
    node.attrs.setFloat("blendFactor", 1.5);
    r = ::kiln::cuda::cudaKernelFactory(LayerType::kPOOLING)(poolSetup(node, DataType::kFLOAT, DataType::kFLOAT));
    ASSERT_FALSE(r.isOk());
    EXPECT_NE(r.status().message().find("blendFactor"), std::string::npos) << r.status().message();
}

} // namespace
} // namespace kiln::test::cuda
