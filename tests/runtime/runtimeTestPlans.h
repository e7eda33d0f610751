// Hand-built Plans for the runtime tests (independent of the builder): a two-node Identity chain with a
// dynamic batch and two profiles, named dimensions, a shape-tensor input with a folded value tensor, and
// deliberately broken plans. Plus helpers to serialize them and deserialize through the public runtime API.
#pragma once

#include "NvInferRuntime.h"
#include "common/networkRunner.h"
#include "engine/engineWriter.h"
#include "engine/plan.h"

#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <vector>

namespace kiln::test
{

inline nvinfer1::Dims dimsOf(std::vector<int64_t> const& v)
{
    return makeDims(v);
}

inline PlanTensor planTensor(std::string name, nvinfer1::DataType type, std::vector<ExprId> dims,
    nvinfer1::TensorIOMode mode = nvinfer1::TensorIOMode::kNONE)
{
    PlanTensor t;
    t.name = std::move(name);
    t.type = type;
    t.dims = std::move(dims);
    t.ioMode = mode;
    return t;
}

inline PlanNode identityNode(std::string name, int32_t in, int32_t out)
{
    PlanNode n;
    n.kind = nvinfer1::LayerType::kIDENTITY;
    n.name = std::move(name);
    n.inputs = {in};
    n.outputs = {out};
    n.tactic = "reference";
    n.metadata = "meta:" + n.name;
    return n;
}

inline PlanProfileInput profileInput(int32_t tensor, std::vector<int64_t> min, std::vector<int64_t> opt,
    std::vector<int64_t> max)
{
    PlanProfileInput in;
    in.tensor = tensor;
    in.min = makeDims(min);
    in.opt = makeDims(opt);
    in.max = makeDims(max);
    return in;
}

//! x [N,4] FP32 -> Identity "first" -> t (arena) -> Identity "second" -> y [N,4].
//! Profile 0: N in [1,8] (opt 2); profile 1: N in [8,32] (opt 16).
inline Plan makeChainPlan(nvinfer1::DataType type = nvinfer1::DataType::kFLOAT)
{
    Plan plan;
    plan.name = "chain";
    plan.backend = "cpu";
    plan.profilingVerbosity = nvinfer1::ProfilingVerbosity::kDETAILED;
    ExprId const n = plan.shapes.symbol(SymbolKind::kINPUT_DIM, "x[0]");
    ExprId const four = plan.shapes.constant(4);
    plan.tensors.push_back(planTensor("x", type, {n, four}, nvinfer1::TensorIOMode::kINPUT));
    plan.tensors.push_back(planTensor("t", type, {n, four}));
    plan.tensors.push_back(planTensor("y", type, {n, four}, nvinfer1::TensorIOMode::kOUTPUT));
    plan.ioTensors = {0, 2};
    plan.nodes.push_back(identityNode("first", 0, 1));
    plan.nodes.push_back(identityNode("second", 1, 2));
    int64_t const elem = type == nvinfer1::DataType::kHALF ? 2 : 4;
    for (int64_t maxN : {8, 32})
    {
        PlanProfile p;
        p.inputs.push_back(maxN == 8 ? profileInput(0, {1, 4}, {2, 4}, {8, 4}) : profileInput(0, {8, 4}, {16, 4}, {32, 4}));
        p.tensorOffsets = {-1, 0, -1};
        p.tensorCapacity = {0, maxN * 4 * elem, 0};
        p.arenaSize = (maxN * 4 * elem + 255) / 256 * 256;
        plan.profiles.push_back(p);
    }
    return plan;
}

//! Inputs a [B,3] and b [B,3] share the named dimension "batch"; outputs ya = a, yb = b.
inline Plan makeNamedDimsPlan()
{
    Plan plan;
    plan.name = "named";
    ExprId const b = plan.shapes.symbol(SymbolKind::kINPUT_DIM, "batch");
    ExprId const three = plan.shapes.constant(3);
    using nvinfer1::DataType;
    using nvinfer1::TensorIOMode;
    plan.tensors.push_back(planTensor("a", DataType::kFLOAT, {b, three}, TensorIOMode::kINPUT));
    plan.tensors.push_back(planTensor("b", DataType::kFLOAT, {b, three}, TensorIOMode::kINPUT));
    plan.tensors.push_back(planTensor("ya", DataType::kFLOAT, {b, three}, TensorIOMode::kOUTPUT));
    plan.tensors.push_back(planTensor("yb", DataType::kFLOAT, {b, three}, TensorIOMode::kOUTPUT));
    plan.tensors[0].dimNames = {"batch", ""};
    plan.tensors[1].dimNames = {"batch", ""};
    plan.ioTensors = {0, 1, 2, 3};
    plan.nodes.push_back(identityNode("copyA", 0, 2));
    plan.nodes.push_back(identityNode("copyB", 1, 3));
    PlanProfile p;
    p.inputs.push_back(profileInput(0, {1, 3}, {2, 3}, {6, 3}));
    p.inputs.push_back(profileInput(1, {1, 3}, {2, 3}, {6, 3}));
    plan.profiles.push_back(p);
    return plan;
}

//! Host shape-tensor input "shape" (INT32 [2], values v0, v1 in [1,10]) -> folded value tensor "doubled"
//! = [2*v0, v1+1] (no producer, materialized in the arena) -> Identity "copy" -> output "o" (INT32 [2]).
inline Plan makeShapeValuesPlan()
{
    using nvinfer1::DataType;
    using nvinfer1::TensorIOMode;
    Plan plan;
    plan.name = "values";
    ShapeGraph& g = plan.shapes;
    ExprId const v0 = g.symbol(SymbolKind::kINPUT_VALUE, "shape.value[0]");
    ExprId const v1 = g.symbol(SymbolKind::kINPUT_VALUE, "shape.value[1]");
    ExprId const two = g.constant(2);
    ExprId const d0 = g.op(ExprOp::kPROD, v0, two);
    ExprId const d1 = g.op(ExprOp::kSUM, v1, g.constant(1));
    plan.tensors.push_back(planTensor("shape", DataType::kINT32, {two}, TensorIOMode::kINPUT));
    plan.tensors[0].hasValues = true;
    plan.tensors[0].values = {v0, v1};
    plan.tensors[0].hostShapeTensor = true;
    plan.tensors.push_back(planTensor("doubled", DataType::kINT32, {two}));
    plan.tensors[1].hasValues = true;
    plan.tensors[1].values = {d0, d1};
    plan.tensors.push_back(planTensor("o", DataType::kINT32, {two}, TensorIOMode::kOUTPUT));
    plan.tensors[2].hasValues = true;
    plan.tensors[2].values = {d0, d1};
    plan.ioTensors = {0, 2};
    plan.nodes.push_back(identityNode("copy", 1, 2));
    PlanProfile p;
    PlanProfileInput in = profileInput(0, {2}, {2}, {2});
    in.minValues = {1, 1};
    in.optValues = {2, 2};
    in.maxValues = {10, 10};
    p.inputs.push_back(in);
    p.tensorOffsets = {-1, 0, -1};
    p.tensorCapacity = {0, 8, 0};
    p.arenaSize = 256;
    plan.profiles.push_back(p);
    return plan;
}

inline std::vector<uint8_t> serializePlan(Plan const& plan)
{
    auto bytes = writeEngine(plan);
    EXPECT_TRUE(bytes.isOk()) << bytes.status().message();
    return bytes.isOk() ? bytes.value() : std::vector<uint8_t>{};
}

//! `n` random floats in [-10, 10).
inline std::vector<float> randomFloats(size_t n, std::mt19937& rng)
{
    std::uniform_real_distribution<float> dist(-10.0F, 10.0F);
    std::vector<float> v(n);
    for (auto& x : v)
    {
        x = dist(rng);
    }
    return v;
}

//! A runtime plus an engine deserialized from a hand-built plan, with a capturing logger.
struct LoadedEngine
{
    CapturingLogger logger;
    std::unique_ptr<nvinfer1::IRuntime> runtime;
    std::unique_ptr<nvinfer1::ICudaEngine> engine;
    std::vector<uint8_t> bytes;

    explicit LoadedEngine(Plan const& plan)
    {
        bytes = serializePlan(plan);
        runtime.reset(nvinfer1::createInferRuntime(logger));
        if (runtime != nullptr && !bytes.empty())
        {
            engine.reset(runtime->deserializeCudaEngine(bytes.data(), bytes.size()));
        }
        EXPECT_NE(engine, nullptr) << logger.allErrors();
    }
};

//! Counts reportLayerTime calls by layer name.
class CountingProfiler : public nvinfer1::IProfiler
{
public:
    void reportLayerTime(char const* layerName, float ms) noexcept override
    {
        names.emplace_back(layerName);
        total += ms;
    }
    std::vector<std::string> names;
    float total{0.0F};
};

//! 256-byte aligned host buffer.
struct AlignedBuffer
{
    explicit AlignedBuffer(size_t size)
        : bytes(size + 256)
    {
        auto const p = reinterpret_cast<uintptr_t>(bytes.data());
        data = bytes.data() + ((256 - p % 256) % 256);
    }
    std::vector<uint8_t> bytes;
    uint8_t* data;
};

} // namespace kiln::test
