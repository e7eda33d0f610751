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

//! The CUDA engine of the model, parsed while the GPU is the process's default backend. The parser owns the folded
//! mask's weights and outlives the build, as TensorRT requires.
std::unique_ptr<NetworkRunner> buildMaskEngine(FoldedMaskModel const& m)
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
    FoldedMaskModel const m = foldedMaskModel(rng);
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
    FoldedMaskModel const m = foldedMaskModel(rng);
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
