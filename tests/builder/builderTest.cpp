// Builder: invalid networks and configs are rejected with messages naming the layer/tensor/profile; builds
// are deterministic; progress monitors see the phases and can cancel; error recorders receive failures;
// optimization profiles drive dynamic shapes.
#include "common/networkRunner.h"

#include <gtest/gtest.h>

namespace kiln::test
{
namespace
{
using namespace nvinfer1;

ITensor* addSum(INetworkDefinition& net, ITensor* a, ITensor* b)
{
    auto* l = net.addElementWise(*a, *b, ElementWiseOperation::kSUM);
    return l != nullptr ? l->getOutput(0) : nullptr;
}

TEST(BuilderTest, NetworkWithoutOutputsFails)
{
    NetworkRunner r;
    r.addInput("x", DataType::kFLOAT, {2, 3});
    EXPECT_FALSE(r.build());
    EXPECT_TRUE(r.logger().hasError("no outputs")) << r.logger().allErrors();
}

// A tensor whose element count does not fit in int64_t is a build error naming it (the first such tensor: here the
// input), not an overflowed arena size (undefined behaviour found by onnxStructureFuzz).
TEST(BuilderTest, TensorBeyondAddressableMemoryIsNamed)
{
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {int64_t{1} << 31, int64_t{1} << 31, 8});
    auto* relu = r.network().addActivation(*x, ActivationType::kRELU);
    relu->getOutput(0)->setName("huge");
    auto* sigmoid = r.network().addActivation(*relu->getOutput(0), ActivationType::kSIGMOID);
    r.markOutput(sigmoid->getOutput(0), "y");
    EXPECT_FALSE(r.build());
    EXPECT_TRUE(r.logger().hasError("tensor 'x' has more elements than memory can address")) << r.logger().allErrors();
}

TEST(BuilderTest, DanglingTensorIsNamed)
{
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {2, 3});
    auto* id = r.network().addIdentity(*x);
    id->setName("myIdentity");
    r.markOutput(id->getOutput(0), "y");
    r.network().removeTensor(*x);
    EXPECT_FALSE(r.build());
    EXPECT_TRUE(r.logger().hasError("myIdentity")) << r.logger().allErrors();
    EXPECT_TRUE(r.logger().hasError("dangling")) << r.logger().allErrors();
}

TEST(BuilderTest, CycleIsRejectedNamingTheLayers)
{
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {4});
    auto* a = r.network().addElementWise(*x, *x, ElementWiseOperation::kSUM);
    a->setName("first");
    auto* b = r.network().addIdentity(*a->getOutput(0));
    b->setName("second");
    a->setInput(1, *b->getOutput(0));
    r.markOutput(b->getOutput(0), "y");
    EXPECT_FALSE(r.build());
    EXPECT_TRUE(r.logger().hasError("cycle")) << r.logger().allErrors();
    EXPECT_TRUE(r.logger().hasError("'first'")) << r.logger().allErrors();
}

TEST(BuilderTest, TypeMismatchNamesTheLayer)
{
    NetworkRunner r(1U << static_cast<uint32_t>(NetworkDefinitionCreationFlag::kSTRONGLY_TYPED));
    ITensor* a = r.addInput("a", DataType::kFLOAT, {2, 2});
    ITensor* b = r.addInput("b", DataType::kINT32, {2, 2});
    auto* l = r.network().addElementWise(*a, *b, ElementWiseOperation::kSUM);
    if (l == nullptr)
    {
        // Rejected at creation: that is fine too, as long as the message says why.
        EXPECT_FALSE(r.logger().errors().empty());
        return;
    }
    l->setName("mixedAdd");
    r.markOutput(l->getOutput(0), "y");
    EXPECT_FALSE(r.build());
    EXPECT_TRUE(r.logger().hasError("mixedAdd")) << r.logger().allErrors();
}

TEST(BuilderTest, WrongRankIsRejected)
{
    NetworkRunner r;
    ITensor* a = r.addInput("a", DataType::kFLOAT, {2, 3});
    ITensor* b = r.addInput("b", DataType::kFLOAT, {2, 3, 4});
    auto* l = r.network().addElementWise(*a, *b, ElementWiseOperation::kSUM);
    ASSERT_NE(l, nullptr);
    l->setName("rankMismatch");
    r.markOutput(l->getOutput(0), "y");
    EXPECT_FALSE(r.build());
    EXPECT_TRUE(r.logger().hasError("rankMismatch")) << r.logger().allErrors();
}

TEST(BuilderTest, DynamicInputWithoutProfileFails)
{
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {-1, 3});
    r.markOutput(r.network().addIdentity(*x)->getOutput(0), "y");
    EXPECT_FALSE(r.build());
    EXPECT_TRUE(r.logger().hasError("optimization profile")) << r.logger().allErrors();
}

TEST(BuilderTest, ProfileErrorsNameInputAndProfile)
{
    struct Case
    {
        std::vector<int64_t> min, opt, max;
        char const* expected;
    };
    std::vector<Case> cases = {
        {{1, 3}, {2, 3}, {4, 4}, "fixes it to 3"},
        {{1}, {2}, {4}, "rank"},
    };
    for (auto const& c : cases)
    {
        NetworkRunner r;
        ITensor* x = r.addInput("x", DataType::kFLOAT, {-1, 3});
        r.markOutput(r.network().addIdentity(*x)->getOutput(0), "y");
        r.setProfileDims("x", c.min, c.opt, c.max);
        bool const built = r.build();
        EXPECT_FALSE(built);
        EXPECT_TRUE(r.logger().hasError(c.expected) || r.logger().hasError("invalid")) << r.logger().allErrors();
    }
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {-1, 3});
    r.markOutput(r.network().addIdentity(*x)->getOutput(0), "y");
    r.setProfileDims("x", {1, 3}, {2, 3}, {4, 3});
    r.setProfileDims("nosuch", {1}, {1}, {1});
    EXPECT_FALSE(r.build());
    EXPECT_TRUE(r.logger().hasError("'nosuch'")) << r.logger().allErrors();
}

TEST(BuilderTest, BuildsAreDeterministic)
{
    auto buildOnce = [] {
        NetworkRunner r;
        ITensor* x = r.addInput("x", DataType::kFLOAT, {-1, 8});
        float w[8] = {1, 2, 3, 4, 5, 6, 7, 8};
        auto* c = r.network().addConstant(makeDims({1, 8}), Weights{DataType::kFLOAT, w, 8});
        ITensor* s = addSum(r.network(), x, c->getOutput(0));
        r.markOutput(r.network().addActivation(*s, ActivationType::kRELU)->getOutput(0), "y");
        r.setProfileDims("x", {1, 8}, {4, 8}, {16, 8});
        EXPECT_TRUE(r.build()) << r.logger().allErrors();
        return r.engineBytes();
    };
    std::vector<uint8_t> const a = buildOnce();
    std::vector<uint8_t> const b = buildOnce();
    ASSERT_FALSE(a.empty());
    EXPECT_EQ(a, b);
}

class CountingMonitor : public IProgressMonitor
{
public:
    explicit CountingMonitor(int32_t cancelAt)
        : mCancelAt(cancelAt)
    {
    }
    void phaseStart(char const*, char const*, int32_t nbSteps) noexcept override
    {
        ++starts;
        steps = nbSteps;
    }
    bool stepComplete(char const*, int32_t step) noexcept override
    {
        ++completed;
        return step != mCancelAt;
    }
    void phaseFinish(char const*) noexcept override { ++finishes; }
    int32_t starts{0};
    int32_t finishes{0};
    int32_t completed{0};
    int32_t steps{0};

private:
    int32_t mCancelAt;
};

TEST(BuilderTest, ProgressMonitorSeesPhasesAndCanCancel)
{
    {
        NetworkRunner r;
        ITensor* x = r.addInput("x", DataType::kFLOAT, {2});
        r.markOutput(r.network().addIdentity(*x)->getOutput(0), "y");
        CountingMonitor monitor(-1);
        r.config().setProgressMonitor(&monitor);
        EXPECT_TRUE(r.build()) << r.logger().allErrors();
        EXPECT_EQ(monitor.starts, 1);
        EXPECT_EQ(monitor.finishes, 1);
        EXPECT_GT(monitor.steps, 0);
        EXPECT_EQ(monitor.completed, monitor.steps);
    }
    {
        NetworkRunner r;
        ITensor* x = r.addInput("x", DataType::kFLOAT, {2});
        r.markOutput(r.network().addIdentity(*x)->getOutput(0), "y");
        CountingMonitor monitor(1);
        r.config().setProgressMonitor(&monitor);
        EXPECT_FALSE(r.build());
        EXPECT_TRUE(r.logger().hasError("cancelled")) << r.logger().allErrors();
        EXPECT_EQ(monitor.finishes, 1);
    }
}

TEST(BuilderTest, ErrorRecorderReceivesBuildFailures)
{
    NetworkRunner r;
    RecordingErrorRecorder recorder;
    r.builder().setErrorRecorder(&recorder);
    r.addInput("x", DataType::kFLOAT, {2});
    EXPECT_FALSE(r.build());
    EXPECT_GE(recorder.getNbErrors(), 1);
    EXPECT_NE(std::string(recorder.getErrorDesc(0)).find("no outputs"), std::string::npos);
    r.builder().setErrorRecorder(nullptr);
}

TEST(BuilderTest, PrecisionFlagsAreRejectedForStronglyTypedNetworks)
{
    NetworkRunner r(1U << static_cast<uint32_t>(NetworkDefinitionCreationFlag::kSTRONGLY_TYPED));
    ITensor* x = r.addInput("x", DataType::kFLOAT, {2});
    r.markOutput(r.network().addIdentity(*x)->getOutput(0), "y");
    r.config().setFlag(BuilderFlag::kFP16);
    EXPECT_FALSE(r.build());
    EXPECT_TRUE(r.logger().hasError("strongly typed")) << r.logger().allErrors();
}

TEST(BuilderTest, Fp16FlagKeepsNetworkIoTypes)
{
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {3, 5});
    ITensor* y = r.network().addActivation(*x, ActivationType::kSIGMOID)->getOutput(0);
    r.markOutput(y, "y");
    r.config().setFlag(BuilderFlag::kFP16);
    r.config().setFlag(BuilderFlag::kBF16);
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    EXPECT_EQ(r.engine().getTensorDataType("x"), DataType::kFLOAT);
    EXPECT_EQ(r.engine().getTensorDataType("y"), DataType::kFLOAT);
    std::mt19937 rng(3);
    HostTensor in = HostTensor::random(DataType::kFLOAT, makeDims({3, 5}), rng, -4, 4);
    auto out = r.run({{"x", in}});
    HostTensor expected(DataType::kFLOAT, in.dims);
    for (int64_t i = 0; i < in.volume(); ++i)
    {
        expected.set(i, 1.0 / (1.0 + std::exp(-in.at(i))));
    }
    EXPECT_TRUE(allClose(out["y"], expected, 1e-3, 1e-3));
}

TEST(BuilderTest, OutputTypeOverrideInWeaklyTypedNetwork)
{
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {4, 4});
    auto* act = r.network().addActivation(*x, ActivationType::kRELU);
    act->setOutputType(0, DataType::kHALF);
    ITensor* y = act->getOutput(0);
    r.markOutput(y, "y");
    y->setType(DataType::kHALF);
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    EXPECT_EQ(r.engine().getTensorDataType("y"), DataType::kHALF);
    std::mt19937 rng(4);
    HostTensor in = HostTensor::random(DataType::kFLOAT, makeDims({4, 4}), rng, -2, 2);
    auto out = r.run({{"x", in}});
    HostTensor expected(DataType::kHALF, in.dims);
    for (int64_t i = 0; i < in.volume(); ++i)
    {
        expected.set(i, std::max(0.0, in.at(i)));
    }
    EXPECT_TRUE(allClose(out["y"], expected, 1e-3, 1e-3));
}

TEST(BuilderTest, DynamicShapesAcrossTwoProfiles)
{
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {-1, 6});
    float w[6] = {0.5F, -1.F, 2.F, 3.F, -0.25F, 1.5F};
    auto* c = r.network().addConstant(makeDims({1, 6}), Weights{DataType::kFLOAT, w, 6});
    auto* prod = r.network().addElementWise(*x, *c->getOutput(0), ElementWiseOperation::kPROD);
    r.markOutput(prod->getOutput(0), "y");
    r.setProfileDims("x", {1, 6}, {2, 6}, {4, 6}, 0);
    r.setProfileDims("x", {8, 6}, {16, 6}, {32, 6}, 1);
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    EXPECT_EQ(r.engine().getNbOptimizationProfiles(), 2);
    EXPECT_EQ(r.engine().getTensorShape("x").d[0], -1);
    std::mt19937 rng(5);
    for (auto [profile, batch] : std::vector<std::pair<int32_t, int64_t>>{{0, 1}, {0, 3}, {1, 8}, {1, 29}})
    {
        HostTensor in = HostTensor::random(DataType::kFLOAT, makeDims({batch, 6}), rng);
        auto out = r.run({{"x", in}}, profile);
        HostTensor expected(DataType::kFLOAT, in.dims);
        for (int64_t i = 0; i < in.volume(); ++i)
        {
            expected.set(i, in.at(i) * w[i % 6]);
        }
        EXPECT_TRUE(allClose(out["y"], expected, 0, 0)) << "profile " << profile << " batch " << batch;
    }
    // Outside profile 0's range: setInputShape fails with a message naming the tensor.
    std::map<std::string, HostTensor> outs;
    HostTensor tooBig = HostTensor::random(DataType::kFLOAT, makeDims({5, 6}), rng);
    EXPECT_FALSE(r.tryRun({{"x", tooBig}}, outs, 0));
    EXPECT_TRUE(r.logger().hasError("'x'")) << r.logger().allErrors();
}

TEST(BuilderTest, TensorDimensionsAreKnownWhileBuildingTheNetwork)
{
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {-1, 6});
    auto* c = r.network().addConstant(makeDims({1, 6}), Weights{DataType::kFLOAT, nullptr, 0});
    (void) c;
    float w[6] = {};
    auto* c2 = r.network().addConstant(makeDims({1, 6}), Weights{DataType::kFLOAT, w, 6});
    ITensor* s = addSum(r.network(), x, c2->getOutput(0));
    Dims d = s->getDimensions();
    ASSERT_EQ(d.nbDims, 2);
    EXPECT_EQ(d.d[0], -1);
    EXPECT_EQ(d.d[1], 6);
    EXPECT_EQ(s->getType(), DataType::kFLOAT);
}

TEST(BuilderTest, NamedDimensionsMustAgreeAtRuntime)
{
    NetworkRunner r;
    ITensor* a = r.addInput("a", DataType::kFLOAT, {-1, 4});
    ITensor* b = r.addInput("b", DataType::kFLOAT, {-1, 4});
    a->setDimensionName(0, "batch");
    b->setDimensionName(0, "batch");
    r.markOutput(addSum(r.network(), a, b), "y");
    r.setProfileDims("a", {1, 4}, {2, 4}, {8, 4});
    r.setProfileDims("b", {1, 4}, {2, 4}, {8, 4});
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    std::mt19937 rng(6);
    std::map<std::string, HostTensor> outs;
    HostTensor a3 = HostTensor::random(DataType::kFLOAT, makeDims({3, 4}), rng);
    HostTensor b5 = HostTensor::random(DataType::kFLOAT, makeDims({5, 4}), rng);
    EXPECT_FALSE(r.tryRun({{"a", a3}, {"b", b5}}, outs));
    EXPECT_TRUE(r.logger().hasError("batch")) << r.logger().allErrors();
    HostTensor b3 = HostTensor::random(DataType::kFLOAT, makeDims({3, 4}), rng);
    auto out = r.run({{"a", a3}, {"b", b3}});
    HostTensor expected(DataType::kFLOAT, a3.dims);
    for (int64_t i = 0; i < a3.volume(); ++i)
    {
        expected.set(i, static_cast<float>(a3.at(i)) + static_cast<float>(b3.at(i)));
    }
    EXPECT_TRUE(allClose(out["y"], expected, 0, 0));
}

TEST(BuilderTest, BuildEngineWithConfigMatchesDeserializedEngine)
{
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {2, 3});
    r.markOutput(r.network().addActivation(*x, ActivationType::kTANH)->getOutput(0), "y");
    std::unique_ptr<ICudaEngine> direct(r.builder().buildEngineWithConfig(r.network(), r.config()));
    ASSERT_NE(direct, nullptr) << r.logger().allErrors();
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    std::unique_ptr<IHostMemory> again(direct->serialize());
    ASSERT_NE(again, nullptr);
    std::vector<uint8_t> bytes(static_cast<uint8_t const*>(again->data()),
        static_cast<uint8_t const*>(again->data()) + again->size());
    EXPECT_EQ(bytes, r.engineBytes());
}

class VectorWriter : public IStreamWriter
{
public:
    int64_t write(void const* data, int64_t nbBytes) noexcept override
    {
        auto const* p = static_cast<uint8_t const*>(data);
        bytes.insert(bytes.end(), p, p + nbBytes);
        return nbBytes;
    }
    std::vector<uint8_t> bytes;
};

TEST(BuilderTest, BuildToStreamGivesTheSameBytes)
{
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {2, 3});
    r.markOutput(r.network().addActivation(*x, ActivationType::kRELU)->getOutput(0), "y");
    VectorWriter writer;
    ASSERT_TRUE(r.builder().buildSerializedNetworkToStream(r.network(), r.config(), writer)) << r.logger().allErrors();
    ASSERT_TRUE(r.build());
    EXPECT_EQ(writer.bytes, r.engineBytes());
}

} // namespace
} // namespace kiln::test

namespace kiln::test
{
namespace
{
using namespace nvinfer1;

//! A zero workspace pool leaves only the tactics that need no scratch memory (the reference kernels).
TEST(BuilderTest, ZeroWorkspaceLimitSelectsWorkspaceFreeTactics)
{
    for (bool zeroWorkspace : {false, true})
    {
        NetworkRunner r;
        ITensor* a = r.addInput("a", DataType::kFLOAT, {8, 16});
        std::vector<float> w(16 * 4, 0.5F);
        auto* c = r.network().addConstant(makeDims({16, 4}), Weights{DataType::kFLOAT, w.data(), 64});
        auto* mm = r.network().addMatrixMultiply(*a, MatrixOperation::kNONE, *c->getOutput(0), MatrixOperation::kNONE);
        mm->setName("mm");
        r.markOutput(mm->getOutput(0), "y");
        r.config().setProfilingVerbosity(ProfilingVerbosity::kDETAILED);
        if (zeroWorkspace)
        {
            r.config().setMemoryPoolLimit(MemoryPoolType::kWORKSPACE, 0);
        }
        EXPECT_EQ(r.config().getMemoryPoolLimit(MemoryPoolType::kWORKSPACE) == 0, zeroWorkspace);
        ASSERT_TRUE(r.build()) << r.logger().allErrors();
        std::unique_ptr<IEngineInspector> inspector(r.engine().createEngineInspector());
        std::string const info = inspector->getLayerInformation(0, LayerInformationFormat::kJSON);
        if (zeroWorkspace)
        {
            EXPECT_NE(info.find("reference"), std::string::npos) << info;
        }
        std::mt19937 rng(8);
        HostTensor in = HostTensor::random(DataType::kFLOAT, makeDims({8, 16}), rng);
        auto out = r.run({{"a", in}});
        HostTensor expected(DataType::kFLOAT, makeDims({8, 4}));
        for (int64_t i = 0; i < 8; ++i)
        {
            double sum = 0;
            for (int64_t k = 0; k < 16; ++k)
            {
                sum += in.at(i * 16 + k) * 0.5;
            }
            for (int64_t j = 0; j < 4; ++j)
            {
                expected.set(i * 4 + j, sum);
            }
        }
        EXPECT_TRUE(allClose(out["y"], expected, 1e-5, 1e-5));
    }
}

} // namespace
} // namespace kiln::test
