// Hand-built Plans with plugin nodes for the runtime's plugin tests (independent of the builder), and a runtime
// fixture whose registry knows the test plugins of pluginRuntimeTestPlugins.h.
//  - makeAddCounterPlan: x [N,4] FP32 -> AddCounter (IPluginV2DynamicExt) -> y; N in [1,8]; the plugin's workspace
//    lies in the arena (offset kWORKSPACE_OFFSET).
//  - makeNonZeroPlan: x [R,5] FP32 -> NonZero (IPluginV3) -> idx [count,2] INT32 (data-dependent, outside the
//    arena) + count (0-D INT32 size tensor, network output) ; idx -> Identity -> out [count,2] (network output);
//    R in [1,6]; count's upper bound is R*5.
//  - makeNegatePlan: x [N,4] -> Negate (plain IPluginV2) -> y.
#pragma once

#include "plugin/pluginAdapter.h"
#include "runtime/pluginRuntimeTestPlugins.h"
#include "runtime/runtimeTestPlans.h"

#include <cstring>

namespace kiln::test
{

constexpr int64_t kWORKSPACE_OFFSET = 256;

inline std::string floatBytes(float v)
{
    std::string s(sizeof(float), '\0');
    std::memcpy(s.data(), &v, sizeof(float));
    return s;
}

inline PlanNode pluginNode(nvinfer1::LayerType kind, std::string name, PluginRecord const& record,
    std::vector<int32_t> inputs, std::vector<int32_t> outputs)
{
    PlanNode n;
    n.kind = kind;
    n.name = std::move(name);
    n.inputs = std::move(inputs);
    n.outputs = std::move(outputs);
    n.tactic = "plugin";
    storePluginRecord(record, n.attrs);
    n.attrs.setInt("plugin.nbShapeInputs", 0);
    return n;
}

inline PluginRecord addCounterRecord(float bias)
{
    PluginRecord r;
    r.name = "KilnTestAddCounter";
    r.version = "1";
    r.pluginNamespace = plugins::kNAMESPACE;
    r.generation = PluginGeneration::kV2_DYNAMIC_EXT;
    r.data = floatBytes(bias);
    r.aliases = {-1};
    return r;
}

inline Plan makeAddCounterPlan(float bias)
{
    using nvinfer1::DataType;
    using nvinfer1::TensorIOMode;
    Plan plan;
    plan.name = "addCounter";
    plan.profilingVerbosity = nvinfer1::ProfilingVerbosity::kDETAILED;
    ExprId const n = plan.shapes.symbol(SymbolKind::kINPUT_DIM, "x[0]");
    ExprId const four = plan.shapes.constant(4);
    plan.tensors.push_back(planTensor("x", DataType::kFLOAT, {n, four}, TensorIOMode::kINPUT));
    plan.tensors.push_back(planTensor("y", DataType::kFLOAT, {n, four}, TensorIOMode::kOUTPUT));
    plan.ioTensors = {0, 1};
    plan.nodes.push_back(pluginNode(nvinfer1::LayerType::kPLUGIN_V2, "addCounter", addCounterRecord(bias), {0}, {1}));
    PlanProfile p;
    p.inputs.push_back(profileInput(0, {1, 4}, {2, 4}, {8, 4}));
    p.tensorOffsets = {-1, -1};
    p.tensorCapacity = {0, 0};
    p.workspaceOffsets = {kWORKSPACE_OFFSET};
    p.workspaceSizes = {plugins::AddCounterPlugin::kWORKSPACE};
    p.arenaSize = 512;
    plan.profiles.push_back(p);
    return plan;
}

inline PluginRecord nonZeroRecord()
{
    PluginRecord r;
    r.name = "KilnTestNonZero";
    r.version = "1";
    r.pluginNamespace = plugins::kNAMESPACE;
    r.generation = PluginGeneration::kV3_ONE;
    int32_t layout = 1;
    nvinfer1::PluginField field{"layout", &layout, nvinfer1::PluginFieldType::kINT32, 1};
    nvinfer1::PluginFieldCollection fc{1, &field};
    r.data = encodePluginFields(fc);
    r.aliases = {-1, -1};
    return r;
}

constexpr int64_t kNONZERO_COLUMNS = 5;

inline Plan makeNonZeroPlan()
{
    using nvinfer1::DataType;
    using nvinfer1::TensorIOMode;
    Plan plan;
    plan.name = "nonZero";
    plan.profilingVerbosity = nvinfer1::ProfilingVerbosity::kDETAILED;
    ShapeGraph& g = plan.shapes;
    ExprId const rows = g.symbol(SymbolKind::kINPUT_DIM, "x[0]");
    ExprId const cols = g.constant(kNONZERO_COLUMNS);
    ExprId const count = g.symbol(SymbolKind::kDATA_DEPENDENT, "nonZero.1.size");
    ExprId const upper = g.op(ExprOp::kPROD, rows, cols);
    ExprId const opt = g.op(ExprOp::kFLOOR_DIV, upper, g.constant(2));
    g.setSymbolBounds(static_cast<int32_t>(g.node(count).value), upper, opt);
    ExprId const two = g.constant(2);
    plan.tensors.push_back(planTensor("x", DataType::kFLOAT, {rows, cols}, TensorIOMode::kINPUT));
    plan.tensors.push_back(planTensor("idx", DataType::kINT32, {count, two}));
    plan.tensors.push_back(planTensor("count", DataType::kINT32, {}, TensorIOMode::kOUTPUT));
    plan.tensors[2].hasValues = true;
    plan.tensors[2].values = {count};
    plan.tensors[2].sizeTensorSymbol = static_cast<int32_t>(g.node(count).value);
    plan.tensors.push_back(planTensor("out", DataType::kINT32, {count, two}, TensorIOMode::kOUTPUT));
    plan.ioTensors = {0, 2, 3};
    plan.nodes.push_back(pluginNode(nvinfer1::LayerType::kPLUGIN_V3, "nonZero", nonZeroRecord(), {0}, {1, 2}));
    plan.nodes.push_back(identityNode("copy", 1, 3));
    PlanProfile p;
    p.inputs.push_back(profileInput(0, {1, kNONZERO_COLUMNS}, {3, kNONZERO_COLUMNS}, {6, kNONZERO_COLUMNS}));
    p.tensorOffsets = {-1, -1, -1, -1};
    p.tensorCapacity = {0, 0, 0, 0};
    p.arenaSize = 0;
    plan.profiles.push_back(p);
    return plan;
}

inline PluginRecord negateRecord()
{
    PluginRecord r;
    r.name = "KilnTestNegate";
    r.version = "1";
    r.pluginNamespace = plugins::kNAMESPACE;
    r.generation = PluginGeneration::kV2;
    r.aliases = {-1};
    return r;
}

inline Plan makeNegatePlan()
{
    using nvinfer1::DataType;
    using nvinfer1::TensorIOMode;
    Plan plan;
    plan.name = "negate";
    ExprId const n = plan.shapes.symbol(SymbolKind::kINPUT_DIM, "x[0]");
    ExprId const four = plan.shapes.constant(4);
    plan.tensors.push_back(planTensor("x", DataType::kFLOAT, {n, four}, TensorIOMode::kINPUT));
    plan.tensors.push_back(planTensor("y", DataType::kFLOAT, {n, four}, TensorIOMode::kOUTPUT));
    plan.ioTensors = {0, 1};
    plan.nodes.push_back(pluginNode(nvinfer1::LayerType::kPLUGIN_V2, "negate", negateRecord(), {0}, {1}));
    PlanProfile p;
    p.inputs.push_back(profileInput(0, {1, 4}, {2, 4}, {64, 4}));
    p.tensorOffsets = {-1, -1};
    p.tensorCapacity = {0, 0};
    plan.profiles.push_back(p);
    return plan;
}

//! Add an optimization profile for input `name` to the runner's builder config (for builds that do not go through
//! NetworkRunner::build, which adds its profiles itself).
inline void addProfile(NetworkRunner& r, char const* name, std::vector<int64_t> const& min,
    std::vector<int64_t> const& opt, std::vector<int64_t> const& max)
{
    nvinfer1::IOptimizationProfile* p = r.builder().createOptimizationProfile();
    EXPECT_TRUE(p->setDimensions(name, nvinfer1::OptProfileSelector::kMIN, makeDims(min)));
    EXPECT_TRUE(p->setDimensions(name, nvinfer1::OptProfileSelector::kOPT, makeDims(opt)));
    EXPECT_TRUE(p->setDimensions(name, nvinfer1::OptProfileSelector::kMAX, makeDims(max)));
    EXPECT_GE(r.config().addOptimizationProfile(p), 0);
}

//! A runtime whose own registry holds the test plugins' creators (namespace "kilnTest").
struct PluginRuntime
{
    CapturingLogger logger;
    RecordingErrorRecorder recorder;
    plugins::AddCounterCreator addCounter;
    plugins::NonZeroCreator nonZero;
    plugins::NegateCreator negate;
    std::unique_ptr<nvinfer1::IRuntime> runtime;

    explicit PluginRuntime(bool registerCreators = true)
    {
        plugins::control().reset();
        runtime.reset(nvinfer1::createInferRuntime(logger));
        runtime->setErrorRecorder(&recorder);
        if (registerCreators)
        {
            KILN_IGNORE_DEPRECATED_BEGIN
            EXPECT_TRUE(runtime->getPluginRegistry().registerCreator(addCounter, plugins::kNAMESPACE));
            EXPECT_TRUE(runtime->getPluginRegistry().registerCreator(negate, plugins::kNAMESPACE));
            KILN_IGNORE_DEPRECATED_END
            EXPECT_TRUE(runtime->getPluginRegistry().registerCreator(
                static_cast<nvinfer1::IPluginCreatorInterface&>(nonZero), plugins::kNAMESPACE));
        }
    }

    std::unique_ptr<nvinfer1::ICudaEngine> load(std::vector<uint8_t> const& bytes)
    {
        return std::unique_ptr<nvinfer1::ICudaEngine>(runtime->deserializeCudaEngine(bytes.data(), bytes.size()));
    }
    std::unique_ptr<nvinfer1::ICudaEngine> load(Plan const& plan) { return load(serializePlan(plan)); }
};

} // namespace kiln::test
