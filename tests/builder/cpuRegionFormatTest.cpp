// The CPU backend's region format end to end (channelLastPass with BackendCapabilities::region of the CPU: oneDNN's
// preferred FP32 convolution layout, kHWC on AVX-512): a small ResNet-style CNN (stem, max pool, residual blocks with
// fused additions, a projection shortcut, a sigmoid and a product left as separate layers, a global average pool as a
// reduction) built with and without the pass (KILN_CHANNEL_LAST=0) gives the same outputs on random data at several
// batch sizes; the plan keeps every activation in the format from the input's reformat to the reduction, which reads
// it and writes the linear output; the engine inspector names the format.
#include "NvInfer.h"
#include "backends/backend.h"
#include "common/builtPlan.h"
#include "common/networkRunner.h"
#include "core/tensorFormat.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace
{
using namespace nvinfer1;
using kiln::test::HostTensor;
using kiln::test::NetworkRunner;

struct CnnWeights
{
    std::vector<std::vector<float>> kernels;
    std::vector<std::vector<float>> biases;
};

class Cnn
{
public:
    Cnn(NetworkRunner& r, CnnWeights& w)
        : mR(r)
        , mW(w)
    {
    }

    ITensor* conv(ITensor& x, int32_t cin, int32_t cout, int32_t kernel, int32_t stride, bool relu, char const* name)
    {
        std::mt19937 rng(static_cast<uint32_t>(mW.kernels.size() + 1));
        float const scale = std::sqrt(2.F / static_cast<float>(cin * kernel * kernel));
        std::uniform_real_distribution<float> dist(-scale, scale);
        mW.kernels.emplace_back(static_cast<size_t>(cout * cin * kernel * kernel));
        mW.biases.emplace_back(static_cast<size_t>(cout));
        for (float& v : mW.kernels.back())
        {
            v = dist(rng);
        }
        for (float& v : mW.biases.back())
        {
            v = dist(rng) * 0.1F;
        }
        auto* c = mR.network().addConvolutionNd(x, cout, Dims2{kernel, kernel},
            Weights{DataType::kFLOAT, mW.kernels.back().data(), static_cast<int64_t>(mW.kernels.back().size())},
            Weights{DataType::kFLOAT, mW.biases.back().data(), static_cast<int64_t>(mW.biases.back().size())});
        c->setStrideNd(Dims2{stride, stride});
        c->setPaddingNd(Dims2{kernel / 2, kernel / 2});
        c->setName(name);
        return relu ? mR.network().addActivation(*c->getOutput(0), ActivationType::kRELU)->getOutput(0) : c->getOutput(0);
    }

    ITensor* addRelu(ITensor& a, ITensor& b)
    {
        auto* sum = mR.network().addElementWise(a, b, ElementWiseOperation::kSUM);
        return mR.network().addActivation(*sum->getOutput(0), ActivationType::kRELU)->getOutput(0);
    }

private:
    NetworkRunner& mR;
    CnnWeights& mW;
};

//! x[N, 3, 32, 32] -> stem conv 3->16 /2 + ReLU -> max pool 3x3/2 -> block (16) -> block with projection (16->20 /2;
//! 20 channels: not a multiple of 16) -> sigmoid "sig" * the block's output ("prod") -> global average pool (a
//! reduction over axes 2, 3) -> "y" [N, 20, 1, 1].
void buildCnn(NetworkRunner& r, CnnWeights& w)
{
    Cnn cnn(r, w);
    ITensor* x = r.addInput("x", DataType::kFLOAT, {-1, 3, 32, 32});
    ITensor* t = cnn.conv(*x, 3, 16, 3, 2, true, "stem");
    auto* pool = r.network().addPoolingNd(*t, PoolingType::kMAX, Dims2{3, 3});
    pool->setStrideNd(Dims2{2, 2});
    pool->setPaddingNd(Dims2{1, 1});
    pool->setName("maxpool");
    t = pool->getOutput(0);
    ITensor* y = cnn.conv(*t, 16, 16, 3, 1, true, "b1c1");
    y = cnn.conv(*y, 16, 16, 3, 1, false, "b1c2");
    t = cnn.addRelu(*y, *t);
    y = cnn.conv(*t, 16, 20, 3, 2, true, "b2c1");
    y = cnn.conv(*y, 20, 20, 3, 1, false, "b2c2");
    ITensor* skip = cnn.conv(*t, 16, 20, 1, 2, false, "b2proj");
    t = cnn.addRelu(*y, *skip);
    auto* sig = r.network().addActivation(*t, ActivationType::kSIGMOID);
    sig->setName("sig");
    auto* prod = r.network().addElementWise(*sig->getOutput(0), *t, ElementWiseOperation::kPROD);
    prod->setName("prod");
    auto* gap = r.network().addReduce(*prod->getOutput(0), ReduceOperation::kAVG, 0b1100, true);
    gap->setName("gap");
    r.markOutput(gap->getOutput(0), "y");
    r.setProfileDims("x", {1, 3, 32, 32}, {2, 3, 32, 32}, {4, 3, 32, 32});
}

bool isRegion(kiln::PlanNode const& n)
{
    return n.attrs.getInt(kiln::kCHANNEL_LAST_ATTRIBUTE, 0) != 0;
}

kiln::PlanNode const* nodeStartingWith(kiln::Plan const& plan, std::string const& prefix)
{
    for (kiln::PlanNode const& n : plan.nodes)
    {
        if (n.name.rfind(prefix, 0) == 0)
        {
            return &n;
        }
    }
    return nullptr;
}

TEST(CpuRegionFormat, CnnGivesTheSameOutputsWithAndWithoutThePass)
{
    kiln::RegionFormat const& region = kiln::cpuBackend().capabilities().region;
    if (region.kinds == 0)
    {
        GTEST_SKIP() << "the CPU backend has no region format here (no oneDNN, or a layout without a TensorRT format)";
    }
    CnnWeights w;
    NetworkRunner withPass(kiln::BackendKind::kCPU, 0);
    buildCnn(withPass, w);
    withPass.config().setProfilingVerbosity(ProfilingVerbosity::kDETAILED);
    ASSERT_TRUE(withPass.build()) << withPass.logger().allErrors();
    CnnWeights w2;
    NetworkRunner without(kiln::BackendKind::kCPU, 0);
    buildCnn(without, w2);
    setenv("KILN_CHANNEL_LAST", "0", 1);
    bool const built = without.build();
    unsetenv("KILN_CHANNEL_LAST");
    ASSERT_TRUE(built) << without.logger().allErrors();

    // The plan: every convolution, the pool, the sigmoid and the product in the format; the reduction reads it.
    auto plan = kiln::test::builtPlan(withPass);
    ASSERT_TRUE(plan.has_value());
    for (char const* name : {"stem", "maxpool", "b1c1", "b1c2", "b2c1", "b2c2", "b2proj", "sig", "prod", "gap"})
    {
        kiln::PlanNode const* n = nodeStartingWith(*plan, name);
        ASSERT_NE(n, nullptr) << name;
        EXPECT_TRUE(isRegion(*n)) << name << " runs in the region format";
        EXPECT_EQ(n->attrs.getInt(kiln::kREGION_FORMAT_ATTRIBUTE, -1), static_cast<int64_t>(region.format)) << name;
    }
    kiln::PlanNode const* gap = nodeStartingWith(*plan, "gap");
    EXPECT_EQ(plan->tensors[static_cast<size_t>(gap->inputs[0])].format, region.format);
    EXPECT_EQ(plan->tensors[static_cast<size_t>(gap->outputs[0])].format, TensorFormat::kLINEAR);
    int32_t reformats = 0;
    for (kiln::PlanNode const& n : plan->nodes)
    {
        if (n.kind == LayerType::kIDENTITY && n.attrs.getInt("reformat", 0) == 1)
        {
            ++reformats;
            EXPECT_EQ(plan->tensors[static_cast<size_t>(n.inputs[0])].name, "x") << "only the network input is reformatted";
        }
    }
    EXPECT_EQ(reformats, 1);
    auto plain = kiln::test::builtPlan(without);
    ASSERT_TRUE(plain.has_value());
    for (kiln::PlanNode const& n : plain->nodes)
    {
        EXPECT_FALSE(isRegion(n)) << n.name;
    }

    std::mt19937 rng(5);
    for (int64_t batch : {2, 1, 4})
    {
        SCOPED_TRACE("batch " + std::to_string(batch));
        std::map<std::string, HostTensor> inputs;
        inputs["x"] = HostTensor::random(DataType::kFLOAT, kiln::test::makeDims({batch, 3, 32, 32}), rng, -1.0, 1.0);
        std::map<std::string, HostTensor> const expected = without.run(inputs);
        std::map<std::string, HostTensor> const actual = withPass.run(inputs);
        ASSERT_EQ(actual.at("y").volume(), batch * 20);
        EXPECT_TRUE(kiln::test::allClose(actual.at("y"), expected.at("y"), 1e-5, 1e-5));
    }

    // The inspector names the region format of each layer and the format of its tensors.
    std::unique_ptr<IEngineInspector> inspector(withPass.engine().createEngineInspector());
    ASSERT_NE(inspector, nullptr);
    std::string const info = inspector->getEngineInformation(LayerInformationFormat::kJSON);
    std::string const attr = std::string("\"regionFormat\":\"") + kiln::formatName(region.format) + "\"";
    EXPECT_NE(info.find(attr), std::string::npos) << info;
    if (region.format == TensorFormat::kHWC)
    {
        EXPECT_NE(info.find("\"Format/Datatype\": \"Channel major FP32\""), std::string::npos) << info;
    }
}

} // namespace
