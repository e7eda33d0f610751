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

TEST(OnnxFoldingGpu, ConstantMaskFoldsWhenTheGpuIsTheDefault)
{
    KILN_REQUIRE_CUDA_BACKEND();
    // mask = (a == b) AND NOT (a > c), folded at parse time; y = Where(mask, x, -x) runs on the GPU.
    std::mt19937 rng(31);
    std::uniform_int_distribution<int64_t> small(0, 3);
    std::vector<int64_t> a(64), b(64), c(64);
    for (size_t i = 0; i < a.size(); ++i)
    {
        a[i] = small(rng);
        b[i] = small(rng);
        c[i] = small(rng);
    }
    OnnxModelBuilder model(13);
    model.addInput("x", DataType::kFLOAT, {64});
    model.addInitializer("a", OnnxConstant::fromInt64(a, {64}));
    model.addInitializer("b", OnnxConstant::fromInt64(b, {64}));
    model.addInitializer("c", OnnxConstant::fromInt64(c, {64}));
    model.addNode("Equal", {"a", "b"}, {"same"});
    model.addNode("Greater", {"a", "c"}, {"above"});
    model.addNode("Not", {"above"}, {"notAbove"});
    model.addNode("And", {"same", "notAbove"}, {"mask"});
    model.addNode("Neg", {"x"}, {"negX"});
    model.addNode("Where", {"mask", "x", "negX"}, {"y"});
    model.addOutput("y", DataType::kFLOAT);
    std::string const bytes = model.serialize();

    bool parsed = false;
    auto gpu = buildFor(kiln::BackendKind::kCUDA, [&](NetworkRunner& runner) {
        std::unique_ptr<nvonnxparser::IParser> parser(nvonnxparser::createParser(runner.network(), runner.logger()));
        parsed = parser != nullptr && parser->parse(bytes.data(), bytes.size());
    });
    ASSERT_TRUE(parsed);
    ASSERT_NE(gpu, nullptr);
    // The mask was folded (no comparison or logic layer is left) and the CUDA context is healthy.
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
    ASSERT_EQ(outputs.count("y"), 1U);
    for (int64_t i = 0; i < 64; ++i)
    {
        bool const mask = a[static_cast<size_t>(i)] == b[static_cast<size_t>(i)] && !(a[static_cast<size_t>(i)] > c[static_cast<size_t>(i)]);
        float const xv = static_cast<float>(x.at(i));
        EXPECT_EQ(static_cast<float>(outputs["y"].at(i)), mask ? xv : -xv) << "element " << i;
    }
}

} // namespace
} // namespace kiln::test::gpu
