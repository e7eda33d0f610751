// ONNX constant folding in a process whose default backend is the GPU: the parser computes the constant part of a
// graph in a scratch engine whose outputs are host buffers, so that engine must run on the CPU backend whatever the
// default is. GPT-2's dynamo export (a causal mask of Equal/And/Not over constants) made the scratch engine run on
// CUDA, whose kernels then wrote to host addresses (cudaErrorIllegalAddress, and every later CUDA call failed).
#include "gpu/gpuTestUtils.h"
#include "onnx/onnxTestModels.h"

#include "NvOnnxParser.h"

#include <gtest/gtest.h>

#include <memory>
#include <random>

namespace kiln::test::gpu
{
namespace
{

using nvinfer1::DataType;

//! x [64]; mask = (a == b) AND NOT (a > c) over int64 initializers (folded at parse time); y = Where(mask, x, -x).
struct MaskModel
{
    std::vector<int64_t> a, b, c;
    std::string bytes;
    bool mask(size_t i) const { return a[i] == b[i] && !(a[i] > c[i]); }
};

MaskModel maskModel(std::mt19937& rng)
{
    std::uniform_int_distribution<int64_t> small(0, 3);
    MaskModel m;
    for (int32_t i = 0; i < 64; ++i)
    {
        m.a.push_back(small(rng));
        m.b.push_back(small(rng));
        m.c.push_back(small(rng));
    }
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {64});
    model.addInitializer("a", OnnxConstant::fromInt64(m.a, {64}));
    model.addInitializer("b", OnnxConstant::fromInt64(m.b, {64}));
    model.addInitializer("c", OnnxConstant::fromInt64(m.c, {64}));
    model.addNode("Equal", {"a", "b"}, {"same"});
    model.addNode("Greater", {"a", "c"}, {"above"});
    model.addNode("Not", {"above"}, {"notAbove"});
    model.addNode("And", {"same", "notAbove"}, {"mask"});
    model.addNode("Neg", {"x"}, {"negX"});
    model.addNode("Where", {"mask", "x", "negX"}, {"y"});
    model.addOutput("y", DataType::kFLOAT);
    m.bytes = model.serialize();
    return m;
}

//! The CUDA engine of the model, parsed while the GPU is the process's default backend. The parser owns the folded
//! mask's weights and outlives the build, as TensorRT requires.
std::unique_ptr<NetworkRunner> buildMaskEngine(MaskModel const& m)
{
    bool parsed = false;
    std::unique_ptr<nvonnxparser::IParser> parser;
    auto gpu = buildFor(kiln::BackendKind::kCUDA, [&](NetworkRunner& runner) {
        parser.reset(nvonnxparser::createParser(runner.network(), runner.logger()));
        parsed = parser != nullptr && parser->parse(m.bytes.data(), m.bytes.size());
    });
    EXPECT_TRUE(parsed);
    return parsed ? std::move(gpu) : nullptr;
}

TEST(OnnxFoldingGpu, ConstantMaskFoldsWhenTheGpuIsTheDefault)
{
    KILN_REQUIRE_CUDA_BACKEND();
    std::mt19937 rng(31);
    MaskModel const m = maskModel(rng);
    auto gpu = buildMaskEngine(m);
    ASSERT_NE(gpu, nullptr);
    // The mask was folded (no comparison or logic layer is left), the CUDA context is healthy, and the engine runs.
    for (int32_t i = 0; i < gpu->network().getNbLayers(); ++i)
    {
        EXPECT_NE(gpu->network().getLayer(i)->getType(), nvinfer1::LayerType::kELEMENTWISE)
            << gpu->network().getLayer(i)->getName();
    }
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
    HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({64}), rng);
    std::map<std::string, HostTensor> outputs;
    std::string error;
    ASSERT_TRUE(runEngine(gpu->engine(), kiln::BackendKind::kCUDA, {{"x", x}}, outputs, error)) << error;
    EXPECT_EQ(outputs.count("y"), 1U);
}

// The folded mask selects element by element. (This test once destroyed the parser before the build, and the
// freed mask's first bytes, overwritten by the allocator, selected wrongly on both backends.)
TEST(OnnxFoldingGpu, ConstantMaskSelectsElementwise)
{
    KILN_REQUIRE_CUDA_BACKEND();
    std::mt19937 rng(31);
    MaskModel const m = maskModel(rng);
    auto gpu = buildMaskEngine(m);
    ASSERT_NE(gpu, nullptr);
    HostTensor const x = HostTensor::random(DataType::kFLOAT, makeDims({64}), rng);
    std::map<std::string, HostTensor> outputs;
    std::string error;
    ASSERT_TRUE(runEngine(gpu->engine(), kiln::BackendKind::kCUDA, {{"x", x}}, outputs, error)) << error;
    ASSERT_EQ(outputs.count("y"), 1U);
    for (size_t i = 0; i < 64; ++i)
    {
        float const xv = static_cast<float>(x.at(static_cast<int64_t>(i)));
        EXPECT_EQ(static_cast<float>(outputs["y"].at(static_cast<int64_t>(i))), m.mask(i) ? xv : -xv) << "element " << i;
    }
}

} // namespace
} // namespace kiln::test::gpu
