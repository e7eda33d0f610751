// engineKernelCheckTest.cpp — issue 17, item 2: crafted engines (decoded, edited, written again with valid checksums)
// whose nodes' recorded types or formats are not what the backend's kernel accepts, and a V2 plugin node whose
// recorded output count is not what the plugin reports, are refused by deserializeCudaEngine with the node named,
// not later when an execution context is created; a matrix multiply fused with a bias and a residual keeps its
// "fuse.residual" node through the engine file, and loses it to a refusal when the node is edited. Also the format rule of the kernels themselves
// (checkKernelFormats): kLINEAR everywhere, reformat nodes as their attributes say.
#include "backends/backend.h"
#include "engine/engineReader.h"
#include "engine/engineWriter.h"
#include "plugin/samplePluginsTestUtils.h"

#include "core/tensorFormat.h"

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace kiln
{
namespace
{

using nvinfer1::DataType;
using nvinfer1::TensorFormat;
using Bytes = std::vector<uint8_t>;

//! x [-1, 8] -> softmax ("soft") -> y, built for the CPU backend.
Bytes softMaxEngine()
{
    test::NetworkRunner runner(BackendKind::kCPU, 0);
    nvinfer1::ITensor* x = runner.addInput("x", DataType::kFLOAT, {-1, 8});
    nvinfer1::ISoftMaxLayer* soft = runner.network().addSoftMax(*x);
    EXPECT_NE(soft, nullptr);
    if (soft == nullptr)
    {
        return {};
    }
    soft->setName("soft");
    soft->setAxes(2U);
    runner.markOutput(soft->getOutput(0), "y");
    runner.setProfileDims("x", {1, 8}, {2, 8}, {4, 8});
    EXPECT_TRUE(runner.build()) << runner.logger().allErrors();
    return runner.engineBytes();
}

//! Decode `bytes`, apply `edit` to the Plan and encode it again (valid checksums, no validation).
Bytes edited(Bytes const& bytes, std::function<void(Plan&)> const& edit)
{
    auto plan = readEngine(bytes.data(), bytes.size());
    EXPECT_TRUE(plan.isOk()) << plan.status().message();
    if (!plan.isOk())
    {
        return {};
    }
    edit(plan.value());
    auto written = writeEngineUnchecked(plan.value());
    EXPECT_TRUE(written.isOk()) << written.status().message();
    return written.isOk() ? written.value() : Bytes{};
}

int32_t tensorNamed(Plan const& plan, std::string const& name)
{
    for (size_t t = 0; t < plan.tensors.size(); ++t)
    {
        if (plan.tensors[t].name == name)
        {
            return static_cast<int32_t>(t);
        }
    }
    ADD_FAILURE() << "no tensor " << name;
    return 0;
}

//! Deserialize `bytes` in a fresh runtime: the engine, and every error logged.
std::unique_ptr<nvinfer1::ICudaEngine> load(Bytes const& bytes, test::CapturingLogger& logger)
{
    std::unique_ptr<nvinfer1::IRuntime> runtime(nvinfer1::createInferRuntime(logger));
    EXPECT_NE(runtime, nullptr);
    if (runtime == nullptr)
    {
        return nullptr;
    }
    return std::unique_ptr<nvinfer1::ICudaEngine>(runtime->deserializeCudaEngine(bytes.data(), bytes.size()));
}

void expectRefusedAtLoad(Bytes const& bytes, std::vector<std::string> const& expected)
{
    test::CapturingLogger logger;
    auto engine = load(bytes, logger);
    EXPECT_EQ(engine, nullptr) << "the crafted engine was accepted";
    for (std::string const& text : expected)
    {
        EXPECT_TRUE(logger.hasError(text)) << "expected '" << text << "' in: " << logger.allErrors();
    }
}

TEST(EngineKernelCheck, UneditedEngineLoadsAfterTheRoundTrip)
{
    Bytes const bytes = softMaxEngine();
    ASSERT_FALSE(bytes.empty());
    test::CapturingLogger logger;
    auto engine = load(edited(bytes, [](Plan&) {}), logger);
    ASSERT_NE(engine, nullptr) << logger.allErrors();
    std::unique_ptr<nvinfer1::IExecutionContext> ctx(engine->createExecutionContext());
    EXPECT_NE(ctx, nullptr) << logger.allErrors();
}

TEST(EngineKernelCheck, WrongTypeOnANodeIsRefusedAtLoadNamingTheNode)
{
    Bytes const bytes = softMaxEngine();
    ASSERT_FALSE(bytes.empty());
    // The softmax kernel computes in a float type: an INT32 input is refused by its factory.
    Bytes const crafted = edited(bytes, [](Plan& plan) { plan.tensors[static_cast<size_t>(tensorNamed(plan, "x"))].type = DataType::kINT32; });
    ASSERT_FALSE(crafted.empty());
    expectRefusedAtLoad(crafted, {"invalid engine: node 'soft' (SoftMax", "is not what the CPU backend's kernel accepts"});
}

TEST(EngineKernelCheck, WrongFormatOnANodeIsRefusedAtLoadNamingTheNode)
{
    Bytes const bytes = softMaxEngine();
    ASSERT_FALSE(bytes.empty());
    Bytes const crafted = edited(bytes, [](Plan& plan) { plan.tensors[static_cast<size_t>(tensorNamed(plan, "y"))].format = TensorFormat::kHWC8; });
    ASSERT_FALSE(crafted.empty());
    expectRefusedAtLoad(crafted, {"invalid engine: node 'soft' (SoftMax",
        "node 'soft': output 0 has format kHWC8, but the kernel reads and writes kLINEAR tensors only"});
}

TEST(EngineKernelCheck, V2PluginOutputCountMustMatchThePlugin)
{
    // a, b -> BarPlugin (IPluginV2DynamicExt, 2 outputs) -> concat, copy.
    test::NetworkRunner runner(BackendKind::kCPU, 0);
    nvinfer1::ITensor* a = runner.addInput("a", DataType::kFLOAT, {-1, 2, 3});
    nvinfer1::ITensor* b = runner.addInput("b", DataType::kFLOAT, {-1, 2, 3});
    auto plugin = test::samplesupport::createV2("BarPlugin");
    ASSERT_NE(plugin, nullptr);
    nvinfer1::ITensor* inputs[] = {a, b};
    nvinfer1::IPluginV2Layer* layer = runner.network().addPluginV2(inputs, 2, *plugin);
    ASSERT_NE(layer, nullptr) << runner.logger().allErrors();
    layer->setName("bar");
    runner.markOutput(layer->getOutput(0), "concat");
    runner.markOutput(layer->getOutput(1), "copy");
    runner.setProfileDims("a", {1, 2, 3}, {2, 2, 3}, {4, 2, 3});
    runner.setProfileDims("b", {1, 2, 3}, {3, 2, 3}, {5, 2, 3});
    ASSERT_TRUE(runner.build()) << runner.logger().allErrors();

    // A third output, shaped like 'copy', that the plugin never writes.
    Bytes const crafted = edited(runner.engineBytes(), [](Plan& plan) {
        int32_t const copy = tensorNamed(plan, "copy");
        PlanTensor extra = plan.tensors[static_cast<size_t>(copy)];
        extra.name = "extra";
        extra.ioMode = nvinfer1::TensorIOMode::kNONE;
        int32_t const index = static_cast<int32_t>(plan.tensors.size());
        plan.tensors.push_back(extra);
        for (PlanProfile& p : plan.profiles)
        {
            if (!p.tensorOffsets.empty())
            {
                p.tensorOffsets.push_back(-1);
                p.tensorCapacity.push_back(0);
            }
        }
        for (PlanNode& node : plan.nodes)
        {
            if (node.kind == nvinfer1::LayerType::kPLUGIN_V2)
            {
                node.outputs.push_back(index);
            }
        }
    });
    ASSERT_FALSE(crafted.empty());
    expectRefusedAtLoad(crafted, {"layer 'bar': the engine records 3 outputs for plugin 'BarPlugin', but the plugin "
                                  "reports 2 (getNbOutputs)"});
}

//! A KernelSetup for `node` with one input and one output of the given formats.
KernelSetup formatSetup(PlanNode const& node, TensorFormat in, TensorFormat out)
{
    KernelSetup s;
    s.node = &node;
    s.inputTypes = {DataType::kFLOAT};
    s.inputPresent = {true};
    s.inputRanks = {4};
    s.inputFormats = {in};
    s.outputTypes = {DataType::kFLOAT};
    s.outputRanks = {4};
    s.outputFormats = {out};
    return s;
}

//! x [4, 8] · W [8, 8] + B [1, 8] + r [4, 8] ("mm", "bias", "res"), built for the CPU backend (which fuses the three
//! into one node with "fuse.residual").
Bytes residualEngine(std::vector<float> const& weights, std::vector<float> const& bias)
{
    test::NetworkRunner runner(BackendKind::kCPU, 0);
    nvinfer1::INetworkDefinition& n = runner.network();
    nvinfer1::ITensor* x = runner.addInput("x", DataType::kFLOAT, {4, 8});
    nvinfer1::ITensor* r = runner.addInput("r", DataType::kFLOAT, {4, 8});
    nvinfer1::Weights const w{DataType::kFLOAT, weights.data(), static_cast<int64_t>(weights.size())};
    nvinfer1::Weights const b{DataType::kFLOAT, bias.data(), static_cast<int64_t>(bias.size())};
    auto* mm = n.addMatrixMultiply(*x, nvinfer1::MatrixOperation::kNONE,
        *n.addConstant(nvinfer1::Dims{2, {8, 8}}, w)->getOutput(0), nvinfer1::MatrixOperation::kNONE);
    mm->setName("mm");
    auto* add = n.addElementWise(*mm->getOutput(0), *n.addConstant(nvinfer1::Dims{2, {1, 8}}, b)->getOutput(0),
        nvinfer1::ElementWiseOperation::kSUM);
    add->setName("bias");
    auto* res = n.addElementWise(*add->getOutput(0), *r, nvinfer1::ElementWiseOperation::kSUM);
    res->setName("res");
    runner.markOutput(res->getOutput(0), "y");
    EXPECT_TRUE(runner.build()) << runner.logger().allErrors();
    return runner.engineBytes();
}

//! The fused node, or nullptr.
PlanNode* residualNode(Plan& plan)
{
    for (PlanNode& node : plan.nodes)
    {
        if (node.attrs.getInt("fuse.residual", 0) == 1)
        {
            return &node;
        }
    }
    ADD_FAILURE() << "no node with fuse.residual in the engine";
    return nullptr;
}

TEST(EngineKernelCheck, ResidualEpilogueSurvivesTheEngineFileAndEditsAreRefused)
{
    std::vector<float> weights(64);
    std::vector<float> bias(8);
    for (size_t i = 0; i < weights.size(); ++i)
    {
        weights[i] = static_cast<float>((i * 37) % 17) / 17.F - 0.5F;
    }
    for (size_t i = 0; i < bias.size(); ++i)
    {
        bias[i] = static_cast<float>(i) / 8.F - 0.4F;
    }
    Bytes const bytes = residualEngine(weights, bias);
    ASSERT_FALSE(bytes.empty());
    auto plan = readEngine(bytes.data(), bytes.size());
    ASSERT_TRUE(plan.isOk()) << plan.status().message();
    PlanNode const* node = residualNode(plan.value());
    ASSERT_NE(node, nullptr);
    EXPECT_EQ(node->name, "mm + bias + res");
    EXPECT_EQ(node->inputs.size(), 4U);
    EXPECT_EQ(node->attrs.getInt("fuse.add", 0), 1);
    // The residual's input removed: the kernel factory refuses the node when the engine is loaded.
    Bytes const noInput = edited(bytes, [](Plan& p) {
        if (PlanNode* n = residualNode(p))
        {
            n->inputs.pop_back();
        }
    });
    expectRefusedAtLoad(noInput, {"invalid engine: node 'mm + bias + res'", "fuse.residual"});
    // A residual without the addition before it.
    Bytes const noAdd = edited(bytes, [](Plan& p) {
        if (PlanNode* n = residualNode(p))
        {
            n->attrs.setInt("fuse.add", 0);
            n->inputs.pop_back();
        }
    });
    expectRefusedAtLoad(noAdd, {"invalid engine: node 'mm + bias + res'", "needs a fused addition (fuse.add)"});
}

TEST(EngineKernelCheck, KernelFormatsAreLinearExceptWhatAReformatConverts)
{
    PlanNode relu;
    relu.kind = nvinfer1::LayerType::kACTIVATION;
    relu.name = "relu";
    EXPECT_TRUE(checkKernelFormats(formatSetup(relu, TensorFormat::kLINEAR, TensorFormat::kLINEAR)).isOk());
    Status st = checkKernelFormats(formatSetup(relu, TensorFormat::kCHW4, TensorFormat::kLINEAR));
    EXPECT_NE(st.message().find("node 'relu': input 0 has format kCHW4"), std::string::npos) << st.message();
    KernelSetup noFormats = formatSetup(relu, TensorFormat::kLINEAR, TensorFormat::kLINEAR);
    noFormats.inputFormats.clear(); // hand-made setups without formats count as kLINEAR
    noFormats.outputFormats.clear();
    EXPECT_TRUE(checkKernelFormats(noFormats).isOk());

    PlanNode reformat;
    reformat.kind = nvinfer1::LayerType::kIDENTITY;
    reformat.name = "to hwc8";
    reformat.attrs.setInt("reformat", 1);
    reformat.attrs.setInt("inFormat", static_cast<int64_t>(TensorFormat::kLINEAR));
    reformat.attrs.setInt("outFormat", static_cast<int64_t>(TensorFormat::kHWC8));
    EXPECT_TRUE(checkKernelFormats(formatSetup(reformat, TensorFormat::kLINEAR, TensorFormat::kHWC8)).isOk());
    // The reformat would write kHWC8 storage into a tensor recorded (and sized) as kCHW32, or read kLINEAR storage
    // from a tensor recorded as kHWC8.
    st = checkKernelFormats(formatSetup(reformat, TensorFormat::kLINEAR, TensorFormat::kCHW32));
    EXPECT_NE(st.message().find("node 'to hwc8': output 0 has format kCHW32, but the node's \"outFormat\" attribute "
                                "says kHWC8"),
        std::string::npos)
        << st.message();
    st = checkKernelFormats(formatSetup(reformat, TensorFormat::kHWC8, TensorFormat::kHWC8));
    EXPECT_NE(st.message().find("input 0 has format kHWC8, but the node's \"inFormat\" attribute says kLINEAR"),
        std::string::npos)
        << st.message();

    // A channel-last node (channelLastPass): data input, fused addition (the last input) and output are kHWC8.
    PlanNode conv;
    conv.kind = nvinfer1::LayerType::kCONVOLUTION;
    conv.name = "conv";
    conv.attrs.setInt(kCHANNEL_LAST_ATTRIBUTE, 1);
    EXPECT_TRUE(checkKernelFormats(formatSetup(conv, TensorFormat::kHWC8, TensorFormat::kHWC8)).isOk());
    st = checkKernelFormats(formatSetup(conv, TensorFormat::kLINEAR, TensorFormat::kHWC8));
    EXPECT_NE(st.message().find("input 0 has format kLINEAR, but a region node's activations"), std::string::npos)
        << st.message();
    conv.attrs.setInt("fuse.add", 1);
    KernelSetup withAdd = formatSetup(conv, TensorFormat::kHWC8, TensorFormat::kHWC8);
    withAdd.inputTypes.push_back(DataType::kFLOAT);
    withAdd.inputPresent.push_back(true);
    withAdd.inputRanks.push_back(4);
    withAdd.inputFormats.push_back(TensorFormat::kHWC8);
    EXPECT_TRUE(checkKernelFormats(withAdd).isOk());
    withAdd.inputFormats.back() = TensorFormat::kLINEAR;
    EXPECT_FALSE(checkKernelFormats(withAdd).isOk());

    // The region format named by the node (the CPU's kHWC); a reader (the global average pool's reduction) reads it
    // and writes kLINEAR.
    conv.attrs.setInt(kREGION_FORMAT_ATTRIBUTE, static_cast<int64_t>(TensorFormat::kHWC));
    withAdd.inputFormats = {TensorFormat::kHWC, TensorFormat::kHWC};
    withAdd.outputFormats = {TensorFormat::kHWC};
    EXPECT_TRUE(checkKernelFormats(withAdd).isOk());
    withAdd.outputFormats = {TensorFormat::kHWC8};
    st = checkKernelFormats(withAdd);
    EXPECT_NE(st.message().find("output 0 has format kHWC8, but a region node's activations (data input, fused "
                                "addition, output) are kHWC"),
        std::string::npos)
        << st.message();
    PlanNode gap;
    gap.kind = nvinfer1::LayerType::kREDUCE;
    gap.name = "gap";
    gap.attrs.setInt(kCHANNEL_LAST_ATTRIBUTE, 1);
    gap.attrs.setInt(kREGION_FORMAT_ATTRIBUTE, static_cast<int64_t>(TensorFormat::kCHW16));
    EXPECT_TRUE(checkKernelFormats(formatSetup(gap, TensorFormat::kCHW16, TensorFormat::kLINEAR)).isOk());
    EXPECT_FALSE(checkKernelFormats(formatSetup(gap, TensorFormat::kCHW16, TensorFormat::kCHW16)).isOk());
    EXPECT_FALSE(checkKernelFormats(formatSetup(gap, TensorFormat::kLINEAR, TensorFormat::kLINEAR)).isOk());

    // The CPU backend's kernel-create path applies the rule.
    auto session = cpuBackend().createSession();
    ASSERT_TRUE(session.isOk()) << session.status().message();
    relu.attrs.setInt("type", static_cast<int64_t>(nvinfer1::ActivationType::kRELU));
    relu.attrs.setFloat("alpha", 0.0);
    relu.attrs.setFloat("beta", 0.0);
    auto accepted = session.value()->createKernel(formatSetup(relu, TensorFormat::kLINEAR, TensorFormat::kLINEAR));
    EXPECT_TRUE(accepted.isOk()) << accepted.status().message();
    auto refused = session.value()->createKernel(formatSetup(relu, TensorFormat::kLINEAR, TensorFormat::kHWC8));
    ASSERT_FALSE(refused.isOk());
    EXPECT_NE(refused.status().message().find("output 0 has format kHWC8"), std::string::npos)
        << refused.status().message();
}

} // namespace
} // namespace kiln
