// precisionPass on the CPU backend (KILN_PRECISION=1): weakly typed networks built with kFP16/kBF16 run their layers
// in the reduced type, stay within FP16/BF16 tolerance of the FP32 engine on random data, keep their I/O types, and
// honour ILayer::setPrecision / setOutputType; without the switch (or the flag) nothing changes.
#include "common/networkRunner.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <optional>
#include <random>
#include <string>

namespace kiln::test
{
namespace
{
using namespace nvinfer1;

//! Sets an environment variable for the scope and restores the previous value.
class ScopedEnv
{
public:
    ScopedEnv(char const* name, char const* value)
        : mName(name)
    {
        if (char const* old = std::getenv(name))
        {
            mOld = old;
        }
        ::setenv(name, value, 1);
    }
    ~ScopedEnv()
    {
        if (mOld)
        {
            ::setenv(mName.c_str(), mOld->c_str(), 1);
        }
        else
        {
            ::unsetenv(mName.c_str());
        }
    }
    ScopedEnv(ScopedEnv const&) = delete;
    ScopedEnv& operator=(ScopedEnv const&) = delete;

private:
    std::string mName;
    std::optional<std::string> mOld;
};

//! KILN_PRECISION as given, and fusion off (KILN_FUSE=0): these tests look layers up by their own names, which a
//! fused node would replace with "a + b".
class ScopedPrecisionEnv
{
public:
    explicit ScopedPrecisionEnv(char const* value)
        : mPrecision("KILN_PRECISION", value)
        , mFuse("KILN_FUSE", "0")
    {
    }

private:
    ScopedEnv mPrecision;
    ScopedEnv mFuse;
};

//! Host weights that outlive the build (TensorRT's rule: the memory stays valid until the engine is built).
struct WeightStore
{
    std::vector<std::unique_ptr<HostTensor>> tensors;
    Weights add(std::vector<int64_t> const& dims, std::mt19937& rng, double scale)
    {
        tensors.push_back(std::make_unique<HostTensor>(HostTensor::random(DataType::kFLOAT, makeDims(dims), rng, -scale, scale)));
        return Weights{DataType::kFLOAT, tensors.back()->data(), tensors.back()->volume()};
    }
};

ITensor* constant(NetworkRunner& r, WeightStore& store, std::vector<int64_t> const& dims, std::mt19937& rng,
    double scale, char const* name)
{
    auto* c = r.network().addConstant(makeDims(dims), store.add(dims, rng, scale));
    c->setName(name);
    return c->getOutput(0);
}

std::string engineJson(NetworkRunner& r)
{
    std::unique_ptr<IEngineInspector> inspector(r.engine().createEngineInspector());
    if (inspector == nullptr)
    {
        return "";
    }
    char const* text = inspector->getEngineInformation(LayerInformationFormat::kJSON);
    return text == nullptr ? "" : text;
}

//! The JSON object of the layer named `name` (from its "Name" to the next layer), or "" when absent.
std::string layerJson(std::string const& json, std::string const& name)
{
    size_t const at = json.find("{\"Name\": \"" + name + "\"");
    if (at == std::string::npos)
    {
        return "";
    }
    size_t const next = json.find("\n{\"Name\"", at + 1);
    return json.substr(at, next == std::string::npos ? std::string::npos : next - at);
}

//! MLP with a softmax: x[8,64] -> matmul W1 -> + b1 -> relu ("h", also an output) -> matmul W2 -> softmax -> y.
void buildMlp(NetworkRunner& r, WeightStore& store, uint32_t seed)
{
    std::mt19937 rng(seed);
    ITensor* x = r.addInput("x", DataType::kFLOAT, {8, 64});
    ITensor* w1 = constant(r, store, {64, 128}, rng, 0.2, "W1");
    ITensor* b1 = constant(r, store, {1, 128}, rng, 0.5, "b1");
    ITensor* w2 = constant(r, store, {128, 32}, rng, 0.2, "W2");
    auto* mm1 = r.network().addMatrixMultiply(*x, MatrixOperation::kNONE, *w1, MatrixOperation::kNONE);
    mm1->setName("fc1");
    auto* add = r.network().addElementWise(*mm1->getOutput(0), *b1, ElementWiseOperation::kSUM);
    add->setName("bias1");
    auto* relu = r.network().addActivation(*add->getOutput(0), ActivationType::kRELU);
    relu->setName("relu1");
    auto* mm2 = r.network().addMatrixMultiply(*relu->getOutput(0), MatrixOperation::kNONE, *w2, MatrixOperation::kNONE);
    mm2->setName("fc2");
    auto* softmax = r.network().addSoftMax(*mm2->getOutput(0));
    softmax->setAxes(1U << 1);
    softmax->setName("softmax");
    r.markOutput(relu->getOutput(0), "h");
    r.markOutput(softmax->getOutput(0), "y");
    r.config().setProfilingVerbosity(ProfilingVerbosity::kDETAILED);
}

TEST(PrecisionPassTest, Fp16MlpMatchesFp32WithinTolerance)
{
    ScopedPrecisionEnv env("1");
    std::mt19937 rng(11);
    std::map<std::string, HostTensor> inputs{{"x", HostTensor::random(DataType::kFLOAT, makeDims({8, 64}), rng)}};

    WeightStore storeRef;
    NetworkRunner ref;
    buildMlp(ref, storeRef, 5);
    ASSERT_TRUE(ref.build()) << ref.logger().allErrors();
    auto expected = ref.run(inputs);

    WeightStore storeHalf;
    NetworkRunner half;
    buildMlp(half, storeHalf, 5);
    half.config().setFlag(BuilderFlag::kFP16);
    ASSERT_TRUE(half.build()) << half.logger().allErrors();
    auto actual = half.run(inputs);

    // The I/O types follow the network.
    EXPECT_EQ(half.engine().getTensorDataType("x"), DataType::kFLOAT);
    EXPECT_EQ(half.engine().getTensorDataType("h"), DataType::kFLOAT);
    EXPECT_EQ(half.engine().getTensorDataType("y"), DataType::kFLOAT);
    EXPECT_EQ(actual.at("y").type, DataType::kFLOAT);

    // FP16 storage: ~1e-3 relative per rounding; h is O(1), y (softmax over 32) is O(0.03).
    EXPECT_TRUE(allClose(actual.at("h"), expected.at("h"), 1e-2, 1e-2));
    EXPECT_TRUE(allClose(actual.at("y"), expected.at("y"), 2e-3, 2e-2));
    // ...and it really ran in FP16: the results are not the FP32 bits.
    EXPECT_FALSE(sameBits(actual.at("y"), expected.at("y")));

    std::string const json = engineJson(half);
    for (char const* layer : {"fc1", "bias1", "relu1", "fc2", "softmax"})
    {
        std::string const l = layerJson(json, layer);
        ASSERT_FALSE(l.empty()) << layer << " missing in\n" << json;
        EXPECT_NE(l.find("\"Precision\": \"FP16\""), std::string::npos) << l;
    }
    // Casts at the boundaries: the input to FP16, the two outputs back to FP32.
    EXPECT_FALSE(layerJson(json, "x [to FP16]").empty()) << json;
    EXPECT_NE(json.find("[to FP32]"), std::string::npos) << json;
    std::string const refJson = engineJson(ref);
    EXPECT_EQ(refJson.find("FP16"), std::string::npos) << "no kFP16 flag: nothing may change\n" << refJson;
}

TEST(PrecisionPassTest, Bf16ConvolutionNetwork)
{
    ScopedPrecisionEnv env("1");
    std::mt19937 rng(21);
    std::map<std::string, HostTensor> inputs{{"x", HostTensor::random(DataType::kFLOAT, makeDims({2, 4, 8, 8}), rng)}};
    auto build = [](NetworkRunner& r, WeightStore& store, bool bf16) {
        std::mt19937 wrng(3);
        ITensor* x = r.addInput("x", DataType::kFLOAT, {2, 4, 8, 8});
        Weights k = store.add({8, 4, 3, 3}, wrng, 0.3);
        Weights b = store.add({8}, wrng, 0.3);
        auto* conv = r.network().addConvolutionNd(*x, 8, makeDims({3, 3}), k, b);
        conv->setPaddingNd(makeDims({1, 1}));
        conv->setName("conv");
        auto* relu = r.network().addActivation(*conv->getOutput(0), ActivationType::kRELU);
        relu->setName("relu");
        auto* pool = r.network().addPoolingNd(*relu->getOutput(0), PoolingType::kMAX, makeDims({2, 2}));
        pool->setStrideNd(makeDims({2, 2}));
        pool->setName("pool");
        r.markOutput(pool->getOutput(0), "y");
        r.config().setProfilingVerbosity(ProfilingVerbosity::kDETAILED);
        if (bf16)
        {
            r.config().setFlag(BuilderFlag::kBF16);
        }
    };
    WeightStore s1;
    NetworkRunner ref;
    build(ref, s1, false);
    ASSERT_TRUE(ref.build()) << ref.logger().allErrors();
    auto expected = ref.run(inputs);
    WeightStore s2;
    NetworkRunner reduced;
    build(reduced, s2, true);
    ASSERT_TRUE(reduced.build()) << reduced.logger().allErrors();
    auto actual = reduced.run(inputs);
    EXPECT_EQ(reduced.engine().getTensorDataType("y"), DataType::kFLOAT);
    // BF16 keeps 8 significant bits: ~4e-3 relative per rounding; outputs are O(1).
    EXPECT_TRUE(allClose(actual.at("y"), expected.at("y"), 3e-2, 3e-2));
    EXPECT_FALSE(sameBits(actual.at("y"), expected.at("y")));
    std::string const json = engineJson(reduced);
    for (char const* layer : {"conv", "relu", "pool"})
    {
        EXPECT_NE(layerJson(json, layer).find("\"Precision\": \"BF16\""), std::string::npos) << layer << "\n" << json;
    }
}

TEST(PrecisionPassTest, PrecisionConstraintsAreObeyed)
{
    ScopedPrecisionEnv env("1");
    std::mt19937 rng(31);
    std::map<std::string, HostTensor> inputs{{"x", HostTensor::random(DataType::kFLOAT, makeDims({4, 16}), rng)}};
    auto build = [](NetworkRunner& r, WeightStore& store, bool fp16) {
        std::mt19937 wrng(9);
        ITensor* x = r.addInput("x", DataType::kFLOAT, {4, 16});
        ITensor* w = constant(r, store, {16, 16}, wrng, 0.3, "W");
        ITensor* bias = constant(r, store, {1, 16}, wrng, 0.3, "bias");
        ITensor* w2 = constant(r, store, {16, 8}, wrng, 0.3, "W2");
        auto* mm = r.network().addMatrixMultiply(*x, MatrixOperation::kNONE, *w, MatrixOperation::kNONE);
        mm->setName("mm");
        auto* add = r.network().addElementWise(*mm->getOutput(0), *bias, ElementWiseOperation::kSUM);
        add->setName("addFp32");
        auto* act = r.network().addActivation(*add->getOutput(0), ActivationType::kTANH);
        act->setName("tanhOut32");
        auto* mm2 = r.network().addMatrixMultiply(*act->getOutput(0), MatrixOperation::kNONE, *w2, MatrixOperation::kNONE);
        mm2->setName("mm2");
        r.markOutput(mm2->getOutput(0), "y");
        r.config().setProfilingVerbosity(ProfilingVerbosity::kDETAILED);
        if (fp16)
        {
            add->setPrecision(DataType::kFLOAT);
            mm2->setPrecision(DataType::kHALF);
            act->setOutputType(0, DataType::kFLOAT);
            r.config().setFlag(BuilderFlag::kFP16);
            r.config().setFlag(BuilderFlag::kOBEY_PRECISION_CONSTRAINTS);
        }
    };
    WeightStore s1;
    NetworkRunner ref;
    build(ref, s1, false);
    ASSERT_TRUE(ref.build()) << ref.logger().allErrors();
    auto expected = ref.run(inputs);
    WeightStore s2;
    NetworkRunner r;
    build(r, s2, true);
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    auto actual = r.run(inputs);
    EXPECT_TRUE(allClose(actual.at("y"), expected.at("y"), 1e-2, 1e-2));

    std::string const json = engineJson(r);
    std::string const mmJson = layerJson(json, "mm");
    std::string const addJson = layerJson(json, "addFp32");
    std::string const actJson = layerJson(json, "tanhOut32");
    std::string const mm2Json = layerJson(json, "mm2");
    EXPECT_NE(mmJson.find("\"Precision\": \"FP16\""), std::string::npos) << mmJson;
    // setPrecision(kFLOAT): the layer computes in FP32 on FP32 tensors (its input is cast back from FP16).
    EXPECT_NE(addJson.find("\"Precision\": \"FP32\""), std::string::npos) << addJson;
    EXPECT_EQ(addJson.find("FP16"), std::string::npos) << addJson;
    // setOutputType(0, kFLOAT): the layer may run in FP16, but its output tensor stays FP32; the FP16 result goes
    // through a cast into it.
    size_t const outputsAt = actJson.find("\"Outputs\"");
    ASSERT_NE(outputsAt, std::string::npos) << actJson;
    std::string const actOutputs = actJson.substr(outputsAt, actJson.find("\"ParameterType\"") - outputsAt);
    bool const actReduced = actJson.find("\"Precision\": \"FP16\"") != std::string::npos;
    if (actReduced)
    {
        EXPECT_NE(json.find("[to FP32]"), std::string::npos) << json;
    }
    else
    {
        EXPECT_NE(actOutputs.find("FP32"), std::string::npos) << actJson;
    }
    EXPECT_NE(mm2Json.find("\"Precision\": \"FP16\""), std::string::npos) << mm2Json;
    EXPECT_EQ(r.engine().getTensorDataType("y"), DataType::kFLOAT);
}

TEST(PrecisionPassTest, SwitchOffLeavesTheEngineInFp32)
{
    std::mt19937 rng(41);
    std::map<std::string, HostTensor> inputs{{"x", HostTensor::random(DataType::kFLOAT, makeDims({8, 64}), rng)}};
    std::map<std::string, HostTensor> expected;
    ScopedEnv fuseOff("KILN_FUSE", "0");
    {
        WeightStore store;
        NetworkRunner ref;
        buildMlp(ref, store, 7);
        ASSERT_TRUE(ref.build()) << ref.logger().allErrors();
        expected = ref.run(inputs);
    }
    ScopedPrecisionEnv env("0");
    WeightStore store;
    NetworkRunner r;
    buildMlp(r, store, 7);
    r.config().setFlag(BuilderFlag::kFP16);
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    auto actual = r.run(inputs);
    EXPECT_TRUE(sameBits(actual.at("y"), expected.at("y")));
    EXPECT_TRUE(sameBits(actual.at("h"), expected.at("h")));
    std::string const json = engineJson(r);
    EXPECT_EQ(json.find("FP16"), std::string::npos) << json;
}

//! A random fill (never folded) feeding an add; the fill asks for FP16, which Kiln does not give fills.
void buildFill(NetworkRunner& r, BuilderFlag constraint)
{
    ITensor* x = r.addInput("x", DataType::kFLOAT, {4});
    auto* fill = r.network().addFill(makeDims({4}), FillOperation::kRANDOM_UNIFORM, DataType::kFLOAT);
    fill->setAlpha(-1.0);
    fill->setBeta(1.0);
    fill->setName("noise");
    fill->setPrecision(DataType::kHALF);
    auto* add = r.network().addElementWise(*x, *fill->getOutput(0), ElementWiseOperation::kSUM);
    add->setName("addNoise");
    r.markOutput(add->getOutput(0), "y");
    r.config().setFlag(BuilderFlag::kFP16);
    r.config().setFlag(constraint);
}

TEST(PrecisionPassTest, ObeyedConstraintThatCannotHoldFailsTheBuild)
{
    ScopedPrecisionEnv env("1");
    NetworkRunner obey;
    buildFill(obey, BuilderFlag::kOBEY_PRECISION_CONSTRAINTS);
    EXPECT_FALSE(obey.build());
    EXPECT_TRUE(obey.logger().hasError("'noise'")) << obey.logger().allErrors();
    EXPECT_TRUE(obey.logger().hasError("kOBEY_PRECISION_CONSTRAINTS")) << obey.logger().allErrors();

    NetworkRunner prefer;
    buildFill(prefer, BuilderFlag::kPREFER_PRECISION_CONSTRAINTS);
    EXPECT_TRUE(prefer.build()) << prefer.logger().allErrors();
    std::mt19937 rng(51);
    auto out = prefer.run({{"x", HostTensor::random(DataType::kFLOAT, makeDims({4}), rng)}});
    EXPECT_EQ(out.at("y").type, DataType::kFLOAT);
}

TEST(PrecisionPassTest, IntegerAndShapeTensorsKeepTheirTypes)
{
    ScopedPrecisionEnv env("1");
    // x[4,6] float -> shape (INT64) -> used to reshape a float tensor; gather with INT32 indices.
    NetworkRunner r;
    ITensor* x = r.addInput("x", DataType::kFLOAT, {4, 6});
    ITensor* idx = r.addInput("idx", DataType::kINT32, {3});
    auto* neg = r.network().addUnary(*x, UnaryOperation::kNEG);
    neg->setName("neg");
    auto* gather = r.network().addGather(*neg->getOutput(0), *idx, 1);
    gather->setName("gather");
    auto* shape = r.network().addShape(*gather->getOutput(0));
    shape->setName("shape");
    auto* shuffle = r.network().addShuffle(*neg->getOutput(0));
    shuffle->setReshapeDimensions(makeDims({6, 4}));
    shuffle->setName("reshape");
    r.markOutput(gather->getOutput(0), "g");
    r.markOutput(shape->getOutput(0), "s");
    r.markOutput(shuffle->getOutput(0), "t");
    r.config().setFlag(BuilderFlag::kFP16);
    r.config().setProfilingVerbosity(ProfilingVerbosity::kDETAILED);
    ASSERT_TRUE(r.build()) << r.logger().allErrors();
    EXPECT_EQ(r.engine().getTensorDataType("idx"), DataType::kINT32);
    EXPECT_EQ(r.engine().getTensorDataType("s"), DataType::kINT64);
    EXPECT_EQ(r.engine().getTensorDataType("g"), DataType::kFLOAT);
    std::mt19937 rng(61);
    HostTensor xs = HostTensor::random(DataType::kFLOAT, makeDims({4, 6}), rng);
    HostTensor ids = HostTensor::fromValues(DataType::kINT32, makeDims({3}), {5, 0, 2});
    auto out = r.run({{"x", xs}, {"idx", ids}});
    // Independent reference: -x rounded through FP16 (values in [-1, 1]: error <= 2^-11).
    for (int64_t i = 0; i < 4; ++i)
    {
        for (int64_t j = 0; j < 3; ++j)
        {
            double const want = -xs.at(i * 6 + static_cast<int64_t>(ids.at(j)));
            EXPECT_NEAR(out.at("g").at(i * 3 + j), want, 1e-3);
        }
    }
    EXPECT_EQ(out.at("s").at(0), 4);
    EXPECT_EQ(out.at("s").at(1), 3);
    for (int64_t i = 0; i < 24; ++i)
    {
        EXPECT_NEAR(out.at("t").at(i), -xs.at(i), 1e-3);
    }
    EXPECT_NE(layerJson(engineJson(r), "gather").find("\"Precision\": \"FP16\""), std::string::npos) << engineJson(r);
}

} // namespace
} // namespace kiln::test
